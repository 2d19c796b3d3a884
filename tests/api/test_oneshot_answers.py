"""Every one-shot answer is exactly the TypedDict that /openapi.json documents for it.

The served JSON of realistic requests (server dice, seeded, supplied dice, edge cases) is
validated strictly against the endpoint's answer TypedDict, whose config forbids extra keys: a
key the answer does not declare, a missing one, or a value of the wrong JSON type fails. The
OpenAPI document must point each 200 answer at a component of that TypedDict's name and schema,
and no two schema classes may share a component name.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from pydantic import BaseModel, TypeAdapter
from typing_extensions import is_typeddict

import app.api.schemas
from app.api.schemas.cairn import CairnPosition, CairnRollAnswer
from app.api.schemas.common import RollRecord
from app.api.schemas.d20 import D20CheckAnswer
from app.api.schemas.gurps import (
    GurpsCompetitorRoll,
    QuickContestAnswer,
    RegularContestAnswer,
    RegularRoundPlayed,
    RegularRoundSide,
    ResistanceDefenderRolled,
    ResistanceDefenderUnrolled,
    ResistanceRollAnswer,
    SuccessRollAnswer,
)
from app.api.schemas.long_throws import (
    LongThrowAnswer,
    LongThrowCompetitorResult,
    LongThrowCreatureDamage,
    LongThrowLoadLimits,
    LongThrowObject,
    LongThrowPrecisionThrow,
    LongThrowSeries,
)
from app.api.schemas.notation import NotationRollAnswer
from app.main import create_app
from app.rules import cairn
from app.settings import Settings

SUCCESS_ROLL = "/v1/gurps/success-roll"
QUICK_CONTEST = "/v1/gurps/quick-contest"
RESISTANCE_ROLL = "/v1/gurps/resistance-roll"
REGULAR_CONTEST = "/v1/gurps/regular-contest"
CAIRN_ROLL = "/v1/cairn/roll"
D20_CHECK = "/v1/d20/check"
LONG_THROWS = "/v1/long-throws"
ROLL = "/v1/roll"

#: (method, path) of every one-shot operation, and the TypedDict of its 200 answer.
ANSWERS: dict[tuple[str, str], Any] = {
    ("post", SUCCESS_ROLL): SuccessRollAnswer,
    ("post", QUICK_CONTEST): QuickContestAnswer,
    ("post", RESISTANCE_ROLL): ResistanceRollAnswer,
    ("post", REGULAR_CONTEST): RegularContestAnswer,
    ("post", CAIRN_ROLL): CairnRollAnswer,
    ("post", D20_CHECK): D20CheckAnswer,
    ("post", LONG_THROWS): LongThrowAnswer,
    ("get", ROLL): NotationRollAnswer,
    ("post", ROLL): NotationRollAnswer,
}

#: Every TypedDict the answers are made of, each a component of /openapi.json.
PARTS: tuple[Any, ...] = (
    RollRecord,
    GurpsCompetitorRoll,
    ResistanceDefenderRolled,
    ResistanceDefenderUnrolled,
    RegularRoundSide,
    RegularRoundPlayed,
    LongThrowObject,
    LongThrowLoadLimits,
    LongThrowCreatureDamage,
    LongThrowCompetitorResult,
    LongThrowPrecisionThrow,
    LongThrowSeries,
)

ANN = {"name": "Ann", "skill": 12}
BOB = {"name": "Bob", "skill": 10}
WORKED_DICE = [87, 78, 75, 62, 37, 36, 7]
JAVELIN_THROWERS = [
    {"name": "Ann", "strength_score": 14, "weapon_focus": True, "ranged_attack_bonus": 8},
    {"name": "Bob", "strength_score": 12, "far_shot": True, "ranged_attack_bonus": 5},
    {"name": "Cid", "strength_score": 1, "size": "fine"},  # cannot lift a javelin
]
HALFLING_THROWERS = [
    {"name": "Ogre", "strength_score": 21, "size": "large", "tumble_mod": 6},
    {"name": "Gnome", "strength_score": 8, "size": "small"},
    {"name": "Troll", "strength_score": 25, "size": "large"},
]

#: (method, path, body or query) of realistic requests, every one answered with 200.
REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    # GURPS success roll: server dice, seeded, criticals both ways, a plain failure
    ("post", SUCCESS_ROLL, {"skill": 12}),
    ("post", SUCCESS_ROLL, {"skill": 12, "seed": 7}),
    ("post", SUCCESS_ROLL, {"skill": 12, "roll": [1, 1, 1]}),
    ("post", SUCCESS_ROLL, {"skill": 3, "roll": [6, 6, 6]}),
    ("post", SUCCESS_ROLL, {"skill": 10, "roll": [4, 4, 4]}),
    # quick contest: server dice, seeded, a tie, a win
    ("post", QUICK_CONTEST, {"a": ANN, "b": BOB}),
    ("post", QUICK_CONTEST, {"a": ANN, "b": BOB, "seed": 3}),
    (
        "post",
        QUICK_CONTEST,
        {
            "a": {**ANN, "roll": [2, 3, 4]},
            "b": {**BOB, "name": "Bob", "skill": 12, "roll": [4, 3, 2]},
        },
    ),
    ("post", QUICK_CONTEST, {"a": {**ANN, "roll": [2, 3, 4]}, "b": {**BOB, "roll": [5, 5, 1]}}),
    # resistance roll: the attack fails (no defence rolled), a tie goes to the defender,
    # the defender is affected, server dice
    (
        "post",
        RESISTANCE_ROLL,
        {
            "attacker": {"name": "Wiz", "skill": 14, "roll": [6, 6, 6]},
            "defender": {"name": "Orc", "skill": 11},
        },
    ),
    (
        "post",
        RESISTANCE_ROLL,
        {
            "attacker": {"name": "Wiz", "skill": 12, "roll": [3, 3, 3]},
            "defender": {"name": "Orc", "skill": 12, "roll": [3, 3, 3]},
        },
    ),
    (
        "post",
        RESISTANCE_ROLL,
        {
            "attacker": {"name": "Wiz", "skill": 14, "roll": [1, 2, 2]},
            "defender": {"name": "Orc", "skill": 11, "roll": [6, 6, 5]},
        },
    ),
    (
        "post",
        RESISTANCE_ROLL,
        {"attacker": {"name": "Wiz", "skill": 14}, "defender": {"name": "Orc", "skill": 11}},
    ),
    # regular contest: to the end with extreme skills, supplied rounds, undecided
    (
        "post",
        REGULAR_CONTEST,
        {"a": {"name": "Giant", "skill": 600}, "b": {"name": "Ogre", "skill": 500}, "seed": 1},
    ),
    (
        "post",
        REGULAR_CONTEST,
        {
            "a": {"name": "Ann", "skill": 5},
            "b": {"name": "Bob", "skill": 3},
            "rounds": [{"a": [6, 6, 6], "b": [6, 6, 5]}, {"a": [1, 2, 3], "b": [6, 6, 6]}],
        },
    ),
    (
        "post",
        REGULAR_CONTEST,
        {
            "a": {"name": "A", "skill": 10},
            "b": {"name": "B", "skill": 10},
            "max_rounds": 1,
            "normalize": False,
            "seconds_per_round": 6,
            "rounds": [{"a": [1, 1, 2], "b": [1, 1, 2]}],
        },
    ),
    # Cairn: with and without target, critical success, failure and none, server dice
    ("post", CAIRN_ROLL, {"stats": [5, 7], "target": 45}),
    ("post", CAIRN_ROLL, {"rating": -3, "seed": 4}),
    (
        "post",
        CAIRN_ROLL,
        {"rating": 12, "target": 45, "dice": WORKED_DICE, "critical_die": 13, "magnitude_die": 51},
    ),
    (
        "post",
        CAIRN_ROLL,
        {"rating": 12, "dice": WORKED_DICE, "critical_die": 1, "magnitude_die": 51},
    ),
    (
        "post",
        CAIRN_ROLL,
        {"rating": 12, "dice": WORKED_DICE, "critical_die": 50, "magnitude_die": 51},
    ),
    ("post", CAIRN_ROLL, {"rating": 12, "target": 1000, "dice": WORKED_DICE, "critical_die": 50}),
    # d20 check: with and without DC, supplied die, server dice
    ("post", D20_CHECK, {"modifier": 3, "dc": 15}),
    ("post", D20_CHECK, {"modifier": 5}),
    ("post", D20_CHECK, {"modifier": -2, "dc": 10, "roll": 14}),
    ("post", D20_CHECK, {"modifier": 0, "dc": 21, "roll": 20, "seed": 9}),
    # long throws: each mode, a creature (into a wall or not), custom objects, given limits,
    # a thrower who cannot lift it, a lone precision thrower (no series), supplied dice
    *[
        (
            "post",
            LONG_THROWS,
            {"object": "javelin", "mode": mode, "competitors": JAVELIN_THROWERS, "seed": 5},
        )
        for mode in ("distance", "caber", "precision")
    ],
    *[
        (
            "post",
            LONG_THROWS,
            {
                "object": "halfling",
                "mode": mode,
                "into_wall": wall,
                "competitors": HALFLING_THROWERS,
                "seed": 2,
            },
        )
        for mode in ("distance", "caber", "precision")
        for wall in (False, True)
    ],
    (
        "post",
        LONG_THROWS,
        {
            "object": {
                "name": "anvil",
                "weight_lb": 120.5,
                "range_increment_ft": 3,
                "creature": True,
            },
            "mode": "caber",
            "competitors": [
                {"name": "Ann", "load_limits": {"light": 50, "medium": 121, "heavy": 200}},
                {"name": "Bob", "load_limits": {"light": 50, "medium": 100, "heavy": 120}},
            ],
            "seed": 11,
        },
    ),
    (
        "post",
        LONG_THROWS,
        {
            "object": {"name": "spear", "weight_lb": 3, "range_increment_ft": 20, "weapon": True},
            "mode": "precision",
            "max_series": 2,
            "competitors": [
                {"name": "Ann", "strength_score": 12, "ranged_attack_bonus": 8},
                {"name": "Bob", "strength_score": 10, "ranged_attack_bonus": 8},
            ],
        },
    ),
    (
        "post",
        LONG_THROWS,
        {
            "object": "log",
            "mode": "precision",
            "competitors": [{"name": "Solo", "strength_score": 18}],
        },
    ),
    (
        "post",
        LONG_THROWS,
        {
            "object": "javelin",
            "competitors": [
                {"name": "Ann", "strength_score": 14, "weapon_focus": True, "roll": 15},
                {"name": "Bob", "strength_score": 10, "far_shot": True, "roll": 17},
                {"name": "Cid", "strength_score": 1, "size": "fine", "roll": 20},
            ],
        },
    ),
    (
        "post",
        LONG_THROWS,
        {
            "object": "javelin",
            "mode": "precision",
            "competitors": [
                {"name": "Ann", "strength_score": 12, "ranged_attack_bonus": 8, "roll": [20, 20]},
                {"name": "Bob", "strength_score": 10, "ranged_attack_bonus": 5, "roll": [20, 1]},
            ],
        },
    ),
    (
        "post",
        LONG_THROWS,
        {
            "object": "stone",
            "competitors": [
                {"name": "A", "strength_score": 3, "roll": 20},
                {"name": "B", "strength_score": 3, "roll": 20},
            ],
        },
    ),
    # dice notation, from the query and the body
    ("get", ROLL, {"expr": "4d6kh3"}),
    ("get", ROLL, {"expr": "2d6+1d4[fire]+3", "seed": 42}),
    ("get", ROLL, {"expr": "7"}),
    ("post", ROLL, {"expr": "3d6e6", "seed": 1}),
    ("post", ROLL, {"expr": "1d%+1d20ro1-2"}),
    ("post", ROLL, {"expr": "(1d6, 2d8)kh1*3/2"}),
]


@functools.cache
def adapter(answer: Any) -> TypeAdapter[Any]:
    return TypeAdapter(answer)


def send(client: TestClient, method: str, path: str, body: dict[str, Any]) -> Response:
    if method == "get":
        response: Response = client.get(path, params=body)
    else:
        response = client.post(path, json=body)
    return response


def answer_of(client: TestClient, method: str, path: str, body: dict[str, Any]) -> Any:
    """The served answer, validated strictly against the operation's TypedDict."""
    response = send(client, method, path, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    served = response.json()
    adapter(ANSWERS[(method, path)]).validate_python(served, strict=True)
    return served


def answers_for(client: TestClient, path: str) -> Iterator[Any]:
    for method, request_path, body in REQUESTS:
        if request_path == path:
            yield answer_of(client, method, path, body)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    REQUESTS,
    ids=[f"{method} {path} {index}" for index, (method, path, _) in enumerate(REQUESTS)],
)
def test_served_answer_is_exactly_its_typeddict(
    client: TestClient, method: str, path: str, body: dict[str, Any]
) -> None:
    answer_of(client, method, path, body)


