"""schemathesis against the app: every operation, every check, session calls with real tokens.

Every check schemathesis has runs (its configuration enables them all, as `--checks all`),
with `positive_data_acceptance` made per operation (`accepted_as_documented`): a request the
document allows is taken, or refused only as its operation documents — an answer on the
session's or the server's state that it declares, or a 422 that its 422 lists as beyond what a
schema can say (`x-refused-beyond-schema`), whose body the route's own models take.

Each generated case for a session operation is sent to a session of its own, made for it
from the kind's create example (and, when the case draws it, played to its end first), with
the GM's token or a party's: so the lifecycle is exercised on live sessions, not on 404s; the
operator's webhook calls are sent with the operator's key.

Bounded for CI: `MAX_EXAMPLES` cases per operation and mode (10: at most 2,230 cases in all),
derandomized (a fixed seed). A longer campaign sets ARBITER_SCHEMATHESIS_EXAMPLES (e.g. 200) and
runs this file alone.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.dependencies.utils import request_params_to_args
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, SecretStr, ValidationError
from schemathesis import Case, GenerationMode
from schemathesis.checks import CheckContext
from schemathesis.core.failures import Failure
from schemathesis.core.transport import Response
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance
from starlette.routing import Match

from app.api.contract import declare_contract
from app.api.kinds import RoundKind
from app.api.kinds.registry import KINDS
from app.api.schemas.common import BEYOND_SCHEMA, DICE_NOTATION, DISTINCT_NAMES
from app.main import create_app
from app.settings import Settings
from app.store.database import upgrade_to_head

#: Generated cases per operation and mode: enough to meet every status an operation declares
#: on a fresh or finished session, few enough for CI; more for a campaign.
MAX_EXAMPLES = int(os.environ.get("ARBITER_SCHEMATHESIS_EXAMPLES", "10"))
SESSION = "{session_id}"
#: The operator's key, which the operator's webhook calls (`/v1/webhooks…`) are sent with.
OPERATOR_KEY = "operator-key-" + "0123456789abcdef" * 2
OPERATOR = "/v1/webhooks"

#: A request the schema forbids is refused: schemathesis's default list, with 412 (an
#: unreadable If-Match is answered before the rest of the request is looked at) and 413 (a
#: body past the size limit is refused as too large before it is read).
REFUSALS = (
    "400",
    "401",
    "403",
    "404",
    "405",
    "406",
    "409",
    "412",
    "413",
    "415",
    "422",
    "428",
    "429",
)
#: Answers to a request the schema allows that depend on the session's or the server's state
#: (a party's token doing the GM's work, an unknown id of a path's own, a finished contest, a
#: stale If-Match, a rate limit, a busy store or odds worker), allowed where the operation
#: declares them. A 422 is allowed only as `accepted_as_documented` says.
STATE_ANSWERS = frozenset({403, 404, 409, 412, 429, 503})


def served_operations() -> list[tuple[str, str, GenerationMode]]:
    """Every operation of the document, as (method, path, mode): known without a database.

    Negative data only where a request has a part the schema constrains (a body, a query,
    an Idempotency-Key): elsewhere there is nothing to get wrong.
    """
    app = create_app(Settings(database_url="sqlite://"))
    declare_contract(app)
    cases = []
    for path, item in app.openapi()["paths"].items():
        for method, operation in item.items():
            cases.append((method.upper(), path, GenerationMode.POSITIVE))
            constrained = "requestBody" in operation or any(
                parameter["in"] == "query" or parameter["name"] == "Idempotency-Key"
                for parameter in operation.get("parameters", ())
            )
            if constrained:
                cases.append((method.upper(), path, GenerationMode.NEGATIVE))
    return cases


def per_event_streams(document: dict[str, Any]) -> dict[str, Any]:
    """The document with each event stream's schema read per event.

    Before OpenAPI 3.2 (`itemSchema`), schemathesis reads a `text/event-stream` schema as each
    event's; the document's is the whole stream's, a string, as generators read it. Here each
    event is described instead: a version for `id`, an `event` of those its 200 lists, and
    `data`."""
    rewritten: dict[str, Any] = json.loads(json.dumps(document))
    for item in rewritten["paths"].values():
        for operation in item.values():
            answer = operation.get("responses", {}).get("200", {})
            stream = answer.get("content", {}).get("text/event-stream")
            if stream is None:
                continue
            names = sorted(set(re.findall(r"^- `(\w+)`", answer["description"], re.M)))
            assert names, answer["description"]
            stream["schema"] = {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^[0-9]+$"},
                    "event": {"enum": names},
                    "data": {"type": "string"},
                },
                "required": ["id", "event", "data"],
            }
    return rewritten


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    url = f"sqlite:///{tmp_path_factory.mktemp('schemathesis') / 'arbiter.db'}"
    upgrade_to_head(url)
    app = create_app(Settings(database_url=url, operator_key=SecretStr(OPERATOR_KEY)))
    declare_contract(app)
    config = schemathesis.Config.from_dict(
        {
            # A session's event stream opens with the session (one event), then waits for
            # changes nobody makes here: taking that event is the whole stream, where the
            # default (20 events) would wait out the request timeout on every case.
            "max-stream-events": 1,
            # Past the odds' deadline (120 s in the tests, tests/conftest.py), by which an odds
            # question is answered or refused (503), rather than the default 10 s, which an
            # odds worker starting on a loaded machine outlasted (a read timeout, not an answer).
            "request-timeout": 150,
            "checks": {
                "positive_data_acceptance": {"expected-statuses": ["2xx"]},
                "negative_data_rejection": {"expected-statuses": list(REFUSALS)},
            },
        }
    )
    loaded = schemathesis.openapi.from_dict(per_event_streams(app.openapi()), config=config)
    loaded.app = app
    loaded.location = "/openapi.json"
    yield loaded
    # schemathesis started the app's lifespan (the store) on its own event loop.
    asgi.shutdown_lifespans()


def kind_path(case: Case[Any]) -> str:
    path: str = case.operation.path
    return path.split("/")[2]


def new_session(case: Case[Any], *, finished: bool) -> dict[str, Any]:
    """A session of the case's kind, made through the API (and played to its end)."""
    kind = KINDS[kind_path(case)]
    operations = case.operation.schema
    create = operations[f"/v1/{kind.path}"]["POST"].Case(
        body=kind.examples.create, media_type="application/json"
    )
    created = create.call()
    assert created.status_code == 201, created.text
    session: dict[str, Any] = created.json()
    if finished and isinstance(kind, RoundKind):
        body: dict[str, Any] = (
            {"body": kind.examples.resolve or {}, "media_type": "application/json"}
            if kind.resolve_model is not None
            else {}
        )
        resolve = operations[f"/v1/{kind.path}/{SESSION}/resolve"]["POST"].Case(
            path_parameters={"session_id": session["id"]},
            headers={"Authorization": f"Bearer {session['tokens']['gm']}"},
            **body,
        )
        resolved = resolve.call()
        assert resolved.status_code == 200, resolved.text
    return session


