"""Hostile input: every case gets a clear per-file error or a normal result, in bounded time and memory,
and never a traceback. The payload matrix (every YAML source × YAML bombs, deep nesting, absurd numbers,
Python tags; shell, Python, Dockerfile and .env bombs) runs in one child process with a capped address
space; the file-system cases and the safety net run in this process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vlint.run.lint import DEFAULT_MAX_FILE_SIZE, MAX_LAUNCH_WORDS
from vlint.sources import yaml_nodes
from vlint.sources.scripts import shell_eval, shell_lexer

from .hostile import (
    OTHER_PAYLOADS,
    TIME_LIMIT_S,
    YAML_PAYLOADS,
    Run,
    inject,
    lint,
    lint_bounded,
    lint_bounded_many,
    write_tree,
    yaml_seed_names,
)
from .seeds import MODEL, SEEDS

#: what a per-file error may say for the payload matrix (anything else, e.g. an internal error, fails)
CLEAN_ERRORS = (
    "YAML nested deeper than",
    "YAML uses aliases more than",
    "invalid YAML:",
    "shell syntax error:",
    "Python syntax error:",
    "cannot read this Python file:",
    "this launch has ",
)

MATRIX: dict[str, str] = {
    **{f"{p}/{seed}": inject(SEEDS[seed], text) for seed in yaml_seed_names() for p, text in YAML_PAYLOADS.items()},
    **OTHER_PAYLOADS,
}

#: (file, what its result must be): an error containing the text, or ``None``: linted, no error
EXPECTED: dict[str, str | None] = {
    # alias bombs are never expanded: the launch is read, or the alias budget stops the conversion
    "billion-laughs/deploy.yaml": None,
    "billion-laughs/values.yaml": None,
    "billion-laughs/docker-compose.yml": None,
    "billion-laughs/serve.yaml": "YAML uses aliases more than 10000 times",
    "billion-laughs/ray.yaml": "YAML uses aliases more than 10000 times",
    "alias-chain/deploy.yaml": "YAML nested deeper than 200 levels",
    "alias-chain/values.yaml": "YAML nested deeper than 200 levels",
    "alias-cycle/deploy.yaml": "a cycle",
    "alias-cycle/values.yaml": "a cycle",
    "deep-sequence/deploy.yaml": "YAML nested deeper than 200 levels",
    "deep-sequence/values.yaml": "YAML nested deeper than 200 levels",
    "deep-mapping/ray.yaml": "YAML nested deeper than 200 levels",
    "deep-json-string/serve.yaml": None,
    "deep-json-string/deploy.yaml": None,
    "deep-json-array/values.yaml": None,
    "int-10**400/serve.yaml": None,
    "int-10**400/sky.yaml": None,
    "float-1e309/serve.yaml": None,
    "nan/deploy.yaml": None,
    "minus-inf/values.yaml": None,
    "python-tag/serve.yaml": None,
    "python-exec-tag/deploy.yaml": None,
    "python-new-tag/values.yaml": None,
    "shell-nested-braces.sh": "nested more than 50 levels",
    "shell-nested-subst.sh": None,
    "shell-nested-quotes.sh": None,
    "shell-variable-doubling.sh": None,
    "shell-array-bomb.sh": "expands to more than",
    "shell-unterminated-quote.sh": "unterminated double quote",
    "shell-unterminated-single.sh": "unterminated single quote",
    "shell-unterminated-heredoc.sh": "never closed",
    "shell-unterminated-subst.sh": "unterminated $(...)",
    "shell-continuation-at-eof.sh": None,
    "shell-deep-parens.sh": None,
    "shell-deep-if.sh": None,
    "shell-recursive-function.sh": None,
    "shell-sources-itself.sh": None,
    "shell-absurd-numbers.sh": None,
    "python-deep-binop.py": "cannot read this Python file",
    "python-deep-attribute.py": "cannot read this Python file",
    "python-deep-parens.py": "too many nested parentheses",
    "python-deep-unary.py": "too deeply nested",
    "python-deep-lambda.py": "too deeply nested",
    "python-string-doubling.py": None,
    "python-int-squaring.py": None,
    "python-fstring-doubling.py": None,
    "python-join-doubling.py": None,
    "python-recursive-function.py": None,
    "dockerfile-env-doubling/Dockerfile": None,
    "dockerfile-arg-doubling/Dockerfile": None,
    "dockerfile-deep-exec/Dockerfile": None,
    "dockerfile-huge-exec/Dockerfile": f"over the limit of {MAX_LAUNCH_WORDS:,}",
    "dockerfile-nested-braces/Dockerfile": None,
    "dotenv-doubling/.env": None,
    "dotenv-nested/.env": None,
    "compose-nested/docker-compose.yml": None,
}


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    root = tmp_path_factory.mktemp("hostile")
    write_tree(root, MATRIX)
    return root, lint_bounded(root, ".")


def test_matrix_runs_in_bounded_time_and_memory(matrix: tuple[Path, Run]) -> None:
    _, run = matrix
    assert run.exit_code == 2  # some files are refused: the others are still reported
    assert sorted(f["path"] for f in run.report["files"]) == sorted(MATRIX)
    # ~165 files of bombs in a 2 GiB address space (lint_bounded): a few seconds
    assert run.seconds < 4 * TIME_LIMIT_S


@pytest.mark.parametrize("path", sorted(MATRIX))
def test_hostile_file_gets_a_clean_result(matrix: tuple[Path, Run], path: str) -> None:
    _, run = matrix
    error = run.error(path)
    if error is not None:
        assert error.startswith(CLEAN_ERRORS), error
        assert "internal error" not in error
    if path in EXPECTED:
        want = EXPECTED[path]
        if want is None:
            assert error is None, error
            if not path.endswith(".env") and "templates/" not in path:
                assert run.file(path)["launches"] >= 1, run.file(path)
        else:
            assert error is not None and want in error, error


def test_python_tags_are_never_constructed(matrix: tuple[Path, Run]) -> None:
    """``!!python/object/apply:os.system ['touch PWNED']`` (and exec, and object/new) in every YAML
    source: constructing any of them would create the file; the tags are read as plain data."""
    root, run = matrix
    assert [p for p in root.rglob("PWNED")] == []
    assert not Path("PWNED").exists()
    # the tagged value is still where the setting is: the launch was read
    assert run.file("python-tag/deploy.yaml")["launches"] == 1


def test_python_tag_in_a_custom_rule_file_is_not_constructed(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "ORG001.yaml").write_text(
        "code: ORG001\nname: x\nseverity: warning\nsummary: !!python/object/apply:os.system ['touch PWNED']\n"
        "message: m\nwhen: {}\n"
    )
    (tmp_path / "start.sh").write_text(SEEDS["start.sh"])
    from click.testing import CliRunner

    from vlint.cli import main

    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(main, ["--isolated", "--rules-dir", "rules", "start.sh"], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert r.exit_code == 2 and "vlint: error:" in r.output
    assert not (tmp_path / "PWNED").exists()


# -- the file system ---------------------------------------------------------------------------------
def test_a_200_mib_file_is_refused_without_being_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.sh"
    with big.open("wb") as f:
        f.truncate(200 * 2**20)  # sparse: takes no disk space
    (tmp_path / "ok.sh").write_text(SEEDS["start.sh"])
    real_open, real_read_bytes = Path.open, Path.read_bytes

    def guarded(self: Path, *a: object, **kw: object):  # type: ignore[no-untyped-def]
        if self.name == "big.sh":
            raise AssertionError("the 200 MiB file was opened")
        return real_open(self, *a, **kw)  # type: ignore[arg-type]

    def guarded_read(self: Path) -> bytes:
        # only the big file: vlint's own data (a release's schema not loaded yet in this process) is
        # read this way too, so the test must not depend on which tests ran before it
        if self.name == "big.sh":
            pytest.fail(f"read_bytes({self})")
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "open", guarded)
    monkeypatch.setattr(Path, "read_bytes", guarded_read)
    run = lint(tmp_path, ".")
    assert run.exit_code == 2
    assert run.error("big.sh") == "file is 200.0 MiB, over the 10 MiB limit (--max-file-size)"
    assert run.file("ok.sh")["launches"] == 1
    assert run.seconds < TIME_LIMIT_S


def test_max_file_size_option(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_text(SEEDS["start.sh"] + "#" * (2 * 2**20) + "\n")
    assert "over the 1 MiB limit" in (lint(tmp_path, "--max-file-size", "1", "start.sh").error("start.sh") or "")
    assert lint(tmp_path, "--max-file-size", "3", "start.sh").error("start.sh") is None
    assert DEFAULT_MAX_FILE_SIZE == 10 * 2**20


def test_a_file_that_grows_past_the_limit_after_stat_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/proc files say size 0: the reader reads at most limit + 1 bytes, whatever stat said."""
    (tmp_path / "start.sh").write_text(SEEDS["start.sh"] + "#" * (2 * 2**20) + "\n")
    real_stat = Path.stat

    class Small:
        def __init__(self, st: os.stat_result) -> None:
            self.st_mode, self.st_size = st.st_mode, 0

    monkeypatch.setattr(Path, "stat", lambda self, **kw: Small(real_stat(self, **kw)))  # type: ignore[arg-type]
    assert "over the 1 MiB limit" in (lint(tmp_path, "--max-file-size", "1", "start.sh").error("start.sh") or "")


