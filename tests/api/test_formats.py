"""Answers as chat messages: `Accept: text/markdown` and `text/plain` (docs/api.md#answer-formats).

The markdown message is the summary line then every die (criticals in bold, dropped dice
struck through); the text is the summary line alone; both neutralise caller-chosen names
and stay within Discord's 2000 characters. A creation answers JSON whatever `Accept` says.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from app.api.answers import formats
from app.api.answers.formats import preferred_form
from app.api.common import header, respond
from tests.helpers import Session, bearer

MARKDOWN = {"Accept": "text/markdown"}
TEXT = {"Accept": "text/plain"}
ZWSP = "\u200b"

QUICK_CONTEST = "/v1/gurps/quick-contest"
ARM_WRESTLES = "/v1/arm-wrestles"
LYDIA = {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1}
OGRE = {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2}


def assert_message(response: Any, media_type: str) -> str:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == f"{media_type}; charset=utf-8"
    assert response.headers["vary"] == "Accept, Accept-Language"
    text: str = response.text
    assert text.endswith("\n")
    assert formats.units(text) <= formats.MESSAGE_LIMIT
    return text


# --- one-shots -------------------------------------------------------------------------------


def test_quick_contest_with_a_critical(client: TestClient) -> None:
    body = {
        "a": {"name": "Ann", "skill": 12, "roll": [1, 1, 2]},
        "b": {"name": "Bob", "skill": 10, "roll": [5, 5, 1]},
    }
    markdown = assert_message(
        client.post(QUICK_CONTEST, json=body, headers=MARKDOWN), "text/markdown"
    )
    assert markdown == (
        "Ann \\(skill 12\\) rolled 4, made it by 8 \\(critical success\\); "
        "Bob \\(skill 10\\) rolled 11, missed by 1. Ann wins by 9.\n"
        "- Ann · success: 3d6 → **1, 1, 2** (critical success)\n"
        "- Bob · success: 3d6 → 5, 5, 1\n"
    )
    text = assert_message(client.post(QUICK_CONTEST, json=body, headers=TEXT), "text/plain")
    assert text == (
        "Ann (skill 12) rolled 4, made it by 8 (critical success); "
        "Bob (skill 10) rolled 11, missed by 1. Ann wins by 9.\n"
    )


def test_resistance_roll_bolds_the_defenders_critical_failure(client: TestClient) -> None:
    body = {
        "attacker": {"name": "Wizard", "skill": 14, "roll": [3, 2, 2]},
        "defender": {"name": "Orc", "skill": 11, "roll": [5, 6, 6]},
    }
    response = client.post("/v1/gurps/resistance-roll", json=body, headers=MARKDOWN)
    lines = assert_message(response, "text/markdown").splitlines()
    assert lines[1:] == [
        "- Wizard · success: 3d6 → 3, 2, 2",
        "- Orc · success: 3d6 → **5, 6, 6** (critical failure)",
    ]


def test_success_roll_critical_failure(client: TestClient) -> None:
    response = client.post(
        "/v1/gurps/success-roll", json={"skill": 12, "roll": [6, 6, 6]}, headers=MARKDOWN
    )
    assert assert_message(response, "text/markdown") == (
        "Skill 12 rolled 18, missed by 6 \\(critical failure\\).\n"
        "- success: 3d6 → **6, 6, 6** (critical failure)\n"
    )


def test_cairn_roll_bolds_its_critical_die(client: TestClient) -> None:
    body = {
        "rating": 12,
        "target": 45,
        "dice": [87, 78, 75, 62, 37, 36, 7],
        "critical_die": 13,
        "magnitude_die": 51,
    }
    markdown = assert_message(
        client.post("/v1/cairn/roll", json=body, headers=MARKDOWN), "text/markdown"
    )
    assert markdown == (
        "Rating 12 rolled 7 36 37 62 75 78 87: middle 62 and third best 75 average 68, base "
        "score 80; critical die 13: critical failure, magnitude 51 \\(x2\\): -24; score 56 vs "
        "target 45: success.\n"
        "- cairn: 7d100 → 87, 78, 75, 62, 37, 36, 7\n"
        "- critical: 1d100 → **13** (critical failure)\n"
        "- magnitude: 1d100 → 51\n"
    )
    text = assert_message(client.post("/v1/cairn/roll", json=body, headers=TEXT), "text/plain")
    assert text == (
        "Rating 12 rolled 7 36 37 62 75 78 87: middle 62 and third best 75 average 68, base "
        "score 80; critical die 13: critical failure, magnitude 51 (x2): -24; score 56 vs "
        "target 45: success.\n"
    )


def test_a_d20_check_has_no_critical(client: TestClient) -> None:
    # Natural 1 and 20 are not automatic on checks (docs/rules.md#d20-checks): a 20 is not in bold.
    response = client.post(
        "/v1/d20/check", json={"modifier": -2, "dc": 10, "roll": 20}, headers=MARKDOWN
    )
    assert assert_message(response, "text/markdown") == (
        "d20 20 - 2 = 18 vs DC 10: success.\n- check: 1d20 → 20\n"
    )


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_notation_roll_strikes_its_dropped_die(client: TestClient, method: str) -> None:
    roll = {"expr": "4d6kh3", "seed": 7}
    if method == "GET":
        markdown = client.get("/v1/roll", params=roll, headers=MARKDOWN)
        text = client.get("/v1/roll", params=roll, headers=TEXT)
    else:
        markdown = client.post("/v1/roll", json=roll, headers=MARKDOWN)
        text = client.post("/v1/roll", json=roll, headers=TEXT)
    # The breakdown is the summary line and the roll's one die line at once.
    assert assert_message(markdown, "text/markdown") == "4d6kh3 (~~2~~, 3, 4, 5) = 12\n"
    assert assert_message(text, "text/plain") == "4d6kh3 (~~2~~, 3, 4, 5) = 12\n"


def test_notation_annotations_are_caller_text(client: TestClient) -> None:
    roll = {"expr": "2d6kl1[@everyone **now**]*2", "seed": 1}
    markdown = assert_message(client.post("/v1/roll", json=roll, headers=MARKDOWN), "text/markdown")
    assert markdown == f"2d6kl1 (~~4~~, 1) \\[@{ZWSP}everyone \\*\\*now\\*\\*\\] \\* 2 = 2\n"
    text = assert_message(client.post("/v1/roll", json=roll, headers=TEXT), "text/plain")
    assert text == f"2d6kl1 (~~4~~, 1) [@{ZWSP}everyone \\*\\*now\\*\\*] * 2 = 2\n"


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "as_text", "as_markdown"),
    [
        ("@everyone", f"@{ZWSP}everyone", f"@{ZWSP}everyone"),
        ("@here", f"@{ZWSP}here", f"@{ZWSP}here"),
        ("<@123456>", f"<{ZWSP}@{ZWSP}123456>", f"<{ZWSP}@{ZWSP}123456\\>"),
        ("<@&42>", f"<{ZWSP}@{ZWSP}&42>", f"<{ZWSP}@{ZWSP}&42\\>"),
        ("<#42>", f"<{ZWSP}#42>", f"<{ZWSP}\\#42\\>"),
        ("Ann\nBob", "Ann Bob", "Ann Bob"),
        ("Ann\r\n\tBob\u2028Cy", "Ann Bob Cy", "Ann Bob Cy"),
        ("**bold**", "**bold**", "\\*\\*bold\\*\\*"),
        (
            "_a_ ~~b~~ `c` |d| >e #f [g](h) \\",
            "_a_ ~~b~~ `c` |d| >e #f [g](h) \\",
            "\\_a\\_ \\~\\~b\\~\\~ \\`c\\` \\|d\\| \\>e \\#f \\[g\\]\\(h\\) \\\\",
        ),
        ("- Ann", "- Ann", "\\- Ann"),
        ("1. Ann", "1. Ann", "1\\. Ann"),
    ],
)
def test_names_are_neutralised(name: str, as_text: str, as_markdown: str) -> None:
    assert formats.plain(name) == as_text
    assert formats.markdown(name) == as_markdown


#: Names a caller may send (a line break is refused where it enters: tests/api/test_free_text.py).
HOSTILE = ("@everyone", "<@123456>", "**bold**", "||spoiler||", "> quoted")


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_in_a_quick_contest(client: TestClient, name: str) -> None:
    body = {
        "a": {"name": name, "skill": 12, "roll": [6, 6, 6]},
        "b": {"name": "Bob", "skill": 10, "roll": [3, 3, 3]},
    }
    text = assert_message(client.post(QUICK_CONTEST, json=body, headers=TEXT), "text/plain")
    markdown = assert_message(
        client.post(QUICK_CONTEST, json=body, headers=MARKDOWN), "text/markdown"
    )
    assert text.count("\n") == 1
    assert text == (
        f"{formats.one_line(name)} (skill 12) rolled 18, missed by 6 (critical failure); "
        "Bob (skill 10) rolled 9, made it by 1. Bob wins by 7.\n"
    )
    # The JSON summary is postable as it is too: one line, no mentions.
    summary = client.post(QUICK_CONTEST, json=body).json()["summary"]
    assert summary == (
        f"{formats.plain(name)} (skill 12) rolled 18, missed by 6 (critical failure); "
        "Bob (skill 10) rolled 9, made it by 1. Bob wins by 7."
    )
    assert "\n" not in summary
    assert "@everyone" not in summary
    assert "<@1" not in summary
    assert markdown.splitlines() == [
        f"{formats.markdown(name)} \\(skill 12\\) rolled 18, missed by 6 \\(critical failure\\); "
        "Bob \\(skill 10\\) rolled 9, made it by 1. Bob wins by 7.",
        f"- {formats.markdown(name)} · success: 3d6 → **6, 6, 6** (critical failure)",
        "- Bob · success: 3d6 → 3, 3, 3",
    ]
    for message in (text, markdown):
        assert "@everyone" not in message
        assert "<@" not in message
        assert "**bold**" not in message
        assert "||" not in message


# --- sessions --------------------------------------------------------------------------------


def create_wrestle(client: TestClient, **options: Any) -> dict[str, Any]:
    response = client.post(ARM_WRESTLES, json={"a": LYDIA, "b": OGRE, **options})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_arm_wrestle_round_and_session(store_client: TestClient) -> None:
    wrestle = create_wrestle(store_client)
    url, gm = f"{ARM_WRESTLES}/{wrestle['id']}", wrestle["tokens"]["gm"]
    dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
    response = store_client.post(
        f"{url}/rounds", json=dice, headers=bearer(gm, **MARKDOWN, **{"Idempotency-Key": "r1"})
    )
    expected = (
        "Round 1: Lydia beats Ogre by 5: Lydia's DS rises to 5 \\(Lydia 5, Ogre 0; Lydia "
        "leads\\).\n"
        "- Lydia · strength: 1d20 → 17\n"
        "- Ogre · strength: 1d20 → 8\n"
        # The round's card, as the service worded it: dice, modifiers, totals, the DS moved.
        "> Lydia 1d20+2 = 19 vs Ogre 1d20+6 = 14 → Lydia +5 \\(DS 5\\)\n"
    )
    assert assert_message(response, "text/markdown") == expected
    assert response.headers["etag"] == '"2"'
    # The stored answer (JSON) replays in the form asked for this time.
    replay = store_client.post(
        f"{url}/rounds", json=dice, headers=bearer(gm, **MARKDOWN, **{"Idempotency-Key": "r1"})
    )
    assert assert_message(replay, "text/markdown") == expected
    assert replay.headers["idempotent-replayed"] == "true"
    replay = store_client.post(
        f"{url}/rounds", json=dice, headers=bearer(gm, **TEXT, **{"Idempotency-Key": "r1"})
    )
    assert assert_message(replay, "text/plain") == (
        "Round 1: Lydia beats Ogre by 5: Lydia's DS rises to 5 (Lydia 5, Ogre 0; Lydia leads).\n"
    )
    session = store_client.get(url, headers=bearer(gm, **MARKDOWN))
    assert assert_message(session, "text/markdown") == (
        "Arm wrestle Lydia vs Ogre: DS Lydia 5, Ogre 0 \\(target 20\\).\n"
    )
    # A page of rounds has no summary line of its own: each round with its dice in markdown,
    # JSON for text.
    page = store_client.get(f"{url}/rounds", headers=bearer(gm, **MARKDOWN))
    assert assert_message(page, "text/markdown") == expected
    page = store_client.get(f"{url}/rounds", headers=bearer(gm, **TEXT))
    assert page.headers["content-type"] == "application/json"


def test_a_cards_line_in_the_discord_form_is_in_the_readers_language(
    store_client: TestClient,
) -> None:
    wrestle = create_wrestle(store_client)
    url, gm = f"{ARM_WRESTLES}/{wrestle['id']}", wrestle["tokens"]["gm"]
    dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
    response = store_client.post(f"{url}/rounds?lang=de", json=dice, headers=bearer(gm, **MARKDOWN))
    # The same card the JSON answer carries, as the German reader reads it (EG: the DS).
    assert assert_message(response, "text/markdown").splitlines()[-1] == (
        "> Lydia 1d20+2 = 19 gegen Ogre 1d20+6 = 14 → Lydia +5 \\(EG 5\\)"
    )


def test_notation_dice_in_a_session_keep_their_breakdown(store_client: TestClient) -> None:
    mental = {
        "variant": "mental",
        "a": {**LYDIA, "name": "<@123456>", "int_mod": 3, "wis_score": 1, "wis_mod": 2},
        "b": {**OGRE, "int_mod": -1, "wis_score": 1, "wis_mod": -1},
        "target": 4,
        "loser_damage": "2d6kh1[ouch]",
    }
    wrestle = create_wrestle(store_client, **mental)
    dice = {"rolls": {"<@123456>": {"strength": 2, "damage": [4, 3]}, "Ogre": {"strength": 12}}}
    response = store_client.post(
        f"{ARM_WRESTLES}/{wrestle['id']}/rounds",
        json=dice,
        headers=bearer(wrestle["tokens"]["gm"], **MARKDOWN),
    )
    name = f"<{ZWSP}@{ZWSP}123456\\>"
    assert assert_message(response, "text/markdown").splitlines()[1:] == [
        f"- {name} · strength: 1d20 → 2",
        "- Ogre · strength: 1d20 → 12",
        f"- {name} · damage: 2d6kh1 (4, ~~3~~) \\[ouch\\] = 4",
        # The card's names are made safe as the dice lines' are.
        f"> {name} 1d20+3 = 5 vs Ogre 1d20-1 = 11 → Ogre +6 \\(DS 6\\)",
    ]


def test_a_long_resolve_is_shortened_with_a_pointer(store_client: TestClient) -> None:
    racers = [{"name": f"Racer {n:02} {'@everyone' * 6}", "speed": 30} for n in range(64)]
    shown = (
        (MARKDOWN, formats.MARKDOWN_POINTER, formats.markdown),
        (TEXT, formats.TEXT_POINTER, formats.one_line),
    )
    for accept, pointer, neutralised in shown:
        created = store_client.post(
            "/v1/races", json={"course": "dash", "competitors": racers, "seed": 5}
        )
        assert created.status_code == 201, created.text
        race = created.json()
        url, gm = f"/v1/races/{race['id']}/resolve", race["tokens"]["gm"]
        keyed = bearer(gm, **{"Idempotency-Key": "resolve"})
        message = assert_message(
            store_client.post(url, headers={**keyed, **accept}), accept["Accept"]
        )
        # The same answer, replayed as JSON: its summary is longer than a message.
        summary = store_client.post(url, headers=keyed).json()["summary"]
        assert len(summary) > formats.MESSAGE_LIMIT
        assert message.endswith(pointer + "\n")
        assert formats.units(message) > formats.MESSAGE_LIMIT - 100
        assert "@everyone" not in message
        # The summary line's start and its end (the outcome: who won), each cut at a word,
        # the middle left out, then the pointer.
        kept = message.removesuffix(pointer + "\n").removesuffix("\n")
        assert "\n" not in kept
        whole = neutralised(summary)
        start, _, end = kept.partition(formats.ELLIPSIS)
        assert whole.startswith(start)
        assert whole[len(start)] == " "
        assert whole.endswith(end)
        assert end.endswith("wins the race with DS 48.") or "wins" in end
        assert whole[-len(end) - 1] == " "


@pytest.mark.parametrize("accept", [MARKDOWN, TEXT, {"Accept": "text/markdown, text/plain"}])
def test_a_creation_answers_json_whatever_accept_says(
    store_client: TestClient, accept: dict[str, str]
) -> None:
    response = store_client.post(ARM_WRESTLES, json={"a": LYDIA, "b": OGRE}, headers=accept)
    assert response.status_code == 201
    assert response.headers["content-type"] == "application/json"
    assert set(response.json()["tokens"]) == {"gm"}
    # A keyed creation (scoped to the caller's secret) replays its tokens as JSON too.
    keyed = bearer("a-secret-of-my-own", **accept, **{"Idempotency-Key": "create-1"})
    first = store_client.post(ARM_WRESTLES, json={"a": LYDIA, "b": OGRE}, headers=keyed)
    replay = store_client.post(ARM_WRESTLES, json={"a": LYDIA, "b": OGRE}, headers=keyed)
    assert (first.status_code, replay.status_code) == (201, 201)
    assert replay.headers["content-type"] == "application/json"
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json()["tokens"] == first.json()["tokens"]


# --- negotiation and the limit ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "form"),
    [
        (None, "json"),
        ("*/*", "json"),
        ("application/json", "json"),
        ("text/plain", "text"),
        ("text/markdown", "markdown"),
        ("text/markdown; charset=utf-8", "markdown"),
        ("application/json, text/plain", "json"),
        ("text/plain, application/json", "text"),
        ("text/markdown, text/plain", "markdown"),
        ("text/plain;q=0.5, application/json", "json"),
        ("application/json;q=0.5, text/markdown", "markdown"),
        ("text/plain;q=0.9, text/markdown", "markdown"),
        ("text/plain;q=0", "json"),
        ("text/markdown;q=0, */*", "json"),
        ("text/markdown;q=oops", "json"),
        ("application/json;q=0, */*;q=0.1, text/plain;q=0.05", "text"),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "json"),
        ("text/*", "json"),
    ],
)
def test_negotiation(accept: str | None, form: str) -> None:
    assert preferred_form(accept) == form


def request_with(accept: str) -> Request:
    return Request(
        {
            "type": "http",
            "method": "GET",
            "path": "/",
            "query_string": b"",
            "headers": [(b"accept", accept.encode())],
        }
    )


def test_an_answer_without_a_summary_stays_json() -> None:
    response = respond(request_with("text/markdown"), {"total": 3})
    assert response.media_type == "application/json"
    assert response.body == b'{"total":3}'


def test_the_limit_counts_utf16_units_and_cuts_at_a_word() -> None:
    # Each die emoji is two UTF-16 units: 1000 of them with spaces are 3000 units.
    summary = " ".join(["\U0001f3b2"] * 1000)
    text = formats.text_message({"summary": summary})
    assert text is not None
    assert formats.units(text) <= formats.MESSAGE_LIMIT
    assert text.endswith(formats.TEXT_POINTER + "\n")
    kept = text.removesuffix(formats.TEXT_POINTER + "\n")
    start, _, end = kept.partition(formats.ELLIPSIS)
    assert summary.startswith(start)
    assert summary[len(start)] == " "
    assert summary.endswith(end)
    assert summary[-len(end) - 1] == " "
    lines = ["Summary.", *(f"- die {n}: 1d20 → {n % 20 + 1}" for n in range(200))]
    markdown = formats.markdown_message(
        {
            "summary": "Summary.",
            "rolls": [
                {"who": None, "purpose": f"die {n}", "dice": "1d20", "values": [n % 20 + 1]}
                for n in range(200)
            ],
        }
    )
    assert markdown is not None
    assert formats.units(markdown) <= formats.MESSAGE_LIMIT
    shown = markdown.splitlines()
    assert shown[-1] == formats.MARKDOWN_POINTER
    assert shown[:-1] == lines[: len(shown) - 1]
    # Nothing more would have fitted: the next line and the pointer pass the limit.
    assert (
        formats.units(markdown) + formats.units(lines[len(shown) - 1]) + 1 > formats.MESSAGE_LIMIT
    )


def test_openapi_declares_markdown_and_text_for_one_shots(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path, method in (
        (QUICK_CONTEST, "post"),
        ("/v1/cairn/roll", "post"),
        ("/v1/roll", "get"),
        ("/v1/roll", "post"),
    ):
        content = paths[path][method]["responses"]["200"]["content"]
        assert content["text/markdown"]["schema"] == {"type": "string"}
        assert content["text/plain"]["schema"] == {"type": "string"}
        assert "application/json" in content


def test_header_lookup_agrees_with_starlettes() -> None:
    raw = [
        (b"accept", b"text/plain"),
        (b"if-match", b'"3"'),
        (b"accept", b"application/json"),
        (b"x-name", "Zo\u00eb".encode("latin-1")),
    ]
    request = Request({"type": "http", "headers": raw})
    for name in ("accept", "if-match", "x-name", "authorization"):
        assert header(request, name.encode()) == request.headers.get(name)
    assert header(request, b"accept") == "text/plain"  # the first of a repeated header
    assert header(request, b"x-name") == "Zo\u00eb"


def test_a_shortened_roll_keeps_its_total(client: TestClient) -> None:
    """700d6 writes every die before its total: the shortened message keeps the total."""
    whole = client.post("/v1/roll", json={"expr": "700d6", "seed": 3}).json()
    total = whole["total"]
    for accept in (TEXT, MARKDOWN):
        answer = client.post("/v1/roll", json={"expr": "700d6", "seed": 3}, headers=accept)
        message = assert_message(answer, accept["Accept"])
        assert formats.units(message) <= formats.MESSAGE_LIMIT
        first = message.splitlines()[0]
        assert first.endswith(f"= {total}") or f"= {total} " in first, first


@pytest.mark.parametrize(
    ("accept", "media_type"), [(TEXT, "text/plain"), (MARKDOWN, "text/markdown")]
)
def test_an_error_in_a_chat_form_is_one_safe_line(
    store_client: TestClient, accept: dict[str, str], media_type: str
) -> None:
    """An error quoting a caller's name: with a chat form asked, one line of that form, the
    name neutralised; as JSON, its detail is postable as it is."""
    made = Session(
        store_client,
        "arm-wrestles",
        {
            "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
            "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        },
    )
    round_body = {"rolls": {"@here <@&99>\nhi": {"strength": 3}}}
    answer = store_client.post(
        made.url + "/rounds", json=round_body, headers={**made.headers, **accept}
    )
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith(media_type)
    assert answer.text.count("\n") == 1
    assert answer.text.endswith("\n")
    assert "here" in answer.text
    assert "@here" not in answer.text
    assert "<@&" not in answer.text
    detail = store_client.post(made.url + "/rounds", json=round_body, headers=made.headers)
    assert detail.headers["content-type"] == "application/problem+json"
    shown = detail.json()["detail"]
    assert "here" in shown
    assert "@here" not in shown
    assert "<@&" not in shown
    assert "\n" not in shown


@given(st.text(alphabet=st.characters(codec=None), max_size=40))
def test_plain_skips_only_text_that_needs_nothing(text: str) -> None:
    """`plain` returns a line as it is only when both of its passes would leave it so."""
    slow = formats._MENTION.sub("\\1" + formats.ZERO_WIDTH_SPACE, formats._CONTROLS.sub(" ", text))
    assert formats.plain(text) == slow


@pytest.mark.parametrize("text", ["a\u2028b", "x\x85y", "@here", "<@1>", "tab\there", "ok line"])
def test_plain_on_the_edges_of_its_quick_path(text: str) -> None:
    shown = formats.plain(text)
    assert "\n" not in shown
    assert "\u2028" not in shown
    assert "\x85" not in shown
    assert "@here" not in shown
    assert "<@" not in shown
