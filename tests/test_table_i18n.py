"""The table page in the players' language: its catalogs' answer with their plural rule, and
the page itself in Debian's Chromium with the browser's locale set to German and to Brazilian
Portuguese (labels, `<html lang>`, the calls' `Accept-Language`, a round's summary from the
service), a `?lang=` overriding the browser's, and English, the default, loaded with no catalog.

Expected texts are written here as a reader of each language reads them, never taken from the
catalogs under test.
"""

# The fixtures `browser` and `server` are tests/test_table_browser.py's, imported by name (which
# pytest needs), so the tests' parameters of those names redefine the imports.
# ruff: noqa: F811

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, expect

from tests.store.servers import Server
from tests.test_table_browser import (  # noqa: F401 - the fixtures, shared
    DESKTOP,
    RECORD_VIOLATIONS,
    Seat,
    browser,
    link_of,
    server,
)

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "app" / "table" / "assets"
#: A `t("…")` or `tn("…", …)` call's first argument, a plain string literal.
CALL = re.compile(r'\btn?\(\s*"((?:[^"\\]|\\.)*)"')

# --- the template ------------------------------------------------------------------------------


def test_every_string_the_page_shows_is_in_the_template() -> None:
    """Each `t`/`tn` call of the page's modules, found by a plain scan (a call nested in
    another's arguments, one inside a template string), is a message of table.pot: a string
    the extractor did not reach would stay English in every language."""
    with (ROOT / "app" / "locale" / "table.pot").open("rb") as pot:
        ids = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(pot) if m.id}
    called = {
        (path.name, match.group(1).replace('\\"', '"'))
        for path in ASSETS.glob("*.js")
        for match in CALL.finditer(path.read_text(encoding="utf-8"))
    }
    assert len(called) > 300
    assert [(name, text) for name, text in sorted(called) if text not in ids] == []


def test_the_page_speaks_the_services_languages() -> None:
    """The page offers the languages the service serves, English first."""
    from app.api import i18n

    source = (ASSETS / "i18n.js").read_text(encoding="utf-8")
    listed = re.search(r"export const LANGUAGES = \[([^\]]*)\];", source)
    assert listed is not None
    assert tuple(re.findall(r'"([^"]+)"', listed.group(1))) == i18n.LANGUAGES
    assert i18n.LANGUAGES[0] == i18n.DEFAULT == "en"


# --- the catalogs' answer ----------------------------------------------------------------------


def test_a_catalog_answers_its_plural_rule_and_forms(client: TestClient) -> None:
    """French has three forms (one, many, other: CLDR's millions), German two; each plural
    message is keyed by its singular, its forms in the rule's order."""
    french = client.get("/table/messages/fr.json").json()
    assert french[""] == {"plural": ["one", "many", "other"]}
    assert french["{count} round played"] == [
        "{count} round joué",
        "{count} de rounds joués",
        "{count} rounds joués",
    ]
    german = client.get("/table/messages/de.json").json()
    assert german[""] == {"plural": ["one", "other"]}
    assert german["{count} round played"] == ["{count} Runde gespielt", "{count} Runden gespielt"]
    assert german["Kind of contest"] == "Art des Wettstreits"
    portuguese = client.get("/table/messages/pt-BR.json").json()
    assert portuguese[""] == {"plural": ["one", "many", "other"]}
    assert portuguese["Create the session"] == "Criar a sessão"


def test_the_plural_rule_keeps_the_answers_caching(client: TestClient) -> None:
    answer = client.get("/table/messages/es.json")
    assert answer.headers["content-language"] == "es"
    assert answer.json()[""] == {"plural": ["one", "many", "other"]}
    again = client.get("/table/messages/es.json", headers={"if-none-match": answer.headers["etag"]})
    assert again.status_code == 304
    assert again.headers["etag"] == answer.headers["etag"]
    assert client.get("/table/messages/en.json").json() == {}


# --- the page in a browser ---------------------------------------------------------------------

NewPage = Callable[[str], Seat]


