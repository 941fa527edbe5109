"""Rendering runs only what vlint vetted, offline, within one budget (issue 30, items 2, 5, 7).

- kustomize gets a *copy* of exactly the files vlint read (never the folder itself), so a reference
  vlint resolved one way cannot make the tool load another;
- kustomize's remote forms are refused before the tool runs, a folder named like an scp-style git URL
  included (kustomize parses it as a repository *before* it looks on disk);
- the child has no ``PATH`` (no ``git``/``ssh`` to start), git allows no protocol, a memory cap, and
  the renders of one run share one time budget; the summary says what was not rendered;
- a ``kubectl`` found on ``PATH`` inside the checkout is never run.
"""

from __future__ import annotations

import http.server
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import vlint.sources.render as render
from tests.sources.render.helpers import lint, where, write
from vlint.sources.render import Budget, tools
from vlint.sources.render.tools import run_tool, scrubbed_env

from .leaks import invoke_in

KUBECTL = shutil.which("kustomize") or shutil.which("kubectl")
needs_tool = pytest.mark.skipif(KUBECTL is None, reason="neither kustomize nor kubectl is on PATH")

DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm}
    spec:
      template:
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.10.2
              args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-lenn", "8192"]
    """
OVERLAY = {
    "k8s/base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
    "k8s/base/deployment.yaml": DEPLOYMENT,
    "k8s/base/unrelated-secret.txt": "not referenced by any kustomization\n",
    "k8s/prod/kustomization.yaml": "resources:\n  - ../base\npatches:\n  - path: patch.yaml\n",
    "k8s/prod/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec: {replicas: 2}\n",
}


@pytest.fixture
def loopback() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every request (Go never proxies loopback)."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", seen
    finally:
        server.shutdown()


def test_kustomize_gets_a_copy_of_only_the_files_vlint_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    write(repo, OVERLAY)
    given: list[tuple[list[str], set[str]]] = []

    def fake(argv: list[str], **kw: object) -> object:
        folder = Path(argv[2])  # [kubectl, kustomize, FOLDER, ...] or [kustomize, build, FOLDER, ...]
        tree = folder.parents[1]  # <tmp>/tree/k8s/prod → <tmp>/tree
        given.append((argv, {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}))
        return render.tools.ToolRun(False, error="stop here")

    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/kubectl" if name == "kubectl" else None)
    monkeypatch.setattr(tools, "run_tool", fake)
    lint(repo, "k8s/prod/kustomization.yaml")
    assert len(given) == 1
    argv, files = given[0]
    assert not Path(argv[2]).is_relative_to(repo)
    assert files == {
        "tree/base/kustomization.yaml",
        "tree/base/deployment.yaml",
        "tree/prod/kustomization.yaml",
        "tree/prod/patch.yaml",
    }


@needs_tool
def test_the_copy_renders_like_the_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, OVERLAY)
    found = lint(repo, "k8s/prod/kustomization.yaml")
    assert any(w.startswith("VL001 k8s/base/deployment.yaml:10:") for w in map(where, found)), found


@pytest.mark.parametrize(
    "ref",
    [
        "user@host:org/repo",  # a folder of that name exists: kustomize still clones it over ssh
        "git@github.com:org/repo",
        "gh:org/repo",
        "github.com:org/repo",
        "git::https://example.com/repo",
        "base?ref=main",
        "file:///etc",
    ],
)
def test_kustomizes_remote_forms_are_refused_before_the_tool_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ref: str
) -> None:
    repo = tmp_path / "repo"
    write(repo, {"k8s/kustomization.yaml": f"resources:\n  - {ref}\n  - vllm.yaml\n", "k8s/vllm.yaml": DEPLOYMENT})
    folder = repo / "k8s" / ref.split("?")[0]
    if ":" in ref and "//" not in ref:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "kustomization.yaml").write_text("resources: []\n")
    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: pytest.fail("the tool ran"))
    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/kubectl")
    found = lint(repo, "k8s/kustomization.yaml")
    assert [where(f) for f in found if f.code == "VL631"] == ["VL631 k8s/kustomization.yaml:2:5"]


def test_an_absolute_reference_is_not_rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    write(repo, {"k8s/vllm.yaml": DEPLOYMENT})
    write(repo, {"k8s/kustomization.yaml": f"resources:\n  - vllm.yaml\n  - {repo / 'k8s' / 'vllm.yaml'}\n"})
    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: pytest.fail("the tool ran"))
    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/kubectl")
    found = lint(repo, "k8s/kustomization.yaml")
    assert [f.code for f in found] == ["VL631"] and "absolute path" in found[0].message


@needs_tool
def test_a_base_reached_through_a_link_and_dot_dot_is_not_loaded(
    tmp_path: Path, loopback: tuple[str, list[str]]
) -> None:
    """``out/../base``: the kernel follows ``out`` (a folder outside the checkout) first, so the base is
    the one *beside the link's target*, which names a loopback URL; vlint refuses it by its real place
    and kustomize never sees it."""
    url, seen = loopback
    work = tmp_path / "work"
    write(work, {"outside/base/kustomization.yaml": f"resources:\n  - {url}/leak.yaml\n", "outside/sub/x": "x\n"})
    repo = work / "repo"
    write(repo, {"k8s/kustomization.yaml": "resources:\n  - out/../base\n  - vllm.yaml\n", "k8s/vllm.yaml": DEPLOYMENT})
    (repo / "k8s" / "out").symlink_to(work / "outside" / "sub")
    write(repo, {"k8s/base/kustomization.yaml": "resources: []\n"})  # what a lexical check would have seen
    found = lint(repo, "k8s/kustomization.yaml")
    assert seen == []
    assert "VL060" in [f.code for f in found]


def test_the_child_can_start_no_program_and_git_allows_no_protocol(tmp_path: Path) -> None:
    env = scrubbed_env(tmp_path)
    assert env["GIT_ALLOW_PROTOCOL"] == "" and env["GIT_SSH_COMMAND"] == "false"
    probe = "import shutil, sys; sys.stdout.write(repr([shutil.which(p) for p in ('git', 'ssh', 'sh')]))"
    run = run_tool([sys.executable, "-c", probe])
    assert run.ok and run.output == "[None, None, None]"


def test_the_child_has_a_memory_cap(tmp_path: Path) -> None:
    run = run_tool([sys.executable, "-c", "x = bytearray(900 * 2**20)"], max_memory=400 * 2**20)
    assert not run.ok and "memory" in run.error.lower()


def test_one_time_budget_for_all_renders_of_a_run(tmp_path: Path) -> None:
    spent = Budget(left=0.5)
    run = run_tool([sys.executable, "-c", "pass"], budget=spent)
    assert not run.ok and "budget" in run.error
    budget = Budget(left=1.5)
    run = run_tool([sys.executable, "-c", "import time; time.sleep(20)"], budget=budget)
    assert not run.ok and "did not finish within 2 s" in run.error and budget.used_up


def test_overlays_past_the_budget_are_said_not_rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    write(repo, OVERLAY)
    monkeypatch.setattr(render, "RUN_BUDGET", 0.0)
    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/kubectl")
    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: pytest.fail("the tool ran"))
    found = lint(repo, "k8s/prod/kustomization.yaml")
    assert [f.code for f in found] == ["VL630"] and "rendering time budget" in found[0].message


def test_a_kubectl_inside_the_checkout_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    write(repo, OVERLAY)
    (repo / ".git").mkdir()  # a checkout: the lint root is the work tree
    marker = tmp_path / "ran"
    (repo / "bin").mkdir()
    for name in ("kubectl", "kustomize"):
        tool = repo / "bin" / name
        tool.write_text(f"#!/bin/sh\ntouch {marker}\n")
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{repo / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    r = invoke_in(repo, "check", "--isolated", "--format", "json", "k8s/prod/kustomization.yaml")
    assert not marker.exists()
    assert "inside the lint root" in r.output


# -- configuration and baseline nested past the parser's stack (item 7) -------------------------------
def test_a_deeply_nested_config_or_baseline_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, {"run.sh": "vllm serve m/x --max-model-len 8192\n"})
    (tmp_path / ".vlint.toml").write_text("x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    r = invoke_in(tmp_path, "check", ".")
    assert r.exit_code == 2 and "nested too deeply" in r.output and "Traceback" not in r.output
    (tmp_path / ".vlint.toml").unlink()
    (tmp_path / "base.json").write_text('{"a":' * 50_000 + "1" + "}" * 50_000)
    r = invoke_in(tmp_path, "check", "--baseline", "base.json", ".")
    assert r.exit_code == 2 and "nested too deeply" in r.output and "Traceback" not in r.output
