"""Text a caller sends is checked where it enters, and what an older stored name still holds is
neutralised wherever it is shown (issue 43), on SQLite and PostgreSQL (`store_client`).

Tried as a player would: a NUL in a verifiable seed (a 500 on PostgreSQL before), names
carrying controls, bidi overrides and zero-width characters, two competitors told apart only
by an invisible character or a normalisation, and a name with a right-to-left override stored
before names were checked, read back in every form.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.api import kinds
from app.api.answers import formats
from app.api.kinds.registry import KINDS
from app.store.database import null_pool_engine
from app.store.repository import sessions
from tests.api.test_skill_games_api import bidding_body, parties
from tests.helpers import Session, assert_problem, bearer

ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
#: Every character a name refuses, by kind: Cc (C0, DEL, C1), the line and paragraph
#: separators, bidi embeddings, overrides and isolates, and the invisible spaces.
REFUSED = [
    "\x00",
    "\t",
    "\n",
    "\r",
    "\x1b",
    "\x7f",
    "\x85",
    "\x9f",
    "\u2028",
    "\u2029",
    "\u200b",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2060",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\ufeff",
]
#: Names that need ZWJ or ZWNJ, or that read right to left by their own letters: accepted.
KEPT = [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # a family emoji (ZWJ)
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with a ZWNJ
    "\u0915\u094d\u200d\u0937",  # Devanagari, with a ZWJ
    "\u05d3\u05e0\u05d4",  # Hebrew, right to left by its letters
]


def refused_character(problem: dict[str, Any], char: str) -> None:
    """The 422 names the character: its code point (and its name when it has one)."""
    code = f"U+{ord(char):04X}"
    message = problem["errors"][0]["msg"]
    assert code in message, message
    name = unicodedata.name(char, "")
    if name:
        assert name in message, message


@pytest.mark.parametrize("char", REFUSED, ids=[f"U+{ord(c):04X}" for c in REFUSED])
def test_a_name_refuses_the_character_and_names_it(store_client: TestClient, char: str) -> None:
    for name in (f"Ly{char}dia", f"{char}Lydia", f"Lydia{char}"):
        body = {**ARM_WRESTLE, "b": {**ARM_WRESTLE["b"], "name": name}}
        answer = store_client.post("/v1/arm-wrestles", json=body)
        refused_character(assert_problem(answer, 422, ["body", "b", "name"]), char)


@pytest.mark.parametrize("char", ["\u202e", "\n", "\u200b"])
def test_names_and_texts_of_a_skill_game_refuse_it_too(store_client: TestClient, char: str) -> None:
    """A party, a member, an action and an effect's text: every name and text a caller sends."""
    heroes, villains = parties()
    member = {**heroes, "members": [{**heroes["members"][0], "name": f"A{char}nn"}]}
    cases: list[tuple[dict[str, Any], list[str | int]]] = [
        (bidding_body(parties=[{**heroes, "name": f"He{char}roes"}, villains]), ["parties", 0]),
        (bidding_body(parties=[member, villains]), ["parties", 0, "members", 0]),
    ]
    action = bidding_body()["actions"][2]
    renamed = {**action, "name": f"Ral{char}ly"}
    texted = {**action, "effects": [{**action["effects"][0], "text": f"Second{char} wind."}]}
    for changed, loc in ((renamed, ["name"]), (texted, ["effects", 0, "text"])):
        actions = list(bidding_body()["actions"])
        actions[2] = changed
        cases.append((bidding_body(actions=actions), ["actions", 2, *loc[:-1]]))
    for body, where in cases:
        problem = assert_problem(store_client.post("/v1/skill-games", json=body), 422)
        assert problem["errors"][0]["loc"][: len(where) + 1] == ["body", *where], problem
        refused_character(problem, char)


