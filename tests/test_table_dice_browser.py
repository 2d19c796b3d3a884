"""Verifiable dice on the table page, in a real browser (tests/test_table_browser.py's helpers).

The GM creates a verifiable arm wrestle from the form; the GM's page and a player's show the
commitment and the chain head; each adds a seed of its own (the GM's the random one the page
fills in); the dice the GM and the seat supplied say by whom; once the match is over, "Check the
dice" fetches the proof and verifies every die and link in the browser with WebCrypto (a secure
context: the page is on 127.0.0.1), saying so in the live region. The count of dice and rounds
it reports is the proof's, as the verifier written from docs/verifiable-dice.md finds it.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests import verifier_from_doc
from tests.store.servers import Server
from tests.test_table_browser import (
    PHONE,
    NewSeat,
    Seat,
    browser,
    check_accessible,
    check_confined,
    create,
    join,
    link_of,
    screenshot,
    server,
    table,
)

__all__ = ["browser", "server", "table"]  # the fixtures, shared with the page's other tests

pytestmark = pytest.mark.slow


def whole_proof(server: Server, fragment: dict[str, str]) -> dict[str, Any]:
    """The session's proof as the GM's token reads it (every round: a short match)."""
    answer = httpx.get(
        f"{server.base_url}/v1/{fragment['kind']}/{fragment['session']}/proof",
        params={"limit": 500},
        headers={"authorization": f"Bearer {fragment['token']}"},
    )
    assert answer.status_code == 200, answer.text
    proof: dict[str, Any] = answer.json()
    return proof


def seeds_shown(seat: Seat) -> list[str]:
    items: list[str] = seat.page.locator("#seeds .seeds-list li").all_inner_texts()
    return items


def test_a_verifiable_arm_wrestle_is_checked_on_the_page(table: NewSeat, server: Server) -> None:
    gm = table()
    fragment = create(gm, server, "arm-wrestles", verifiable=True)
    lydia = table(PHONE)
    join(lydia, link_of(gm, "Lydia"), "You are Lydia (your seat)")
    started = whole_proof(server, fragment)
    assert started["revealed"] is False
    assert started["seeds_open"] is True
    commitment = started["commitment"]
    for seat in (gm, lydia):
        page = seat.page
        expect(page.locator("#dice-panel")).to_be_visible()
        expect(page.locator("#dice-facts")).to_contain_text("The dice are verifiable")
        shown = page.locator("#dice-facts .hash").first
        expect(shown).to_have_text(f"{commitment[:12]}…")
        expect(shown).to_have_attribute("title", commitment)
        expect(page.locator("#dice-facts .hash").nth(1)).to_have_attribute(
            "title", started["chain_head"]
        )
        expect(page.locator("#seeds")).to_contain_text("No seed added.")
        # WebCrypto is there: http://127.0.0.1 is a secure context.
        assert page.evaluate("window.isSecureContext && typeof crypto.subtle.sign") == "function"

    # Before the reveal the page says what can be checked now.
    lydia.page.get_by_role("button", name="Check the dice").click()
    waiting = (
        "The dice cannot be checked yet: the server's seed is revealed when the session ends. "
        f"Now: its commitment {commitment[:12]}… is fixed, 0 seed(s) added, 0 round(s) chained "
        f"to the head {started['chain_head'][:12]}…. The genesis checks out."
    )
    expect(lydia.page.locator("#check-result")).to_have_text(waiting)
    expect(lydia.page.locator("#check-result")).to_have_attribute("data-state", "waiting")
    expect(lydia.page.locator("#announcer")).to_have_text(waiting)

    # The GM adds the random seed the page filled in; Lydia her own words.
    gm_seed = gm.page.get_by_label(re.compile("^Your seed"))
    expect(gm_seed).to_have_value(re.compile("^[0-9a-f]{32}$"))
    random_seed = gm_seed.input_value()
    lydias_seed = lydia.page.get_by_label(re.compile("^Your seed"))
    lydias_seed.fill("Lydia's lucky seed")
    gm.page.get_by_role("button", name="Add my seed").click()
    expect(gm.page.locator("#seeds")).to_contain_text("Your seed is in.")
    # The GM's seed shows on Lydia's page at once; what she typed meanwhile stays.
    expect(lydia.page.locator("#seeds .seeds-list li")).to_have_text([f"the GM: {random_seed}"])
    expect(lydias_seed).to_have_value("Lydia's lucky seed")
    lydia.page.get_by_role("button", name="Add my seed").click()
    expected_seeds = [f"the GM: {random_seed}", "Lydia's seat (you): Lydia's lucky seed"]
    expect(lydia.page.locator("#seeds .seeds-list li")).to_have_text(expected_seeds)
    expect(gm.page.locator("#seeds .seeds-list li")).to_have_text(
        [f"the GM (you): {random_seed}", "Lydia's seat: Lydia's lucky seed"]
    )
    check_accessible(gm)

    # A round with the GM's die for Lydia, then one with Lydia's own from her seat.
    gm.page.get_by_role("group", name="Lydia").get_by_label("Strength d20").fill("17")
    gm.page.get_by_role("button", name="Play the round").click()
    for seat in (gm, lydia):
        expect(seat.rounds()).to_have_count(1)
        expect(seat.page.locator("#seeds")).to_contain_text("Seeds are closed")
        expect(seat.page.locator("#seeds .seeds-list li")).to_have_count(2)
        expect(seat.page.locator("#seed-form")).to_have_count(0)
    first = gm.rounds().first.locator(".dice-table tbody tr")
    expect(first.filter(has_text="Lydia").locator("td").nth(5)).to_have_text("the GM")
    expect(first.filter(has_text="Ogre").locator("td").nth(4)).to_have_text("server")
    gm.page.get_by_role("button", name="Wait for the players' dice").click()
    expect(lydia.page.locator("#dice-form")).to_contain_text("Round 2 waits for your dice.")
    lydia.page.get_by_label("Strength d20").fill("12")
    lydia.page.get_by_role("button", name="Send my dice").click()
    expect(gm.page.locator("#pending")).to_contain_text("Round 2 waits for dice from Ogre")
    gm.page.get_by_role("button", name="Roll for Ogre").click()
    expect(lydia.rounds()).to_have_count(2)
    second = lydia.rounds().first.locator(".dice-table tbody tr").filter(has_text="Lydia")
    expect(second.locator("td").nth(3)).to_have_text("12")
    expect(second.locator("td").nth(5)).to_have_text("Lydia's seat")
    head = whole_proof(server, fragment)["chain_head"]
    expect(lydia.page.locator("#dice-facts .hash").nth(1)).to_have_attribute("title", head)

    expect(gm.rounds()).to_have_count(2)
    # Two big wins may have ended the match already (DS past 20): else the server plays on.
    if gm.page.locator("#board .result").count() == 0:
        gm.page.get_by_role("button", name="Play to the end").click()
        gm.page.get_by_role("button", name="Yes, play every round to the end").click()
    for seat in (gm, lydia):
        expect(seat.page.locator("#board .result")).to_contain_text("Finished")
    proof = whole_proof(server, fragment)
    assert proof["revealed"] is True
    assert verifier_from_doc.check(proof) == []
    dice = sum(
        len(entry["values"])
        for record in proof["rounds"]
        for entry in record["dice"]
        if entry["source"] == "rolled"
    )
    rounds = proof["rounds_played"]
    assert dice > 0
    assert rounds >= 2
    checked = f"Every die and link checks out ({dice} dice, {rounds} rounds)."
    for seat in (lydia, gm):
        seat.page.get_by_role("button", name="Check the dice").click()
        expect(seat.page.locator("#check-result")).to_have_text(checked, timeout=20_000)
        expect(seat.page.locator("#check-result")).to_have_attribute("data-state", "ok")
        expect(seat.page.locator("#announcer")).to_have_text(checked)
    # Each round listed says it was checked.
    for seat in (lydia, gm):
        expect(seat.page.locator("#rounds > li[data-checked='ok']")).to_have_count(rounds)
        expect(seat.rounds().last.locator(".round-check")).to_have_text(
            "Checked: its server dice and its link match."
        )
    screenshot(gm, "arm-wrestles-verifiable-gm")
    screenshot(lydia, "arm-wrestles-verifiable-player-phone")
    assert lydia.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    check_confined([gm, lydia], fragment)


def test_a_tampered_proof_is_named_on_the_page(table: NewSeat, server: Server) -> None:
    """The page checks what the service answers: a die changed on its way is named."""
    gm = table()
    fragment = create(gm, server, "arm-wrestles", verifiable=True)
    gm.page.get_by_role("button", name="Play to the end").click()
    gm.page.get_by_role("button", name="Yes, play every round to the end").click()
    expect(gm.page.locator("#board .result")).to_contain_text("Finished")
    proof = whole_proof(server, fragment)
    record = proof["rounds"][0]
    position, entry = next(
        (index, roll) for index, roll in enumerate(record["dice"]) if roll["source"] == "rolled"
    )
    value = entry["values"][0]
    sides = int(entry["dice"].split("d")[1])
    record["dice"][position]["values"][0] = value % sides + 1
    record["outcome"]["rolls"][position]["values"][0] = value % sides + 1

    def tampered(route: Any) -> None:
        route.fulfill(status=200, json=proof)

    gm.page.route(re.compile(r"/proof\?after=0&limit=500$"), tampered)
    gm.page.get_by_role("button", name="Check the dice").click()
    # The rounds the page is served are the service's own: the changed one differs from them.
    named = (
        f"3 problem(s): round 1: its record does not match its link in the chain; "
        f"round 1, roll {position + 1} ({entry['who']}'s {entry['purpose']!r}, {entry['dice']}), "
        f"die 1 (index 0, d{sides}): recorded {value % sides + 1}, derived {value}; "
        "round 1: the round served is not the round chained"
    )
    expect(gm.page.locator("#check-result")).to_have_text(named, timeout=20_000)
    expect(gm.page.locator("#check-result")).to_have_attribute("data-state", "failed")
    expect(gm.page.locator("#announcer")).to_have_text(named)
    expect(gm.page.locator("#rounds > li[data-checked='failed']")).to_have_count(1)
    expect(gm.page.locator("#rounds > li[data-checked='failed']")).to_have_attribute(
        "data-number", "1"
    )
    expect(gm.page.locator("#rounds > li[data-checked='ok']")).to_have_count(
        len(proof["rounds"]) - 1
    )


def checks_out(server: Server, fragment: dict[str, str]) -> str:
    """What the page says of a finished session's proof: its dice and rounds counted here."""
    proof = whole_proof(server, fragment)
    assert proof["revealed"] is True
    assert verifier_from_doc.check(proof) == []
    dice = sum(
        len(entry["values"])
        for record in [{"dice": proof["genesis"]["start_rolls"]}, *proof["rounds"]]
        for entry in record["dice"]
        if entry["source"] == "rolled"
    )
    assert dice > 0
    return f"Every die and link checks out ({dice} dice, {proof['rounds_played']} rounds)."


