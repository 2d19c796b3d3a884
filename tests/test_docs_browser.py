"""The docs pages render offline, and browser scripts of another origin may call the API.

The pages' own answers are checked with `TestClient`; that they render is proven in a real
headless Chromium (Debian's, driven by Playwright) against live servers, with every request
to another host refused, as on a machine without internet, and every request the page makes
and every violation of its Content-Security-Policy recorded.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

from app.api.docs import REDOC_POLICY, STATIC_URL, SWAGGER_UI_POLICY
from app.store.database import upgrade_to_head
from tests.requirements import program
from tests.store.servers import STARTUP_TIMEOUT_S, start_server, stop_server, wait_until_healthy

#: The browser: Debian's Chromium, or the executable ARBITER_TEST_CHROMIUM names.
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
#: Swagger UI reads OpenAPI 3.1 (what FastAPI emits) from version 5 on.
SWAGGER_UI_VERSION = re.compile(rb'PACKAGE_VERSION:"(\d+)\.(\d+)\.(\d+)"')
#: How long a page may take to render: Redoc parses its 1 MB bundle and the whole document
#: first, which takes a loaded machine longer than `expect`'s default 5 s.
RENDER_TIMEOUT_MS = 30_000
ASSET_URL = re.compile(r'(?:src|href)="([^"]*)"')
LYDIA = {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1}
OGRE = {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2}


def operations(document: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Every operation of an OpenAPI document: operationId -> (METHOD, path)."""
    found: dict[str, tuple[str, str]] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                found[operation["operationId"]] = (method.upper(), path)
    return found


# -- the pages' answers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "assets"),
    [
        ("/docs", {"swagger-ui-bundle.js", "swagger-ui.css", "favicon.png"}),
        ("/redoc", {"redoc.standalone.js", "favicon.png"}),
    ],
)
def test_the_pages_use_only_assets_served_by_the_app(
    client: TestClient, page: str, assets: set[str]
) -> None:
    answer = client.get(page)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    urls = ASSET_URL.findall(answer.text)
    assert {url.removeprefix(STATIC_URL + "/") for url in urls} == assets
    for url in urls:
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url
    policy = answer.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "connect-src 'self'" in policy


def test_each_page_allows_only_the_urls_it_makes_itself(client: TestClient) -> None:
    swagger = client.get("/docs").headers["content-security-policy"]
    redoc = client.get("/redoc").headers["content-security-policy"]
    assert (swagger, redoc) == (SWAGGER_UI_POLICY, REDOC_POLICY)
    # Swagger UI's image answers are blob: URLs; Redoc's search worker is one.
    assert "img-src 'self' data: blob:;" in swagger
    assert "worker-src 'none';" in swagger
    assert "img-src 'self' data:;" in redoc
    assert "worker-src 'self' blob:;" in redoc
    for policy in (swagger, redoc):
        assert "http" not in policy
        assert "*" not in policy


