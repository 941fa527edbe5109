"""Suppressions as a user writes them (issue 17, item 7), in a scratch git repository: code prefixes
and names, blanket `# vlint: disable` (VL901 when unused, VL902 when a config forbids blanket
suppressions), VL903 for suppressions without a reason, and `--add-suppressions`."""

from __future__ import annotations

from pathlib import Path

import pytest
from userrepo import Repo

GPU = 'gpu = "H100"\n'
SCRIPT = "vllm serve Qwen/Qwen2.5-7B-Instruct \\\n  --gpu-memory-utilization 0.97 \\\n  --no-enable-chunked-prefill\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "app")


def codes_at(res_json: dict) -> list[str]:
    return sorted(f"{f['code']} {f['line']}" for f in res_json["findings"])


def test_prefixes_and_names_in_disable(repo: Repo) -> None:
    repo.write("a.sh", "# vlint: disable=VL2 -- sized by hand\n" + SCRIPT)  # VL201, VL203 and VL230
    repo.write("b.sh", "# vlint: disable=chunked-prefill-disabled,VL2 -- benchmark\n" + SCRIPT)
    repo.write("c.sh", "# vlint: disable=VL7 -- no such rules\n" + SCRIPT)
    doc = repo.lint_json(".").json
    by_file: dict[str, list[str]] = {}
    for f in doc["findings"]:
        by_file.setdefault(f["path"], []).append(f["code"])
    assert sorted(by_file["a.sh"]) == ["VL101"], "VL2 hides VL201, VL203 and VL230"
    assert "b.sh" not in by_file, "a name and a prefix together"
    assert "VL901" in by_file["c.sh"]
    (vl901,) = [f for f in doc["findings"] if f["path"] == "c.sh" and f["code"] == "VL901"]
    assert "'VL7', which is no vlint rule" in vl901["message"]
    # a prefix that hid nothing is unused
    repo.write("d.sh", "# vlint: disable=VL6 -- nothing here\n" + SCRIPT)
    (unused,) = [f for f in repo.lint_json("d.sh").json["findings"] if f["code"] == "VL901"]
    assert "unused suppression: VL6 reports nothing here" in unused["message"]


def test_blanket_suppression(repo: Repo) -> None:
    repo.write(".vlint.toml", GPU)  # a GPU named: b.sh reports nothing (no VL230 reference-GPU info)
    repo.write("a.sh", "# vlint: disable -- benchmark\n" + SCRIPT)
    repo.write("b.sh", "# vlint: disable\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    repo.write("c.yaml", "model: Qwen/Qwen2.5-7B-Instruct\ngpu-memory-utilization: 0.97  # vlint: disable-file\n")
    doc = repo.lint_json(".").json
    assert codes_at(doc) == ["VL901 1"], "a.sh and c.yaml are silent; b.sh's blanket hid nothing"
    (f,) = doc["findings"]
    assert f["path"] == "b.sh" and "unused blanket suppression" in f["message"]
    # a repository that does not allow blanket suppressions turns VL902 on
    repo.write(".vlint.toml", GPU + 'extend-select = ["blanket-suppression", "VL903"]\n')
    doc = repo.lint_json(".").json
    got = sorted((f["path"], f["code"], f["line"]) for f in doc["findings"])
    assert ("a.sh", "VL902", 1) in got and ("c.yaml", "VL902", 2) in got and ("b.sh", "VL902", 1) in got
    assert ("b.sh", "VL903", 1) in got and ("c.yaml", "VL903", 2) in got, "no reason given"
    assert ("a.sh", "VL903", 1) not in got, "a.sh says why"
    # the blanket still hides what it covers: only the policy findings remain for a.sh
    assert {c for p, c, _ in got if p == "a.sh"} == {"VL902"}
    assert "blanket-suppression" in repo.vlint("rules").out and "(off by default)" in repo.vlint("rules").out
    # off by default: a prefix or ALL does not turn them on
    repo.write(".vlint.toml", GPU + 'select = ["ALL"]\n')
    assert not {f["code"] for f in repo.lint_json(".").json["findings"]} & {"VL902", "VL903"}


MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {name: chat}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.2
          args:
            - Qwen/Qwen2.5-7B-Instruct
            - --gpu-memory-utilization=0.97
        - name: sidecar
          image: vllm/vllm-openai:v0.10.2
          command: ["sh", "-c"]
          args:
            - |
              vllm serve Qwen/Qwen2.5-7B-Instruct \\
                --max-model-len 8192 \\
                --no-enable-chunked-prefill
"""


def test_add_suppressions_then_nothing_is_reported(repo: Repo) -> None:
    repo.write(
        "start.sh", SCRIPT + "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --enforce-eager  # note\n"
    )
    repo.write("k8s/chat.yaml", MANIFEST)
    repo.write(
        "Dockerfile",
        'FROM vllm/vllm-openai:v0.10.2\nCMD ["Qwen/Qwen2.5-7B-Instruct", "--gpu-memory-utilization", "0.97"]\n',
    )
    repo.write(
        "serve.yaml",
        "model: Qwen/Qwen2.5-7B-Instruct\nmax-model-len: 8192\n"
        "enable-prefix-caching: false  # vlint: disable=VL203 -- old\n",
    )
    first = repo.lint_json(".").json
    before = first["findings"]
    assert {f["path"] for f in before} == {"start.sh", "k8s/chat.yaml", "Dockerfile", "serve.yaml"}
    res = repo.vlint("--add-suppressions", ".")
    assert res.code == 0, res.err
    assert "Added " in res.out and "left alone" not in res.out, res.out + res.err
    after = repo.lint_json(".")
    left = [f for f in after.json["findings"]]
    # only the stale VL203 suppression that was there before remains (VL901 is never suppressed)
    assert [(f["path"], f["code"]) for f in left] == [("serve.yaml", "VL901")], left
    text = (repo.root / "start.sh").read_text()
    assert "  --no-enable-chunked-prefill  # vlint: disable=VL101,VL201,VL203,VL230\n" in text, text
    assert "# vlint: disable=VL105,VL230\nvllm serve" in text, "a line with another comment gets one above"
    docker = (repo.root / "Dockerfile").read_text()
    assert docker.splitlines()[1].startswith("# vlint: disable="), "Dockerfiles: on the line above"
    serve = (repo.root / "serve.yaml").read_text()
    assert "# vlint: disable=VL203,VL011 -- old" in serve, "merged into the existing comment"
    manifest = (repo.root / "k8s" / "chat.yaml").read_text()
    assert "- --gpu-memory-utilization=0.97  # vlint: disable=" in manifest
    # the script inside the block scalar still parses: every launch is still found
    assert after.json["summary"]["launches"] == first["summary"]["launches"] == 6
    # a second run has nothing to add
    again = repo.vlint("--add-suppressions", ".")
    assert "Added 0 suppressions in 0 files." in again.out


def test_the_guide_names_every_off_by_default_rule() -> None:
    from userrepo import ROOT

    from vlint.engine.catalog import load_catalog

    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    para = guide.split("**off-by-default**", 1)[1].split("\n\n", 1)[0]
    off = [r for r in load_catalog().rules if not r.enabled]
    assert off, "there are off-by-default rules"
    for r in off:
        assert f"[{r.code} {r.name}](rules/{r.code}.md)" in para, r.code
