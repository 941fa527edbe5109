"""``vlint check --diff-base REF`` on a real git repository (``git init`` in tmp_path): a pull request that
bumps the vLLM release of a compose file's image, a Kubernetes manifest's image, a requirements pin and a
Helm value gets a VL640 annotation on each changed line; reading REF runs git confined (scrubbed
environment, the commit not the name, only paths inside the lint root, nothing of .git/ opened by vlint);
no git, no work tree or an unknown REF is exit 2."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from security.opened import recording
from userrepo import Repo

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

COMPOSE = """\
services:
  vllm:
    image: vllm/vllm-openai:{tag}
    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384", "--swap-space", "8"]
"""
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:{tag}
          command: ["vllm", "serve"]
          args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384", "--disable-log-requests"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
VALUES = """\
servingEngineSpec:
  modelSpec:
  - name: "llama"
    repository: "vllm/vllm-openai"
    tag: "{tag}"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 1
    requestGPU: 1
"""
SERVE = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --guided-decoding-backend xgrammar\n"
UNCHANGED = 'FROM vllm/vllm-openai:v0.19.1\nCMD ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]\n'


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def pr(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """main: 0.8.5, 0.10.2, vllm==0.10.2, tag v0.8.5 (committed); the working tree: the bumps."""
    r = Repo(tmp_path_factory.mktemp("diff-base") / "repo")
    r.write("compose.yaml", COMPOSE.format(tag="v0.8.5"))
    r.write("k8s/llama.yaml", MANIFEST.format(tag="v0.10.2"))
    r.write("app/requirements.txt", "torch\nvllm==0.10.2\n")
    r.write("app/serve.sh", SERVE)
    r.write("helm/values.yaml", VALUES.format(tag="v0.8.5"))
    r.write("other/Dockerfile", UNCHANGED)
    git(r.root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(r.root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "main")
    git(r.root, "branch", "-q", "main-copy")
    r.write("compose.yaml", COMPOSE.format(tag="v0.33.0"))
    r.write("k8s/llama.yaml", MANIFEST.format(tag="v0.20.0"))
    r.write("app/requirements.txt", "torch\nvllm==0.13.0\n")
    r.write("helm/values.yaml", VALUES.format(tag="v0.10.2"))
    return r


def vl640(doc: dict) -> dict[str, dict]:
    return {f["path"]: f for f in doc["findings"] if f["code"] == "VL640"}


def test_each_bump_is_annotated_on_its_changed_line(pr: Repo) -> None:
    res = pr.vlint("check", ".", "--diff-base", "main-copy", "--gpu", "H100", "--format", "json")
    assert res.code == 1, res.err
    found = vl640(res.json)
    assert set(found) == {"compose.yaml", "k8s/llama.yaml", "app/requirements.txt", "helm/values.yaml"}
    where = {p: (f["line"], f["data"]["from"], f["data"]["to"]) for p, f in found.items()}
    assert where == {
        "compose.yaml": (3, "0.8.5", "0.33.0"),
        "k8s/llama.yaml": (10, "0.10.2", "0.20.0"),
        "app/requirements.txt": (2, "0.10.2", "0.13.0"),
        "helm/values.yaml": (5, "0.8.5", "0.10.2"),
    }
    # the lines the pull request changed are exactly those
    diff = git(pr.root, "diff", "-U0", "main-copy")
    for path, (line, _, _) in where.items():
        assert f"+++ b/{path}\n@@ -{line} +{line} @@" in diff
    compose = found["compose.yaml"]
    assert compose["severity"] == "warning" and "--swap-space removed in 0.18.0" in compose["message"]
    kinds = {(c["kind"], c["setting"]) for c in compose["data"]["changes"]}
    assert ("removed", "--swap-space") in kinds and ("default_changed", "gpu_memory_utilization") in kinds
    assert "--disable-log-requests removed in 0.17.0" in found["k8s/llama.yaml"]["message"]
    assert "--guided-decoding-backend removed in 0.12.0" in found["app/requirements.txt"]["message"]
    assert found["helm/values.yaml"]["severity"] == "info"  # nothing the bump breaks there
    assert "1 launch not found" not in res.err and "4 launches with another vLLM release" in res.err


def test_github_annotations(pr: Repo) -> None:
    res = pr.vlint("check", ".", "--diff-base", "main-copy", "--gpu", "H100", "--format", "github")
    lines = [x for x in res.out.splitlines() if "title=VL640" in x]
    assert any(x.startswith("::warning file=compose.yaml,line=3,") for x in lines), lines
    assert any(x.startswith("::warning file=app/requirements.txt,line=2,") for x in lines), lines
    assert any(x.startswith("::notice file=helm/values.yaml,line=5,") for x in lines), lines


def test_without_diff_base_nothing_is_compared(pr: Repo) -> None:
    res = pr.vlint("check", ".", "--gpu", "H100", "--format", "json")
    assert not vl640(res.json)


def test_unknown_ref_no_work_tree_and_no_git_are_exit_2(pr: Repo, tmp_path: Path) -> None:
    res = pr.vlint("check", ".", "--diff-base", "no-such-branch")
    assert res.code == 2 and "git knows no commit of that name" in res.err
    assert pr.vlint("check", ".", "--diff-base", "--output=x").code == 2  # never an option for git
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "start.sh").write_text(SERVE)
    res = Repo.__new__(Repo)
    res.root = plain
    out = res.vlint("check", ".", "--diff-base", "HEAD")
    assert out.code == 2 and "needs a git work tree" in out.err
    empty = tmp_path / "no-programs"
    empty.mkdir()
    none = pr.vlint("check", ".", "--diff-base", "HEAD", env={"PATH": str(empty)})
    assert none.code == 2 and "git is not on PATH" in none.err


def test_git_runs_confined(pr: Repo, tmp_path: Path) -> None:
    """A git on PATH that logs what it is given: no token of the environment, no user configuration, the
    commit instead of the name, only files inside the repository, never a file of .git/; and vlint itself
    opens nothing under .git/."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "git.log"
    wrapper = bin_dir / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'printf "ARGS %s\\n" "$*" >> "{log}"\n'
        f'export -p >> "{log}"\n'  # a builtin: the child's PATH finds no program
        f'exec "{GIT}" "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "GITHUB_TOKEN": "ghs_secretsecretsecret"}
    with recording() as opened:
        res = pr.vlint("check", ".", "--diff-base", "main-copy", "--gpu", "H100", "--format", "json", env=env)
    assert res.code == 1 and vl640(res.json), res.err
    text = log.read_text()
    assert "ghs_secret" not in text and "GITHUB_TOKEN" not in text
    assert "export GIT_CONFIG_GLOBAL=" in text and "export GIT_CONFIG_NOSYSTEM=" in text
    home = next(x for x in text.splitlines() if x.startswith("export HOME="))
    assert os.path.expanduser("~") not in home
    commit = git(pr.root, "rev-parse", "main-copy").strip()
    shows = [x for x in text.splitlines() if x.startswith("ARGS ") and " show " in x]
    assert shows and all("protocol.allow=never" in x and f" {commit}:" in x for x in shows)
    shown = {x.split(f" {commit}:", 1)[1].split(" ", 1)[0] for x in shows}
    assert "compose.yaml" in shown and "app/requirements.txt" in shown
    assert not any(p.startswith((".git", "/", "..")) for p in shown), shown
    git_dir = str(pr.root / ".git")
    assert not [p for p in opened if p == git_dir or p.startswith(git_dir + os.sep)]