def test_redocs_bundle_is_served_without_the_redocly_logo(client: TestClient) -> None:
    bundle = client.get(f"{STATIC_URL}/redoc.standalone.js")
    assert bundle.status_code == 200
    assert bundle.headers["content-type"] == "text/javascript; charset=utf-8"
    assert b"redocly logo" not in bundle.content
    assert b"cdn.redoc.ly" not in bundle.content
    # The rest of the side menu's attribution is left as Redoc has it.
    assert b'"API docs by Redocly"' in bundle.content
    assert len(bundle.content) > 1_000_000
    again = client.get(
        f"{STATIC_URL}/redoc.standalone.js", headers={"If-None-Match": bundle.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.content == b""


def test_the_pages_read_this_services_openapi_document(client: TestClient) -> None:
    assert "url: '/openapi.json'" in client.get("/docs").text
    assert 'spec-url="/openapi.json"' in client.get("/redoc").text
    # The pages are not operations of the API.
    paths = client.get("/openapi.json").json()["paths"]
    assert not {"/docs", "/redoc"} & set(paths)


def test_swagger_ui_reads_openapi_3_1(client: TestClient) -> None:
    bundle = client.get(f"{STATIC_URL}/swagger-ui-bundle.js")
    assert bundle.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    version = SWAGGER_UI_VERSION.search(bundle.content)
    assert version is not None
    assert int(version.group(1)) >= 5
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")


def test_assets_are_cacheable_and_unknown_ones_are_404(client: TestClient) -> None:
    css = client.get(f"{STATIC_URL}/swagger-ui.css")
    assert css.headers["content-type"] == "text/css; charset=utf-8"
    again = client.get(
        f"{STATIC_URL}/swagger-ui.css", headers={"If-None-Match": css.headers["etag"]}
    )
    assert again.status_code == 304
    missing = client.get(f"{STATIC_URL}/swagger-ui.js.map")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


# -- in a browser --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Origins:
    """Where the browser tests go: a page of another origin, the API with and without CORS;
    and the API's OpenAPI document, as it served it."""

    page: str
    api: str
    api_without_cors: str
    document: dict[str, Any]


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.fixture(scope="module")
def origins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Origins]:
    """Two API servers (CORS on for the page's origin, and off) and a page server."""
    root = tmp_path_factory.mktemp("browser")
    site = root / "site"
    site.mkdir()
    (site / "index.html").write_text(
        "<!doctype html><title>A virtual tabletop</title><p>The table.</p>"
    )
    with ExitStack() as stack:
        pages = ThreadingHTTPServer(
            ("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(site))
        )
        threading.Thread(target=pages.serve_forever, daemon=True).start()
        stack.callback(pages.server_close)
        stack.callback(pages.shutdown)
        page_origin = f"http://127.0.0.1:{pages.server_port}"
        servers = []
        for name, cors in (("with-cors", page_origin), ("without-cors", None)):
            database_url = f"sqlite:///{root / (name + '.db')}"
            upgrade_to_head(database_url)
            with pytest.MonkeyPatch.context() as env:
                if cors is None:
                    env.delenv("ARBITER_CORS_ORIGINS", raising=False)
                else:
                    env.setenv("ARBITER_CORS_ORIGINS", cors)
                server = start_server(database_url, root)
            stack.callback(stop_server, server)
            servers.append(server)
        for server in servers:
            wait_until_healthy(server)
        # A server builds its document at the first request for it, which is part of its
        # start: a loaded machine may take seconds over it, more than a request's 5 s.
        document = httpx.get(servers[0].base_url + "/openapi.json", timeout=STARTUP_TIMEOUT_S)
        assert document.status_code == 200, servers[0].log.read_text(errors="replace")
        yield Origins(page_origin, servers[0].base_url, servers[1].base_url, document.json())


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


#: Every Content-Security-Policy violation the page reports, kept where the test reads it.
RECORD_VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation", event => {
  window.violations.push(`${event.effectiveDirective} refused ${event.blockedURI}`);
});
"""


@dataclass
class Confined:
    """A browser page that may reach `allowed` origins only; what else it asked is `refused`.
    Every request it made is in `requested`, its console's errors in `errors`."""

    page: Page
    allowed: frozenset[str]
    refused: list[str]
    requested: list[str]
    errors: list[str]

    def route(self, route: Route) -> None:
        if origin(route.request.url) in self.allowed:
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort("internetdisconnected")

    def violations(self) -> list[str]:
        found: list[str] = self.page.evaluate("window.violations")
        return found


@pytest.fixture
def confined(browser: Browser, origins: Origins) -> Iterator[Confined]:
    context = browser.new_context()
    page = context.new_page()
    allowed = frozenset({origins.page, origins.api, origins.api_without_cors})
    confined = Confined(page, allowed, [], [], [])
    page.route("**/*", confined.route)
    page.on("request", lambda request: confined.requested.append(request.url))
    page.on(
        "console",
        lambda message: confined.errors.append(message.text) if message.type == "error" else None,
    )
    page.add_init_script(RECORD_VIOLATIONS)
    yield confined
    context.close()