@pytest.mark.parametrize("name", KEPT)
def test_names_that_need_zwj_or_zwnj_are_kept_exactly_as_sent(
    store_client: TestClient, name: str
) -> None:
    made = Session(
        store_client, "arm-wrestles", {**ARM_WRESTLE, "b": {**ARM_WRESTLE["b"], "name": name}}
    )
    assert made.created["config"]["b"]["name"] == name
    assert made.session()["config"]["b"]["name"] == name
    played = made.post("rounds", {"rolls": {"Lydia": {"strength": 3}, name: {"strength": 9}}})
    assert played.status_code == 200, played.text
    assert played.json()["round"]["round_winner"] == name


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Lydia", "Ly\u00addia"),  # a soft hyphen: default ignorable, not refused
        ("Lydia", "Lyd\u034fia"),  # a combining grapheme joiner
        ("Lydia", "Lydia\ufe0f"),  # a variation selector
        ("Lydia", "Ly\u200ddia"),  # a ZWJ where no script needs one
        ("Ren\u00e9e", "Rene\u0301e"),  # one accented letter, and a letter and its accent
    ],
)
def test_names_differing_only_by_invisible_characters_or_normalisation_are_one_name(
    store_client: TestClient, first: str, second: str
) -> None:
    body = {
        **ARM_WRESTLE,
        "a": {**ARM_WRESTLE["a"], "name": first},
        "b": {**ARM_WRESTLE["b"], "name": second},
    }
    problem = assert_problem(store_client.post("/v1/arm-wrestles", json=body), 422)
    assert problem["errors"][0]["loc"] == ["body", "b", "name"]
    assert "different names" in problem["errors"][0]["msg"]
    heroes, villains = parties()
    twins = {
        **heroes,
        "members": [
            {**heroes["members"][0], "name": first},
            {**heroes["members"][1], "name": second},
        ],
    }
    problem = assert_problem(
        store_client.post("/v1/skill-games", json=bidding_body(parties=[twins, villains])), 422
    )
    assert "used twice" in problem["errors"][0]["msg"]
    racers = KINDS["races"].examples.create
    competitors = [
        {**racers["competitors"][0], "name": first},
        {**racers["competitors"][1], "name": second},
    ]
    answer = store_client.post("/v1/races", json={**racers, "competitors": competitors})
    problem = assert_problem(answer, 422)
    assert any("two competitors named" in error["msg"] for error in problem["errors"])


def test_look_alike_letters_of_another_script_are_two_names(store_client: TestClient) -> None:
    """Unicode's confusables (UTS #39) are out of scope (docs/api.md#names): a Cyrillic a
    (U+0430) makes another name."""
    body = {**ARM_WRESTLE, "b": {**ARM_WRESTLE["b"], "name": "Lydi\u0430"}}
    assert store_client.post("/v1/arm-wrestles", json=body).status_code == 201


# --- seeds ----------------------------------------------------------------------------------