def test_symlink_loops_in_a_tree(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to("..")  # a folder loop: symlinked folders are not followed
    (tmp_path / "self.sh").symlink_to("self.sh")
    (tmp_path / "a.sh").symlink_to("b.sh")
    (tmp_path / "b.sh").symlink_to("a.sh")
    (tmp_path / "ok.sh").write_text(SEEDS["start.sh"])
    run = lint(tmp_path, ".")
    assert [f["path"] for f in run.report["files"]] == ["ok.sh"]
    assert run.exit_code == 0 and run.seconds < TIME_LIMIT_S


@pytest.mark.parametrize("name", ["self.sh", "a.sh"])
def test_a_symlink_loop_given_explicitly_is_a_file_error(tmp_path: Path, name: str) -> None:
    (tmp_path / "self.sh").symlink_to("self.sh")
    (tmp_path / "a.sh").symlink_to("b.sh")
    (tmp_path / "b.sh").symlink_to("a.sh")
    (tmp_path / "ok.sh").write_text(SEEDS["start.sh"])
    run = lint(tmp_path, name, "ok.sh")
    assert run.error(name) == "cannot read: Too many levels of symbolic links"
    assert run.file("ok.sh")["launches"] == 1


def test_a_linked_config_that_is_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").symlink_to("c.yaml")
    (tmp_path / "start.sh").write_text("vllm serve m --config c.yaml\n")
    run = lint(tmp_path, "start.sh")
    assert run.error("start.sh") is None
    msgs = [f["message"] for f in run.report["findings"] if f["code"] == "VL010"]
    assert msgs and "Too many levels of symbolic links" in msgs[0]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files without read permission")
def test_an_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "secret.sh").write_text(SEEDS["start.sh"])
    (tmp_path / "secret.sh").chmod(0)
    (tmp_path / "ok.sh").write_text(SEEDS["start.sh"])
    try:
        run = lint(tmp_path, ".")
    finally:
        (tmp_path / "secret.sh").chmod(0o644)
    assert run.exit_code == 2 and run.error("secret.sh") == "permission denied"
    assert run.file("ok.sh")["launches"] == 1