def test_every_one_shot_operation_is_exercised() -> None:
    assert {(method, path) for method, path, _ in REQUESTS} == set(ANSWERS)


def test_strict_validation_catches_an_undocumented_or_missing_key(client: TestClient) -> None:
    served = answer_of(client, "post", D20_CHECK, {"modifier": 1, "dc": 5, "roll": 3})
    check = adapter(D20CheckAnswer)
    with pytest.raises(ValueError, match="Extra inputs"):
        check.validate_python({**served, "undocumented": 1}, strict=True)
    with pytest.raises(ValueError, match="Field required"):
        check.validate_python({k: v for k, v in served.items() if k != "dc"}, strict=True)
    with pytest.raises(ValueError, match="valid integer"):
        check.validate_python({**served, "total": "4"}, strict=True)
    nested = {**served, "rolls": [{**served["rolls"][0], "extra": True}]}
    with pytest.raises(ValueError, match="Extra inputs"):
        check.validate_python(nested, strict=True)


# --- the edge cases really produce each shape --------------------------------------------------


def test_gurps_edge_cases_cover_every_shape(client: TestClient) -> None:
    criticals = {answer["critical"] for answer in answers_for(client, SUCCESS_ROLL)}
    assert criticals == {None, "success", "failure"}
    quick = list(answers_for(client, QUICK_CONTEST))
    assert any(a["tie"] and a["winner"] is None and a["margin_of_victory"] is None for a in quick)
    assert any(not a["tie"] and a["winner"] == "Ann" for a in quick)
    defences = [answer["defender"] for answer in answers_for(client, RESISTANCE_ROLL)]
    assert {"name": "Orc", "skill": 11, "rolled": False} in defences
    rolled = [defence for defence in defences if defence["rolled"]]
    assert rolled
    assert all(
        defence.keys() == set(ResistanceDefenderRolled.__annotations__) for defence in rolled
    )
    statuses = {answer["status"] for answer in answers_for(client, REGULAR_CONTEST)}
    assert statuses == {"decided", "undecided"}