def request_origin(url: str) -> str:
    """The origin a request went to; a `blob:` URL's is the origin of the page that made it."""
    return origin(url.removeprefix("blob:"))


@pytest.mark.slow
def test_swagger_ui_lists_every_operation_offline(confined: Confined, origins: Origins) -> None:
    document = origins.document
    expected = operations(document)
    page = confined.page
    page.goto(origins.api + "/docs")
    blocks = page.locator(".opblock-summary")
    # Waits (polling the page) until Swagger UI has rendered them all.
    expect(blocks).to_have_count(len(expected), timeout=RENDER_TIMEOUT_MS)
    listed = blocks.evaluate_all(
        """blocks => blocks.map(block => [
             block.querySelector('.opblock-summary-method').textContent,
             block.querySelector('.opblock-summary-path').dataset.path])"""
    )
    assert {(method, path) for method, path in listed} == set(expected.values())
    assert len(expected) >= 40
    create = document["paths"]["/v1/arm-wrestles"]["post"]
    assert create["operationId"] == "createArmWrestle"
    summaries = page.locator(".opblock-summary-description").all_inner_texts()
    assert create["summary"] in summaries
    version = page.evaluate("window.versions.swaggerUI.version")
    assert int(version.split(".")[0]) >= 5
    assert confined.refused == []


@pytest.mark.slow
def test_redoc_lists_every_operation_offline(confined: Confined, origins: Origins) -> None:
    document = origins.document
    expected = operations(document)
    page = confined.page
    page.goto(origins.api + "/redoc")
    expect(page.locator("[data-section-id*='/operation/']")).to_have_count(
        len(expected), timeout=RENDER_TIMEOUT_MS
    )
    ids = [
        section.split("/operation/")[1]
        for section in page.eval_on_selector_all(
            "[data-section-id*='/operation/']",
            "nodes => nodes.map(node => node.getAttribute('data-section-id'))",
        )
    ]
    assert set(ids) == set(expected)
    heading = page.locator("[data-section-id$='/operation/createArmWrestle'] h2").first
    assert heading.inner_text() == document["paths"]["/v1/arm-wrestles"]["post"]["summary"]
    assert confined.refused == []


@pytest.mark.slow
def test_redoc_asks_nothing_of_another_host(confined: Confined, origins: Origins) -> None:
    page = confined.page
    page.goto(origins.api + "/redoc")
    expect(page.locator("[data-section-id$='/operation/createArmWrestle']")).to_have_count(
        1, timeout=RENDER_TIMEOUT_MS
    )
    # The side menu's attribution is there, without Redocly's logo from its CDN.
    attribution = page.locator("a[href='https://redocly.com/redoc/']")
    expect(attribution).to_have_text("API docs by Redocly")
    assert attribution.locator("img").count() == 0
    page.wait_for_load_state("networkidle")
    assert {request_origin(url) for url in confined.requested} == {origins.api}
    assert f"{origins.api}/openapi.json" in confined.requested
    assert f"{origins.api}{STATIC_URL}/redoc.standalone.js" in confined.requested
    assert confined.violations() == []
    assert confined.refused == []
    assert confined.errors == []