@pytest.mark.parametrize("kind", ["regular-contests", "races", "chases"])
def test_every_round_kind_offers_and_checks_verifiable_dice(
    table: NewSeat, server: Server, kind: str
) -> None:
    gm = table()
    fragment = create(gm, server, kind, verifiable=True)
    expect(gm.page.locator("#dice-panel")).to_be_visible()
    gm.page.get_by_role("button", name="Add my seed").click()
    expect(gm.page.locator("#seeds .seeds-list li")).to_have_text(
        [re.compile("^the GM \\(you\\): ")]
    )
    gm.page.get_by_role("button", name="Play the round").click()
    expect(gm.rounds()).to_have_count(1)
    expect(gm.page.locator("#seeds")).to_contain_text("Seeds are closed")
    # The page shows the session the round left (its board drawn before the round is listed):
    # a round may have ended it already.
    if gm.page.locator("#board .result").count() == 0:
        end = "The chaser gives up" if kind == "chases" else "Play to the end"
        gm.page.get_by_role("button", name=end).click()
        # Irreversible: the page asks first.
        sure = (
            "Yes, the chaser gives up" if kind == "chases" else "Yes, play every round to the end"
        )
        gm.page.get_by_role("button", name=sure).click()
    expect(gm.page.locator("#board .result")).to_contain_text("Finished")
    checked = checks_out(server, fragment)
    gm.page.get_by_role("button", name="Check the dice").click()
    expect(gm.page.locator("#check-result")).to_have_text(checked, timeout=20_000)
    expect(gm.page.locator("#announcer")).to_have_text(checked)
    check_accessible(gm)
    check_confined([gm], fragment)