def test_an_unreadable_file_with_open_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same code path where the tests run as root: opening the file raises PermissionError."""
    (tmp_path / "secret.sh").write_text(SEEDS["start.sh"])
    (tmp_path / "ok.sh").write_text(SEEDS["start.sh"])
    real_open = os.open

    def deny(path: object, *a: object, **kw: object) -> int:
        if os.fsdecode(path).endswith("secret.sh"):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", os.fsdecode(path))  # type: ignore[arg-type]
        return real_open(path, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", deny)
    run = lint(tmp_path, ".")
    assert run.exit_code == 2 and run.error("secret.sh") == "permission denied"
    assert run.file("ok.sh")["launches"] == 1


def test_a_directory_given_as_a_file(tmp_path: Path) -> None:
    (tmp_path / "conf.yaml").mkdir()  # a folder with a config's name: walked, nothing in it
    (tmp_path / "start.sh").write_text(f"vllm serve {MODEL} --config conf.yaml\n")
    run = lint(tmp_path, "conf.yaml", "start.sh")
    assert [f["path"] for f in run.report["files"]] == ["start.sh"]
    vl010 = [f["message"] for f in run.report["findings"] if f["code"] == "VL010"]
    assert vl010 and "is a directory, not a file" in vl010[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_and_a_device_are_refused_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.sh")  # reading it would block forever
    (tmp_path / "zero.sh").symlink_to("/dev/zero")  # reading it would never end
    run = lint(tmp_path, "pipe.sh", "zero.sh")
    assert run.error("pipe.sh") == run.error("zero.sh") == "not a regular file (a device, pipe or socket)"
    assert run.seconds < TIME_LIMIT_S


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_empty_files_of_every_source(tmp_path: Path, name: str) -> None:
    write_tree(tmp_path, {name: ""})
    run = lint(tmp_path, name)
    assert run.exit_code == 0 and run.error(name) is None and run.report["findings"] == []


# -- encodings and bytes ------------------------------------------------------------------------------
def test_binary_and_nul_bytes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"bin.sh": bytes(range(256)) * 64, "nul.yaml": b"model: m\x00\n", "ok.sh": SEEDS["start.sh"]})
    run = lint(tmp_path, ".")
    assert run.error("bin.sh") == run.error("nul.yaml") == "binary file (NUL bytes), not a text config"
    assert run.file("ok.sh")["launches"] == 1


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    write_tree(tmp_path, {"start.sh": b"# ok\nvllm serve m \xff\xfe\n"})
    run = lint(tmp_path, "start.sh")
    # not an error (issue 15): read as Windows-1252 and reported on the line of the first such byte
    assert run.error("start.sh") is None
    notes = [f for f in run.report["findings"] if f["code"] == "VL050"]
    assert [(f["line"], f["data"]["bytes"]) for f in notes] == [(2, 2)]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"])
@pytest.mark.parametrize("name", ["start.sh", "serve.yaml", "deploy.yaml"])
def test_bom_encodings_with_crlf(tmp_path: Path, encoding: str, name: str) -> None:
    text = SEEDS[name].replace("\n", "\r\n")
    data = text.encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):  # these codecs write no BOM: add the one editors write
        data = "\ufeff".encode(encoding) + data
    write_tree(tmp_path, {name: data, "plain/" + name: SEEDS[name]})
    run = lint(tmp_path, name, "plain/" + name)
    assert run.error(name) is None
    mine = [(f["code"], f["line"], f["column"]) for f in run.report["findings"] if f["path"] == name]
    plain = [(f["code"], f["line"], f["column"]) for f in run.report["findings"] if f["path"] == "plain/" + name]
    assert run.file(name)["launches"] == 1 and mine == plain


def test_crlf_line_continuations(tmp_path: Path) -> None:
    write_tree(
        tmp_path, {"start.sh": f"vllm serve {MODEL} \\\r\n  --max-model-len 4096 \\\r\n  --max-model-lenn 1\r\n"}
    )
    run = lint(tmp_path, "start.sh")
    (f,) = [f for f in run.report["findings"] if f["code"] == "VL001"]
    assert (f["line"], f["column"]) == (3, 3)


def test_tabs_in_yaml(tmp_path: Path) -> None:
    k8s = SEEDS["deploy.yaml"].replace("        args:", "\targs:")
    write_tree(tmp_path, {"deploy.yaml": k8s, "serve.yaml": "model: m\n\tmax-model-len: 4096\n"})
    run = lint(tmp_path, ".")
    err = run.file("deploy.yaml")["error"]
    assert err["message"].startswith("invalid YAML:") and err["line"] == 11
    # not YAML, and nothing says it is a vLLM config: not a deployment file, no error
    assert run.error("serve.yaml") is None and run.file("serve.yaml")["sources"] == []


# -- sizes and numbers ---------------------------------------------------------------------------------
def test_huge_argv_is_refused_quickly(tmp_path: Path) -> None:
    flags = " ".join(f"--flag{i}" for i in range(100_000))
    write_tree(tmp_path, {"start.sh": f"vllm serve m {flags}\n", "ok.sh": SEEDS["start.sh"]})
    run = lint(tmp_path, ".")
    assert (
        run.error("start.sh")
        == f"this launch has 100,001 arguments, over the limit of {MAX_LAUNCH_WORDS:,}: not linted"
    )
    assert run.file("ok.sh")["launches"] == 1
    assert run.seconds < TIME_LIMIT_S


def test_thousands_of_findings_on_one_long_line(tmp_path: Path) -> None:
    """9,000 unknown flags on one line: every finding is reported, and all five formats render in bounded
    time together (each line is normalized, hashed and redacted once, not once per finding): one run
    prints the text report and writes the other four with ``--also``."""
    import time

    from click.testing import CliRunner

    from vlint.cli import main

    write_tree(tmp_path, {"start.sh": "vllm serve m " + " ".join(f"--flag{i}" for i in range(9000)) + "\n"})
    others = ("json", "sarif", "github", "gitlab")
    also = [a for f in others for a in ("--also", f"{f}=report.{f}")]
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        start = time.perf_counter()
        r = CliRunner().invoke(
            main, ["--isolated", "-j", "1", "--format", "text", *also, "start.sh"], catch_exceptions=False
        )
        seconds = time.perf_counter() - start
    finally:
        os.chdir(old)
    assert r.exit_code == 1 and r.output.count("--flag8999") >= 1
    for f in others:
        assert (tmp_path / f"report.{f}").read_text().count("--flag8999") >= 1, f
    assert seconds < TIME_LIMIT_S


@pytest.mark.parametrize("value", ["1e309", "-1e309", "NaN", "inf", "-5", "0", "9" * 400, "0x10", "1_000"])
def test_absurd_numbers_on_the_command_line(tmp_path: Path, value: str) -> None:
    opts = ("--max-model-len", "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens")
    line = f"vllm serve {MODEL} " + " ".join(f"{o} {value}" for o in opts) + "\n"
    write_tree(tmp_path, {"start.sh": line})
    run = lint(tmp_path, "--gpu", "H100", "start.sh")  # the GPU makes the memory model run
    assert run.error("start.sh") is None and run.exit_code in (0, 1)


PARALLEL_SIZES = ["1000000007", "9" * 400, "4097", "1025", "-3", "0"]
#: CPU seconds each size may take (a billion-step loop takes minutes; a size is linted in milliseconds)
PARALLEL_CPU_SECONDS = 20


@pytest.fixture(scope="module")
def parallel_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run | str]:
    """Every size of test_absurd_parallel_sizes_finish in one child process, each under a CPU deadline."""
    root = tmp_path_factory.mktemp("parallel")
    cases: dict[str, tuple[Path, list[str] | str]] = {}
    for value in PARALLEL_SIZES:
        line = (
            "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 "
            f"--tensor-parallel-size {value} --pipeline-parallel-size {value}\n"
        )
        write_tree(root / value[:20], {"start.sh": line})
        cases[value] = (root / value[:20], ["--gpu", "H100", "start.sh"])
    return lint_bounded_many(cases, cpu_seconds=PARALLEL_CPU_SECONDS, timeout=120)


@pytest.mark.parametrize("value", PARALLEL_SIZES)
def test_absurd_parallel_sizes_finish(parallel_runs: dict[str, Run | str], value: str) -> None:
    """A fuzzed --tensor-parallel-size 1000000007 once sent VL205's fix search on a billion-step loop:
    in a child process with a CPU deadline (one child for all sizes), every size gets a result
    (qwen2.5-7b: 28 heads, 4 KV heads)."""
    run = parallel_runs[value]
    assert isinstance(run, Run), run
    assert run.error("start.sh") is None and run.exit_code in (0, 1)


@pytest.mark.parametrize("value", ["1" + "0" * 400, "1e309", ".nan", "-.inf", "-5", "0b101", "0x_ff", "1:30"])
def test_absurd_numbers_in_yaml(tmp_path: Path, value: str) -> None:
    cfg = f"model: {MODEL}\nmax-model-len: {value}\ngpu-memory-utilization: {value}\nmax-num-seqs: {value}\n"
    write_tree(tmp_path, {"serve.yaml": cfg})
    run = lint(tmp_path, "--gpu", "H100", "serve.yaml")
    assert run.error("serve.yaml") is None and run.file("serve.yaml")["launches"] == 1


def test_limits_are_the_documented_ones() -> None:
    """docs/reliability.md lists these numbers."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "reliability.md").read_text(encoding="utf-8")
    for value in (
        yaml_nodes.MAX_DEPTH,
        yaml_nodes.MAX_ALIAS_EXPANSIONS,
        yaml_nodes.MAX_NODES,
        yaml_nodes.MAX_COMPOSED_NODES,
        shell_lexer.MAX_NESTING,
        shell_lexer.MAX_WORDS,
        shell_lexer.MAX_PARTS,
        shell_eval.MAX_VALUE_CHARS,
        shell_eval.MAX_ARRAY_ITEMS,
        shell_eval.MAX_EXPANDED_WORDS,
        MAX_LAUNCH_WORDS,
    ):
        assert f"{value:,}" in doc, value
