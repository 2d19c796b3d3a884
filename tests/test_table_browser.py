"""The table page in a real browser: the GM and the players at one table, on one live server.

Debian's Chromium, driven by Playwright, opens the page in several browser contexts at once
(the GM's and each player's, as on different machines): each sees the others' changes from
the live events without a reload, a sealed choice stays hidden from the other party until the
reveal, a page reloaded or cut off mid-session resumes, and an arm wrestle, a race and a skill
game are played from the pages alone. Every request to another host is refused and recorded,
as on a machine without internet; every violation of the page's Content-Security-Policy and
every script error is recorded too, and none may happen. Each kind's GM view (and a player's at
a phone's width) is saved as a screenshot under tests/artifacts/table/ (not committed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Locator,
    Page,
    Request,
    Route,
    ViewportSize,
    expect,
    sync_playwright,
)

from app.store.database import upgrade_to_head
from tests.requirements import program
from tests.store.servers import Server, start_server, stop_server, wait_until_healthy

CHROMIUM = os.environ.get("ARBITER_TEST_CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "table"
#: The first odds question starts the odds worker's process; a loaded machine takes seconds.
#: Also what a page's first load and its stream's opening may take there (both went past
#: the 10 s and 5 s defaults in a fresh-clone CI run, the other xdist worker busy beside them).
SLOW_MS = 30_000
#: How long a page may take to show the odds of the session it shows: one odds worker answers
#: every page's questions in turn (a race's are Monte Carlo estimates), so on a loaded machine
#: a page's odds come a minute late at worst. Bounded: past it, the test fails.
ODDS_MS = 120_000
#: The odds worker's deadline for the browser tests' server (ARBITER_ODDS_DEADLINE_SECONDS):
#: long enough that a question queued behind other pages' on a loaded machine is answered
#: rather than refused; what a page shows when odds are refused is tested on its own.
ODDS_DEADLINE_SECONDS = "60"
PHONE: ViewportSize = {"width": 375, "height": 812}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}

pytestmark = pytest.mark.slow

#: Every Content-Security-Policy violation the page reports, kept where the test reads it.
RECORD_VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation", event => {
  window.violations.push(`${event.effectiveDirective} refused ${event.blockedURI}`);
});
"""


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@dataclass
class Seat:
    """One browser context at the table: its page, every request it made (URL and headers),
    what it was refused (another host) and its script errors."""

    page: Page
    allowed: str
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def route(self, route: Route) -> None:
        if origin(route.request.url) == self.allowed:
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort("internetdisconnected")

    def heard(self, request: Request) -> None:
        self.requests.append((request.url, dict(request.headers)))

    def violations(self) -> list[str]:
        found: list[str] = self.page.evaluate("window.violations")
        return found

    def rounds(self) -> Locator:
        return self.page.locator("#rounds > li")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("table")
    database_url = f"sqlite:///{root / 'table.db'}"
    upgrade_to_head(database_url)
    with pytest.MonkeyPatch.context() as env:
        env.delenv("ARBITER_CORS_ORIGINS", raising=False)
        # The odds worker starts with the server: the page asks odds after every change.
        running = start_server(
            database_url,
            root,
            {
                "ARBITER_ODDS_PRESTART": "1",
                "ARBITER_ODDS_DEADLINE_SECONDS": ODDS_DEADLINE_SECONDS,
            },
        )
    try:
        wait_until_healthy(running)
        yield running
    finally:
        stop_server(running)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = program(
        CHROMIUM,
        "apt-get install chromium, or set ARBITER_TEST_CHROMIUM to a Chromium",
        called="Chromium",
    )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


NewSeat = Callable[..., Seat]


@pytest.fixture
def table(browser: Browser, server: Server) -> Iterator[NewSeat]:
    """`table(viewport=...)`: a new browser context's page, confined to the server's host."""
    contexts: list[BrowserContext] = []

    def new(viewport: ViewportSize = DESKTOP) -> Seat:
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        seat = Seat(page, server.base_url)
        page.route("**/*", seat.route)
        page.on("request", seat.heard)
        page.on("pageerror", lambda error: seat.errors.append(str(error)))
        page.on(
            "console",
            lambda message: (
                seat.errors.append(message.text)
                # A refused call (a 4xx the page shows, a fetch cut off line) is logged by the
                # browser itself; the page's own errors are what is looked for here.
                if message.type == "error"
                and not message.text.startswith("Failed to load resource")
                else None
            ),
        )
        page.add_init_script(RECORD_VIOLATIONS)
        return seat

    yield new
    for context in contexts:
        context.close()


