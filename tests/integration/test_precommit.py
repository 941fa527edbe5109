""".pre-commit-hooks.yaml: its file selection matches what `vlint .` reads, and a real `pre-commit run
--all-files` in a scratch git repository fails on a bad launch and passes on a good one.

The hook definition is taken from .pre-commit-hooks.yaml as a `repo: local` hook with `language:
system` and this interpreter's vlint as entry, so the test needs no network (pre-commit would
otherwise build a virtualenv and pip-install this checkout)."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from vlint.config.discover import DEFAULT_INCLUDE

ROOT = Path(__file__).resolve().parents[2]
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_hook_definition() -> None:
    (hook,) = HOOKS
    assert hook["id"] == "vlint" and hook["entry"] == "vlint" and hook["language"] == "python"
    assert hook["require_serial"] is False
    assert hook["types"] == ["text"]


@pytest.mark.parametrize(
    "name",
    [
        "start.sh",
        "k8s/deploy.yaml",
        "compose.yml",
        "Dockerfile",
        "docker/Dockerfile.cuda",
        "vllm.Dockerfile",
        "Containerfile",
        ".env",
        "deploy/.env.prod",
        "prod.env",
        "serve.py",
        "run.bash",
        "README.md",
        "LICENSE",
        "setup.cfg",
        "values.yaml.bak",
        "notes.txt",
        "Makefile",
        "GNUmakefile",
        "tools/serve.mk",
        "justfile",
        "Procfile",
        "Procfile.dev",
        "deploy/vllm.service",
        "conf.d/vllm.conf",
        "supervisord.ini",
        "vllm.timer",
    ],
)
def test_hook_files_match_what_vlint_walks(name: str) -> None:
    by_hook = re.search(HOOKS[0]["files"], name) is not None
    by_walk = any(fnmatch.fnmatchcase(name.rsplit("/", 1)[-1], pat) for pat in DEFAULT_INCLUDE)
    assert by_hook == by_walk, f"{name}: hook {by_hook}, vlint walk {by_walk}"


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (it is in the test extra: pip install -e '.[test]')")
    return [sys.executable, "-m", "pre_commit"]


def test_real_pre_commit_run(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed; pre-commit needs a git repository")
    cmd = _pre_commit()
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": str(ROOT),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "NO_COLOR": "1",
    }
    env.pop("GITHUB_ACTIONS", None)
    hook = dict(HOOKS[0], language="system", entry=f"{sys.executable} -m vlint.cli")
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (repo / "deploy").mkdir()
    (repo / "deploy" / "start.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.97\n"
    )
    (repo / "deploy" / "serve.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\nmax-model-len: 8192\n")
    (repo / "README.md").write_text("vllm serve x --bogus-flag\n")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    def pre_commit_run() -> subprocess.CompletedProcess[str]:
        git("add", "-A")
        return subprocess.run(
            [*cmd, "run", "--all-files", "--color", "never"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    git("init", "-q")
    res = pre_commit_run()
    assert res.returncode == 1, res.stdout + res.stderr
    assert "vlint" in res.stdout and "Failed" in res.stdout
    assert "deploy/start.sh:1:58: VL201" in res.stdout
    assert "README.md" not in res.stdout, "the hook only sees config files"

    (repo / "deploy" / "start.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.9\n"
    )
    res = pre_commit_run()
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"vlint\.+Passed", res.stdout), res.stdout


def readme_precommit_snippet() -> str:
    """The README's pre-commit block (a bash block that writes .pre-commit-config.yaml and runs the hook)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [textwrap.dedent(b) for b in re.findall(r"```bash\n(.*?)```", text, re.DOTALL)]
    (snippet,) = [b for b in blocks if ".pre-commit-config.yaml" in b and "pre-commit run" in b]
    return snippet


def test_the_hooks_file_header_agrees_with_the_readme() -> None:
    snippet = readme_precommit_snippet()
    header = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    for line in ("- repo: https://github.com/vlint-dev/vlint", "rev:", "- id: vlint"):
        assert line in snippet and line in header, line
    assert "v0.1.0" not in header and "v0.1.0" not in snippet, "no such tag exists yet"


def test_the_readme_snippet_against_a_local_clone(tmp_path: Path) -> None:
    """The README's pre-commit block, run as written by bash, with vlint's URL pointing at a local clone of
    this repository (pre-commit clones it at the sha the block pins, builds the hook's virtualenv with pip
    and runs it): it fails on a bad launch."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed; pre-commit needs a git repository")
    _pre_commit()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "NO_COLOR": "1",
        # `pre-commit` of this interpreter's environment first on PATH, as an activated venv has it
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    for key in ("GITHUB_ACTIONS", "PYTHONPATH", "VIRTUAL_ENV"):
        env.pop(key, None)
    if shutil.which("pre-commit", path=env["PATH"]) is None:
        pytest.skip("the pre-commit command is not on PATH next to this interpreter")
    clone = tmp_path / "vlint"
    got = subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], env=env, capture_output=True, text=True)
    if got.returncode != 0:
        pytest.skip(f"cannot clone this checkout: {got.stderr[-300:]}")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    (repo / "start.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.97\n"
    )
    subprocess.run(["git", "add", "start.sh"], cwd=repo, env=env, check=True)
    script = readme_precommit_snippet().replace("https://github.com/vlint-dev/vlint", str(clone))
    res = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    if res.returncode not in (0, 1) and ("pip" in res.stdout + res.stderr or "network" in res.stdout + res.stderr):
        pytest.skip(f"pre-commit could not build the hook's environment (no network?): {res.stdout[-500:]}")
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    (entry,) = config["repos"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True)
    assert entry["rev"] == head.stdout.strip() and entry["hooks"] == [{"id": "vlint"}]
    assert res.returncode == 1, res.stdout + res.stderr
    assert "start.sh:1:58: VL201" in res.stdout and "Failed" in res.stdout, res.stdout