def test_cairn_edge_cases_cover_every_shape(client: TestClient) -> None:
    answers = list(answers_for(client, CAIRN_ROLL))
    assert {answer["critical"] for answer in answers} == {None, "success", "failure"}
    assert {answer["success"] for answer in answers} == {None, True, False}
    assert any(a["critical"] is None and a["magnitude_die"] is None for a in answers)
    # the documented positions are the rules' own
    assert get_args(CairnPosition) == cairn.POSITION_NAMES


def test_d20_edge_cases_cover_every_shape(client: TestClient) -> None:
    answers = list(answers_for(client, D20_CHECK))
    assert {answer["success"] for answer in answers} == {None, True, False}


def test_long_throw_keys_by_mode(client: TestClient) -> None:
    """`series` only in precision; `increments`/`distance_ft` only in distance; creature damage
    only for a creature outside precision; `out_in_series` only in precision."""
    seen_modes: set[str] = set()
    creature_damage_seen = False
    for answer in answers_for(client, LONG_THROWS):
        mode = answer["mode"]
        seen_modes.add(mode)
        assert ("series" in answer) == (mode == "precision")
        creature = answer["object"]["creature"] and mode != "precision"
        for competitor in answer["competitors"]:
            assert ("increments" in competitor) == (mode == "distance")
            assert ("distance_ft" in competitor) == (mode == "distance")
            assert ("out_in_series" in competitor) == (mode == "precision")
            assert ("creature_damage" in competitor) == creature
            creature_damage_seen |= competitor.get("creature_damage") is not None
            if not competitor["eligible"]:
                assert competitor["roll"] is competitor["check"] is competitor["ds"] is None
            elif mode == "precision":
                assert isinstance(competitor["roll"], list)
            else:
                assert isinstance(competitor["roll"], int)
    assert seen_modes == {"distance", "caber", "precision"}
    assert creature_damage_seen