@pytest.fixture
def page_in(browser: Browser, server: Server) -> Iterator[NewPage]:
    """`page_in(locale)`: a new browser context with that locale (its `navigator.languages`
    and `Accept-Language`), confined to the server's host, every request recorded."""
    contexts: list[BrowserContext] = []

    def new(locale: str) -> Seat:
        context = browser.new_context(viewport=DESKTOP, locale=locale)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        seat = Seat(page, server.base_url)
        page.route("**/*", seat.route)
        page.on("request", seat.heard)
        page.on("pageerror", lambda error: seat.errors.append(str(error)))
        page.add_init_script(RECORD_VIOLATIONS)
        return seat

    yield new
    for context in contexts:
        context.close()


def confined(seat: Seat) -> None:
    assert seat.refused == []
    assert seat.violations() == []
    assert seat.errors == []


def api_languages(seat: Seat) -> set[str]:
    """The `Accept-Language` of every call the page made to the API."""
    return {headers.get("accept-language", "") for url, headers in seat.requests if "/v1/" in url}


def reads_of_the_session(seat: Seat) -> list[str]:
    """The page's calls to the session's own URL (`/v1/{kind}/{id}`, nothing after it)."""
    session = re.compile(r"/v1/[a-z-]+/[0-9a-f]{32}$")
    return [url for url, _ in seat.requests if session.search(url.split("?")[0])]


def catalogs_fetched(seat: Seat) -> list[str]:
    return [url for url, _ in seat.requests if "/table/messages/" in url]


@pytest.mark.slow
def test_the_page_in_german(page_in: NewPage, server: Server) -> None:
    """de-DE: the page's labels in German before and after creating a session, the round's
    summary from the service in German, every call asking for German. The first round's dice
    are the GM's (a known winner, so its summary names the EG it moves); the second's are the
    server's."""
    seat = page_in("de-DE")
    page = seat.page
    page.goto(f"{server.base_url}/table")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page).to_have_title("Arbiter — der Spieltisch")
    page.get_by_label("Art des Wettstreits").select_option("arm-wrestles")
    expect(page.get_by_label("Art des Wettstreits").locator("option:checked")).to_have_text(
        "Armdrücken"
    )
    page.get_by_role("button", name="Sitzung erstellen").click()
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.get_by_role("heading", name="Armdrücken")).to_be_visible()
    expect(page.locator(".who")).to_have_text("Du bist die SL")
    page.get_by_role("group", name="Lydia").get_by_label("Stärke-W20").fill("18")
    page.get_by_role("group", name="Ogre").get_by_label("Stärke-W20").fill("4")
    page.get_by_role("button", name="Runde spielen").click()
    expect(seat.rounds()).to_have_count(1)
    first = page.get_by_role("listitem", name="Runde 1", exact=True)
    summary = first.locator(".round-summary")
    expect(summary).to_contain_text("Lydia")
    expect(summary).to_contain_text(re.compile(r"\bEG\b"))
    expect(summary).not_to_contain_text(re.compile(r"\bDS\b|\bvs\b"))
    # The round's card is the service's, in German: its line, and each die's note.
    expect(first.locator(".card-title")).to_contain_text("Lydia 1d20+2 = 20 gegen Ogre 1d20+6 = 10")
    expect(first.locator(".card-title")).not_to_contain_text(re.compile(r"\bDS\b|\bvs\b"))
    expect(first.locator(".card-note").first).to_contain_text("Spanne +10, geschafft, eingegeben")
    # Lydia's player, in German too, sees the next round come as a live event: the stream is
    # in her page's language, so the event's session is shown as it is, never read again.
    lydia = page_in("de-DE")
    lydia.page.goto(link_of(seat, "Lydia"))
    expect(lydia.page.locator("#connection")).to_have_text("Live")
    expect(lydia.page.locator("#played")).to_have_text("1")
    session_reads = len(reads_of_the_session(lydia))
    assert session_reads >= 1
    page.get_by_role("button", name="Runde spielen").click()
    expect(seat.rounds()).to_have_count(2)
    expect(lydia.rounds()).to_have_count(2)
    expect(lydia.page.locator("#played")).to_have_text("2")
    expect(lydia.page.locator("#summary")).to_contain_text("Armdrücken Lydia gegen Ogre")
    expect(lydia.page.locator("#announcer")).to_contain_text(re.compile(r"^Runde 2: "))
    assert len(reads_of_the_session(lydia)) == session_reads
    assert api_languages(lydia) == {"de"}
    confined(lydia)
    second = page.get_by_role("listitem", name="Runde 2", exact=True)
    expect(second.locator(".card-title")).to_contain_text(
        re.compile(r"Lydia 1d20\+2 = \d+ gegen Ogre")
    )
    expect(second.locator(".card-note").first).to_contain_text("vom Server gewürfelt")
    expect(page.locator("#summary")).to_contain_text("Armdrücken Lydia gegen Ogre")
    expect(page.locator("#rounds-count")).to_have_text("2 Runden gespielt")
    assert api_languages(seat) == {"de"}
    assert [url.rsplit("/", 1)[1] for url in catalogs_fetched(seat)] == ["de.json"]
    confined(seat)


