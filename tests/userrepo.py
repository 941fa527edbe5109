"""A scratch repository to run vlint in as a user would: ``git init``, files, config files, then the
``vlint`` command in a child process (this checkout's code, from the repository's folder or a
subfolder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
        self, *args: str, cwd: str = "", stdin: str | None = None, env: dict[str, str] | None = None, timeout: int = 300
    ) -> Result:
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

    def lint_json(self, *args: str, cwd: str = "") -> Result:
        return self.vlint("--format", "json", *args, cwd=cwd)