# --- /openapi.json ----------------------------------------------------------------------------


@pytest.fixture
def openapi(tmp_path: Path) -> Any:
    """The served /openapi.json, from an app built as tests/conftest.py builds it (not wrapped
    by the answer-conformance check: the document is not an operation it documents)."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'openapi.db'}")
    with TestClient(create_app(settings)) as client:
        response = client.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def component(typed_dict: Any) -> Any:
    """The TypedDict's own JSON schema, as the OpenAPI document should carry it."""
    own = adapter(typed_dict).json_schema(
        ref_template="#/components/schemas/{model}", mode="serialization"
    )
    own.pop("$defs", None)
    return own


@pytest.mark.parametrize(("method", "path"), list(ANSWERS), ids=[f"{m} {p}" for m, p in ANSWERS])
def test_openapi_answer_is_a_ref_to_its_typeddict(openapi: Any, method: str, path: str) -> None:
    answer = ANSWERS[(method, path)]
    content = openapi["paths"][path][method]["responses"]["200"]["content"]
    assert content["application/json"]["schema"] == {
        "$ref": f"#/components/schemas/{answer.__name__}"
    }
    assert content["text/plain"]["schema"] == {"type": "string"}
    documented = openapi["components"]["schemas"][answer.__name__]
    assert documented == component(answer)
    assert documented["additionalProperties"] is False


