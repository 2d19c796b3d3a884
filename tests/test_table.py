"""The table page's answers (`GET /table` and its assets), read with `TestClient`: its strict
Content-Security-Policy, assets served from the package, the API's CORS, no token ever in a
URL it builds. That the page works is proven in a browser, in tests/test_table_browser.py."""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.table import ASSETS_URL, PAGE_URL, POLICY
from app.main import create_app
from app.settings import Settings
from app.store.database import upgrade_to_head

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "app" / "table"
#: A module's static imports: `import … from "./api.js"`.
IMPORT = re.compile(r'^import [^;]*? from "(\./[\w.-]+\.js)";', re.MULTILINE)


class PageParts(HTMLParser):
    """What a page loads, and whatever inline script, style or handler it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.links: list[dict[str, str | None]] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in found:
            if name == "style" or name.startswith("on"):
                self.inline.append(f"<{tag} {name}>")
        if tag == "script":
            self.scripts.append(found)
            self._in_script = True
        elif tag == "style":
            self.inline.append("<style>")
        elif tag == "link":
            self.links.append(found)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(f"<script>{data.strip()[:40]}")


def parts_of(html: str) -> PageParts:
    parser = PageParts()
    parser.feed(html)
    return parser


def test_the_page_is_served_with_a_strict_policy(client: TestClient) -> None:
    answer = client.get(PAGE_URL)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    policy = answer.headers["content-security-policy"]
    assert policy == POLICY
    directives = dict(item.strip().split(" ", 1) for item in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["default-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    parts = parts_of(answer.text)
    # Nothing inline for the policy to refuse: every script is a file of the app.
    assert parts.inline == []
    assert [script.get("src") for script in parts.scripts] == ["table/assets/table.js"]
    assert all(script.get("type") == "module" for script in parts.scripts)


def test_the_page_revalidates_and_answers_head(client: TestClient) -> None:
    first = client.get(PAGE_URL)
    again = client.get(PAGE_URL, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.content == b""
    head = client.head(PAGE_URL)
    assert head.status_code == 200
    assert head.headers["content-security-policy"] == POLICY


def test_every_asset_the_page_loads_is_served_by_the_app(client: TestClient) -> None:
    page = parts_of(client.get(PAGE_URL).text)
    wanted = [script["src"] for script in page.scripts] + [link["href"] for link in page.links]
    assert all(url is not None and url.startswith("table/assets/") for url in wanted)
    seen: set[str] = set()
    queue = [f"/{url}" for url in wanted if url is not None]
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert answer.headers["x-content-type-options"] == "nosniff"
        if url.endswith(".js"):
            assert answer.headers["content-type"].startswith("text/javascript"), url
            # Every module the page imports is served too, from the same folder.
            queue.extend(f"{ASSETS_URL}/{name[2:]}" for name in IMPORT.findall(answer.text))
    assert {url.rsplit("/", 1)[1] for url in seen} == {
        "table.js",
        "api.js",
        "dom.js",
        "kinds.js",
        "views.js",
        "verify.js",
        "i18n.js",
        "table.css",
        "favicon.svg",
    }
    assert client.get(f"{ASSETS_URL}/table.css").headers["content-type"].startswith("text/css")


def test_the_dice_verifier_is_a_module_of_its_own_without_the_dom(client: TestClient) -> None:
    """verify.js is what tests/clients/test_table_verify.py runs under Node.js: no page in it."""
    answer = client.get(f"{ASSETS_URL}/verify.js")
    assert answer.status_code == 200
    source = answer.text
    assert IMPORT.findall(source) == []
    for name in ("document", "window", "location", "./dom.js"):
        assert re.search(rf"\b{re.escape(name)}\b", source) is None, name
    assert "crypto.subtle" in source or "globalThis.crypto" in source
    assert "./verify.js" in IMPORT.findall(client.get(f"{ASSETS_URL}/table.js").text)


def test_an_unknown_asset_is_a_problem_404(client: TestClient) -> None:
    missing = client.get(f"{ASSETS_URL}/nothing.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_the_page_is_not_an_operation_of_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not [path for path in paths if path.startswith("/table")]


def test_the_page_carries_the_apis_cors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITER_CORS_ORIGINS", raising=False)
    database_url = f"sqlite:///{tmp_path / 'cors.db'}"
    upgrade_to_head(database_url)
    origin = "https://vtt.example"
    settings = Settings(database_url=database_url, cors_origins=origin, log_requests=False)
    with TestClient(create_app(settings)) as client:
        page = client.get(PAGE_URL, headers={"Origin": origin})
        api = client.get("/healthz", headers={"Origin": origin})
        asset = client.get(f"{ASSETS_URL}/table.js", headers={"Origin": origin})
    for answer in (page, api, asset):
        assert answer.headers["access-control-allow-origin"] == origin
    assert (
        page.headers["access-control-expose-headers"]
        == api.headers["access-control-expose-headers"]
    )


def test_the_scripts_send_tokens_in_a_header_never_in_a_url() -> None:
    sources = {path.name: path.read_text() for path in (PACKAGE_DIR / "assets").glob("*.js")}
    api = sources["api.js"]
    assert "headers.authorization = `Bearer ${token}`" in api
    assert "authorization: `Bearer ${this.token}`" in api
    for name, source in sources.items():
        # A token lives in the fragment alone (the browser test checks every URL requested);
        # local storage holds the GM's templates alone, under their own key (a template is
        # cleaned of any key that could hold a token; tests/test_table_play_browser.py).
        uses = re.findall(r"localStorage\.(\w+)\(([^,)]*)", source)
        assert all(key == "TEMPLATES_KEY" for _, key in uses), name
        assert "new EventSource" not in source, name
        assert "innerHTML" not in source, name
        # No inline style is written (the page's policy refuses it).
        assert 'setAttribute("style"' not in source, name
    assert "location.hash" in sources["table.js"]
    assert re.findall(r"localStorage\.(\w+)\(", sources["table.js"]) == ["getItem", "setItem"]


def test_the_package_ships_every_file_of_the_page() -> None:
    project = tomllib.loads((PACKAGE_DIR.parents[1] / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["app.table"]
    files = sorted(
        str(path.relative_to(PACKAGE_DIR))
        for path in PACKAGE_DIR.rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts
    )
    assert "index.html" in files
    # The page, 6 modules and verify.js, its style sheet and its two icons (one with a badge).
    assert len(files) == 11
    for file in files:
        assert any(Path(file).match(pattern) for pattern in patterns), file
