"""``vlint upgrade``: the command, its JSON (validated against schemas/upgrade.schema.json), the property that
it lists every flag ``vlint check --vllm-version TO`` rejects and carries ``vlint explain``'s memory numbers
for both releases, the launches whose release is not stated, and ``--fix`` / ``--diff``."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from userrepo import Repo

from vlint.argspec.spec import bundled_versions

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "upgrade.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

#: launches with flags that come and go across the bundled releases (removed, renamed, added, choices),
#: an environment variable that was removed, and one that vLLM rejects everywhere
LAUNCHES = """\
#!/bin/sh
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --swap-space 4 --num-scheduler-steps 8 \\
  --disable-log-requests --prefix-caching-hash-algo builtin
export VLLM_USE_V1=1
vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 16384 --guided-decoding-backend xgrammar \\
  --kv-offloading-size 8 --disable-mm-preprocessor-cache --no-such-flag
vllm serve mistralai/Mistral-7B-Instruct-v0.3 --max-model-len 8192 --preemption-mode swap --cuda-graph-sizes 64 \\
  --structured-outputs-config '{"backend": "xgrammar"}' --kv-cache-dtype fp8
"""
#: what "a flag the target rejects" is: vLLM's parser refusing an option or a value, a removed variable
REJECT_CODES = {"VL001", "VL002", "VL003", "VL004", "VL006", "VL014"}
NAMED_PAIRS = [("0.6.6.post1", "0.33.0"), ("0.8.5", "0.10.2"), ("0.10.1.1", "0.13.0"), ("0.33.0", "0.9.2")]


def _pairs() -> list[tuple[str, str]]:
    """The named pairs and four more drawn (seeded) from every ordered pair of bundled releases."""
    names = [str(v) for v in bundled_versions()]
    rng = random.Random(26)
    drawn = [tuple(rng.sample(names, 2)) for _ in range(4)]
    return NAMED_PAIRS + [(a, b) for a, b in drawn]


PAIRS = _pairs()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    r = Repo(tmp_path_factory.mktemp("upgrade") / "repo")
    r.write("start.sh", LAUNCHES)
    return r


@cache
def _run_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    from userrepo import invoke

    res = invoke(root, list(args))
    assert res.code in (0, 1, 2), res.err
    return res.code, json.loads(res.out)


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_upgrade_lists_every_flag_check_rejects(repo: Repo, src: str, dst: str) -> None:
    """The done-when property: for a sample of release pairs (upgrades and downgrades) and these launches,
    every flag ``vlint check --vllm-version TO`` rejects is a change of ``vlint upgrade --from FROM --to TO``
    at the same place, and the JSON is valid."""
    _, checked = _run_json(repo.root, "check", "start.sh", "--vllm-version", dst, "--gpu", "H100", "--format", "json")
    _, up = _run_json(repo.root, "upgrade", "start.sh", "--from", src, "--to", dst, "--gpu", "H100", "--format", "json")
    VALIDATOR.validate(up)
    rejected = {
        (f["code"], f["path"], f["line"], f["column"]) for f in checked["findings"] if f["code"] in REJECT_CODES
    }
    assert rejected, f"the sample launches should have flags {dst} rejects"
    listed = {(c["code"], c["file"], c["line"], c["column"]) for d in up["launches"] for c in d["changes"]}
    assert rejected <= listed, sorted(rejected - listed)
    assert all(d["from"] == src and d["to"] == dst for d in up["launches"])


@pytest.mark.parametrize(("src", "dst"), PAIRS[:3], ids=[f"{a}-{b}" for a, b in PAIRS[:3]])
def test_memory_is_explains_for_both_releases(repo: Repo, src: str, dst: str) -> None:
    _, up = _run_json(repo.root, "upgrade", "start.sh", "--from", src, "--to", dst, "--gpu", "H100", "--format", "json")
    for side, release in (("before", src), ("after", dst)):
        _, ex = _run_json(
            repo.root, "explain", "start.sh", "--vllm-version", release, "--gpu", "H100", "--format", "json"
        )
        assert [d["memory"] for d in ex["deployments"]] == [d["memory"][side] for d in up["launches"]]
        assert all(d["memory"][side] is not None for d in up["launches"])


# -- the command ----------------------------------------------------------------------------------
def test_text_output_groups_and_cites_releases(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("compose.yaml", COMPOSE)
    res = r.vlint("upgrade", "compose.yaml", "--to", "latest", "--gpu", "H100", "--no-color")
    newest = str(bundled_versions()[-1])
    assert res.code == 1, res.err  # --swap-space breaks it
    out = res.out
    assert f"vLLM 0.8.5 (image tag vllm/vllm-openai:v0.8.5) → {newest} (--to latest)" in out
    for title in ("breaks:", "behaviour:", "memory per GPU"):
        assert title in out
    assert "--swap-space" in out and "removed in vLLM 0.18.0" in out
    assert "gpu_memory_utilization" in out and "0.20.0: default 0.92 since 0.20.0" in out
    assert f"vLLM 0.8.5{' ' * 10}" in out and f"vLLM {newest}" in out  # the two bars' titles, side by side
    assert "verdict with the memory model's uncertainty: starts (margin +" in out
    assert out.rstrip().endswith("1 vLLM launch to vLLM " + newest + ": 1 compared, 1 with breaks.")


COMPOSE = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.8.5
    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384",
              "--swap-space", "8", "--disable-mm-preprocessor-cache"]
"""


