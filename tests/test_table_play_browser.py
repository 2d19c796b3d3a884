"""The table page played as a table plays it: one whole session of each kind, by the GM and the
players, from the keyboard alone (Tab to a control, type, Enter or Space), at a phone's width
(390 px) and a desk's (1280 px), in Debian's Chromium.

At every view in every state (the start form; the GM's, each seat's and each party's page
before, during and after the rounds) axe-core (npm, pinned in tests/axe/package-lock.json,
injected into the page) finds no serious or critical violation. A seat whose move it is sees it
in a bar above the fold and in the tab's title; each round arrives as a card; after every
action the keyboard stays where the player is. The 1280 px views are saved under
tests/artifacts/table-play/; with `ARBITER_DOCS_SCREENSHOTS=1`, as the screenshots of
docs/table.md (docs/table/*.png) instead, so that a test run leaves the clone as it was.
"""

# The fixtures `browser` and `server` are tests/test_table_browser.py's, imported by name (which
# pytest needs), so the tests' parameters of those names redefine the imports.
# ruff: noqa: F811

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.requirements import npm_installed
from tests.store.servers import Server
from tests.test_table_browser import (  # noqa: F401 - the fixtures, shared
    CHROMIUM_ARGS,
    RECORD_VIOLATIONS,
    SLOW_MS,
    Seat,
    browser,
    server,
)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
AXE_DIR = Path(__file__).resolve().parent / "axe"
AXE_SCRIPT = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
#: Where the 1280 px views go: the docs' screenshots only when asked for.
SHOTS = (
    ROOT / "docs" / "table"
    if os.environ.get("ARBITER_DOCS_SCREENSHOTS") == "1"
    else ROOT / "tests" / "artifacts" / "table-play"
)
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
#: How many Tab presses a control may be away (the GM's page has every control of a round).
MOST_TABS = 160

#: axe-core's serious and critical violations on the page: `rule: target, …` for each.
AXE_RUN = """
async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) =>
      `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}
"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's script, installed from its lock file when it is not there yet."""
    npm_installed(AXE_DIR, [AXE_SCRIPT], "apt-get install npm (Node.js 20)")
    return AXE_SCRIPT.read_text(encoding="utf-8")


class Table:
    """The pages at one table: each a browser context of its own, axe-core loaded in each
    (an init script, as the page's own policy allows no other script), every script error and
    policy violation recorded."""

    def __init__(self, chromium: Browser, live: Server, axe: str, viewport: ViewportSize) -> None:
        self.browser = chromium
        self.server = live
        self.axe = axe
        self.viewport = viewport
        self.contexts: list[BrowserContext] = []
        self.seats: list[Seat] = []

    def open(self) -> Seat:
        context = self.browser.new_context(viewport=self.viewport)
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        page = context.new_page()
        seat = Seat(page, self.server.base_url)
        page.route("**/*", seat.route)
        page.on("pageerror", lambda error: seat.errors.append(str(error)))
        page.add_init_script(RECORD_VIOLATIONS)
        page.add_init_script(self.axe)
        self.seats.append(seat)
        return seat

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def tables() -> Iterator[list[Table]]:
    made: list[Table] = []
    yield made
    for table in made:
        table.close()


def audit(page: Page, where: str) -> None:
    """No serious or critical axe-core violation on the page as it is now."""
    found: list[str] = page.evaluate(AXE_RUN)
    assert found == [], f"{where}: {found}"


def tab_to(page: Page, target: str, *, role: str = "button") -> None:
    """Press Tab until the control named `target` has the focus (never clicked, never
    focused by script)."""
    control = page.get_by_role(role, name=target, exact=True)  # type: ignore[arg-type]
    expect(control.first).to_be_visible()
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        if control.first.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {role} {target!r}")


def tab_to_field(page: Page, label: str | re.Pattern[str], *, within: str = "body") -> None:
    """Press Tab until the field labelled `label` (in `within`) has the focus."""
    control = page.locator(within).get_by_label(label).first
    expect(control).to_be_visible()
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        if control.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached the field {label!r}")


def focus_kept(page: Page) -> None:
    """After an action the keyboard is still inside the page's controls, not at its top."""
    page.wait_for_function(
        "() => document.activeElement && document.activeElement !== document.body"
    )


