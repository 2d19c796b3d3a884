"""Every result links the rule it applied: a `rule` naming a section of docs/rules.md.

A reader asking why a result is what it is follows `rule` to the section that decided it, so
each link must land on a heading of the rules reference (its anchor computed as GitHub does,
with the slug of tests/test_docs.py), and name that result's own section, not just any.
The create bodies' schemas list the rules that span their fields, so a client learns from the
document why a body of the right shape may still be refused.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.kinds import RoundKind
from app.api.kinds.registry import KINDS
from tests.test_docs import anchors

RULES = "docs/rules.md#"

#: (method, path, body or query, the section the answer must link).
ONE_SHOTS: list[tuple[str, str, dict[str, Any], str]] = [
    ("POST", "/v1/gurps/success-roll", {"skill": 12, "seed": 1}, "success-roll"),
    (
        "POST",
        "/v1/gurps/quick-contest",
        {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}, "seed": 1},
        "quick-contest",
    ),
    (
        "POST",
        "/v1/gurps/resistance-roll",
        {
            "attacker": {"name": "Wizard", "skill": 14, "roll": [1, 1, 2]},
            "defender": {"name": "Orc", "skill": 11, "roll": [6, 6, 6]},
        },
        "resistance-roll",
    ),
    (
        "POST",
        "/v1/gurps/resistance-roll",
        {
            "attacker": {"name": "Wizard", "skill": 14, "roll": [6, 6, 6]},
            "defender": {"name": "Orc", "skill": 11},
        },
        "resistance-roll",
    ),
    (
        "POST",
        "/v1/gurps/regular-contest",
        {"a": {"name": "Ann", "skill": 5}, "b": {"name": "Bob", "skill": 3}, "seed": 1},
        "regular-contest",
    ),
    ("POST", "/v1/cairn/roll", {"rating": 12, "target": 45, "seed": 1}, "cairn-hill-roll"),
    ("POST", "/v1/d20/check", {"modifier": 3, "dc": 15, "seed": 1}, "d20-checks"),
    (
        "POST",
        "/v1/long-throws",
        {"object": "javelin", "competitors": [{"name": "Ann", "strength_score": 14}], "seed": 1},
        "long-throws",
    ),
    (
        "POST",
        "/v1/long-throws",
        {
            "object": "javelin",
            "mode": "precision",
            "competitors": [
                {"name": "Ann", "strength_score": 12, "ranged_attack_bonus": 8},
                {"name": "Bob", "strength_score": 10, "ranged_attack_bonus": 5},
            ],
            "seed": 7,
        },
        "long-throws",
    ),
    ("POST", "/v1/roll", {"expr": "4d6kh3", "seed": 1}, "dice-notation"),
    ("GET", "/v1/roll", {"expr": "2d6+3", "seed": 1}, "dice-notation"),
]

#: Each kind's section, which every answer showing one of its sessions links.
KIND_SECTIONS = {
    "arm-wrestles": "arm-wrestling",
    "regular-contests": "regular-contest",
    "races": "races",
    "chases": "chases",
    "skill-games": "skill-games",
}


def assert_links(rule: object, section: str) -> None:
    assert rule == RULES + section
    assert section in anchors("rules.md"), f"docs/rules.md has no heading {section!r}"


@pytest.mark.parametrize(
    ("method", "path", "sent", "section"),
    ONE_SHOTS,
    ids=[f"{method} {path} {index}" for index, (method, path, _, _) in enumerate(ONE_SHOTS)],
)
def test_every_one_shot_links_its_rule(
    client: TestClient, method: str, path: str, sent: dict[str, Any], section: str
) -> None:
    answer = client.get(path, params=sent) if method == "GET" else client.post(path, json=sent)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert_links(body["rule"], section)
    # Read with the dice it explains: `rule` comes just before `rolls` and `summary`.
    assert list(body)[-3:] == ["rule", "rolls", "summary"]


def test_every_kind_is_given_its_section() -> None:
    assert set(KIND_SECTIONS) == set(KINDS)
    for path, kind in KINDS.items():
        assert_links(kind.rule, KIND_SECTIONS[path])


@pytest.mark.parametrize("path", sorted(KIND_SECTIONS))
def test_every_session_answer_links_its_kinds_rule(store_client: TestClient, path: str) -> None:
    kind = KINDS[path]
    section = KIND_SECTIONS[path]
    created = store_client.post(f"/v1/{path}", json=dict(kind.examples.create))
    assert created.status_code == 201, created.text
    body = created.json()
    assert_links(body["rule"], section)
    gm = {"Authorization": f"Bearer {body['tokens']['gm']}"}
    location = created.headers["location"]
    shown = store_client.get(location, headers=gm)
    assert shown.status_code == 200, shown.text
    assert_links(shown.json()["rule"], section)
    if isinstance(kind, RoundKind) and kind.examples.round is not None:
        played = store_client.post(f"{location}/rounds", json=dict(kind.examples.round), headers=gm)
        assert played.status_code == 200, played.text
        assert_links(played.json()["session"]["rule"], section)


def test_the_document_declares_rule_on_every_answer(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    answers = [
        "SuccessRollAnswer",
        "QuickContestAnswer",
        "ResistanceRollAnswer",
        "RegularContestAnswer",
        "CairnRollAnswer",
        "D20CheckAnswer",
        "LongThrowAnswer",
        "NotationRollAnswer",
        *(kind.schemas.session.__name__ for kind in KINDS.values()),
    ]
    for name in answers:
        assert "rule" in schemas[name]["required"], name
        assert schemas[name]["properties"]["rule"]["type"] == "string", name


#: Create bodies whose fields constrain one another, and a rule each must state.
CROSS_FIELD = {
    "ArmWrestleCreate": "caster_level",
    "RaceCreate": "mount",
    "ChaseCreate": "initiative",
    "SkillGameCreate": "skills_per_round",
    "RegularContestCreate": "names",
    "QuickContestRequest": "names",
    "ResistanceRollRequest": "names",
    "RegularContestRequest": "names",
    "LongThrowRequest": "load_limits",
}


def test_create_bodies_describe_their_cross_field_rules(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name, mentioned in CROSS_FIELD.items():
        description = schemas[name]["description"]
        assert "Rules across fields:" in description, name
        assert mentioned in description, name
