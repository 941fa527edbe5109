"""The import contract: vlint's packages form the layers of docs/architecture.md, and no module imports
itself round a circle (issue 25).

Every import is read with ``ast`` — at module level, inside functions, under ``TYPE_CHECKING`` — plus
the modules named as strings to ``importlib.import_module`` and the source registry's ``_lazy`` (a
lazy import is still a dependency). The layers are read from the table in docs/architecture.md, so
the document is the contract: a package may import its own modules and the packages of the layers
below it, never above. ``bench/`` and ``tools/`` (scripts over vlint) must have no circles either.
The checker is tested on a planted bad import and a planted circle, so this test can fail.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: ``| 3 | `vlint.config` | … |``: the layer number and the package of each row of the layer table
_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`(vlint(?:\.\w+)*)`")


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}"


def module_names(root: Path, top: str) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` below ``root/top``."""
    out = {}
    for p in sorted((root / top).rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        parts = list(p.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """The module ``name`` refers to: itself, or the longest known prefix (``vlint.core.span.Span``)."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def _named(node: ast.AST) -> Iterable[str]:
    """Module names given as strings: ``import_module("x")``, ``_lazy("x")``, ``import_module(f"x.{m}")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return
    fn = node.func
    name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
    if name not in ("import_module", "_lazy"):
        return
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        yield arg.value
    elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        yield str(arg.values[0].value).rstrip(".")


def imports(path: Path, name: str, modules: Mapping[str, Path], siblings: str | None = None) -> list[Edge]:
    """Every project module ``path`` imports. ``siblings``: a scripts folder (bench, tools) whose files
    import each other by bare name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[Edge] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join([*base, *([node.module] if node.module else [])])
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" for a in node.names] or [mod]
        else:
            targets = list(_named(node))
        for t in targets:
            candidates = [t] + ([f"{siblings}.{t}"] if siblings else [])
            for c in candidates:
                hit = _resolve(c, modules)
                if hit is not None and hit != name and not name.startswith(hit + "."):
                    out.append(Edge(name, hit, getattr(node, "lineno", 0)))
                    break
    return out


def graph(root: Path = ROOT) -> dict[str, list[Edge]]:
    modules = {**module_names(root, "vlint"), **module_names(root, "bench"), **module_names(root, "tools")}
    out = {}
    for name, path in modules.items():
        top = name.split(".")[0]
        out[name] = imports(path, name, modules, siblings=top if top in ("bench", "tools") else None)
    return out


def circles(g: Mapping[str, list[Edge]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in g:
        if start in index:
            continue
        work = [(start, iter(sorted({e.target for e in g.get(start, ())})))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted({e.target for e in g.get(w, ())}))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def layers(text: str) -> dict[str, int]:
    """Package → layer number, from the table of docs/architecture.md."""
    return {m.group(2): int(m.group(1)) for line in text.splitlines() if (m := _ROW.match(line))}


def layer_of(module: str, table: Mapping[str, int]) -> tuple[str, int] | None:
    """The table's package that holds ``module`` (the longest match) and its layer."""
    best = max(
        (p for p in table if module == p or (p != "vlint" and module.startswith(p + "."))), key=len, default=None
    )
    return (best, table[best]) if best is not None else None


def violations(g: Mapping[str, list[Edge]], table: Mapping[str, int]) -> list[str]:
    """Imports that point up the layers (or into a package the table does not list)."""
    bad = []
    for source, edges in g.items():
        if not source.startswith("vlint"):
            continue
        mine = layer_of(source, table)
        if mine is None:
            bad.append(f"{source} is in no layer of docs/architecture.md")
            continue
        for e in edges:
            theirs = layer_of(e.target, table)
            if theirs is None:
                bad.append(f"{e}: {e.target} is in no layer")
            elif theirs[0] != mine[0] and theirs[1] >= mine[1]:
                bad.append(f"{e}: layer {mine[1]} ({mine[0]}) may not import layer {theirs[1]} ({theirs[0]})")
    return bad


# -- the contract -----------------------------------------------------------------------------------
def test_no_module_imports_itself_round_a_circle() -> None:
    assert circles(graph()) == []


def test_every_import_points_down_the_layers_of_the_architecture_page() -> None:
    table = layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(table) >= 10, "docs/architecture.md has no layer table"
    assert violations(graph(), table) == []


def test_the_top_level_holds_only_the_face_and_packages() -> None:
    loose = sorted(p.name for p in (ROOT / "vlint").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py"]
    for pkg in (ROOT / "vlint").iterdir():
        if pkg.is_dir() and (pkg / "__init__.py").exists():
            doc = ast.get_docstring(ast.parse((pkg / "__init__.py").read_text(encoding="utf-8")))
            assert doc and "import" in doc.lower(), f"{pkg.name}/__init__.py must say what it owns and may import"


# -- the checker can fail -----------------------------------------------------------------------------
def test_a_planted_upward_import_and_a_planted_circle_are_caught() -> None:
    g = graph()
    table = layers(ARCHITECTURE.read_text(encoding="utf-8"))
    planted = {k: list(v) for k, v in g.items()}
    planted["vlint.core.span"] = [*planted["vlint.core.span"], Edge("vlint.core.span", "vlint.run.lint", 1)]
    assert any("vlint.core.span:1 imports vlint.run.lint" in v for v in violations(planted, table))
    planted["vlint.run.lint"] = [*planted["vlint.run.lint"], Edge("vlint.run.lint", "vlint.core.span", 2)]
    assert any({"vlint.core.span", "vlint.run.lint"} <= set(c) for c in circles(planted))


def test_lazy_and_string_imports_are_seen(tmp_path: Path) -> None:
    for folder in ("vlint/a", "vlint/b", "bench", "tools"):
        (tmp_path / folder).mkdir(parents=True)
    for init in ("vlint/__init__.py", "vlint/a/__init__.py", "vlint/b/__init__.py"):
        (tmp_path / init).write_text("")
    (tmp_path / "vlint/a/low.py").write_text(
        "import importlib\n"
        "def f():\n    from vlint.a import high\n"
        "def g(m):\n    importlib.import_module(f'vlint.b.{m}')\n"
    )
    (tmp_path / "vlint/a/high.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import vlint.a.low\n"
    )
    (tmp_path / "bench/one.py").write_text("import two\n")
    (tmp_path / "bench/two.py").write_text("from one import x\n")
    g = graph(tmp_path)
    assert {e.target for e in g["vlint.a.low"]} == {"vlint.a.high", "vlint.b"}
    assert [e.target for e in g["vlint.a.high"]] == ["vlint.a.low"]
    assert sorted(circles(g)) == [["bench.one", "bench.two"], ["vlint.a.high", "vlint.a.low"]]