def test_a_skill_games_parties_add_their_seeds_and_check_the_dice(
    table: NewSeat, server: Server
) -> None:
    gm = table()
    fragment = create(gm, server, "skill-games", "Heroes and Bandits (bidding)", verifiable=True)
    heroes = table()
    join(heroes, link_of(gm, "Heroes"), "You are Heroes")
    bandits = table(PHONE)
    join(bandits, link_of(gm, "Bandits"), "You are Bandits")
    heroes.page.get_by_label(re.compile("^Your seed")).fill("for the heroes")
    heroes.page.get_by_role("button", name="Add my seed").click()
    expect(gm.page.locator("#seeds .seeds-list li")).to_have_text(
        ["the party Heroes: for the heroes"]
    )
    expect(bandits.page.locator("#seed-form")).to_be_visible()
    for party, skills in ((heroes, ("Athletics", "Stealth")), (bandits, ("Stealth", "Athletics"))):
        for skill in skills:
            party.page.get_by_role("checkbox", name=skill).check()
        party.page.get_by_role("button", name="Roll these skills").click()
    for seat in (gm, heroes, bandits):
        expect(seat.page.locator("#board")).to_contain_text("sealing choices")
        # The first skills closed the seeds: the Bandits added none.
        expect(seat.page.locator("#seeds")).to_contain_text("Seeds are closed")
        expect(seat.page.locator("#seed-form")).to_have_count(0)
    heroes.page.get_by_label("Action").select_option("Charge")
    heroes.page.get_by_label(re.compile("^Bid")).fill("0")
    heroes.page.get_by_role("button", name="Seal the choice").click()
    expect(heroes.page.locator(".sealed")).to_contain_text("Your sealed choice: Charge, bid 0.")
    heroes_row = bandits.page.locator("#board table.parties tbody tr").filter(has_text="Heroes")
    expect(heroes_row).to_contain_text("choice sealed")
    bandits.page.get_by_label("Action").select_option("Rally")
    # A bid of 0: the tokens the Bandits' skills won are the dice's to say.
    bandits.page.get_by_label(re.compile("^Bid")).fill("0")
    bandits.page.get_by_role("button", name="Seal the choice").click()
    for seat in (gm, heroes, bandits):
        expect(seat.rounds()).to_have_count(1)
    gm.page.get_by_role("button", name="End the game").click()
    gm.page.get_by_role("button", name="Yes, end the game for everyone").click()
    expect(bandits.page.locator("#controls")).to_contain_text("This contest is over.")
    checked = checks_out(server, fragment)
    bandits.page.get_by_role("button", name="Check the dice").click()
    expect(bandits.page.locator("#check-result")).to_have_text(checked, timeout=20_000)
    screenshot(bandits, "skill-games-verifiable-party-phone")
    assert bandits.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    check_confined([gm, heroes, bandits], fragment)


def test_a_session_without_verifiable_dice_shows_no_dice_panel(
    table: NewSeat, server: Server
) -> None:
    gm = table()
    fragment = create(gm, server, "arm-wrestles")
    gm.page.get_by_role("group", name="Lydia").get_by_label("Strength d20").fill("17")
    gm.page.get_by_role("button", name="Play the round").click()
    expect(gm.rounds()).to_have_count(1)
    expect(gm.page.locator("#dice-panel")).to_be_hidden()
    # An ordinary session's supplied dice carry no `by`: its dice tables have no "By" column.
    lydia = gm.rounds().first.locator(".dice-table tbody tr").filter(has_text="Lydia")
    expect(lydia.locator("td").nth(4)).to_have_text("entered")
    expect(gm.rounds().first.locator(".dice-table thead th")).to_have_count(5)
    assert not [url for url, _ in gm.requests if "/proof" in url]
    check_confined([gm], fragment)