def create(
    gm: Seat, server: Server, kind: str, preset: str | None = None, *, verifiable: bool = False
) -> dict[str, str]:
    """Create a session from the page's form (with verifiable dice when `verifiable`); the
    fragment's parts of the GM's page."""
    page = gm.page
    page.goto(f"{server.base_url}/table", timeout=SLOW_MS)
    page.get_by_label("Kind of contest").select_option(kind)
    if preset is not None:
        page.get_by_label("Preset").select_option(preset)
    if verifiable:
        page.get_by_label(re.compile("^Verifiable dice")).check()
        expect(page.get_by_label("Request body")).to_have_value(re.compile(r'"dice": "verifiable"'))
    page.get_by_role("button", name="Create the session").click()
    expect(page.locator("#connection")).to_have_text("Live", timeout=SLOW_MS)
    expect(page.locator("#summary")).not_to_be_empty()
    return dict(parse_qsl(urlsplit(page.url).fragment))


#: The page's odds are of the session it shows, and it is not asking for others
#: (`refreshOdds` in app/table/assets/table.js sets these on the body).
ODDS_SHOWN = """() => {
  const shown = document.body.dataset;
  return shown.odds === "shown" && shown.version !== undefined && shown.oddsFor === shown.version;
}"""


def odds_shown(seat: Seat) -> None:
    """Wait until `seat`'s page shows the odds of the session it shows (at most ODDS_MS): the
    condition the page sets when its odds arrive, not a guess of how long they take."""
    seat.page.wait_for_function(ODDS_SHOWN, timeout=ODDS_MS)


def link_of(gm: Seat, name: str) -> str:
    """The link the GM's page gives `name`'s player."""
    link = gm.page.get_by_label(re.compile(f"^{re.escape(name)}( \\(|$)")).input_value()
    assert link.startswith(f"{gm.allowed}/table#")
    return link


def join(seat: Seat, link: str, who: str) -> None:
    seat.page.goto(link, timeout=SLOW_MS)
    expect(seat.page.locator(".who")).to_have_text(who)
    expect(seat.page.locator("#connection")).to_have_text("Live", timeout=SLOW_MS)


