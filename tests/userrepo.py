"""A scratch repository to run vlint in as a user would: ``git init``, files, config files, then the
``vlint`` command from the repository's folder or a subfolder (this checkout's code).

``Repo.vlint`` runs the command in this process (click's ``CliRunner``: the same ``main``, arguments,
working folder, environment and standard input a child would get; an exception that escapes is exit 1
with its traceback on stderr, as the interpreter does). ``process=True`` starts the real child process,
for the tests whose subject is the process itself (a terminal, signals, the interpreter's exit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)

    def codes(self) -> list[str]:
        return sorted(f["code"] for f in self.json["findings"])


def vlint_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VLINT_", "GITHUB_", "FORCE_COLOR", "NO_COLOR"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)

    def write(self, rel: str, text: str) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        return p

    def vlint(
        self,
        *args: str,
        cwd: str = "",
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        timeout: int = 300,
        process: bool = False,
    ) -> Result:
        if process:
            res = subprocess.run(
                [sys.executable, "-m", "vlint", *args],
                cwd=self.root / cwd,
                input=stdin,
                capture_output=True,
                text=True,
                env=vlint_env(env),
                timeout=timeout,
            )
            return Result(res.returncode, res.stdout, res.stderr)
        return invoke(self.root / cwd, list(args), stdin=stdin, env=env)

    def lint_json(self, *args: str, cwd: str = "") -> Result:
        return self.vlint("--format", "json", *args, cwd=cwd)


def invoke(cwd: Path, args: list[str], *, stdin: str | None = None, env: dict[str, str] | None = None) -> Result:
    """``vlint ARGS`` from ``cwd`` in this process, with the environment :func:`vlint_env` gives a child."""
    from click.testing import CliRunner

    from vlint.cli import main

    want = vlint_env(env)
    want.pop("PYTHONPATH", None)
    if "PYTHONPATH" in os.environ:
        want["PYTHONPATH"] = os.environ["PYTHONPATH"]
    changes: dict[str, str | None] = {k: None for k in os.environ if k not in want}
    changes.update({k: v for k, v in want.items() if os.environ.get(k) != v})
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        runner = CliRunner()  # click >= 8.2 keeps stderr apart by itself
    old = os.getcwd()
    os.chdir(cwd)
    try:
        r = runner.invoke(main, args, input=stdin, env=changes, prog_name="vlint")
    finally:
        os.chdir(old)
    err = r.stderr
    code = r.exit_code
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        # what the interpreter does with an exception nothing caught: its traceback, exit status 1
        err += "".join(traceback.format_exception(r.exception))
        code = 1
    return Result(code, r.stdout, err)
