"""The shape of `app/` as its imports draw it (ARCHITECTURE.md): no import circle anywhere, and
no module of a lower floor importing a higher one (rules ← numeric ← store ← api ← main).

Every import counts, those inside functions too (a lazy import is still a dependency), except
those under `if TYPE_CHECKING:`. `from package import name` counts as importing the module
`package.name` when there is one, else the package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The floors, lowest first. A module is on the floor of the first prefix it starts with.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rules", ("app.rules",)),
    ("numeric", ("app.numeric", "app.notation")),
    ("store", ("app.store", "app.settings")),
    (
        "api",
        (
            "app.api",
            "app.errors",
            "app.observability",
            "app.middleware",
            "app.cors",
            "app.serving",
        ),
    ),
    ("main", ("app.main", "app")),
)


def modules(root: Path = ROOT) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((root / "app").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under `if TYPE_CHECKING:`."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            skipped.update(id(inner) for body in node.body for inner in ast.walk(body))
    return skipped


def imports_of(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of `app` that `name` imports."""
    names = set(known)
    tree = ast.parse(path.read_text())
    skipped = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in names else base)
    return {module for module in found if module in names and module != name}


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively),
    and the modules that import themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(edges[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def floor(module: str) -> int:
    for level, (_name, prefixes) in enumerate(FLOORS):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return level
    raise AssertionError(f"{module} is on no floor: add it to FLOORS")


def test_no_import_circle_in_app() -> None:
    assert circles(graph()) == []


def test_no_floor_imports_a_higher_one() -> None:
    upward = [
        (module, imported)
        for module, imported_set in graph().items()
        for imported in imported_set
        if floor(imported) > floor(module)
    ]
    assert upward == []


def test_the_walk_finds_circles_and_lazy_imports(tmp_path: Path) -> None:
    """The check itself: a circle closed by an import inside a function is found, one under
    `if TYPE_CHECKING:` is not."""
    package = tmp_path / "app"
    (package / "api").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "api" / "__init__.py").write_text("")
    (package / "api" / "a.py").write_text("from app.api import b\n")
    (package / "api" / "b.py").write_text("def f():\n    from app.api.c import x\n")
    (package / "api" / "c.py").write_text("from . import a\n")
    (package / "api" / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.api import a\n"
    )
    (package / "api" / "e.py").write_text("import app.api.d\n")
    edges = graph(tmp_path)
    assert circles(edges) == [["app.api.a", "app.api.b", "app.api.c"]]
    assert edges["app.api.d"] == set()
    assert edges["app.api.e"] == {"app.api.d"}
