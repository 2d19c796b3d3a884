"""The skill-game token odds as a chart (docs/api.md#odds): one grouped bar chart, a legend
naming each party, for `Accept: image/svg+xml` or `image/png`; JSON stays the default."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.answers import charts, drawing
from app.api.odds.skill_games import TOKENS_EXAMPLE
from app.main import create_app
from app.settings import Settings
from tests.conformance import Conforming

PATH = "/v1/odds/skill-games/tokens"
ROOT = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG_NS = "{http://www.w3.org/2000/svg}"
#: Names a chart could get wrong: XML's special characters, matplotlib's math text (`$`),
#: and a leading `_`, which matplotlib's legend would otherwise leave out.
HEROES = "Heroes & <Co>"
RIVALS = "_Rivals $x$"
#: The document's example game, its parties renamed.
GAME: dict[str, Any] = {
    **TOKENS_EXAMPLE["game"],
    "parties": [
        {**party, "name": name}
        for party, name in zip(TOKENS_EXAMPLE["game"]["parties"], (HEROES, RIVALS), strict=True)
    ],
}
BODY = {"game": GAME, "skills": {HEROES: ["Climb", "Lore"], RIVALS: ["Sneak", "Lore"]}}


@pytest.fixture
def odds_client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'odds.db'}"))
    with TestClient(Conforming(app)) as client:
        yield client


def svg_text(svg: bytes) -> list[str]:
    """Every text of the chart, as drawn (the SVG parsed: it is well-formed XML)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    return [text for element in root.iter(f"{SVG_NS}text") for text in element.itertext()]


def test_the_token_odds_as_an_svg_chart(odds_client: TestClient) -> None:
    answer = odds_client.post(PATH, json=BODY, headers={"Accept": "image/svg+xml"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "image/svg+xml"
    texts = svg_text(answer.content)
    # The legend names each party, once, under its title; the axes and the title are labelled.
    assert texts.count(HEROES) == 1
    assert texts.count(RIVALS) == 1
    assert "party" in texts
    assert "tokens earned" in texts
    assert "probability" in texts
    assert "Tokens earned in one round (DC 14, token rule exceed)" in texts
    # The x axis: every number of tokens a party can earn (two skills: 0, 1 or 2).
    assert {"0", "1", "2"} <= set(texts)


def test_the_token_odds_as_a_png_chart(odds_client: TestClient) -> None:
    answer = odds_client.post(PATH, json=BODY, headers={"Accept": "image/png"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "image/png"
    assert answer.content.startswith(PNG_SIGNATURE)
    assert len(answer.content) > 1000


@pytest.mark.parametrize(
    "accept", [None, "application/json", "*/*", "application/json, image/svg+xml"]
)
def test_json_stays_the_default(odds_client: TestClient, accept: str | None) -> None:
    headers = {} if accept is None else {"Accept": accept}
    answer = odds_client.post(PATH, json=BODY, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    parties = answer.json()["parties"]
    assert list(parties) == [HEROES, RIVALS]
    # Climb: Ann needs 11+ (10 faces of 20), Bo 15+ (6): both miss 10 x 14 times in 400.
    assert Fraction(parties[HEROES]["token_exact"]["Climb"]) == 1 - Fraction(10 * 14, 400)


def test_the_summary_line_is_still_served(odds_client: TestClient) -> None:
    answer = odds_client.post(PATH, json=BODY, headers={"Accept": "text/plain"})
    assert answer.headers["content-type"].startswith("text/plain")
    # (Names neutralised for chat: "<" is followed by a zero-width space.)
    assert ": 1.37 tokens expected (Climb 65.0%, Lore 72.0%); " in answer.text


def test_a_chart_of_an_invalid_body_is_the_same_422(odds_client: TestClient) -> None:
    body = {**BODY, "skills": {HEROES: ["Climb", "Dance"]}}
    answer = odds_client.post(PATH, json=body, headers={"Accept": "image/svg+xml"})
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("application/problem+json")
    locs = [error["loc"] for error in answer.json()["errors"]]
    assert ["body", "skills", HEROES, 1] in locs


def test_the_document_declares_the_charts(odds_client: TestClient) -> None:
    document = odds_client.get("/openapi.json").json()
    content = document["paths"][PATH]["post"]["responses"]["200"]["content"]
    assert content["image/svg+xml"] == {"schema": {"type": "string"}}
    assert content["image/png"] == {"schema": {"type": "string", "format": "binary"}}
    assert "application/json" in content


def test_grouped_bars_share_the_values_of_every_series() -> None:
    # A value one series lacks is a bar of 0; whole-number values are ordered as numbers.
    series = {"A": {"0": 0.5, "2": 0.5}, "B": {"10": 0.25, "1": 0.75}, "C": {}}
    svg = drawing.grouped_bar_chart(series, title="t", xlabel="x", kind=charts.SVG)
    texts = svg_text(svg)
    ticks = [text for text in texts if text.isdigit()]
    assert ticks[:4] == ["0", "1", "2", "10"]
    assert [text for text in texts if text in series] == ["A", "B", "C"]
    hashable = tuple((name, tuple(values.items())) for name, values in series.items())
    png = charts.grouped_bar_chart_bytes(hashable, "t", "x", charts.PNG)
    assert png.startswith(PNG_SIGNATURE)


def test_the_existing_bar_chart_is_unchanged() -> None:
    svg = drawing.bar_chart({"-1": 0.25, "1": 0.75}, title="T", xlabel="margin", kind=charts.SVG)
    texts = svg_text(svg)
    assert {"T", "margin", "probability", "-1", "1"} <= set(texts)


def test_the_service_process_never_loads_matplotlib(tmp_path: Path) -> None:
    """Charts are drawn in the odds worker: a process serving the app holds no matplotlib
    (nor numpy and Pillow with it), a hundred thousand objects its collector would walk."""
    script = (
        "import sys\n"
        "from fastapi.testclient import TestClient\n"
        "from app.main import create_app\n"
        "from app.settings import Settings\n"
        "with TestClient(create_app(Settings(database_url=sys.argv[1]))) as client:\n"
        "    assert client.post('/v1/gurps/quick-contest', json={'a': {'name': 'A', 'skill': 12},"
        " 'b': {'name': 'B', 'skill': 10}}).status_code == 200\n"
        "print(sorted(m for m in ('matplotlib', 'numpy', 'PIL') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, f"sqlite:///{tmp_path / 'no-charts.db'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"