def tokens_are_enforced(case: Case[Any], *, stranger: int) -> None:
    """What `ignored_auth` checks, with the answers the contract documents: no token 401, a
    token of no role in the session 404 (as for an unknown id, so a token cannot probe ids),
    a key that is not the operator's 403."""
    for authorization, status in ((None, 401), ("Bearer not-a-token-of-this-session", stranger)):
        headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
        if authorization is not None:
            headers["Authorization"] = authorization
        body = {"body": case.body, "media_type": case.media_type} if case.media_type else {}
        probe = case.operation.Case(
            path_parameters=case.path_parameters, headers=headers, query=case.query, **body
        )
        response = probe.call()
        assert response.status_code == status, (authorization, response.text)
        assert response.headers["content-type"] == ["application/problem+json"]


def route_of(app: FastAPI, case: Case[Any]) -> APIRoute | None:
    scope = {"type": "http", "path": case.formatted_path, "method": case.method.upper()}
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and context.matches(scope)[0] == Match.FULL:
            return route
    return None


def accepted_as_documented(ctx: CheckContext, response: Response, case: Case[Any]) -> bool | None:
    """Data the schema allows is accepted, or refused as its operation documents.

    `positive_data_acceptance` with 2xx expected, except for what the operation declares:
    an answer on the session's or the server's state (`STATE_ANSWERS`), and a 422 only
    where its 422 lists refusals beyond the schema (`BEYOND_SCHEMA`: rules no schema can say,
    the session's state) and the route's own models accept what was sent — so a model
    stricter than its schema still fails, and an operation that lists none must take every
    request its schema allows.
    """
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    declared = case.operation.definition.raw.get("responses", {})
    status = response.status_code
    if status in STATE_ANSWERS and str(status) in declared:
        return None
    if status != 422 or not declared.get("422", {}).get(BEYOND_SCHEMA):
        return positive_data_acceptance(ctx, response, case)
    app = case.operation.schema.app
    route = route_of(app, case)
    if route is None:
        raise Failure(operation=case.operation.label, title="No route", message=case.path)
    problems: list[str] = []
    if route.body_field is not None and case.body is not None:
        model = route.body_field.field_info.annotation
        assert isinstance(model, type)
        assert issubclass(model, BaseModel)
        try:
            model.model_validate_json(json.dumps(case.body))
        except ValidationError as exc:
            problems.append(str(exc))
    if route.dependant.query_params:
        _, errors = request_params_to_args(route.dependant.query_params, case.query or {})
        problems.extend(str(error) for error in errors)
    if problems:
        raise Failure(
            operation=case.operation.label,
            title="The schema allows what the route's model refuses",
            message="\n".join(problems) + f"\nanswer: {response.text}",
        )
    return None