def shoot(seat: Seat, table: Table, name: str) -> None:
    if table.viewport["width"] == DESKTOP["width"]:
        SHOTS.mkdir(parents=True, exist_ok=True)
        seat.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def create(gm: Seat, table: Table, kind_title: str) -> None:
    """The GM creates a session of the kind titled `kind_title` from the keyboard."""
    page = gm.page
    page.goto(f"{table.server.base_url}/table")
    expect(page.get_by_label("Kind of contest")).to_be_visible()
    audit(page, "the start form")
    tab_to_field(page, "Kind of contest")
    page.keyboard.type(kind_title)
    expect(page.get_by_label("Kind of contest")).to_have_value(re.compile(".+"))
    tab_to(page, "Create the session")
    page.keyboard.press("Enter")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("#summary")).not_to_be_empty()


def link_of(gm: Seat, name: str) -> str:
    return gm.page.get_by_label(re.compile(f"^{re.escape(name)}( \\(|$)")).input_value()


def join(seat: Seat, link: str) -> None:
    seat.page.goto(link)
    expect(seat.page.locator("#connection")).to_have_text("Live")


def turn_above_the_fold(seat: Seat, table: Table) -> None:
    """The seat's "your move" bar is in the first screen, and the tab's title says it too."""
    bar = seat.page.locator("#turn")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("Your move")
    box = bar.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= table.viewport["height"]
    expect(seat.page).to_have_title(re.compile("^Your move — "))
    expect(seat.page.locator("link[rel=icon]")).to_have_attribute(
        "href", "table/assets/favicon-turn.svg"
    )


#: Per round kind: its title in the kind list, the competitors (the first has a seat page),
#: the die label of each, and the values typed for the first and the second competitor.
ROUND_KINDS = {
    "arm-wrestles": ("Arm wrestle", ["Lydia", "Ogre"], "Strength d20", ["17", "5"]),
    "regular-contests": ("Regular contest", ["Giant", "Ogre"], "3d6", ["3 4 5", "6 6 6"]),
    "races": ("Race", ["Ann", "Bob"], "increment d20", ["14", "9"]),
    "chases": ("Chase", ["Ralf", "the guard"], "increment d20", ["12", "10"]),
}
VIEWPORTS = {"390px": PHONE, "1280px": DESKTOP}


