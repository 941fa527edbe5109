"""The baseline on partial runs (issue 17, item 5), as pre-commit runs vlint: on a few files at a time,
in batches. `--write-baseline` from a partial run keeps the entries of every other file, and the
"N baseline entries no longer found" note counts only the files of the run, so it appears once per
`pre-commit run` however the files are batched. A real `pre-commit run` in a scratch repository
(pre-commit is in the test extra; skipped with the reason when it is missing)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from userrepo import ROOT, Repo, vlint_env

BAD = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.97\n"
GOOD = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.9\n"
BASELINE = ".vlint-baseline.json"
#: the GPU named, so that launches get the full memory check (not VL230's reference-GPU info)
GPU = 'gpu = "H100"\n'


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "app")
    r.write("pyproject.toml", f'[tool.vlint]\nbaseline = "{BASELINE}"\n{GPU}')
    for name in ("a", "b", "c"):
        r.write(f"deploy/{name}.sh", BAD)
    return r


def entries(repo: Repo) -> list[tuple[str, str]]:
    doc = json.loads((repo.root / BASELINE).read_text())
    return sorted((e["path"], e["code"]) for e in doc["findings"])


def test_write_baseline_from_a_partial_run_keeps_the_other_files(repo: Repo) -> None:
    res = repo.vlint("--write-baseline", BASELINE, ".")
    assert res.code == 0 and entries(repo) == [(f"deploy/{n}.sh", "VL201") for n in "abc"], res.err
    # a.sh changes: a partial run (one file) rewrites a.sh's entries only
    repo.write("deploy/a.sh", GOOD.replace("8192", "8192 --enforce-eager"))
    res = repo.vlint("--write-baseline", BASELINE, "deploy/a.sh")
    assert "2 kept for files not in this run" in res.err, res.err
    assert entries(repo) == [("deploy/a.sh", "VL105"), ("deploy/b.sh", "VL201"), ("deploy/c.sh", "VL201")]
    # a run over the folder covers every file in it: a deleted file's entries go
    (repo.root / "deploy" / "c.sh").unlink()
    repo.vlint("--write-baseline", BASELINE, "deploy")
    assert entries(repo) == [("deploy/a.sh", "VL105"), ("deploy/b.sh", "VL201")]


def test_stale_entries_are_counted_only_for_the_files_of_the_run(repo: Repo) -> None:
    repo.vlint("--write-baseline", BASELINE, ".")
    repo.write("deploy/a.sh", GOOD)  # its VL201 entry is stale now
    alone_b = repo.vlint("-q", "deploy/b.sh")
    assert alone_b.code == 0 and "no longer found" not in alone_b.out, alone_b.out
    alone_a = repo.vlint("-q", "deploy/a.sh")
    assert "1 baseline entry no longer found" in alone_a.out, alone_a.out
    whole = repo.vlint("-q", ".")
    assert "1 baseline entry no longer found" in whole.out and "2 accepted by the baseline" in whole.out


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (it is in the test extra: pip install -e '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed; pre-commit needs a git repository")
    return [sys.executable, "-m", "pre_commit"]


def test_real_pre_commit_run_with_a_baseline(tmp_path: Path) -> None:
    cmd = _pre_commit()
    repo = Repo(tmp_path / "app")
    files = [f"deploy/s{i:02d}.sh" for i in range(12)]
    for f in files:
        repo.write(f, BAD)
    repo.write("pyproject.toml", f'[tool.vlint]\nbaseline = "{BASELINE}"\n{GPU}')
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    entry = f"{sys.executable} -m vlint"
    lint_hook = dict(hook, language="system", entry=entry, verbose=True)
    write_hook = dict(hook, id="vlint-baseline", name="vlint baseline", language="system")
    write_hook["entry"] = f"{entry} --write-baseline {BASELINE}"
    config = {"repos": [{"repo": "local", "hooks": [lint_hook, write_hook]}]}
    repo.write(".pre-commit-config.yaml", yaml.safe_dump(config))
    env = vlint_env(
        {
            "PRE_COMMIT_HOME": str(tmp_path / "cache"),
            "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "NO_COLOR": "1",
        }
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        subprocess.run(["git", "add", "-A"], cwd=repo.root, env=env, check=True, capture_output=True)
        return subprocess.run(
            [*cmd, "run", "--color", "never", *args],
            cwd=repo.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    # the baseline from a full run (vlint itself, as the guide says)
    assert repo.vlint("--write-baseline", BASELINE, ".").code == 0
    assert len(entries(repo)) == len(files)
    # 1. the write hook on one staged file keeps every other file's entries
    repo.write(files[0], GOOD.replace("8192", "8192 --enforce-eager"))
    res = run("vlint-baseline", "--files", files[0])
    # pre-commit fails a hook that changed a file (the baseline): the commit is then retried with it
    assert "files were modified by this hook" in res.stdout, res.stdout + res.stderr
    assert "(11 kept for files not in this run)" in res.stdout
    assert entries(repo) == sorted([(files[0], "VL105"), *((f, "VL201") for f in files[1:])]), res.stdout
    # 2. a stale entry, and every file linted in pre-commit's batches: the note appears once
    repo.write(files[0], GOOD)
    res = run("vlint", "--all-files")
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert out.count("no longer found") == 1, out
    assert "1 baseline entry no longer found" in out
    batches = out.count("accepted by the baseline")
    if (os.cpu_count() or 1) > 1:
        assert batches > 1, f"pre-commit ran one batch; the test needs several to mean anything:\n{out}"
    accepted = sum(
        int(line.split(" accepted by")[0].rsplit(" ", 1)[-1])
        for line in out.splitlines()
        if " accepted by the baseline" in line
    )
    assert accepted == len(files) - 1, out
    # 3. an edited line in a staged file is a new finding: the commit fails; its old entry is stale,
    # and only that run (of the two files staged) says so
    repo.write(files[1], BAD.replace("0.97", "0.98"))
    res = run("vlint", "--files", files[1], files[2])
    assert res.returncode == 1 and f"{files[1]}:1:58: VL201" in res.stdout, res.stdout
    assert res.stdout.count("1 baseline entry no longer found") == 1, res.stdout