@pytest.mark.parametrize(("method", "path", "mode"), served_operations())
def test_the_contract_holds(
    api_schema: schemathesis.BaseSchema, method: str, path: str, mode: GenerationMode
) -> None:
    operation = api_schema[path][method]

    @given(
        case=operation.as_strategy(mode),
        role=st.sampled_from(["gm", "party"]),
        finished=st.booleans(),
    )
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def holds(case: Case[Any], role: str, finished: bool) -> None:
        if case.operation.path.startswith(OPERATOR):
            case.headers["Authorization"] = f"Bearer {OPERATOR_KEY}"
            response = case.call_and_validate(
                excluded_checks=[positive_data_acceptance, ignored_auth],
                additional_checks=[accepted_as_documented],
            )
            if 200 <= response.status_code < 300:
                tokens_are_enforced(case, stranger=403)
            return
        if SESSION not in case.operation.path:
            case.call_and_validate(
                excluded_checks=[positive_data_acceptance],
                additional_checks=[accepted_as_documented],
            )
            return
        session = new_session(case, finished=finished)
        tokens = session["tokens"]
        parties = list(tokens.get("parties", {}).values())
        token = parties[0] if role == "party" and parties else tokens["gm"]
        case.path_parameters = {**(case.path_parameters or {}), "session_id": session["id"]}
        # In the case's own headers (not the call's), so that schemathesis sees the request
        # as sent when it judges whether it was valid.
        case.headers["Authorization"] = f"Bearer {token}"
        response = case.call_and_validate(
            excluded_checks=[positive_data_acceptance, ignored_auth],
            additional_checks=[accepted_as_documented],
        )
        if 200 <= response.status_code < 300:
            tokens_are_enforced(case, stranger=404)

    holds()


# --- the rules across fields, in the document and in the service -------------------------------

