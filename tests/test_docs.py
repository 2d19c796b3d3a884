"""The rules reference and the API guide (docs/) hold every section the code and the README cite.

Citations are links to a heading: `docs/rules.md#quick-contest` in code, error messages and the
README, `rules.md#…` or `#…` between and within the docs pages. Each must name a heading of its
page, its anchor computed as GitHub computes it, or a reader following it lands nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.kinds.registry import KINDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ("rules.md", "api.md")
#: A link into a docs page from anywhere in the repository: `docs/rules.md#quick-contest`.
CITATION = re.compile(r"docs/(rules|api)\.md#([\w-]+)")
#: A markdown link target inside a docs page: `(rules.md#x)`, `(api.md#x)` or `(#x)`.
DOCS_LINK = re.compile(r"\]\(((?:rules|api)\.md)?#([\w-]+)\)")
FENCE = re.compile(r"^(```|~~~)")
#: Any markdown link's target: `[text](target)`.
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")

#: Each contest kind of the rules, and each GURPS roll, has a section of its own there.
RULES_SECTIONS = (
    "dice-and-checks",
    "gurps",
    "success-roll",
    "quick-contest",
    "resistance-roll",
    "regular-contest",
    "cairn-hill-roll",
    "arm-wrestling",
    "long-throws",
    "races",
    "chases",
    "skill-games",
    "dice-notation",
)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(page: Path) -> list[str]:
    """The page's headings, in order, leaving out lines inside fenced code."""
    found: list[str] = []
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.append(line.lstrip("#").strip())
    return found


def anchors(page: str | Path) -> set[str]:
    """Every anchor of a docs page (a name in docs/, or any Markdown file's path), a repeated
    heading's `-1`, `-2`… included."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for heading in headings(page if isinstance(page, Path) else DOCS / page):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def cited_files() -> Iterator[Path]:
    """The files whose citations readers follow: the code, the README, ARCHITECTURE.md, docs."""
    yield from sorted((ROOT / "app").rglob("*.py"))
    yield ROOT / "README.md"
    yield ROOT / "ARCHITECTURE.md"
    yield from sorted(DOCS.glob("*.md"))


def test_the_code_cites_only_what_is_in_the_repository() -> None:
    """Rules and API citations name the repository's own documents, never design references
    that are not in it."""
    gone = re.compile(r"\b(?:RULES|API)\.md\b")
    citing = [
        str(path.relative_to(ROOT))
        for folder in ("app", "tests", "bench", "scripts", "clients/python", "migrations")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != Path(__file__) and gone.search(path.read_text(encoding="utf-8"))
    ]
    assert citing == []


def test_slug_matches_githubs() -> None:
    assert slug("Who may throw: loads") == "who-may-throw-loads"
    assert slug("Arbiter's rules") == "arbiters-rules"
    assert slug("DC checks: climbing and swimming") == "dc-checks-climbing-and-swimming"
    assert slug("Versions and If-Match") == "versions-and-if-match"
    assert slug("See [the guide](api.md)") == "see-the-guide"


@pytest.mark.parametrize("page", PAGES)
def test_every_heading_has_its_own_anchor(page: str) -> None:
    """A heading that repeats another would get a numbered anchor that moves when either does."""
    slugs = [slug(heading) for heading in headings(DOCS / page)]
    assert len(slugs) > 10
    assert sorted(slug_ for slug_ in set(slugs) if slugs.count(slug_) > 1) == []


def test_every_citation_of_a_docs_page_names_one_of_its_headings() -> None:
    known = {page: anchors(page) for page in PAGES}
    broken: list[str] = []
    for path in cited_files():
        text = path.read_text(encoding="utf-8")
        for match in CITATION.finditer(text):
            page, anchor = f"{match[1]}.md", match[2]
            if anchor not in known[page]:
                broken.append(f"{path.relative_to(ROOT)}: docs/{page}#{anchor}")
    assert broken == []


@pytest.mark.parametrize("page", PAGES)
def test_every_link_within_the_docs_names_a_heading(page: str) -> None:
    links = DOCS_LINK.findall((DOCS / page).read_text(encoding="utf-8"))
    assert links
    broken = [
        f"{target or page}#{anchor}"
        for target, anchor in links
        if anchor not in anchors(target or page)
    ]
    assert broken == []


def prose(path: Path) -> str:
    """The file's text without its fenced code (where `](…)` is code, not a link)."""
    kept: list[str] = []
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def test_every_relative_link_of_the_markdown_pages_resolves() -> None:
    """README.md, ARCHITECTURE.md and docs/*.md: a relative link names a file of the
    repository, and an anchor into a Markdown file one of its headings."""
    broken: list[str] = []
    pages = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted(DOCS.glob("*.md"))]
    for page in pages:
        for target in MARKDOWN_LINK.findall(prose(page)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            lands = linked.is_file() and (
                not anchor or linked.suffix != ".md" or anchor in anchors(linked)
            )
            if not lands:
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_rules_have_a_section_per_contest_and_per_gurps_roll() -> None:
    missing = [section for section in RULES_SECTIONS if section not in anchors("rules.md")]
    assert missing == []


def test_api_guide_has_a_section_per_session_kind() -> None:
    """Kinds are served at `/v1/{path}`; the guide's section of each is named after its path."""
    assert set(KINDS) <= anchors("api.md")


def test_every_ruling_is_marked_and_cites_its_source() -> None:
    """Each contest section names its source book; each ruling stands on a line of its own."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    by_title = {section.splitlines()[0]: section for section in sections}
    for title in ("GURPS", "Cairn Hill roll", "Arm wrestling", "Long throws", "Races", "Chases"):
        assert "Source:" in by_title[title], title
    assert "Source:" in by_title["Skill games"]
    rulings = re.findall(r"^\*\*Ruling:\*\* \S", text, flags=re.MULTILINE)
    assert len(rulings) >= 60