def verifiable(client: TestClient) -> Session:
    return Session(client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seats": True})


@pytest.mark.parametrize("char", ["\x00", "\x01", "\n", "\x7f", "\x9f"])
def test_a_seed_with_a_control_character_is_a_422_naming_it_on_both_databases(
    store_client: TestClient, char: str
) -> None:
    made = verifiable(store_client)
    seat = made.tokens["seats"]["Ogre"]
    answer = made.post("seeds", {"seed": f"lucky{char}words"}, token=seat)
    refused_character(assert_problem(answer, 422, ["body", "seed"]), char)
    assert made.get("proof").json()["seeds"] == []


def test_a_seed_is_kept_byte_for_byte_whatever_else_it_holds(store_client: TestClient) -> None:
    """Bidi controls, zero-width characters, a decomposed accent: a seed is never normalised
    (its exact UTF-8 bytes feed the dice), only controls are refused."""
    made = verifiable(store_client)
    seed = "e\u0301 \u202e\u200b\ufeff\u2066 \U0001f3b2"
    added = made.post("seeds", {"seed": seed}, token=made.tokens["seats"]["Lydia"])
    assert added.status_code == 200, added.text
    assert added.json()["seeds"] == [{"by": "seat:Lydia", "seed": seed}]
    assert made.get("proof").json()["seeds"][0]["seed"].encode() == seed.encode()


# --- names stored before they were checked -------------------------------------------------


def rename_in_store(database_url: str, session_id: str, old: str, new: str) -> None:
    """A name as an older service stored it: every mention of `old` in the session's config
    and state made `new` (JSON text, so it works alike on both databases)."""
    engine = null_pool_engine(database_url)
    try:
        with engine.begin() as connection:
            config, state = connection.execute(
                select(sessions.c.config, sessions.c.state).where(sessions.c.id == session_id)
            ).one()
            renamed = {
                column: json.loads(json.dumps(value, ensure_ascii=False).replace(old, new))
                for column, value in (("config", config), ("state", state))
            }
            connection.execute(
                update(sessions).where(sessions.c.id == session_id).values(**renamed)
            )
    finally:
        engine.dispose()


UNSHOWN = ("\u202e", "\u200b", "\u2066", "\ufeff", "\u200e")


def test_an_older_stored_name_with_a_bidi_override_reaches_no_chat_text(
    store_client: TestClient, database_url: str
) -> None:
    """`Ly\\u202edia` stored before names were checked: the round's summary, in JSON, text and
    markdown, the session's summary and the rounds listed hold none of it; a mention in it is
    still broken. The name itself stays as stored in the JSON data."""
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    hostile = "Ly\u202e\u200b@everyone\u2066dia\ufeff"
    rename_in_store(database_url, made.id, "Lydia", hostile)
    # As a process started since then reads it (a session's config is kept once loaded).
    kinds._configs.pop(("arm-wrestles", made.id), None)
    # Server dice: a round's supplied dice name their competitor, and a name holding such a
    # character is refused there as anywhere it enters.
    played = made.post("rounds", {})
    assert played.status_code == 200, played.text
    answer = played.json()
    assert answer["session"]["config"]["a"]["name"] == hostile
    shown = [answer["summary"], answer["round"]["summary"], answer["session"]["summary"]]
    shown += [played_round["summary"] for played_round in made.rounds()]
    shown.append(made.session()["summary"])
    for accept in ("text/plain", "text/markdown"):
        for answer in (
            made.get("rounds", headers={"Accept": accept}),
            made.get(headers={"Accept": accept}),
        ):
            assert answer.status_code == 200
            if answer.headers["content-type"].startswith("text/"):  # else the JSON data
                shown.append(answer.text)
    for text in shown:
        assert "Ly@\u200beveryonedia" in text.replace("\\", ""), text
        # The one zero-width space left is the one that breaks the mention.
        assert "\u200b" not in text.replace("@\u200b", "@"), text
        for char in UNSHOWN:
            assert char not in text.replace("@\u200b", "@"), (char, text)


@pytest.mark.parametrize(
    "detail",
    [
        "this call needs Authorization: Bearer <token>",
        "the chase would be over already: lead <= 0",
        "an arrow <- here, and <-> there",
    ],
)
def test_the_services_own_text_carries_no_neutraliser(detail: str) -> None:
    """A `<` that opens no Discord markup is left alone: the service's fixed messages (a
    problem's detail, a summary) are shown as written."""
    assert formats.plain(detail) == detail
    assert formats.ZERO_WIDTH_SPACE not in formats.error_message("text", detail)
    assert formats.ZERO_WIDTH_SPACE not in formats.error_message("markdown", detail)


def test_a_401_in_chat_form_reads_as_written(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    answer = store_client.get(made.url, headers={"Accept": "text/plain"})
    assert answer.status_code == 401
    assert answer.text == "this call needs Authorization: Bearer <token>\n"
    json_problem = store_client.get(made.url, headers=bearer("x" * 600))
    assert formats.ZERO_WIDTH_SPACE not in json_problem.json()["detail"]