ARM_WRESTLE = dict(KINDS["arm-wrestles"].examples.create)
SKILL_GAME = dict(KINDS["skill-games"].examples.create)
GUARD = {"name": "Guard", "skill": 11}
THIEF = {"name": "Thief", "skill": 13}
THROWER = {"name": "Ann", "strength_score": 14}
CHASE = dict(KINDS["chases"].examples.create)
RACE = dict(KINDS["races"].examples.create)
HAZARD = {"kind": "hazard", "check": "balance", "dc": 12}


def course(*increments: dict[str, Any]) -> dict[str, Any]:
    return {"increments": list(increments)}


#: (operation, body, whether the document allows it): for each rule across fields that the
#: schema says, a body keeping it and one breaking it. The service must agree (a 2xx for one the
#: document allows, a 422 for one it refuses).
RULES_IN_SCHEMA: list[tuple[str, dict[str, Any], bool]] = [
    ("/v1/cairn/roll", {"rating": 12}, True),
    ("/v1/cairn/roll", {"stats": [5, 7]}, True),
    ("/v1/cairn/roll", {"rating": 12, "stats": [5, 7]}, False),
    ("/v1/cairn/roll", {"rating": None, "stats": None}, False),
    ("/v1/cairn/roll", {}, False),
    ("/v1/gurps/quick-contests", {"competitor": THIEF, "opponents": [GUARD]}, True),
    ("/v1/gurps/quick-contests", {"mode": "ranked", "competitors": [THIEF, GUARD]}, True),
    ("/v1/gurps/quick-contests", {"mode": "ranked", "competitor": THIEF}, False),
    ("/v1/gurps/quick-contests", {"competitors": [THIEF, GUARD]}, False),
    (
        "/v1/gurps/quick-contests",
        {"competitor": THIEF, "opponents": [GUARD], "competitors": [THIEF, GUARD]},
        False,
    ),
    ("/v1/arm-wrestles", ARM_WRESTLE, True),
    ("/v1/arm-wrestles", {**ARM_WRESTLE, "variant": "psychic"}, False),
    ("/v1/arm-wrestles", {**ARM_WRESTLE, "variant": "mental"}, False),
    ("/v1/arm-wrestles", {**ARM_WRESTLE, "loser_damage": "1d4"}, False),
    ("/v1/arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"}, True),
    ("/v1/arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seed": 3}, False),
    ("/v1/long-throws", {"object": "javelin", "competitors": [THROWER]}, True),
    ("/v1/long-throws", {"object": "javelin", "competitors": [{"name": "Ann"}]}, False),
    (
        "/v1/long-throws",
        {"object": "javelin", "mode": "halfling-toss", "competitors": [THROWER]},
        False,
    ),
    ("/v1/long-throws", {"object": "log", "toss_distance_ft": 20, "competitors": [THROWER]}, False),
    ("/v1/chases", CHASE, True),
    ("/v1/chases", {**CHASE, "rolls": {"Ralf": {}}}, True),
    ("/v1/chases", {**CHASE, "rolls": {"Ralf": {"initiative": 5}}}, False),
    (
        "/v1/chases",
        {**CHASE, "start": {"mode": "initiative"}, "rolls": {"Ralf": {"initiative": 5}}},
        True,
    ),
    ("/v1/races", RACE, True),
    ("/v1/races", {**RACE, "course": course({"check": "swim", "dc": 9, "on_fail": "stall"})}, True),
    ("/v1/races", {**RACE, "course": course({"check": "swim", "on_fail": "stall"})}, False),
    ("/v1/races", {**RACE, "course": course({"check": "swim", "mounted": True})}, False),
    ("/v1/races", {**RACE, "course": course({"check": "strength", "mounted": True})}, False),
    ("/v1/races", {**RACE, "course": "dakrothian-marathon"}, False),
    (
        "/v1/races",
        {**RACE, "course": course({"check": "swim", "obstacle": HAZARD | {"retry": True}})},
        False,
    ),
    ("/v1/races", {**RACE, "course": course({"check": "swim", "obstacle": HAZARD})}, True),
    ("/v1/skill-games", SKILL_GAME, True),
    ("/v1/skill-games", {**SKILL_GAME, "goal": None, "max_rounds": None}, False),
    ("/v1/skill-games", {**SKILL_GAME, "max_actions_per_round": 2}, False),
]