def test_unstated_release_says_so_and_names_the_flag(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("start.sh", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --swap-space 4\n")
    res = r.vlint("upgrade", "start.sh", "--to", "0.33.0", "--format", "json")
    assert res.code == 2
    doc = res.json
    VALIDATOR.validate(doc)
    (d,) = doc["launches"]
    assert d["from"] is None and "--from X.Y.Z" in d["unresolved"] and d["changes"] == []
    text = r.vlint("upgrade", "start.sh", "--to", "0.33.0")
    assert "not compared: the vLLM release of this launch is not stated" in text.out and "--from" in text.out
    given = r.vlint("upgrade", "start.sh", "--to", "0.33.0", "--from", "0.17.1", "--format", "json")
    assert given.code == 1 and any(c["setting"] == "--swap-space" for c in given.json["launches"][0]["changes"])


def test_release_options(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("start.sh", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n")
    assert r.vlint("upgrade", "start.sh", "--to", "nope").code == 2
    outside = r.vlint("upgrade", "start.sh", "--to", "9.9.0")
    assert outside.code == 2 and "outside the releases vlint knows" in outside.err
    both = r.vlint("upgrade", "start.sh", "--to", "0.33.0", "--from", "0.10.2", "--vllm-version", "0.11.2")
    assert both.code == 2
    same = r.vlint("upgrade", "start.sh", "--to", "0.33.0", "--vllm-version", "0.10.2", "--format", "json")
    assert same.json["launches"][0]["from"] == "0.10.2"


def test_no_gpu_compares_the_reference_gpus(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("start.sh", "pip install vllm==0.8.5\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n")
    doc = r.vlint("upgrade", "start.sh", "--to", "0.33.0", "--format", "json").json
    VALIDATOR.validate(doc)
    (d,) = doc["launches"]
    assert d["memory"] == {"before": None, "after": None}
    assert d["gpu_fit"]["before"] and d["gpu_fit"]["after"]
    assert any(c["setting"].startswith("gpu_fit:") for c in d["changes"])


# -- --fix and --diff ------------------------------------------------------------------------------
def test_fix_migrates_and_relints_clean_on_the_target(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("compose.yaml", COMPOSE)
    r.write("app/requirements.txt", "torch\nvllm==0.10.2\n")
    r.write("app/serve.sh", "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --swap-space 4\n")
    dry = r.vlint("upgrade", ".", "--to", "0.33.0", "--gpu", "H100", "--diff")
    assert dry.code == 1, dry.err
    assert "-    image: vllm/vllm-openai:v0.8.5\n+    image: vllm/vllm-openai:v0.33.0" in dry.out
    assert "-vllm==0.10.2\n+vllm==0.33.0" in dry.out
    assert '-              "--swap-space", "8", "--disable-mm-preprocessor-cache"]' in dry.out
    assert '+              "--mm-processor-cache-gb", "0"]' in dry.out
    assert (r.root / "compose.yaml").read_text() == COMPOSE  # --diff writes nothing
    done = r.vlint("upgrade", ".", "--to", "0.33.0", "--gpu", "H100", "--fix")
    assert done.code == 0, done.err
    fixed = (r.root / "compose.yaml").read_text()
    assert "v0.33.0" in fixed and "--swap-space" not in fixed and '"--mm-processor-cache-gb", "0"' in fixed
    assert (r.root / "app/requirements.txt").read_text() == "torch\nvllm==0.33.0\n"
    assert "--swap-space" not in (r.root / "app/serve.sh").read_text()
    # the files now state the target themselves: a plain lint checks them against it, and no migrated
    # finding is left
    again = r.lint_json(".", "--gpu", "H100")
    versions = {v for f in again.json["files"] for v in f["vllm_versions"]}
    assert versions == {"0.33.0"}
    assert not [f for f in again.json["findings"] if f["code"] == "VL002"], again.json["findings"]
    up = r.vlint("upgrade", ".", "--to", "0.33.0", "--gpu", "H100", "--format", "json").json
    assert not [c for d in up["launches"] for c in d["changes"] if c["fixable"]]


def test_fix_leaves_what_it_cannot_name_plainly(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    text = COMPOSE.replace("v0.8.5", "v0.8.5-cu124")
    r.write("compose.yaml", text)
    res = r.vlint("upgrade", "compose.yaml", "--to", "0.33.0", "--fix")
    assert "release not rewritten" in res.err and "does not name 0.8.5 plainly" in res.err
    after = (r.root / "compose.yaml").read_text()
    assert "v0.8.5-cu124" in after and "--swap-space" not in after  # the flags are migrated all the same


def _blocks(text: str) -> list[str]:
    """The fenced blocks of a Markdown text, in order."""
    import re

    return [m.group(1) for m in re.finditer(r"```\w*\n(.*?)```", text, re.S)]


def test_the_worked_example_is_real_output(tmp_path: Path) -> None:
    """docs/upgrade.md pastes `vlint upgrade` and `--diff` on its compose file: they are what the command prints."""
    doc = (ROOT / "docs" / "upgrade.md").read_text()
    blocks = _blocks(doc)
    compose = next(b for b in blocks if b.startswith("services:"))
    r = Repo(tmp_path / "r")
    r.write("deploy/compose.yaml", compose)
    for cmd in (["--to", "0.33.0", "--gpu", "H100"], ["--to", "0.33.0", "--gpu", "H100", "--diff"]):
        shown = f"$ vlint upgrade deploy/compose.yaml {' '.join(cmd)}\n"
        (pasted,) = [b for b in blocks if b.startswith(shown)]
        res = r.vlint("upgrade", "deploy/compose.yaml", *cmd, "--no-color")
        assert pasted[len(shown) :] == res.out + res.err, f"docs/upgrade.md is stale for {shown}"