def test_openapi_components_of_the_answer_parts(openapi: Any) -> None:
    components = openapi["components"]["schemas"]
    for part in PARTS:
        assert components.get(part.__name__) == component(part), part.__name__
        assert components[part.__name__]["additionalProperties"] is False
    # NotRequired keys are documented as optional
    assert "series" not in components["LongThrowAnswer"]["required"]
    assert set(components["LongThrowCompetitorResult"]["required"]) == {
        "name", "eligible", "load", "penalty", "load_limits", "roll", "check", "ds",
    }  # fmt: skip


def test_no_two_schemas_share_a_component_name(openapi: Any) -> None:
    components = openapi["components"]["schemas"]
    # the names of the former docs-only models, one of them twice
    for gone in ("CompetitorResult", "Competitor", "RollResult", "LongThrowResult"):
        assert gone not in components
    # FastAPI qualifies clashing names with their module (app__api__schemas__gurps__...)
    assert not [name for name in components if "__" in name]
    # the request bodies point at their own competitors, not at a namesake's
    competitors = components["LongThrowRequest"]["properties"]["competitors"]["items"]
    assert competitors == {"$ref": "#/components/schemas/LongThrowCompetitor"}
    assert components["QuickContestRequest"]["properties"]["a"] == {
        "$ref": "#/components/schemas/GurpsCompetitor"
    }


def test_schema_class_names_are_unique_across_schema_modules() -> None:
    owners: dict[str, list[str]] = {}
    for info in pkgutil.iter_modules(app.api.schemas.__path__):
        module = importlib.import_module(f"app.api.schemas.{info.name}")
        for name, value in vars(module).items():
            defined_here = getattr(value, "__module__", None) == module.__name__
            schema = is_typeddict(value) or (
                inspect.isclass(value) and issubclass(value, BaseModel)
            )
            if defined_here and schema:
                owners.setdefault(name, []).append(module.__name__)
    shared = {name: modules for name, modules in owners.items() if len(modules) > 1}
    assert not shared