@pytest.fixture(scope="module")
def document_and_client(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Any], TestClient]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('rules') / 'arbiter.db'}"
    upgrade_to_head(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        yield client.get("/openapi.json").json(), client


@pytest.mark.parametrize(("path", "body", "allowed"), RULES_IN_SCHEMA)
def test_the_schema_says_the_rules_the_service_keeps(
    document_and_client: tuple[dict[str, Any], TestClient],
    path: str,
    body: dict[str, Any],
    allowed: bool,
) -> None:
    document, client = document_and_client
    schema = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    validator = jsonschema_rs.Draft202012Validator({**document, **schema["schema"]})
    assert validator.is_valid(body) is allowed
    answer = client.post(path, json=body)
    assert (200 <= answer.status_code < 300) is allowed, answer.text
    if not allowed:
        assert answer.status_code == 422


def test_each_operation_lists_what_its_schema_cannot_say(
    document_and_client: tuple[dict[str, Any], TestClient],
) -> None:
    """A 422 of a request the schema allows is documented per operation: on the one-shots
    whose rules no schema can say, on session calls that read the session's state, and on
    none other (a d20 check or a success roll takes every request its schema allows)."""
    document, _ = document_and_client
    listed = {
        (method, path): response["422"][BEYOND_SCHEMA]
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if BEYOND_SCHEMA in (response := operation["responses"]).get("422", {})
    }
    assert any("sum is outside -100..100" in text for text in listed[("post", "/v1/cairn/roll")])
    assert listed[("post", "/v1/gurps/quick-contest")] == [DISTINCT_NAMES]
    assert DICE_NOTATION in listed[("get", "/v1/roll")]
    assert DICE_NOTATION in listed[("post", "/v1/roll")]
    assert ("post", "/v1/arm-wrestles/{session_id}/rounds") in listed
    for unlisted in (
        ("post", "/v1/d20/check"),
        ("post", "/v1/gurps/success-roll"),
        ("delete", "/v1/arm-wrestles/{session_id}"),
        ("get", "/v1/arm-wrestles/{session_id}/rounds"),
    ):
        assert unlisted not in listed
    for (method, path), refusals in listed.items():
        description = document["paths"][path][method]["responses"]["422"]["description"]
        assert all(refusal in description for refusal in refusals), (method, path)
    assert BEYOND_SCHEMA not in json.dumps(document["components"])


@pytest.mark.parametrize(
    ("body", "allowed"),
    [
        ({}, True),
        ({"collect": False}, True),
        ({"collect": True}, False),
        ({"collect": False, "deadline_seconds": 60}, False),
        ({"deadline_seconds": 60}, False),
    ],
)
def test_a_rounds_collect_and_deadline_are_in_its_schema(
    document_and_client: tuple[dict[str, Any], TestClient], body: dict[str, Any], allowed: bool
) -> None:
    """`deadline_seconds` with `collect: true`, and only with it, said by the round's schema
    and kept by the service (a seated session, where a collecting round is taken)."""
    document, client = document_and_client
    path = "/v1/arm-wrestles/{session_id}/rounds"
    schema = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    validator = jsonschema_rs.Draft202012Validator({**document, **schema["schema"]})
    assert validator.is_valid(body) is allowed
    assert validator.is_valid({**body, "collect": True, "deadline_seconds": 60})
    created = client.post("/v1/arm-wrestles", json={**ARM_WRESTLE, "seats": True}).json()
    answer = client.post(
        path.format(session_id=created["id"]),
        json=body,
        headers={"Authorization": f"Bearer {created['tokens']['gm']}"},
    )
    assert answer.status_code == (200 if allowed else 422), answer.text
