"""The guarantees every kind of session shares, checked on every registered kind.

A kind added to `KINDS` is covered here without editing this file: its create example makes
a session, its round example (if it has plain rounds) plays one, and the lifecycle's answers
(checked against their documented types by the conformance wrapper) hold for it too.
"""

# The toy kind implements the whole ContestKind protocol, arguments it ignores included.
# ruff: noqa: ARG002
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from app.api.kinds import (
    AnyKind,
    Examples,
    OddsQuestion,
    RoundKind,
    Schemas,
    SessionOdds,
    purposes,
)
from app.api.kinds.registry import KINDS
from app.api.sessions.presentation import SessionFields
from app.main import create_app
from app.rules import serial
from app.rules.dice import Dice, Key, Need
from app.rules.messages import Message, untranslated
from app.settings import Settings
from tests.conformance import Conforming
from tests.helpers import PROBLEM, Session, assert_problem, bearer

# --- a toy kind, defined here alone: first to `target` heads on a d2 ----------------------


@dataclass(frozen=True, slots=True)
class CoinConfig:
    name: str
    target: int


@dataclass(frozen=True, slots=True)
class CoinState:
    heads: int = 0


@dataclass(frozen=True, slots=True)
class CoinFlip:
    die: int


class CoinCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, max_length=64)
    target: int = Field(ge=1, le=10)

    def to_rules(self) -> CoinConfig:
        return CoinConfig(self.name, self.target)


