"""What a plain ``vlint FILE`` imports: none of the heavy or network modules (start-up speed, and no
way out to the network). Run in a fresh interpreter so that other tests' imports do not count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: never on the default path: click (a plain lint is read without it: vlint.commands.plain_args),
#: dataclasses and inspect (vlint.core.record has its own field/replace), difflib (only for a
#: did-you-mean), tokenize (only for Python files),
#: validation (jsonschema: only custom rules and `vlint schema`), the hub, importlib.metadata
#: (+ email), hashing (only SARIF/GitLab/baselines), the other commands, process and network
#: modules (multiprocessing only for a parallel run), threading (the decoder's per-thread state is
#: _thread's own local), copy (only an engine without fixes, for vlint fix) and typing (its names come from
#: vlint.core.typing_names: annotations are never evaluated)
NOT_IMPORTED = (
    "click",
    "dataclasses",
    "inspect",
    "difflib",
    "tokenize",
    "vlint.commands.group",
    "vlint.commands.check",
    "vlint.commands.options",
    "jsonschema",
    "huggingface_hub",
    "vlint.resolve.hub",
    "importlib.metadata",
    "email",
    "hashlib",
    "multiprocessing",
    "threading",
    "copy",
    "typing",
    "subprocess",
    "socket",
    "ssl",
    "http.client",
    "urllib.request",
    "vlint.commands.explain",
    "vlint.commands.fix",
    "vlint.commands.size",
    "vlint.commands.schema",
    "vlint.commands.rules",
    "vlint.report.sarif",
)

PROBE = """
import io, json, sys, contextlib
sys.argv = ["vlint", "--isolated", *sys.argv[1:]]
from vlint.cli import invoke
with contextlib.redirect_stdout(io.StringIO()):
    code = invoke(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


@pytest.mark.parametrize("target", ["examples/serve.yaml", "examples/start.sh", "examples"])
def test_the_default_path_imports_nothing_heavy(target: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), VLINT_NO_CACHE="1")
    env.pop("GITHUB_ACTIONS", None)
    r = subprocess.run(
        [sys.executable, "-c", PROBE, target], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    doc = json.loads(r.stdout.strip().splitlines()[-1])
    assert doc["code"] in (0, 1)
    loaded = set(doc["modules"])
    assert "vlint.run.lint" in loaded and "vlint.commands.lint_run" in loaded
    assert sorted(m for m in NOT_IMPORTED if m in loaded) == []