@pytest.mark.parametrize("width", list(VIEWPORTS))
@pytest.mark.parametrize("kind", list(ROUND_KINDS))
def test_a_round_kind_played_from_the_keyboard(
    tables: list[Table],
    browser: Browser,
    server: Server,
    axe_source: str,
    kind: str,
    width: str,
) -> None:
    title, names, label, typed = ROUND_KINDS[kind]
    table = Table(browser, server, axe_source, VIEWPORTS[width])
    tables.append(table)
    gm = table.open()
    create(gm, table, title)
    audit(gm.page, "the GM's page, before the first round")
    first, second = names
    seat = table.open()
    join(seat, link_of(gm, first))
    expect(seat.page.locator("#turn")).to_be_hidden()
    audit(seat.page, "a seat's page, waiting for the GM")

    # Round 1 waits for the seats: the first player sends her dice from the keyboard.
    tab_to(gm.page, "Wait for the players' dice")
    gm.page.keyboard.press("Enter")
    turn_above_the_fold(seat, table)
    expect(seat.page.locator("#countdown")).to_contain_text(re.compile(r"\d+:\d\d left"))
    expect(seat.page.locator("#dice-form .owes")).to_contain_text(label)
    audit(seat.page, "a seat's page, its move")
    audit(gm.page, "the GM's page, a round waiting")
    tab_to(seat.page, "Enter my dice")
    seat.page.keyboard.press("Enter")
    seat.page.keyboard.type(typed[0])
    tab_to(seat.page, "Send my dice")
    seat.page.keyboard.press("Enter")
    expect(seat.page.locator("#controls")).to_contain_text(
        f"Your dice are in. Waiting for {second}."
    )
    focus_kept(seat.page)
    expect(seat.page.locator("#turn")).to_be_hidden()
    expect(seat.page).not_to_have_title(re.compile("^Your move"))
    tab_to(gm.page, f"Roll for {second}")
    gm.page.keyboard.press("Enter")
    for player in (gm, seat):
        expect(player.rounds()).to_have_count(1)
        card = player.rounds().first
        expect(card).to_have_class(re.compile("latest"))
        expect(card.locator(".card-dice li").first).to_contain_text(first)
    focus_kept(gm.page)
    audit(seat.page, "a seat's page, a round played")

    # Round 2 (when round 1 did not end it): the GM types the dice rolled at the table, and
    # presses Enter in the last one; then to the end, which asks first.
    finished = gm.page.locator("#board .result")
    if finished.count() == 0:
        within = "fieldset:has(legend:text-is('{}'))"
        tab_to_field(gm.page, label, within=within.format(first))
        gm.page.keyboard.type(typed[0])
        tab_to_field(gm.page, label, within=within.format(second))
        gm.page.keyboard.type(typed[1])
        gm.page.keyboard.press("Enter")
        expect(gm.rounds()).to_have_count(2)
        focus_kept(gm.page)
        audit(gm.page, "the GM's page, two rounds played")
    if finished.count() == 0:
        tab_to(gm.page, "Play to the end")
        gm.page.keyboard.press("Enter")
        confirm = gm.page.get_by_role("button", name="Yes, play every round to the end")
        expect(confirm).to_be_focused()
        gm.page.keyboard.press("Enter")
    for player in (gm, seat):
        expect(player.page.locator("#board .result")).to_contain_text("Finished")
        expect(player.page.locator("#controls")).not_to_contain_text("Your move")
    played = int(gm.page.locator("#played").inner_text())
    expect(seat.rounds()).to_have_count(played)
    # Only the newest round is a card in full; the older fold to their one line.
    expect(seat.page.locator("#rounds > li.latest")).to_have_count(1)
    for player, who in ((gm, "the GM's page"), (seat, "a seat's page")):
        audit(player.page, f"{who}, finished")
        assert player.violations() == []
        assert player.errors == []
    shoot(gm, table, f"{kind}-gm")
    shoot(seat, table, f"{kind}-seat")
    if width == "390px":
        assert seat.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_a_skill_game_played_from_the_keyboard(
    tables: list[Table],
    browser: Browser,
    server: Server,
    axe_source: str,
    width: str,
) -> None:
    table = Table(browser, server, axe_source, VIEWPORTS[width])
    tables.append(table)
    gm = table.open()
    create(gm, table, "Skill game")
    audit(gm.page, "the GM's page of a skill game")
    heroes, bandits = table.open(), table.open()
    join(heroes, link_of(gm, "Heroes"))
    join(bandits, link_of(gm, "Bandits"))
    for party, skills in ((heroes, ("Athletics", "Stealth")), (bandits, ("Stealth", "Athletics"))):
        turn_above_the_fold(party, table)
        audit(party.page, "a party's page, choosing skills")
        for skill in skills:
            tab_to(party.page, skill, role="checkbox")
            party.page.keyboard.press("Space")
        tab_to(party.page, "Roll these skills")
        party.page.keyboard.press("Enter")
        focus_kept(party.page)
    for player in (gm, heroes, bandits):
        expect(player.page.locator("#board")).to_contain_text("sealing choices")
    # Each action says what it does.
    expect(heroes.page.get_by_label("Action")).to_contain_text("Charge — A scramble forward.")
    tab_to_field(heroes.page, "Action")
    heroes.page.keyboard.type("Charge")
    tab_to(heroes.page, "Seal the choice")
    heroes.page.keyboard.press("Enter")
    expect(heroes.page.locator(".sealed")).to_contain_text("Your sealed choice: Charge, bid 0.")
    # A reload forgets nothing of it: read back with the Heroes' own token.
    heroes.page.reload()
    expect(heroes.page.locator(".sealed")).to_contain_text("Your sealed choice: Charge, bid 0.")
    assert "Charge, bid 0" not in bandits.page.locator("body").inner_text()
    audit(heroes.page, "a party's page, its choice sealed")
    tab_to_field(bandits.page, "Action")
    bandits.page.keyboard.type("Rally")
    tab_to_field(bandits.page, re.compile("^Bid"))
    bandits.page.keyboard.press("ArrowUp")
    tab_to(bandits.page, "Seal the choice")
    bandits.page.keyboard.press("Enter")
    for player in (gm, heroes, bandits):
        expect(player.rounds()).to_have_count(1)
        expect(player.rounds().first.locator(".card-change")).to_contain_text("earned")
        # Each party's progress moved by the round, in the service's words: how far depends on
        # the server's dice of the skill checks (which decide the tokens, so the bids), so the
        # page is held to what it says of itself: from 0 in the first round, each party's move
        # is where it now stands, and the move its card marks is the one it words.
        moved = player.rounds().first.locator(".card-change [data-kind='progress']")
        expect(moved).to_have_count(2)
        worded = re.compile(r"^(Heroes|Bandits) progress ([+-]\d+) \(now (-?\d+)\)$")
        for index, party_name in enumerate(("Heroes", "Bandits")):
            found = worded.match(moved.nth(index).inner_text().strip())
            assert found is not None, moved.nth(index).inner_text()
            assert found[1] == party_name
            assert int(found[2]) == int(found[3])
            expect(moved.nth(index)).to_have_attribute("data-delta", str(int(found[2])))
        audit(player.page, "a page after the reveal")
    # The GM ends the game, which asks first.
    tab_to(gm.page, "End the game")
    gm.page.keyboard.press("Enter")
    expect(gm.page.get_by_role("button", name="Yes, end the game for everyone")).to_be_focused()
    gm.page.keyboard.press("Enter")
    for player in (gm, heroes, bandits):
        expect(player.page.locator("#controls")).to_contain_text("This contest is over.")
        expect(player.page.locator("#board")).to_contain_text("The game is over.")
        expect(player.page.locator("#board")).not_to_contain_text("choosing skills")
        audit(player.page, "a page of a finished skill game")
        assert player.violations() == []
        assert player.errors == []
    expect(gm.page.locator("#board")).not_to_contain_text("Heroes's")
    shoot(gm, table, "skill-games-gm")
    shoot(heroes, table, "skill-games-party")