@pytest.mark.slow
def test_the_page_in_brazilian_portuguese(page_in: NewPage, server: Server) -> None:
    """The browser's `pt-BR` (and a bare `pt` would be the same) is Brazilian Portuguese."""
    seat = page_in("pt-BR")
    page = seat.page
    page.goto(f"{server.base_url}/table")
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    page.get_by_label("Tipo de disputa").select_option("arm-wrestles")
    page.get_by_role("button", name="Criar a sessão").click()
    expect(page.locator("#connection")).to_have_text("Ao vivo")
    expect(page.locator(".who")).to_have_text("Você é o mestre")
    page.get_by_role("button", name="Jogar a rodada").click()
    expect(seat.rounds()).to_have_count(1)
    # The server's dice: a round that moves the DS names it as the Portuguese edition does
    # (GS), one of equal totals says nothing moved — either way in Portuguese.
    expect(seat.rounds().first.locator(".round-summary")).to_contain_text(
        re.compile(r"^Rodada 1: .*(\bGS\b|nada muda)")
    )
    expect(page.locator("#summary")).to_contain_text("Queda de braço Lydia contra Ogre")
    assert api_languages(seat) == {"pt-BR"}
    confined(seat)


#: `tn` of the page's own module (the instance the page loaded, its catalog in place).
PLURALS = """
async () => {
  const { tn } = await import("./table/assets/i18n.js");
  return [
    ...[0, 1, 2, 1000000].map((n) => tn("{count} round played", "{count} rounds played", n)),
    tn("Choose {count} skill", "Choose {count} skills", 3),
  ];
}
"""


@pytest.mark.slow
def test_the_address_overrides_the_browsers_language(page_in: NewPage, server: Server) -> None:
    seat = page_in("de-DE")
    seat.page.goto(f"{server.base_url}/table?lang=fr")
    expect(seat.page.locator("html")).to_have_attribute("lang", "fr")
    expect(seat.page.get_by_role("button", name="Créer la session")).to_be_visible()
    # French has a form for one (0 and 1), one for the millions and one for the rest.
    forms = seat.page.evaluate(PLURALS)
    assert forms == [
        "0 round joué",
        "1 round joué",
        "2 rounds joués",
        "1000000 de rounds joués",
        "Choisissez 3 compétences",
    ]
    confined(seat)


@pytest.mark.slow
def test_english_stays_the_default_without_a_catalog(page_in: NewPage, server: Server) -> None:
    """A browser in a language the page does not speak gets English, with no catalog fetched."""
    seat = page_in("ja-JP")
    page = seat.page
    page.goto(f"{server.base_url}/table")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("button", name="Create the session")).to_be_visible()
    page.get_by_label("Kind of contest").select_option("arm-wrestles")
    page.get_by_role("button", name="Create the session").click()
    expect(page.locator(".who")).to_have_text("You are the GM")
    assert catalogs_fetched(seat) == []
    assert api_languages(seat) == {"en"}
    confined(seat)