class CoinDice(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    flip: int | None = Field(default=None, ge=1, le=2)


class CoinRound(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    rolls: dict[str, CoinDice] | None = None


class CoinRecord(TypedDict):
    number: int
    flip: int
    rolls: list[Any]
    summary: str


class CoinOdds(TypedDict):
    """The toy's odds from where it stands: each flip's chance of heads, and how many flips
    reach the target on average (a negative binomial's mean)."""

    heads_next: float
    flips_to_target: float
    summary: str


async def coin_odds(
    config: CoinConfig,
    state: CoinState,
    question: OddsQuestion,  # noqa: ARG001 - exact odds take no seed
) -> CoinOdds:
    missing = max(config.target - state.heads, 0)
    return {
        "heads_next": 0.5,
        "flips_to_target": 2.0 * missing,
        "summary": f"{config.name} needs {missing} more heads: {2 * missing} flips on average.",
    }


class CoinRaceSession(SessionFields):
    config: dict[str, Any]
    state: dict[str, int]
    result: dict[str, Any] | None


class CoinRaces(RoundKind[CoinConfig, CoinState, CoinFlip]):
    """A toy kind: first to `target` heads."""

    path = "coin-races"
    title = "coin race"
    config_type = CoinConfig
    state_type = CoinState
    create_model = CoinCreate
    round_model = CoinRound
    resolve_model = None
    dice_model = CoinDice
    odds = SessionOdds(CoinOdds, coin_odds)
    schemas = Schemas(
        config=dict[str, Any],
        state=dict[str, int],
        result=dict[str, Any],
        round=CoinRecord,
        session=CoinRaceSession,
    )
    examples = Examples(create={"name": "Ann", "target": 2}, round={"rolls": {"Ann": {"flip": 2}}})

    def start(self, body: CoinCreate, dice: Dice) -> tuple[CoinConfig, CoinState]:
        return body.to_rules(), CoinState()

    def parties(self, config: CoinConfig) -> tuple[str, ...]:
        return ()

    def names(self, config: CoinConfig) -> Iterable[str]:
        return (config.name,)

    def play(
        self, config: CoinConfig, state: CoinState, body: Any, dice: Dice
    ) -> tuple[CoinState, CoinFlip]:
        die = dice.roll(1, 2, who=config.name, purpose="flip")[0]
        return CoinState(state.heads + (die == 2)), CoinFlip(die)

    def needs(self, config: CoinConfig, state: CoinState, body: Any) -> dict[Key, Need]:
        return {(config.name, "flip"): Need(2, certain=1)}

    def resolve_move(self, config: CoinConfig, state: CoinState, body: Any) -> CoinRound:
        return CoinRound()

    def finished(self, state: CoinState) -> bool:
        return False

    def result(self, config: CoinConfig, state: CoinState) -> Mapping[str, Any] | None:
        return None

    def public_config(self, config: CoinConfig) -> Mapping[str, Any]:
        return dict(serial.dump(config))

    def public_state(self, config: CoinConfig, state: CoinState) -> Mapping[str, Any]:
        return {"heads": state.heads}

    def round_record(
        self, config: CoinConfig, state: CoinState, played: CoinFlip
    ) -> Mapping[str, Any]:
        return {"flip": played.die}

    def round_summary(self, config: CoinConfig, state: CoinState, played: CoinFlip) -> Message:
        return untranslated(f"{config.name} flips {'heads' if played.die == 2 else 'tails'}.")

    def describe(self, config: CoinConfig, state: CoinState) -> str | None:
        return f"{config.name}: {state.heads} heads."


TOY: AnyKind = CoinRaces()
ALL = {**KINDS, TOY.path: TOY}


@pytest.fixture(params=sorted(ALL))
def kind(request: pytest.FixtureRequest) -> AnyKind:
    return ALL[request.param]


@pytest.fixture
def kinds_client(database_url: str) -> Iterator[TestClient]:
    """An app serving every registered kind and the toy one, answers checked for conformance."""
    app = create_app(Settings(database_url=database_url), kinds=ALL)
    with TestClient(Conforming(app)) as test_client:
        yield test_client


def test_a_new_kind_from_one_module_is_served_documented_playable_and_has_odds(
    kinds_client: TestClient,
) -> None:
    """The toy kind is defined in this module alone and given to `create_app`: its routes
    are documented in /openapi.json, a session of it plays, and its odds answer."""
    document = kinds_client.get("/openapi.json").json()
    operations = {
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    assert {
        "createCoinRace",
        "playCoinRaceRound",
        "resolveCoinRace",
        "oddsCoinRaceFromHere",
        "giveCoinRaceDice",
    } <= operations
    assert "CoinOdds" in document["components"]["schemas"]
    made = Session(kinds_client, "coin-races", {"name": "Ann", "target": 2})
    played = made.post("rounds", {"rolls": {"Ann": {"flip": 2}}})
    assert played.status_code == 200, played.text
    assert played.json()["round"]["flip"] == 2
    odds = made.get("odds")
    assert odds.status_code == 200, odds.text
    assert odds.json() == {
        "heads_next": 0.5,
        "flips_to_target": 2.0,
        "summary": "Ann needs 1 more heads: 2 flips on average.",
    }


def test_every_kind_names_its_dice_purposes(kind: AnyKind) -> None:
    assert purposes(kind) == frozenset(kind.dice_model.model_fields)
    assert purposes(kind)


def test_the_lifecycle_of_every_kind(kinds_client: TestClient, kind: AnyKind) -> None:
    made = Session(kinds_client, kind.path, dict(kind.examples.create))
    path, body = made.url, made.created
    assert (body["kind"], body["version"], body["round"]) == (kind.path, 1, 0)
    gm = bearer(body["tokens"]["gm"])
    for party, token in body["tokens"].get("parties", {}).items():
        seen = kinds_client.get(path, headers=bearer(token))
        assert seen.status_code == 200, party
    got = kinds_client.get(path, headers=gm)
    assert (got.status_code, got.headers["etag"]) == (200, '"1"')
    assert got.json()["id"] == body["id"]
    if isinstance(kind, RoundKind) and kind.examples.round is not None:
        played = kinds_client.post(path + "/rounds", json=dict(kind.examples.round), headers=gm)
        assert played.status_code == 200, played.text
        answer = played.json()
        assert answer["round"]["number"] == 1
        assert answer["session"]["version"] == 2
        assert played.headers["etag"] == '"2"'
        listed = kinds_client.get(path + "/rounds", headers=gm)
        assert [entry["number"] for entry in listed.json()["rounds"]] == [1]
        assert listed.json()["rounds"][0] == answer["round"]
    else:
        assert kinds_client.get(path + "/rounds", headers=gm).json() == {"rounds": []}
    # No token: 401; a token of no role here: 404; a stale If-Match: 412.
    assert kinds_client.get(path).status_code == 401
    assert kinds_client.get(path, headers=bearer("not-a-token")).status_code == 404
    stale = kinds_client.delete(path, headers={**gm, "If-Match": '"99"'})
    assert (stale.status_code, stale.headers["content-type"]) == (412, PROBLEM)
    # A keyed delete, replayed, answers 204 again; afterwards the session is gone.
    keyed = {**gm, "Idempotency-Key": "delete-once"}
    assert kinds_client.delete(path, headers=keyed).status_code == 204
    again = kinds_client.delete(path, headers=keyed)
    assert (again.status_code, again.headers["idempotent-replayed"]) == (204, "true")
    assert kinds_client.get(path, headers=gm).status_code == 404


def test_a_creation_replay_to_a_stranger_holds_no_token(
    kinds_client: TestClient, kind: AnyKind
) -> None:
    keyed = {"Idempotency-Key": f"public-{kind.path}"}
    first = kinds_client.post(f"/v1/{kind.path}", json=dict(kind.examples.create), headers=keyed)
    again = kinds_client.post(f"/v1/{kind.path}", json=dict(kind.examples.create), headers=keyed)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert "tokens" not in again.json()
    assert first.json()["tokens"]["gm"] not in again.text


def test_openapi_documents_every_kinds_lifecycle(kinds_client: TestClient, kind: AnyKind) -> None:
    document = kinds_client.get("/openapi.json").json()
    prefix = "".join(word.capitalize() for word in kind.title.split())
    operations = {
        operation["operationId"]: operation
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    created = operations[f"create{prefix}"]["responses"]["201"]["content"]["application/json"]
    assert created["schema"] == {"$ref": f"#/components/schemas/{prefix}Created"}
    got = operations[f"get{prefix}"]["responses"]["200"]["content"]["application/json"]
    assert got["schema"] == {"$ref": f"#/components/schemas/{prefix}Session"}
    session = document["components"]["schemas"][f"{prefix}Session"]
    assert session["additionalProperties"] is False
    assert session["properties"]["config"] != {}


def test_a_session_call_checks_its_token_before_its_body(
    kinds_client: TestClient, kind: AnyKind
) -> None:
    """No token: 401; a token of no role here: 404 — whatever the body (it is not read)."""
    path = Session(kinds_client, kind.path, dict(kind.examples.create)).url
    malformed = b'{"not": "a valid body"'
    json_type = {"content-type": "application/json"}
    calls = [("delete", path)]
    if isinstance(kind, RoundKind):
        calls.append(("post", path + "/rounds"))
        calls.append(("post", path + "/resolve"))
    for method, url in calls:
        missing = kinds_client.request(method.upper(), url, content=malformed, headers=json_type)
        assert missing.status_code == 401, (url, missing.text)
        stranger = kinds_client.request(
            method.upper(),
            url,
            content=malformed,
            headers={**json_type, **bearer("not-a-token")},
        )
        assert stranger.status_code == 404, (url, stranger.text)


def test_rounds_come_a_page_at_a_time(kinds_client: TestClient) -> None:
    kind = TOY
    created = kinds_client.post(f"/v1/{kind.path}", json={"name": "Ann", "target": 10})
    path, gm = created.headers["location"], bearer(created.json()["tokens"]["gm"])
    for _ in range(7):
        assert kinds_client.post(path + "/rounds", json={}, headers=gm).status_code == 200
    first = kinds_client.get(path + "/rounds?limit=3", headers=gm)
    assert [entry["number"] for entry in first.json()["rounds"]] == [1, 2, 3]
    assert first.headers["link"] == f'<{path}/rounds?after=3&limit=3>; rel="next"'
    last = kinds_client.get(path + "/rounds?after=6&limit=3", headers=gm)
    assert [entry["number"] for entry in last.json()["rounds"]] == [7]
    assert "link" not in last.headers
    assert kinds_client.get(path + "/rounds", headers=gm).json()["rounds"][-1]["number"] == 7
    for query in ("limit=0", "limit=501", "after=-1", "limit=x"):
        refused = kinds_client.get(f"{path}/rounds?{query}", headers=gm)
        assert (refused.status_code, refused.headers["content-type"]) == (422, PROBLEM), query


def test_resolve_answers_a_summary_of_what_it_played(kinds_client: TestClient) -> None:
    created = kinds_client.post("/v1/coin-races", json={"name": "Ann", "target": 10})
    path, gm = created.headers["location"], bearer(created.json()["tokens"]["gm"])
    # The toy never finishes: resolve plays until the safety net.
    answer = kinds_client.post(path + "/resolve", headers=gm).json()
    assert answer["played"] == 10_000
    assert [entry["number"] for entry in answer["rounds"]] == list(range(9_996, 10_001))
    assert answer["summary"] == answer["rounds"][-1]["summary"]
    assert answer["session"]["round"] == 10_000


def test_a_resolve_past_the_work_limit_is_a_422_naming_it_and_changes_nothing(
    kinds_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.api.sessions import lifecycle

    monkeypatch.setattr(lifecycle, "MAX_DICE_PER_REQUEST", 50)
    created = kinds_client.post("/v1/coin-races", json={"name": "Ann", "target": 10})
    path, gm = created.headers["location"], bearer(created.json()["tokens"]["gm"])
    refused = kinds_client.post(path + "/resolve", headers=gm)
    assert (refused.status_code, refused.headers["content-type"]) == (422, PROBLEM)
    assert "more than 50 dice" in refused.json()["detail"]
    after = kinds_client.get(path, headers=gm).json()
    assert (after["version"], after["round"]) == (1, 0)


def test_sessions_rounds_and_dice_are_counted(kinds_client: TestClient) -> None:
    from app.observability import REGISTRY

    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = (
        sample("arbiter_sessions_created_total", kind="arm-wrestles"),
        sample("arbiter_rounds_played_total", kind="arm-wrestles"),
        sample("arbiter_sessions_finished_total", kind="arm-wrestles"),
        sample("arbiter_dice_rolled_total"),
    )
    made = Session(kinds_client, "arm-wrestles", dict(KINDS["arm-wrestles"].examples.create))
    path, body = made.url, made.created
    gm = bearer(body["tokens"]["gm"])
    supplied = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
    assert kinds_client.post(path + "/rounds", json=supplied, headers=gm).status_code == 200
    resolved = kinds_client.post(path + "/resolve", headers=gm).json()
    after = (
        sample("arbiter_sessions_created_total", kind="arm-wrestles"),
        sample("arbiter_rounds_played_total", kind="arm-wrestles"),
        sample("arbiter_sessions_finished_total", kind="arm-wrestles"),
        sample("arbiter_dice_rolled_total"),
    )
    assert after[0] - before[0] == 1
    assert after[1] - before[1] == 1 + resolved["played"]
    assert after[2] - before[2] == 1
    # Exactly the dice the server rolled (the supplied round rolled none), as the rounds list them.
    rolled = sum(
        len(entry["values"])
        for page in [kinds_client.get(path + "/rounds?limit=500", headers=gm).json()]
        for record in page["rounds"]
        for entry in record["rolls"]
        if entry["source"] == "rolled"
    )
    assert after[3] - before[3] == rolled


def test_odds_from_a_fresh_session_equal_the_odds_of_its_body(kinds_client: TestClient) -> None:
    body = {"a": {"name": "Ann", "skill": 14}, "b": {"name": "Bob", "skill": 12}, "max_rounds": 8}
    created = kinds_client.post("/v1/regular-contests", json=body)
    path, gm = created.headers["location"], bearer(created.json()["tokens"]["gm"])
    from_here = kinds_client.get(path + "/odds", headers=gm)
    assert from_here.status_code == 200, from_here.text
    fresh = kinds_client.post("/v1/odds/gurps/regular-contest", json=body).json()
    for field in ("a_wins_exact", "b_wins_exact", "undecided_exact"):
        assert from_here.json()[field] == fresh[field]
    assert kinds_client.get(path + "/odds").status_code == 401
    assert kinds_client.get(path + "/odds", headers=bearer("nobody")).status_code == 404


def test_a_session_call_checks_its_token_before_if_match(
    kinds_client: TestClient, kind: AnyKind
) -> None:
    """A malformed If-Match tells a stranger nothing: 404 before the 412 a holder gets."""
    made = Session(kinds_client, kind.path, dict(kind.examples.create))
    malformed = {"If-Match": "not-a-version"}
    stranger = kinds_client.delete(made.url, headers={**malformed, **bearer("not-a-token")})
    assert stranger.status_code == 404, stranger.text
    holder = kinds_client.delete(made.url, headers={**malformed, **made.headers})
    assert holder.status_code == 412, holder.text


def test_names_hold_no_nul(client: TestClient) -> None:
    answer = client.post(
        "/v1/gurps/quick-contest",
        json={"a": {"name": "Ann\x00", "skill": 12}, "b": {"name": "Bob", "skill": 10}},
    )
    assert_problem(answer, 422, ["body", "a", "name"])
    # Nor any other control character, a tab included (tests/api/test_free_text.py); a space
    # and a ZWNJ are fine.
    tab = client.post(
        "/v1/gurps/quick-contest",
        json={"a": {"name": "Ann\tLee", "skill": 12}, "b": {"name": "Bob", "skill": 10}},
    )
    assert_problem(tab, 422, ["body", "a", "name"])
    fine = client.post(
        "/v1/gurps/quick-contest",
        json={"a": {"name": "Ann Lee\u200c", "skill": 12}, "b": {"name": "Bob", "skill": 10}},
    )
    assert fine.status_code == 200
