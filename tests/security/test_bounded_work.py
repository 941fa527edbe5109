"""Bounded work on hostile content: the scans that used backtracking regular expressions finish in
linear time (under a CPU-time deadline, in a child process), and a hostile .gitignore costs nothing.

Every payload here took minutes to hours with the old expressions (``\\{\\{.*?\\}\\}`` from every
``{{``; ``\\$\\{\\{(.*?)\\}\\}``; ``[ \\t]*\\t[ \\t]*$`` over a run of blanks; a glob turned into
``[^/]*a[^/]*a…``); with linear scans each is well under the deadline.

**Why N = 100,000.** A payload repeats its hostile unit N times (100 KB to 1 MB of text). A quadratic
scan does about N²/2 = 5·10⁹ steps on it: the old ``\\{\\{.*?\\}\\}`` took 0.33 s of CPU on N = 5,000
(measured on this 2-CPU Xeon), so ~130 s on N = 100,000 — over six times the 20 s deadline even as a
regular expression running in C; a quadratic scan written in Python, as the Makefile, justfile,
supervisord and systemd scanners are, is some hundred times slower per step (hours). The old
trailing-tab expression is worse than quadratic (364 s on N = 5,000). The linear scans take 0.01 to
3.3 s of CPU each at this N (supervisord's ``%(`` scan is the slowest). The suite used N = 400,000
before: the same verdicts for four times the linear work; N = 100,000 is the smallest round size at
which a C-speed quadratic scan still misses the deadline by a wide margin.

**One child for all cases.** The cases run one after the other in one child process (one interpreter
start and one ``import vlint``), each with its own CPU deadline (``lint_bounded_many``): a case past it
is reported by name and the cases after it still run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from reliability.hostile import Run, lint_bounded, lint_bounded_many

from vlint.config.globs import compile_glob

#: CPU seconds each case may use (a CPU-time limit, so a loaded machine does not make it flaky)
DEADLINE = 20
#: wall-clock seconds before a child is abandoned
WALL = 600.0
N = 100_000


def _tree(tmp: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


#: id → (file name, contents)
SCANS: dict[str, tuple[str, str]] = {
    "template-sniffing": ("template.yaml", "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: '" + "{{" * N + "'\n"),
    "github-expressions": (
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: '" + "${{" * N + "'\n",
    ),
    "trailing-tab-repair": ("deploy.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\t" + " \t" * N + "y:\n"),
    "key-lines": ("serve.yaml", "\n" * N + "vllm: 1\n" + " " * N + "\n"),
    "blank-indentation": ("compose.yaml", "services:\n" + "\n" * N + "  x:\n" + " " * N),
    # is_template_file: a backward scan over the blanks before each `{{`, not a strip of the line
    "template-file-lines": ("values.yaml", "a: '" + "{{ " * N + "'\n"),
    # Makefile: assignment modifiers, rule colons, nested references, long continued lines
    "makefile-lines": ("Makefile", "export " * N + "\n" + "x" * N + " \t" * N + "\n\tvllm serve " + "$(" * N + "\n"),
    "makefile-continuations": ("Makefile", "A = " + "\\\n" * N + "1\nserve:\n\tvllm serve $(A)" + " \\\n\t" * N + "\n"),
    "justfile-interpolation": ("justfile", "m := " + '"' * N + "\nserve:\n    vllm serve " + "{{" * N + "\n"),
    "supervisord-expansions": (
        "conf.d/v.conf",
        "[program:v]\ncommand=vllm serve " + "%(" * N + "\n" + "   ;" * N + "\n",
    ),
    "systemd-continuations": (
        "v.service",
        "[Service]\nExecStart=vllm serve x" + " \\\n" * N + "\nEnvironment=" + '"' * N + "\n",
    ),
}


def _gitignore_cases(root: Path) -> dict[str, tuple[Path, list[str]]]:
    """The .gitignore cases: id → (lint root, arguments)."""
    glob = root / "catastrophic-glob"
    _tree(glob, {".gitignore": "*a" * 40 + "b\n", "a" * 200 + ".sh": "vllm serve m/x\n", "run.sh": "vllm serve m/x\n"})
    bad_range = root / "invalid-range"
    _tree(bad_range, {".gitignore": "[z-a]\n*.log\n", "run.sh": "vllm serve m/x --max-model-lenn 1\n", "x.log": ""})
    cases = {"catastrophic-glob": (glob, ["."]), "invalid-range": (bad_range, ["."])}
    if os.path.exists("/dev/zero"):
        zero = root / "dev-zero"
        _tree(zero, {"run.sh": "vllm serve m/x --max-model-lenn 1\n"})
        (zero / ".gitignore").symlink_to("/dev/zero")
        cases["dev-zero"] = (zero, ["."])
    outside = root / "outside"
    repo = outside / "repo"
    _tree(outside, {"secret-ignore": "run.sh\n", "repo/run.sh": "vllm serve m/x --max-model-lenn 1\n"})
    (repo / ".git").mkdir()
    (repo / ".gitignore").symlink_to(outside / "secret-ignore")
    cases["outside-the-root"] = (repo, ["."])
    return cases


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run | str]:
    """Every case of this module linted in one child process, each under the CPU deadline."""
    root = tmp_path_factory.mktemp("bounded")
    cases: dict[str, tuple[Path, list[str]]] = {}
    for case_id, (name, content) in SCANS.items():
        _tree(root / case_id, {name: content})
        cases[case_id] = (root / case_id, [name])
    cases.update(_gitignore_cases(root / "gitignore"))
    return lint_bounded_many(cases, cpu_seconds=DEADLINE, timeout=WALL)


def result(bounded: dict[str, Run | str], case_id: str) -> Run:
    run = bounded[case_id]
    assert isinstance(run, Run), f"{case_id}: {run}"
    return run


@pytest.mark.parametrize("case_id", list(SCANS))
def test_linear_scans(bounded: dict[str, Run | str], case_id: str) -> None:
    assert result(bounded, case_id).exit_code in (0, 1, 2)


def test_the_deadline_stops_a_quadratic_scan(tmp_path: Path) -> None:
    """The deadline has teeth at this N: the old template-sniffing expression over ``"{{" * N`` (a
    quadratic scan, in C) is stopped by the CPU deadline of the child, reported by its id, and the case
    after it still runs in a new child."""
    _tree(tmp_path, {"ok.sh": "vllm serve m/x\n"})
    quadratic = f"import re\nre.findall(r'\\{{\\{{.*?\\}}\\}}', '{{{{' * {N})\n"
    runs = lint_bounded_many({"quadratic": (tmp_path, quadratic), "after": (tmp_path, ["ok.sh"])}, cpu_seconds=1)
    assert runs["quadratic"] == "over the CPU deadline of 1 s"
    after = runs["after"]
    assert isinstance(after, Run) and after.exit_code in (0, 1) and after.report["files"][0]["path"] == "ok.sh"


def test_catastrophic_gitignore_glob(bounded: dict[str, Run | str]) -> None:
    """``*a*a*a…b`` against a long name: exponential as a regex, linear as an NFA."""
    run = result(bounded, "catastrophic-glob")
    assert {f["path"] for f in run.report["files"]} >= {"run.sh"}
    assert compile_glob("*a" * 40 + "b").match("a" * 5000) is False


def test_invalid_gitignore_range_is_not_an_aborted_run(bounded: dict[str, Run | str]) -> None:
    run = result(bounded, "invalid-range")
    assert run.exit_code == 1
    assert "VL001" in [f["code"] for f in run.report["findings"] if f["path"] == "run.sh"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_gitignore_linked_to_dev_zero(bounded: dict[str, Run | str]) -> None:
    run = result(bounded, "dev-zero")
    assert "VL001" in [f["code"] for f in run.report["findings"]]


def test_gitignore_outside_the_root_is_not_read(bounded: dict[str, Run | str]) -> None:
    run = result(bounded, "outside-the-root")
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
    output format as escapes; the run finishes and reports the other files. Each format in this
    process (the bytes written must decode as strict UTF-8); the text format also in a real process
    whose stdout is strict UTF-8 (``PYTHONIOENCODING=utf-8``), as a CI log is."""
    import subprocess
    import sys

    from click.testing import CliRunner

    from vlint.cli import main

    _tree(
        tmp_path,
        {"serve.yaml": 'model: "m/\\ud800x"\nmax-model-lenn: 1\n', "run.sh": "vllm serve m/x --max-model-lenn 1\n"},
    )
    (tmp_path / os.fsdecode(b"odd-\xff.sh")).write_bytes(b"vllm serve m/x --max-model-lenn 1\n")
    args = ["--isolated", "--format", fmt, "."]
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        res = CliRunner().invoke(main, args)
    finally:
        os.chdir(cwd)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code in (1, 2)
    text = res.stdout_bytes.decode("utf-8")  # valid UTF-8 whatever the file names held
    assert "run.sh" in text and "odd-" in text
    if fmt != "text":
        return
    r = subprocess.run(
        [sys.executable, "-m", "vlint.cli", *args],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), PYTHONIOENCODING="utf-8"),
        capture_output=True,
        timeout=WALL,
    )
    assert b"Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.returncode in (1, 2)
    out = r.stdout.decode("utf-8")  # valid UTF-8 whatever the file names held
    assert "run.sh" in out and "odd-" in out