def screenshot(seat: Seat, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    seat.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


#: The page lists its rounds 1 to n, newest first, n being the rounds it says were played.
ALL_ROUNDS_LISTED = """
() => {
  const numbers = [...document.querySelectorAll("#rounds > li")]
    .map(item => Number(item.dataset.number));
  const last = Number(document.getElementById("played").textContent);
  return numbers.length === last && numbers.every((number, index) => number === last - index);
}
"""
#: Every visible control that has no name a screen reader could say, or a tab stop out of
#: the page's order.
UNNAMED_CONTROLS = """
() => [...document.querySelectorAll("input, select, textarea, button, [tabindex]")]
  .filter(element => element.getClientRects().length > 0)
  .filter(element => {
    if (element.tabIndex > 0) return true;
    if (element.tagName === "BUTTON") return element.textContent.trim() === "";
    if (["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName)) {
      return element.labels.length === 0 && !element.getAttribute("aria-label");
    }
    return false;
  })
  .map(element => element.outerHTML.slice(0, 80))
"""


def check_accessible(seat: Seat) -> None:
    """Every control named (a label, or a button's text), no tab stop out of order, and the
    live region there."""
    assert seat.page.evaluate(UNNAMED_CONTROLS) == []
    expect(seat.page.locator("#announcer")).to_have_attribute("aria-live", "polite")


def check_confined(seats: list[Seat], fragment: dict[str, str]) -> None:
    """Nothing asked of another host, no policy violated, no script error, no token in any
    URL requested (tokens travel in the fragment and the Authorization header alone)."""
    tokens = [value for key, value in fragment.items() if key == "token" or "." in key]
    assert tokens
    for seat in seats:
        assert seat.refused == []
        assert seat.violations() == []
        assert seat.errors == []
        urls = [url for url, _ in seat.requests]
        assert {origin(url) for url in urls} == {seat.allowed}
        for url in urls:
            sent = url.split("#", 1)[0]
            assert not [token for token in tokens if token in sent], url
        api_calls = [headers for url, headers in seat.requests if "/v1/" in url]
        assert api_calls
        assert all(
            headers.get("authorization", "").startswith("Bearer ")
            for url, headers in seat.requests
            if "/v1/" in url and not url.endswith(f"/v1/{fragment['kind']}")
        )


def test_an_arm_wrestle_with_the_players_dice(table: NewSeat, server: Server) -> None:
    gm = table()
    fragment = create(gm, server, "arm-wrestles")
    lydia = table(PHONE)
    join(lydia, link_of(gm, "Lydia"), "You are Lydia (your seat)")
    ogre = table()
    join(ogre, link_of(gm, "Ogre"), "You are Ogre (your seat)")
    odds_shown(gm)
    expect(gm.page.locator(".odds-table caption").first).to_have_text("From round 0: exact")

    gm.page.get_by_role("button", name="Wait for the players' dice").click()
    expect(lydia.page.locator("#dice-form")).to_contain_text("Round 1 waits for your dice.")
    lydia.page.get_by_label("Strength d20").fill("17")
    lydia.page.get_by_role("button", name="Send my dice").click()
    expect(lydia.page.locator("#controls")).to_contain_text("Your dice are in. Waiting for Ogre.")
    expect(gm.page.locator("#pending")).to_contain_text("Round 1 waits for dice from Ogre")
    expect(ogre.page.locator("#dice-form")).to_be_visible()
    # Who gave dice shows everywhere; what they rolled, nowhere until the round plays.
    expect(ogre.page.locator("#board")).to_contain_text("waits for dice from Ogre.")
    expect(ogre.rounds()).to_have_count(0)

    gm.page.get_by_role("button", name="Roll for Ogre").click()
    for seat in (gm, lydia, ogre):
        expect(seat.rounds()).to_have_count(1)
    lydias_die = lydia.page.locator("#rounds .dice-table tbody tr").filter(has_text="Lydia")
    expect(lydias_die).to_contain_text("strength")
    expect(lydias_die.locator("td").nth(3)).to_have_text("17")
    expect(lydias_die.locator("td").nth(4)).to_have_text("entered")
    expect(ogre.page.locator("#rounds")).to_contain_text(
        "Dice from: Lydia (their seat), Ogre (the GM)"
    )
    summary = gm.rounds().first.locator(".round-summary").text_content() or ""
    assert summary.startswith("Round 1: ")
    # The round is a card: Lydia's 17 and her modifier of 2 make 19, against the Ogre's total.
    card = gm.rounds().first.locator(".card-title").text_content() or ""
    assert card.startswith("Round 1: Lydia 1d20+2 = 19 vs Ogre 1d20+6 = ")
    # Each result is said in the live region, on the pages of those who did not play it too.
    expect(lydia.page.locator("#announcer")).to_have_text(card)
    expect(lydia.page.locator("#announcer")).to_have_attribute("aria-live", "polite")
    # The odds were asked again after the round; their numbers are text beside the chart.
    for seat in (gm, lydia):
        odds_shown(seat)
        expect(seat.page.locator(".odds-table caption").first).to_have_text("From round 1: exact")
    odds_rows = gm.page.locator("#odds .odds-table tbody tr")
    expect(odds_rows.first.locator("th")).to_have_text("Lydia wins")
    expect(gm.page.locator("#odds svg.chart")).to_have_attribute(
        "aria-label", re.compile(r"^Odds from here: Lydia wins [\d.<> ]+%; Ogre wins")
    )
    expect(gm.page.locator("#choice-odds")).to_contain_text("no choice to make")
    screenshot(gm, "arm-wrestles-gm")
    screenshot(lydia, "arm-wrestles-player-phone")
    for seat in (gm, lydia):
        check_accessible(seat)
    assert lydia.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # From the keyboard alone: the button focused, Enter presses it; it asks first, and the
    # keyboard is on the confirmation, which Enter presses too.
    gm.page.get_by_role("button", name="Play to the end").focus()
    gm.page.keyboard.press("Enter")
    expect(gm.page.get_by_role("button", name="Yes, play every round to the end")).to_be_focused()
    gm.page.keyboard.press("Enter")
    for seat in (lydia, ogre):
        expect(seat.page.locator("#controls")).to_contain_text("This contest is over.")
        expect(seat.page.locator("#board .result")).to_contain_text("Finished")
    expect(gm.page.locator("#board .result")).to_contain_text("Finished")
    # Every round the resolve played is listed, numbered 1 to the last, without a gap.
    gm.page.wait_for_function(ALL_ROUNDS_LISTED)
    played = gm.rounds().count()
    assert played >= 2
    expect(lydia.rounds()).to_have_count(played)

    gm.page.get_by_role("button", name="Delete this session").click()
    gm.page.get_by_role("button", name="Yes, delete it for everyone").click()
    for seat in (gm, lydia, ogre):
        expect(seat.page.locator("h2")).to_have_text("This session was deleted")
    check_confined([gm, lydia, ogre], fragment)


def test_a_race_resumes_after_a_reload_and_a_drop(table: NewSeat, server: Server) -> None:
    gm = table()
    fragment = create(gm, server, "races", "A dash: Ann and Bob")
    ann = table()
    join(ann, link_of(gm, "Ann"), "You are Ann (your seat)")
    expect(ann.page.locator("#board")).to_contain_text("Increment 0 of 2 done (dash).")

    gm.page.get_by_role("group", name="Ann").get_by_label("increment d20").fill("14")
    gm.page.get_by_role("group", name="Bob").get_by_label("increment d20").fill("9")
    gm.page.get_by_role("button", name="Play the round").click()
    expect(ann.rounds()).to_have_count(1)
    expect(ann.page.locator("#board")).to_contain_text("Increment 1 of 2 done (dash).")
    entered = ann.page.locator("#rounds .dice-table tbody tr")
    expect(entered.filter(has_text="Ann").locator("td").nth(3)).to_have_text("14")
    expect(entered.filter(has_text="Bob").locator("td").nth(3)).to_have_text("9")

    ann.page.reload()
    expect(ann.page.locator("#connection")).to_have_text("Live")
    expect(ann.rounds()).to_have_count(1)
    expect(ann.page.locator("#board")).to_contain_text("Increment 1 of 2 done (dash).")

    ann.page.context.set_offline(True)
    expect(ann.page.locator("#connection")).to_contain_text("Disconnected")
    gm.page.get_by_role("button", name="Play the round").click()
    expect(gm.rounds()).to_have_count(2)
    ann.page.context.set_offline(False)
    expect(ann.page.locator("#connection")).to_have_text("Live")
    expect(ann.rounds()).to_have_count(2)
    expect(ann.page.locator("#board .result")).to_contain_text("Finished")
    expect(ann.page.locator("#announcer")).to_have_text(re.compile(r"^Round 2: "))
    # Both the reloaded page and the reconnection asked for the events after version 2
    # (created, then round 1): the round played while it was away came as an event.
    streams = [headers for url, headers in ann.requests if url.endswith("/events")]
    resumed = [headers.get("last-event-id") for headers in streams]
    assert resumed[0] == "1"
    assert len(resumed) >= 2
    assert set(resumed[1:]) == {"2"}
    # A finished race's odds are its result, asked again after its last round.
    odds_shown(gm)
    expect(gm.page.locator(".odds-table caption").first).to_contain_text("From round 2")
    expect(gm.page.locator("#odds")).not_to_have_attribute("aria-busy", "true")
    screenshot(gm, "races-gm")
    check_accessible(gm)
    check_accessible(ann)

    # The GM's link opens the session elsewhere (another browser), its players' links too.
    elsewhere = table()
    elsewhere.page.goto(f"{server.base_url}/table")
    elsewhere.page.get_by_label("A table link").fill(gm.page.url)
    elsewhere.page.get_by_role("button", name="Open").click()
    expect(elsewhere.page.locator(".who")).to_have_text("You are the GM")
    expect(elsewhere.rounds()).to_have_count(2)
    assert link_of(elsewhere, "Ann") == link_of(gm, "Ann")
    check_confined([gm, ann, elsewhere], fragment)


def test_a_racer_chooses_her_pacing_from_her_odds(table: NewSeat, server: Server) -> None:
    gm = table()
    create(gm, server, "races", "A dash: Ann and Bob")
    ann = table()
    join(ann, link_of(gm, "Ann"), "You are Ann (your seat)")
    # Her page weighs her own pacings only; the GM's, every racer's. Each page's odds are
    # waited for as the page says they arrived: one worker answers both pages' questions in
    # turn, a race's are estimates, and a loaded machine takes its time over them.
    odds_shown(ann)
    pacings = ann.page.locator("#pacing-odds tbody tr")
    expect(pacings).to_have_count(3)
    expect(pacings.first).to_contain_text("Ann: sprint")
    odds_shown(gm)
    expect(gm.page.locator("#pacing-odds tbody tr")).to_have_count(6)
    sprint = pacings.filter(has_text="Ann: sprint")
    sprint.get_by_role("button", name="Race at this pacing").click()
    expect(gm.page.locator("#board")).to_contain_text("sprinting")
    expect(ann.page.locator("#announcer")).to_contain_text("Ann sprints this race.")
    # Her pacing is the session's now (her page shows it); its odds are asked again, and show
    # it chosen.
    expect(ann.page.locator("#board")).to_contain_text("sprinting")
    odds_shown(ann)
    expect(sprint.get_by_role("button", name="Chosen")).to_be_disabled()
    # The first increment closes the choice.
    gm.page.get_by_role("group", name="Ann").get_by_label("increment d20").fill("14")
    gm.page.get_by_role("group", name="Bob").get_by_label("increment d20").fill("9")
    gm.page.get_by_role("button", name="Play the round").click()
    expect(ann.rounds()).to_have_count(1)
    odds_shown(ann)
    expect(ann.page.locator("#choice-odds")).to_contain_text("before its first increment")
    check_accessible(ann)


def test_the_page_says_its_odds_are_in_only_once_they_are(table: NewSeat, server: Server) -> None:
    """The mark the tests wait on (`odds_shown`): while an odds question is unanswered the page
    says it is asking, never that its odds are shown; once they are, the odds of the session
    it shows are on the page at that moment."""
    gm = table()
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    gm.page.route(re.compile(r"/odds"), hold)
    create(gm, server, "races", "A dash: Ann and Bob")
    expect(gm.page.locator("#odds")).to_have_attribute("aria-busy", "true")
    body = gm.page.locator("body")
    expect(body).to_have_attribute("data-odds", "loading")
    assert held, "the odds question the page is waiting for"
    assert gm.page.evaluate(ODDS_SHOWN) is False
    assert gm.page.locator("#pacing-odds").count() == 0
    # Every question answered from now on: the mark comes with the odds, not before them.
    gm.page.unroute(re.compile(r"/odds"), hold)
    for route in held:
        route.continue_()
    odds_shown(gm)
    assert gm.page.locator("#pacing-odds tbody tr").count() == 6
    assert body.get_attribute("data-odds-for") == body.get_attribute("data-version")


def test_a_skill_game_keeps_a_sealed_choice_until_the_reveal(
    table: NewSeat, server: Server
) -> None:
    gm = table()
    fragment = create(gm, server, "skill-games", "Heroes and Bandits (bidding)")
    heroes = table()
    join(heroes, link_of(gm, "Heroes"), "You are Heroes")
    bandits = table(PHONE)
    join(bandits, link_of(gm, "Bandits"), "You are Bandits")
    expect(heroes.page.locator("#board")).to_contain_text("Ann: Athletics +5, Stealth +2")

    # The odds of each choice of skills, before choosing them.
    odds_shown(heroes)
    expect(heroes.page.locator("#choice-odds")).to_contain_text(
        "Tokens expected, by the skills chosen"
    )
    heroes.page.get_by_role("checkbox", name="Athletics").check()
    heroes.page.get_by_role("checkbox", name="Stealth").check()
    heroes.page.get_by_role("button", name="Roll these skills").click()
    heroes_row = bandits.page.locator("#board table.parties tbody tr").filter(has_text="Heroes")
    expect(heroes_row).to_contain_text("skills rolled")
    bandits.page.get_by_role("checkbox", name="Stealth").check()
    bandits.page.get_by_role("checkbox", name="Athletics").check()
    bandits.page.get_by_role("button", name="Roll these skills").click()
    for seat in (gm, heroes, bandits):
        expect(seat.page.locator("#board")).to_contain_text("sealing choices")

    gm.page.get_by_label("Party", exact=True).select_option("Bandits")
    gm.page.get_by_label("Tokens", exact=True).fill("2")
    gm.page.get_by_role("button", name="Grant tokens").click()
    expect(bandits.page.locator("#announcer")).to_contain_text("Bandits")
    # The grant's event has reached the Heroes' page too (its controls drawn again) before
    # they fill theirs in: drawn again mid-fill, a field's typing lands after what it held.
    expect(heroes.page.locator("#announcer")).to_contain_text("The GM grants Bandits")

    heroes.page.get_by_label("Action").select_option("Charge")
    heroes.page.get_by_label(re.compile("^Bid")).fill("0")
    heroes.page.get_by_role("button", name="Seal the choice").click()
    expect(heroes.page.locator(".sealed")).to_contain_text("Your sealed choice: Charge, bid 0.")
    expect(heroes_row).to_contain_text("choice sealed")
    # The other party knows that Heroes sealed a choice, never which.
    assert "Charge, bid 0" not in bandits.page.locator("body").inner_text()
    expect(bandits.rounds()).to_have_count(0)
    expect(gm.rounds()).to_have_count(0)

    bandits.page.get_by_label("Action").select_option("Rally")
    bandits.page.get_by_label(re.compile("^Bid")).fill("1")
    bandits.page.get_by_role("button", name="Seal the choice").click()
    for seat in (gm, heroes, bandits):
        expect(seat.rounds()).to_have_count(1)
    # Revealed: the losing bid's action stays the Heroes' own and the GM's to read.
    expect(bandits.page.locator("#rounds .choices")).to_contain_text(
        "Heroes: (its action is not shown to you), bid 0"
    )
    expect(heroes.page.locator("#rounds .choices")).to_contain_text("Heroes: Charge, bid 0")
    expect(gm.page.locator("#rounds .choices")).to_contain_text("Heroes: Charge, bid 0")
    expect(gm.page.locator("#rounds .choices")).to_contain_text("Bandits: Rally, bid 1")
    for seat in (gm, heroes, bandits):
        expect(seat.page.locator("#board")).to_contain_text("Round 2")
    screenshot(gm, "skill-games-gm")
    screenshot(bandits, "skill-games-party-phone")
    assert bandits.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    gm.page.get_by_role("button", name="End the game").click()
    gm.page.get_by_role("button", name="Yes, end the game for everyone").click()
    for seat in (heroes, bandits):
        expect(seat.page.locator("#controls")).to_contain_text("This contest is over.")
    for seat in (gm, heroes, bandits):
        check_accessible(seat)
    check_confined([gm, heroes, bandits], fragment)


@pytest.mark.parametrize("kind", ["chases", "regular-contests"])
def test_the_gm_plays_every_other_kind(table: NewSeat, server: Server, kind: str) -> None:
    gm = table()
    fragment = create(gm, server, kind)
    odds_shown(gm)
    expect(gm.page.locator("#odds .odds-table")).to_be_visible()
    if kind == "regular-contests":
        # A round waiting for the seats, cancelled: nothing played, none waiting.
        gm.page.get_by_role("button", name="Wait for the players' dice").click()
        expect(gm.page.locator("#pending")).to_contain_text("waits for dice from Giant, Ogre")
        gm.page.get_by_role("button", name="Cancel this round").click()
        expect(gm.page.locator("#pending")).to_have_count(0)
        expect(gm.page.locator("#played")).to_have_text("0")
        # Again: the GM enters one player's dice, rolls for the other.
        gm.page.get_by_role("button", name="Wait for the players' dice").click()
        expect(gm.page.locator("#pending")).to_contain_text("waits for dice from Giant, Ogre")
        gm.page.get_by_text("Enter a player's dice for them").click()
        gm.page.get_by_role("group", name="Giant").get_by_label("3d6").fill("3 4 5")
        gm.page.get_by_role("button", name="Send these dice").click()
        expect(gm.page.locator("#pending")).to_contain_text("waits for dice from Ogre")
        gm.page.get_by_role("button", name="Roll for Ogre").click()
        expect(gm.rounds()).to_have_count(1)
        latest = gm.rounds().first
        expect(latest).to_contain_text("Dice from: Giant (the GM), Ogre (the GM)")
        giant = latest.locator(".dice-table tbody tr").filter(has_text="Giant")
        expect(giant.locator("td").nth(3)).to_have_text("3, 4, 5")
        expect(giant.locator("td").nth(4)).to_have_text("entered")
    else:
        # Equal checks at equal speeds: the lead stays 12, and the chase goes on.
        gm.page.get_by_role("group", name="Ralf").get_by_label("increment d20").fill("10")
        gm.page.get_by_role("group", name="the guard").get_by_label("increment d20").fill("10")
        gm.page.get_by_role("button", name="Play the round").click()
        expect(gm.rounds()).to_have_count(1)
    odds_shown(gm)
    expect(gm.page.locator(".odds-table caption").first).to_contain_text("From round 1")
    if kind == "chases":
        expect(gm.page.locator("#board figure.chase-track figcaption")).to_contain_text(
            "Ralf 12 ahead"
        )
        expect(gm.page.locator("#choice-odds")).to_contain_text("just run")
    screenshot(gm, f"{kind}-gm")
    if kind == "chases":
        # Nobody sends dice to a round waiting a second: past its deadline the page asks for
        # the session, which plays the round with the server's dice.
        gm.page.get_by_label("Seconds they have (then the server rolls)").fill("1")
        gm.page.get_by_role("button", name="Wait for the players' dice").click()
        expect(gm.page.locator("#pending")).to_contain_text("waits for dice from Ralf, the guard")
        expect(gm.rounds()).to_have_count(2, timeout=SLOW_MS)
        expect(gm.rounds().first).to_contain_text(
            "Dice from: Ralf (the server, at the deadline), the guard (the server, at the deadline)"
        )
    check_accessible(gm)
    check_confined([gm], fragment)


def test_the_page_shows_what_the_service_refused(table: NewSeat, server: Server) -> None:
    gm = table(PHONE)
    page = gm.page
    page.goto(f"{server.base_url}/table")
    page.get_by_text("The whole request (JSON)").click()
    page.get_by_label("Request body").fill('{"a": {"name": "Lydia"}, "b": {"name": "Lydia"}}')
    page.get_by_role("button", name="Create the session").click()
    # Said beside the button that was pressed, not in a banner at the top.
    refused = page.locator("#create-form .field-error")
    expect(refused).to_contain_text("Not done: ")
    expect(refused).to_contain_text("strength_mod")
    expect(refused).to_have_attribute("role", "alert")
    expect(page.get_by_role("button", name="Create the session")).to_be_focused()
    # Nothing was made: the form is still there, and no session was opened.
    assert urlsplit(page.url).fragment == ""
    page.get_by_label("Request body").fill("{not json")
    page.get_by_role("button", name="Create the session").click()
    expect(page.locator("#create-form .field-error")).to_contain_text("not valid JSON")
    screenshot(gm, "create-form-phone")
    assert gm.refused == []
    assert gm.violations() == []
    assert gm.errors == []


#: Every preset of the creation form, created as the form sends it (with seats where the kind
#: has them): `[kind, preset, status, detail]` for each.
CREATE_EVERY_PRESET = """
async () => {
  const { KINDS } = await import("./table/assets/kinds.js");
  const made = [];
  for (const [kind, info] of Object.entries(KINDS)) {
    for (const [name, preset] of Object.entries(info.presets)) {
      const body = info.seats ? { ...preset, seats: true } : preset;
      const answer = await fetch(`v1/${kind}`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
      });
      const created = await answer.json();
      made.push([kind, name, answer.status, created.detail ?? null]);
    }
  }
  return made;
}
"""


def test_every_preset_is_a_session_the_service_creates(table: NewSeat, server: Server) -> None:
    seat = table()
    seat.page.goto(f"{server.base_url}/table")
    expect(seat.page.get_by_label("Kind of contest")).to_be_visible()
    made = seat.page.evaluate(CREATE_EVERY_PRESET)
    assert {kind for kind, _, _, _ in made} == {
        "arm-wrestles",
        "regular-contests",
        "races",
        "chases",
        "skill-games",
    }
    assert len(made) >= 10
    assert [entry for entry in made if entry[2] != 201] == []


def test_a_party_keeps_its_ticks_when_another_party_rolls(table: NewSeat, server: Server) -> None:
    # Two parties choose at once: the Heroes' roll reaches the Bandits' page, which draws its
    # controls again, and what the Bandits had ticked (and the drawer they had opened) stays.
    gm = table()
    create(gm, server, "skill-games", "Heroes and Bandits (option)")
    heroes = table()
    join(heroes, link_of(gm, "Heroes"), "You are Heroes")
    bandits = table()
    join(bandits, link_of(gm, "Bandits"), "You are Bandits")
    page = bandits.page
    for skill in ("Stealth", "Athletics"):
        page.get_by_role("checkbox", name=skill).check()
    page.locator(".skills-form details summary").click()
    page.evaluate("document.querySelector('.skills-form').dataset.before = 'yes'")
    for skill in ("Athletics", "Stealth"):
        heroes.page.get_by_role("checkbox", name=skill).check()
    heroes.page.get_by_role("button", name="Roll these skills").click()
    heroes_row = page.locator("#board table.parties tbody tr").filter(has_text="Heroes")
    expect(heroes_row).to_contain_text("skills rolled")
    # A new form (the old one is gone), with the Bandits' entries in it.
    expect(page.locator(".skills-form")).to_have_count(1)
    expect(page.locator(".skills-form[data-before]")).to_have_count(0)
    expect(page.get_by_role("checkbox", name="Stealth")).to_be_checked()
    expect(page.get_by_role("checkbox", name="Athletics")).to_be_checked()
    expect(page.locator(".skills-form details")).to_have_attribute("open", "")
    page.get_by_role("button", name="Roll these skills").click()
    for seat in (gm, heroes, bandits):
        expect(seat.page.locator("#board")).to_contain_text("sealing choices")
    # The next phase starts with nothing carried over from the skills' form.
    expect(page.get_by_role("checkbox", name="Stealth")).to_have_count(0)
    assert bandits.errors == []


#: What the page's user has selected: its text, and the id of the element holding its start.
SELECTED = """() => {
  const selection = window.getSelection();
  const start = selection.rangeCount ? selection.getRangeAt(0).startContainer : null;
  const holder = start && (start.nodeType === Node.ELEMENT_NODE ? start : start.parentElement);
  return [selection.toString(), holder ? holder.closest("[id]").id : null];
}"""


def test_a_selection_outlasts_a_live_event_that_did_not_change_it(
    table: NewSeat, server: Server
) -> None:
    # The Giant's player marks part of the dice she is typing, and the GM selects the summary
    # to copy it; then the Ogre's dice arrive, which draws both pages again. Neither loses
    # what was selected: the summary did not change, and the Giant's field is still hers.
    gm = table()
    create(gm, server, "regular-contests")
    giant = table()
    join(giant, link_of(gm, "Giant"), "You are Giant (your seat)")
    ogre = table()
    join(ogre, link_of(gm, "Ogre"), "You are Ogre (your seat)")
    gm.page.get_by_role("button", name="Wait for the players' dice").click()
    for seat in (giant, ogre):
        expect(seat.page.locator("#dice-form")).to_contain_text("Round 1 waits for your dice.")
    dice = giant.page.get_by_label("3d6")
    dice.fill("3 4 5")
    dice.evaluate("element => element.setSelectionRange(2, 3)")
    summary = gm.page.locator("#summary").inner_text()
    gm.page.evaluate("window.getSelection().selectAllChildren(document.getElementById('summary'))")
    assert gm.page.evaluate(SELECTED) == [summary, "summary"]
    giant.page.evaluate("document.getElementById('dice-form').dataset.before = 'yes'")

    ogre.page.get_by_label("3d6").fill("6 6 6")
    ogre.page.get_by_role("button", name="Send my dice").click()
    expect(gm.page.locator("#pending")).to_contain_text("Round 1 waits for dice from Giant")
    # The Giant's form was drawn again (the old one is gone), her field focused as it was,
    # with what she typed and the same part of it marked.
    expect(giant.page.locator("#board")).to_contain_text("waits for dice from Giant.")
    expect(giant.page.locator("#dice-form[data-before]")).to_have_count(0)
    expect(dice).to_be_focused()
    expect(dice).to_have_value("3 4 5")
    assert dice.evaluate("element => [element.selectionStart, element.selectionEnd]") == [2, 3]
    assert gm.page.locator("#summary").inner_text() == summary
    assert gm.page.evaluate(SELECTED) == [summary, "summary"]
    giant.page.keyboard.type("6")
    expect(dice).to_have_value("3 6 5")
    assert giant.errors == []
    assert gm.errors == []


def test_an_option_game_buys_actions_from_the_parties_pages(table: NewSeat, server: Server) -> None:
    gm = table()
    fragment = create(gm, server, "skill-games", "Heroes and Bandits (option)")
    heroes = table()
    join(heroes, link_of(gm, "Heroes"), "You are Heroes")
    bandits = table()
    join(bandits, link_of(gm, "Bandits"), "You are Bandits")
    for seat, skills in ((heroes, ("Athletics", "Stealth")), (bandits, ("Stealth", "Athletics"))):
        for skill in skills:
            seat.page.get_by_role("checkbox", name=skill).check()
        seat.page.get_by_role("button", name="Roll these skills").click()
    for seat in (gm, heroes, bandits):
        expect(seat.page.locator("#board")).to_contain_text("sealing choices")
    tokens = heroes.page.locator("#board table.parties tbody tr").filter(has_text="Heroes")
    earned = int(tokens.locator("td").nth(1).inner_text())
    gm.page.get_by_label("Party", exact=True).select_option("Heroes")
    gm.page.get_by_label("Tokens", exact=True).fill("2")
    gm.page.get_by_role("button", name="Grant tokens").click()
    expect(tokens.locator("td").nth(1)).to_have_text(str(earned + 2))

    heroes.page.get_by_role("checkbox", name="Sprint (cost 2)").check()
    heroes.page.get_by_role("button", name="Seal the choice").click()
    expect(heroes.page.locator(".sealed")).to_contain_text("Your sealed choice: Sprint.")
    assert "Sprint." not in bandits.page.locator("#controls").inner_text()
    bandits.page.get_by_role("button", name="Seal the choice").click()
    for seat in (gm, heroes, bandits):
        expect(seat.rounds()).to_have_count(1)
        # An option game's purchases show to every party once revealed.
        expect(seat.page.locator("#rounds .choices")).to_contain_text("Heroes: Sprint")
        expect(seat.page.locator("#rounds .choices")).to_contain_text("Bandits: nothing")
        progress = seat.page.locator("#board table.parties tbody tr").filter(has_text="Heroes")
        expect(progress.locator("td").nth(0)).to_have_text("2 of 6")
    check_confined([gm, heroes, bandits], fragment)


def test_a_round_is_played_only_on_the_session_as_the_page_shows_it(
    table: NewSeat, server: Server
) -> None:
    gm = table()
    fragment = create(gm, server, "arm-wrestles")
    # A second GM page whose live events never arrive: it still shows the session unplayed.
    behind = table()
    behind.page.route("**/events", lambda route: route.abort("internetdisconnected"))
    behind.page.goto(gm.page.url)
    expect(behind.page.locator("#connection")).to_contain_text("Disconnected")
    expect(behind.page.locator("#played")).to_have_text("0")

    # The GM's round is played with dice that cannot end the match (the server's could: the
    # Ogre reaches DS 20 in one round on 10 of the 400 pairs), so that a round is left to play.
    gm.page.get_by_role("group", name="Lydia").get_by_label("Strength d20").fill("10")
    gm.page.get_by_role("group", name="Ogre").get_by_label("Strength d20").fill("10")
    gm.page.get_by_role("button", name="Play the round").click()
    expect(gm.rounds()).to_have_count(1)
    behind.page.get_by_role("group", name="Lydia").get_by_label("Strength d20").fill("17")
    behind.page.get_by_role("button", name="Play the round").click()
    # Said beside the button pressed.
    expect(behind.page.locator("#play-form .field-error")).to_contain_text(
        "The session changed meanwhile"
    )
    # Nothing was played on the stale view; the page now shows the session as it is.
    expect(behind.page.locator("#played")).to_have_text("1")
    expect(behind.rounds()).to_have_count(1)
    expect(gm.rounds()).to_have_count(1)
    behind.page.get_by_role("button", name="Play the round").click()
    expect(behind.page.locator("#played")).to_have_text("2")
    expect(gm.rounds()).to_have_count(2)
    check_confined([gm, behind], fragment)
