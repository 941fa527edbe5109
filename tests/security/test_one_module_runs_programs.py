"""vlint starts other programs (kubectl, kustomize, helm, git) from one module only,
vlint/sources/render/tools.py, which confines every run the same way (docs/security.md): no other module may
import ``subprocess`` or call ``os.system``, ``os.popen``, ``os.exec*``, ``os.spawn*``, ``os.fork*`` or
``pty.spawn``. The checker is tested on a planted call, so this test can fail."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWNER = "vlint/sources/render/tools.py"
_OS_CALLS = ("system", "popen", "posix_spawn", "posix_spawnp", "forkpty", "fork")
_MAYBE = re.compile(
    r"subprocess|\bpty\b|\bos\s*\.\s*(?:system|popen|posix_spawn|fork|exec|spawn)|\bfrom\s+os\s+import\b"
)


def starts_programs(source: str) -> list[str]:
    """What in ``source`` starts (or may start) another program: imports of subprocess/pty, os calls."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [
                a.name
                for a in node.names
                if a.name.split(".")[0] in ("subprocess", "pty", "multiprocessing.popen_spawn_posix")
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("subprocess", "pty"):
            out.append(node.module or "")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            out += [f"os.{a.name}" for a in node.names if a.name in _OS_CALLS or a.name.startswith(("exec", "spawn"))]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and (node.attr in _OS_CALLS or node.attr.startswith(("exec", "spawn")))
        ):
            out.append(f"os.{node.attr}")
    return out


def test_only_the_tools_module_starts_programs() -> None:
    found = {}
    for p in sorted((ROOT / "vlint").rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        text = p.read_text(encoding="utf-8")
        if not _MAYBE.search(text):  # parsed only where a name that starts programs appears at all
            continue
        hits = starts_programs(text)
        if hits and rel != OWNER:
            found[rel] = hits
    assert not found, f"only {OWNER} may start programs: {found}"
    assert starts_programs((ROOT / OWNER).read_text(encoding="utf-8")), "the owner module runs programs"


def test_the_checker_finds_a_planted_call() -> None:
    assert starts_programs("import subprocess\n") == ["subprocess"]
    assert starts_programs("import os\nos.system('ls')\n") == ["os.system"]
    assert starts_programs("import os\nos.execv('/bin/ls', [])\n") == ["os.execv"]
    assert starts_programs("from subprocess import run\n") == ["subprocess"]
    assert starts_programs("from os import execvp\n") == ["os.execvp"]
    assert starts_programs("import os\nos.path.join('a')\n") == []