@pytest.mark.slow
def test_swagger_ui_shows_an_odds_chart_tried_out(confined: Confined, origins: Origins) -> None:
    page = confined.page
    page.goto(origins.api + "/docs")
    operation = page.locator(".opblock").filter(
        has=page.locator("[data-path='/v1/odds/gurps/success-roll']")
    )
    operation.locator(".opblock-summary").click()
    operation.locator(".try-out__btn").click()
    operation.locator(
        "tr.response[data-code='200'] .response-control-media-type select"
    ).select_option("image/png")
    operation.locator(".execute").click()
    chart = operation.locator(".live-responses-table .response-col_description img")
    # The first chart starts the odds worker process (matplotlib's import): seconds.
    expect(chart).to_have_count(1, timeout=60_000)
    page.wait_for_function("image => image.complete", arg=chart.element_handle())
    source = chart.get_attribute("src")
    assert source is not None
    assert source.startswith(f"blob:{origins.api}/")
    # Loaded, not refused: a refused image has no width.
    width, height = chart.evaluate("image => [image.naturalWidth, image.naturalHeight]")
    assert width > 100
    assert height > 100
    status = operation.locator(".live-responses-table tbody .response-col_status")
    assert status.inner_text() == "200"
    asked = [url for url in confined.requested if "/v1/odds/" in url]
    assert asked == [f"{origins.api}/v1/odds/gurps/success-roll"]
    assert {request_origin(url) for url in confined.requested} == {origins.api}
    assert confined.violations() == []
    assert confined.refused == []
    assert confined.errors == []


FETCH_A_SESSION = """
async ([api, body]) => {
  const created = await fetch(`${api}/v1/arm-wrestles`, {
    method: "POST",
    headers: {"Content-Type": "application/json", "X-Request-ID": "from-the-table"},
    body: JSON.stringify(body),
  });
  const session = await created.json();
  const url = `${api}/v1/arm-wrestles/${session.id}`;
  const gm = {"Authorization": `Bearer ${session.tokens.gm}`};
  const round = {
    method: "POST",
    headers: {...gm, "Content-Type": "application/json", "If-Match": created.headers.get("ETag"),
              "Idempotency-Key": "round-1"},
    body: JSON.stringify({rolls: {Lydia: {strength: 17}, Ogre: {strength: 8}}}),
  };
  const played = await fetch(`${url}/rounds`, round);
  const answer = await played.json();
  const replayed = await fetch(`${url}/rounds`, round);
  const deleted = await fetch(url, {method: "DELETE", headers: gm});
  return {
    id: session.id,
    created: [created.status, created.headers.get("ETag"), created.headers.get("Location"),
              created.headers.get("X-Request-ID")],
    played: [played.status, played.headers.get("ETag"), answer.session.version,
             answer.round.number],
    replayed: [replayed.status, replayed.headers.get("Idempotent-Replayed")],
    deleted: deleted.status,
  };
}
"""

FETCH_ANYTHING = """
async (api) => {
  try {
    await fetch(`${api}/v1/gurps/success-roll`, {
      method: "POST", headers: {"Content-Type": "application/json"}, body: '{"skill": 12}',
    });
    return "answered";
  } catch (error) {
    return error.name;
  }
}
"""


@pytest.mark.slow
def test_a_page_of_another_origin_plays_a_session_with_cors_on(
    confined: Confined, origins: Origins
) -> None:
    page = confined.page
    page.goto(origins.page + "/")
    assert page.title() == "A virtual tabletop"
    outcome = page.evaluate(FETCH_A_SESSION, [origins.api, {"a": LYDIA, "b": OGRE}])
    session_id = outcome["id"]
    assert outcome["created"] == [
        201,
        '"1"',
        f"/v1/arm-wrestles/{session_id}",
        "from-the-table",
    ]
    assert outcome["played"] == [200, '"2"', 2, 1]
    assert outcome["replayed"] == [200, "true"]
    assert outcome["deleted"] == 204
    assert confined.refused == []


@pytest.mark.slow
def test_a_page_of_another_origin_is_refused_with_cors_off(
    confined: Confined, origins: Origins
) -> None:
    page = confined.page
    page.goto(origins.page + "/")
    # The same call succeeds where CORS is on, so it is CORS that the browser refuses here.
    assert page.evaluate(FETCH_ANYTHING, origins.api) == "answered"
    assert page.evaluate(FETCH_ANYTHING, origins.api_without_cors) == "TypeError"
    assert confined.refused == []
