"""Bounded work on hostile content: the scans that used backtracking regular expressions finish in
linear time (each run in a child process with a deadline), and a hostile .gitignore costs nothing.

Every payload here took minutes to hours with the old expressions (``\\{\\{.*?\\}\\}`` from every
``{{``; ``\\$\\{\\{(.*?)\\}\\}``; ``[ \\t]*\\t[ \\t]*$`` over a run of blanks; a glob turned into
``[^/]*a[^/]*a…``); with linear scans each is well under the deadline.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from reliability.hostile import lint_bounded

from vlint.globs import compile_glob

#: CPU seconds a child may use (a CPU-time limit, so a loaded machine does not make it flaky)
DEADLINE = 20
#: wall-clock seconds before the run is abandoned
WALL = 600.0
N = 400_000


def _tree(tmp: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("template.yaml", "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: '" + "{{" * N + "'\n"),
        (
            ".github/workflows/ci.yml",
            "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: '" + "${{" * N + "'\n",
        ),
        ("deploy.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\t" + " \t" * N + "y:\n"),
        ("serve.yaml", "\n" * N + "vllm: 1\n" + " " * N + "\n"),
        ("compose.yaml", "services:\n" + "\n" * N + "  x:\n" + " " * N),
        # is_template_file: a backward scan over the blanks before each `{{`, not a strip of the line
        ("values.yaml", "a: '" + "{{ " * N + "'\n"),
        # Makefile: assignment modifiers, rule colons, nested references, long continued lines
        ("Makefile", "export " * N + "\n" + "x" * N + " \t" * N + "\n\tvllm serve " + "$(" * N + "\n"),
        ("Makefile", "A = " + "\\\n" * N + "1\nserve:\n\tvllm serve $(A)" + " \\\n\t" * N + "\n"),
        ("justfile", "m := " + '"' * N + "\nserve:\n    vllm serve " + "{{" * N + "\n"),
        ("conf.d/v.conf", "[program:v]\ncommand=vllm serve " + "%(" * N + "\n" + "   ;" * N + "\n"),
        ("v.service", "[Service]\nExecStart=vllm serve x" + " \\\n" * N + "\nEnvironment=" + '"' * N + "\n"),
    ],
    ids=[
        "template-sniffing",
        "github-expressions",
        "trailing-tab-repair",
        "key-lines",
        "blank-indentation",
        "template-file-lines",
        "makefile-lines",
        "makefile-continuations",
        "justfile-interpolation",
        "supervisord-expansions",
        "systemd-continuations",
    ],
)
def test_linear_scans(tmp_path: Path, name: str, content: str) -> None:
    _tree(tmp_path, {name: content})
    run = lint_bounded(tmp_path, name, timeout=WALL, cpu_seconds=DEADLINE)
    assert run.exit_code in (0, 1, 2)


def test_catastrophic_gitignore_glob(tmp_path: Path) -> None:
    """``*a*a*a…b`` against a long name: exponential as a regex, linear as an NFA."""
    pattern = "*a" * 40 + "b"
    _tree(tmp_path, {".gitignore": pattern + "\n", "a" * 200 + ".sh": "vllm serve m/x\n", "run.sh": "vllm serve m/x\n"})
    run = lint_bounded(tmp_path, ".", timeout=WALL, cpu_seconds=DEADLINE)
    assert {f["path"] for f in run.report["files"]} >= {"run.sh"}
    assert compile_glob(pattern).match("a" * 5000) is False


def test_invalid_gitignore_range_is_not_an_aborted_run(tmp_path: Path) -> None:
    _tree(tmp_path, {".gitignore": "[z-a]\n*.log\n", "run.sh": "vllm serve m/x --max-model-lenn 1\n", "x.log": ""})
    run = lint_bounded(tmp_path, ".", timeout=WALL, cpu_seconds=DEADLINE)
    assert run.exit_code == 1
    assert "VL001" in [f["code"] for f in run.report["findings"] if f["path"] == "run.sh"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_gitignore_linked_to_dev_zero(tmp_path: Path) -> None:
    _tree(tmp_path, {"run.sh": "vllm serve m/x --max-model-lenn 1\n"})
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    run = lint_bounded(tmp_path, ".", timeout=WALL, cpu_seconds=DEADLINE)
    assert "VL001" in [f["code"] for f in run.report["findings"]]


def test_gitignore_outside_the_root_is_not_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _tree(tmp_path, {"secret-ignore": "run.sh\n", "repo/run.sh": "vllm serve m/x --max-model-lenn 1\n"})
    (repo / ".git").mkdir()
    (repo / ".gitignore").symlink_to(tmp_path / "secret-ignore")
    run = lint_bounded(repo, ".", timeout=WALL, cpu_seconds=DEADLINE)
    assert "run.sh" in {f["path"] for f in run.report["findings"]}


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.log", "x.log", True),
        ("*.log", "a/x.log", False),
        ("**/build", "a/b/build", True),
        ("**/build", "build", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**", "a/x/y", True),
        ("a/**", "b/x", False),
        ("[!a]x", "bx", True),
        ("[!a]x", "ax", False),
        ("[a-c]?", "bz", True),
        ("[z-a]", "m", False),
        ("\\*x", "*x", True),
        ("\\*x", "ax", False),
        ("[abc", "[abc", True),
        ("?", "/", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern).match(path) is expected


def test_fnmatch_dialect_matches_fnmatch() -> None:
    import fnmatch

    for pat in ("*.yaml", "k8s/*", "a?c", "[ab]*", "*/x/*"):
        for name in ("a.yaml", "k8s/x/y.yaml", "abc", "bz", "q/x/r", "x"):
            assert compile_glob(pat, fnmatch=True).match(name) is fnmatch.fnmatchcase(name, pat), (pat, name)


def test_huge_python_and_yaml_files_are_refused_cheaply(tmp_path: Path) -> None:
    """Parsing them would take gigabytes: each is one file's error, decided before parsing, and the
    other files are still linted (the child has 512 MiB of address space and the CPU deadline)."""
    _tree(
        tmp_path,
        {
            "big.py": "from vllm import LLM\nx = [" + ",".join(["1"] * 1_000_000) + "]\n",
            "big.yaml": "# vllm settings\nmodel: m/x\nitems:\n" + "- [1, 2, 3]\n" * 800_000,
            "run.sh": "vllm serve m/x --max-model-lenn 1\n",
        },
    )
    run = lint_bounded(tmp_path, ".", memory=2**31, timeout=WALL, cpu_seconds=DEADLINE)
    errors = {f["path"]: (f["error"] or {}).get("message", "") for f in run.report["files"]}
    assert "too large to parse" in errors["big.py"] and "too large to read" in errors["big.yaml"]
    assert run.exit_code == 2
    assert "VL001" in [f["code"] for f in run.report["findings"] if f["path"] == "run.sh"]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab"])
def test_lone_surrogates_and_undecodable_file_names_are_one_files_business(tmp_path: Path, fmt: str) -> None:
    """A YAML escape that makes a lone surrogate, and a file name that is not UTF-8, reach every
    output format as escapes; the run finishes and reports the other files."""
    import subprocess
    import sys

    _tree(
        tmp_path,
        {"serve.yaml": 'model: "m/\\ud800x"\nmax-model-lenn: 1\n', "run.sh": "vllm serve m/x --max-model-lenn 1\n"},
    )
    (tmp_path / os.fsdecode(b"odd-\xff.sh")).write_bytes(b"vllm serve m/x --max-model-lenn 1\n")
    r = subprocess.run(
        [sys.executable, "-m", "vlint.cli", "--isolated", "--format", fmt, "."],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), PYTHONIOENCODING="utf-8"),
        capture_output=True,
        timeout=WALL,
    )
    assert b"Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.returncode in (1, 2)
    out = r.stdout.decode("utf-8")  # valid UTF-8 whatever the file names held
    assert "run.sh" in out and "odd-" in out
