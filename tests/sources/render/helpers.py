"""What the rendering tests share: writing a fixture tree, linting it, naming a finding's place."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.core.finding import Finding
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths
from vlint.security.lint_root import LintRoot


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def lint(root: Path, *names: str, render: bool = True) -> list[Finding]:
    engine = Engine(load_catalog())
    opts = LintOptions(root=root, lint_root=LintRoot(root.resolve()), render=render)
    report = lint_paths([root / n for n in names], engine, opts)
    assert all(fr.error is None for fr in report.files), [fr.error for fr in report.files]
    return report.findings


def lint_notes(root: Path, *names: str, render: bool = True) -> tuple[list[Finding], list[str]]:
    """The findings and the run notes (``path: note``) of linting ``names``."""
    engine = Engine(load_catalog())
    opts = LintOptions(root=root, lint_root=LintRoot(root.resolve()), render=render)
    report = lint_paths([root / n for n in names], engine, opts)
    return report.findings, [f"{fr.path}: {n}" for fr in report.files for n in fr.notes]


def where(f: Finding) -> str:
    return f"{f.code} {f.span.path}:{f.span.line}:{f.span.column}"
