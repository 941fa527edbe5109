"""The command line as a user meets it (issue 17, item 6), in a scratch git repository: unknown
commands, missing paths, stdin, --exclude/--extend-exclude, --statistics, --show-files, GPU names,
empty runs, progress on a terminal, and the default -j."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from userrepo import Repo, vlint_env

import vlint.run.lint as lint_module
from vlint.cli import main
from vlint.commands import common

SCRIPT = "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.97 --no-enable-chunked-prefill\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "app")
    r.write("deploy/start.sh", SCRIPT)
    return r


def test_unknown_command_is_a_usage_error_with_did_you_mean(repo: Repo) -> None:
    res = repo.vlint("chek", ".")
    assert res.code == 2 and "Did you mean 'check'?" in res.err and not res.out
    res = repo.vlint("expalin", "deploy/start.sh")
    assert res.code == 2 and "Did you mean 'explain'?" in res.err
    # a path that happens to look like a word is still linted when it exists
    repo.write("chek", SCRIPT)
    res = repo.vlint("-q", "chek")
    assert res.code != 2 and "Did you mean" not in res.err, res.err


def test_a_missing_path_is_exit_2_without_no_problems_found(repo: Repo) -> None:
    res = repo.vlint("nosuch.sh")
    assert res.code == 2 and "nosuch.sh: error: no such file" in res.out
    assert "No problems found" not in res.out and "could not be read" in res.out
    res = repo.vlint("-q", "nosuch.sh", "deploy")
    assert res.code == 2 and "VL201" in res.out, "the other paths are still linted"


def test_stdin_with_a_file_name(repo: Repo) -> None:
    repo.write(".vlint.toml", "")
    repo.write("k8s/.vlint.toml", 'ignore = ["VL203"]\n')
    res = repo.vlint("--stdin-filename", "k8s/start.sh", "-", stdin=SCRIPT)
    assert res.code == 1
    assert "k8s/start.sh:1:37: VL201" in res.out and "VL203" not in res.out, "k8s/.vlint.toml applies"
    assert "1 | vllm serve Qwen" in res.out, "code frames from the text read"
    assert not (repo.root / "k8s" / "start.sh").exists()
    # the format comes from the name; without one it is guessed from the text
    yaml_text = "model: Qwen/Qwen2.5-7B-Instruct\ngpu-memory-utilization: 0.97\n"
    res = repo.vlint("-q", "--format", "json", "-", stdin=yaml_text)
    assert res.json["files"][0]["path"] == "stdin.yaml" and res.json["files"][0]["sources"] == ["vllm-config"]
    res = repo.vlint("-", "deploy", stdin=SCRIPT)
    assert res.code == 2 and "cannot be combined" in res.err


def test_exclude_and_extend_exclude(repo: Repo) -> None:
    repo.write("legacy/old.sh", SCRIPT)
    repo.write(".venv/lib/x.sh", SCRIPT)
    repo.write("node_modules/y.sh", SCRIPT)

    def linted(*args: str) -> set[str]:
        return {f["path"] for f in repo.lint_json(*args, ".").json["files"]}

    assert linted() == {"deploy/start.sh", "legacy/old.sh"}, "vlint's default folders are skipped"
    assert linted("--extend-exclude", "legacy") == {"deploy/start.sh"}
    # --exclude replaces the defaults (like ruff): .venv and node_modules are walked then
    assert linted("--exclude", "legacy") == {"deploy/start.sh", ".venv/lib/x.sh", "node_modules/y.sh"}
    repo.write(".vlint.toml", 'extend-exclude = ["deploy/"]\n')
    assert linted() == {"legacy/old.sh"}
    # named files are excluded too (pre-commit names files); an all-excluded run is clean
    res = repo.vlint("deploy/start.sh")
    assert res.code == 0 and "excluded by the configuration" in res.err


def test_statistics(repo: Repo) -> None:
    repo.write("deploy/b.sh", SCRIPT)
    res = repo.vlint("--statistics", ".")
    assert res.code == 1
    lines = res.out.splitlines()
    # count, code, name, severity, and whether vlint fix can fix it (VL101's removal is unsafe)
    assert lines[0].split() == ["2", "VL101", "chunked-prefill-disabled", "warning", "[unsafe", "fix]"]
    counts = {ln.split()[1]: int(ln.split()[0]) for ln in lines[:-1]}
    # VL230: no GPU is named, the reference-GPU info
    assert counts == {"VL101": 2, "VL201": 2, "VL203": 2, "VL230": 2}
    assert lines[-1].startswith("Found 8 problems")
    assert "|" not in res.out, "no code frames"


def test_show_files(repo: Repo) -> None:
    repo.write("deploy/.vlint.toml", "")
    repo.write("README.md", "vllm serve x\n")
    repo.write("scripts/run.sh", SCRIPT)
    res = repo.vlint("--show-files", ".")
    assert res.code == 0
    assert res.out.splitlines() == ["deploy/start.sh  [deploy/.vlint.toml]", "scripts/run.sh  [no configuration]"]
    assert "2 files to lint." in res.err


def test_unknown_gpu_lists_the_known_ones(repo: Repo) -> None:
    res = repo.vlint("--gpu", "H1OO", "deploy")
    assert res.code == 2 and "unknown GPU 'H1OO'" in res.err
    assert "did you mean" in res.err and "known GPUs: " in res.err and "L40S" in res.err and "MI300X" in res.err
    repo.write(".vlint.toml", 'gpu = "TPUv9"\n')
    res = repo.vlint("deploy")
    assert res.code == 2 and ".vlint.toml: gpu: unknown GPU 'TPUv9'" in res.err and "known GPUs: " in res.err


def test_empty_runs_say_so(repo: Repo, tmp_path: Path) -> None:
    (repo.root / "docs").mkdir()
    (repo.root / "docs" / "notes.txt").write_text("hello\n")
    res = repo.vlint("docs")
    assert res.code == 2 and "no files to lint in docs" in res.err and "No problems found" not in res.out
    empty = Repo(tmp_path / "empty")
    res = empty.vlint()
    assert res.code == 0 and "no files to lint in the current folder" in res.err
    res = empty.vlint("--format", "sarif")
    assert res.code == 0 and res.json["runs"][0]["results"] == []


def test_progress_on_a_terminal_only(repo: Repo) -> None:
    for i in range(30):
        repo.write(f"many/s{i:02d}.sh", SCRIPT)
    env = vlint_env({"VLINT_PROGRESS_AFTER": "0"})
    env.pop("CI", None)
    # on a pipe: nothing
    piped = repo.vlint("-q", "many", env={"VLINT_PROGRESS_AFTER": "0"}, process=True)
    assert "%" not in piped.err
    # on a terminal: the progress line on stderr, cleared at the end
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vlint", "-q", "many"],
        cwd=repo.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=child_fd,
        stdin=subprocess.DEVNULL,
    )
    os.close(child_fd)
    seen = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=120)
    os.close(main_fd)
    assert b"vlint: " in seen and b"steps)" in seen and b"\r\x1b[K" in seen, seen
    assert proc.stdout is not None and b"VL201" in proc.stdout.read()


def test_default_jobs_follow_idle_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    assert common.default_jobs() == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (1.7, 1.0, 1.0))
    assert common.default_jobs() == 1, "one CPU is busy: workers would compete"
    monkeypatch.setattr(os, "getloadavg", lambda: (6.5, 6.0, 6.0))
    assert common.default_jobs() == 1


def test_default_jobs_never_fork_for_small_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without -j, a run with less work than workers cost stays in this process (100 small files);
    an explicit -j 2 still uses workers."""
    for i in range(100):
        (tmp_path / f"s{i:03d}.sh").write_text(SCRIPT)
    monkeypatch.setattr(common, "default_jobs", lambda: 2)
    seen: list[int] = []
    real = lint_module._map

    def spy(fn, items, jobs, send=None, **kw):  # type: ignore[no-untyped-def]
        seen.append(jobs)
        return real(fn, items, jobs, send, **kw)

    monkeypatch.setattr(lint_module, "_map", spy)
    monkeypatch.chdir(tmp_path)
    CliRunner().invoke(main, ["--isolated", "-q", "."])
    assert seen == []
    CliRunner().invoke(main, ["--isolated", "-q", "-j", "2", "."])
    assert seen == [2]