def test_a_bad_link_says_so(
    tables: list[Table], browser: Browser, server: Server, axe_source: str
) -> None:
    table = Table(browser, server, axe_source, PHONE)
    tables.append(table)
    seat = table.open()
    seat.page.goto(
        f"{server.base_url}/table#session=0000&kind=arm-wrestles&token=nope&role=seat&name=Ann"
    )
    expect(seat.page.locator("h2")).to_have_text("This link does not open a session")
    expect(seat.page.locator("body")).not_to_contain_text("Computing the odds")
    audit(seat.page, "a bad link")


def test_a_template_starts_a_contest_again_in_one_press(
    tables: list[Table],
    browser: Browser,
    server: Server,
    axe_source: str,
) -> None:
    table = Table(browser, server, axe_source, DESKTOP)
    tables.append(table)
    gm = table.open()
    page = gm.page
    page.goto(f"{server.base_url}/table")
    page.get_by_label("Kind of contest").select_option("races")
    tab_to_field(page, "Template name")
    page.keyboard.type("Tuesday's dash")
    page.keyboard.press("Enter")
    expect(page.locator("#templates")).to_contain_text("Tuesday's dash (Race)")
    kept = json.loads(page.evaluate("localStorage.getItem('arbiter-templates')"))
    assert [item["name"] for item in kept] == ["Tuesday's dash"]
    assert kept[0]["kind"] == "races"
    assert "token" not in json.dumps(kept).lower()
    exported = page.get_by_label("These templates (JSON): copy them to another browser")
    assert json.loads(exported.input_value()) == kept
    audit(page, "the start form with a template")
    tab_to(page, "Start “Tuesday's dash”")
    page.keyboard.press("Enter")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("#board")).to_contain_text("Increment 0 of 2 done (dash).")
    # Still no token kept, though the session's tokens are now in the GM's address.
    assert "token" not in (page.evaluate("localStorage.getItem('arbiter-templates')") or "")

    # Imported in another browser, from the JSON exported.
    other = table.open()
    other.page.goto(f"{server.base_url}/table")
    other.page.get_by_text("Export or import templates").click()
    other.page.get_by_label("Templates to import (JSON, as exported)").fill(json.dumps(kept))
    other.page.get_by_role("button", name="Import these templates").click()
    expect(other.page.locator("#templates")).to_contain_text("Tuesday's dash (Race)")
    assert other.errors == []


def test_a_wrong_die_is_said_beside_it_before_anything_is_sent(
    tables: list[Table], browser: Browser, server: Server, axe_source: str
) -> None:
    table = Table(browser, server, axe_source, PHONE)
    tables.append(table)
    gm = table.open()
    create(gm, table, "Arm wrestle")
    page = gm.page
    sent: list[str] = []
    page.on(
        "request", lambda request: sent.append(request.url) if request.method == "POST" else None
    )
    # Enter in an empty die field plays nothing: it says how to play with the server's dice.
    tab_to_field(page, "Strength d20", within="fieldset:has(legend:text-is('Lydia'))")
    page.keyboard.press("Enter")
    expect(page.locator("#play-form + .field-error, #play-form .field-error")).to_contain_text(
        "Play the round"
    )
    # A d20 of 25 is refused by the page itself, beside the form, the field keeping the focus.
    page.keyboard.type("25")
    tab_to(page, "Play the round")
    page.keyboard.press("Enter")
    refused = page.locator("#play-form .field-error")
    expect(refused).to_contain_text("Lydia's Strength d20: a die of 20 sides shows 1 to 20.")
    expect(refused).to_have_attribute("role", "alert")
    lydia = page.locator("fieldset:has(legend:text-is('Lydia'))").get_by_label("Strength d20")
    expect(lydia).to_be_focused()
    assert sent == []
    expect(page.locator("#played")).to_have_text("0")
    audit(page, "the GM's page, a die refused")
