"""Run vlint as CI would, in every output format, and look for a secret in everything it printed."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from click.testing import CliRunner, Result

from vlint.cli import main

FORMATS = ("text", "json", "sarif", "github", "gitlab")


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def invoke_in(repo: Path, *args: str) -> Result:
    """``vlint ARGS`` run from ``repo`` (as CI runs it from the checkout), in process."""
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(cwd)


def outputs(repo: Path, args: Iterable[str] = (), *, fix: bool = True) -> dict[str, str]:
    """Everything vlint writes for ``args`` (run from ``repo``): each format on stdout, ``-o`` files,
    the baseline file and ``vlint fix --diff``."""
    args = list(args) or ["."]
    runner = CliRunner()
    out: dict[str, str] = {}
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        for fmt in FORMATS:
            r = runner.invoke(main, ["check", "--isolated", "--format", fmt, *args])
            assert r.exception is None or isinstance(r.exception, SystemExit), r.output
            out[fmt] = r.output
            report = repo.parent / f"report.{fmt}"
            runner.invoke(main, ["check", "--isolated", "--format", fmt, "-o", str(report), *args])
            out[f"{fmt} -o"] = report.read_text(encoding="utf-8") if report.exists() else ""
        base = repo.parent / "baseline.json"
        runner.invoke(main, ["check", "--isolated", "--write-baseline", str(base), *args])
        out["baseline"] = base.read_text(encoding="utf-8") if base.exists() else ""
        if fix:
            r = runner.invoke(main, ["fix", "--isolated", "--diff", "--unsafe-fixes", *args])
            out["fix --diff"] = r.output
    finally:
        os.chdir(cwd)
    return out


def leaked(outputs: dict[str, str], secret: str, shown: int = 4) -> list[str]:
    """The outputs in which more of ``secret`` than its first ``shown`` characters can be read: any
    run of 6 characters of the secret's unshown part (JSON-escaped or not)."""
    hidden = secret[shown:]
    pieces = {hidden[i : i + 6] for i in range(max(1, len(hidden) - 5))} if len(hidden) >= 6 else {hidden}
    bad = []
    for name, text in outputs.items():
        variants = (text, json.dumps(text))
        if any(p and p in v for p in pieces for v in variants):
            bad.append(name)
    return bad
