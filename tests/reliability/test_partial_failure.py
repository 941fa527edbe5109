"""A bad file never hides the others: 100 files of which 3 are broken give 97 linted files, 3 errors and
exit 2; a crash inside vlint on one file is that file's internal error; the output is the same bytes on
every run and with any number of workers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.run import lint as lint_module
from vlint.sources import registry
from vlint.sources.base import Source
from vlint.sources.scripts import shell

from .hostile import inject, lint, write_tree
from .seeds import SEEDS

BROKEN = {
    # (a byte that is not UTF-8 is no longer an error: read as Windows-1252, VL050; issue 15)
    "broken/binary.sh": b"vllm serve m \x00\x01\n",
    "broken/quote.sh": 'vllm serve m --max-model-len "4096\n',
    "broken/deploy.yaml": "apiVersion: v1\nkind: Pod\nspec: [\n",
}
FORMATS = ("text", "json", "sarif", "github", "gitlab")


def hundred_files() -> dict[str, str | bytes]:
    """97 good files over every source (values varied so that findings differ) and 3 broken ones."""
    names = sorted(SEEDS)
    files: dict[str, str | bytes] = {}
    for i in range(97):
        seed = names[i % len(names)]
        value = str(1024 * (i + 1)) if i % 3 else "4096 --gpu-memory-utilization 0.99"
        files[f"d{i:03d}/{seed}"] = inject(SEEDS[seed], value) if seed.endswith((".sh", ".yml")) else SEEDS[seed]
    files.update(BROKEN)
    assert len(files) == 100
    return files


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("partial")
    write_tree(root, hundred_files())
    return root


def cli(root: Path, *args: str) -> tuple[int, str]:
    old = Path.cwd()
    os.chdir(root)
    try:
        r = CliRunner().invoke(main, ["--isolated", *args], catch_exceptions=False, env={"GITHUB_ACTIONS": None})
    finally:
        os.chdir(old)
    return r.exit_code, r.stdout


def test_97_files_linted_3_errors_exit_2(tree: Path) -> None:
    run = lint(tree, ".")
    assert run.exit_code == 2
    files = run.report["files"]
    assert len(files) == 100
    errors = {f["path"]: f["error"] for f in files if f["error"] is not None}
    assert sorted(errors) == sorted(BROKEN)
    assert errors["broken/binary.sh"]["message"].startswith("binary file (NUL bytes)")
    assert errors["broken/quote.sh"]["message"] == "shell syntax error: unterminated double quote"
    assert errors["broken/deploy.yaml"]["message"].startswith("invalid YAML")
    good = [f for f in files if f["error"] is None]
    assert len(good) == 97
    # every source was linted in the good files, and their findings are in the same report
    assert sum(f["launches"] for f in good) >= 80
    flagged = {f["path"].split("/", 1)[0] for f in run.report["findings"]}
    assert len(flagged) >= 20 and not flagged & {"broken"}
    assert run.report["summary"]["file_errors"] == 3


def test_text_report_lists_errors_and_findings(tree: Path) -> None:
    code, out = cli(tree, "-j", "1", ".")
    assert code == 2
    for path in BROKEN:
        assert f"{path}" in out and "error:" in out
    assert "VL007" in out  # the files given --gpu-memory-utilization twice


def test_output_is_deterministic(tree: Path, tmp_path: Path) -> None:
    """Twice in a row, and with 1, 2 and 4 workers: the same bytes, in every format. Each run prints one
    format and writes the others with ``--also`` (so a report written to a file is the printed one too)."""
    runs = []
    for n, (j, shown) in enumerate(zip((1, 1, 2, 4, 2), FORMATS, strict=True)):
        also = [f for f in FORMATS if f != shown]
        args = [a for f in also for a in ("--also", f"{f}={tmp_path / f'{n}.{f}'}")]
        code, out = cli(tree, "--format", shown, "-j", str(j), *args, ".")
        assert code == 2 and out
        runs.append({shown: out} | {f: (tmp_path / f"{n}.{f}").read_text() for f in also})
    for fmt in FORMATS:
        assert len({r[fmt] for r in runs}) == 1, fmt
        if fmt in ("json", "sarif", "gitlab"):
            json.loads(runs[0][fmt])


def test_workers_really_run(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With -j 2 and 100 files the two passes go to worker processes (not a silent serial run)."""
    seen: list[int] = []
    real = lint_module._map

    def spy(fn, items, jobs, send=None, **kw):  # type: ignore[no-untyped-def]
        seen.append(jobs)
        return real(fn, items, jobs, send, **kw)

    monkeypatch.setattr(lint_module, "_map", spy)
    monkeypatch.setattr(lint_module, "POOL_FAILURES", [])
    cli(tree, "-j", "2", ".")
    assert seen == [2]
    assert lint_module.POOL_FAILURES == []  # the pool ran: no file was linted twice
    seen.clear()
    cli(tree / "d000", "-j", "2", ".")  # one file: stays in this process
    assert seen == []


def test_config_files_read_by_launches_are_the_same_in_workers(tmp_path: Path) -> None:
    """Workers lint each file on its own; a vLLM config that a script elsewhere reads (--config) is
    then checked again here as part of that launch, as a serial run does."""
    files: dict[str, str | bytes] = {f"f{i:03d}.sh": SEEDS["start.sh"] for i in range(60)}
    files["cfg/c.yaml"] = "max-model-len: 4096\nenable-prefix-caching: false\ngpu-memory-utilization: 0.97\n"
    files["cfg/alone.yaml"] = SEEDS["serve.yaml"]
    files["run.sh"] = "vllm serve meta-llama/Llama-3.1-8B-Instruct --config cfg/c.yaml\n"
    write_tree(tmp_path, files)
    serial = cli(tmp_path, "--format", "json", "-j", "1", ".")
    assert cli(tmp_path, "--format", "json", "-j", "2", ".") == serial
    doc = json.loads(serial[1])
    (c,) = [f for f in doc["files"] if f["path"] == "cfg/c.yaml"]
    assert c["used_by"] == ["run.sh"] and c["launches"] == 0
    assert {f["code"] for f in doc["findings"] if f["path"] == "cfg/c.yaml"} >= {"VL011"}


def test_a_broken_pool_falls_back_to_this_process(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import concurrent.futures

    class Broken:
        def __init__(self, *a: object, **kw: object) -> None:
            raise concurrent.futures.process.BrokenProcessPool("killed")

    expected = cli(tree, "--format", "json", "-j", "1", ".")
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Broken)
    assert cli(tree, "--format", "json", "-j", "2", ".") == expected


# -- the safety net: a crash inside vlint is one file's error --------------------------------------------
def _crashing(name: str, *, sniff: bool = False) -> Source:
    def boom(*a: object) -> object:
        raise KeyError("boom")

    def extract(src, read_file):  # type: ignore[no-untyped-def]
        if src.abspath.name == name:
            raise KeyError("boom")
        return shell.extract(src, read_file)

    if sniff:
        return Source("crashy", lambda src: boom() if src.abspath.name == name else False, extract)
    return Source("crashy", lambda src: src.abspath.suffix == ".sh", extract)


@pytest.mark.parametrize("where", ["extract", "sniff"])
def test_a_crashing_source_is_one_files_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    write_tree(tmp_path, {"bad.sh": SEEDS["start.sh"], "good.sh": SEEDS["start.sh"], "serve.yaml": SEEDS["serve.yaml"]})
    monkeypatch.setattr(registry, "SOURCES", (_crashing("bad.sh", sniff=where == "sniff"), *registry.SOURCES))
    run = lint(tmp_path, ".")
    assert run.exit_code == 2
    err = run.error("bad.sh") or ""
    assert err.startswith("internal error while reading this file") and "KeyError" in err
    assert "please report" in err and " at vlint." in err  # the innermost vlint frame: where to look
    assert run.file("good.sh")["launches"] == 1 and run.error("good.sh") is None
    assert run.file("serve.yaml")["launches"] == 1


def test_a_crashing_check_is_one_files_internal_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint import checks

    write_tree(tmp_path, {"a.sh": SEEDS["start.sh"], "b/serve.yaml": SEEDS["serve.yaml"].replace("8192", "1000")})
    real = checks.get_check

    def crashing_for_a(name: str):  # type: ignore[no-untyped-def]
        fn = real(name)
        if fn is None:
            return None

        def wrapped(ctx):  # type: ignore[no-untyped-def]
            if ctx.dep is not None and ctx.dep.invocation.span.path == "a.sh":
                raise ZeroDivisionError("division by zero")
            return fn(ctx)

        return wrapped

    monkeypatch.setattr("vlint.engine.runner.get_check", crashing_for_a)
    run = lint(tmp_path, ".")
    assert run.exit_code == 2
    assert (run.error("a.sh") or "").startswith("internal error while checking this file: ZeroDivisionError")
    assert run.error("b/serve.yaml") is None and run.file("b/serve.yaml")["launches"] == 1
    assert all(f["path"] != "a.sh" for f in run.report["findings"])


def test_the_safety_net_works_in_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files: dict[str, str | bytes] = {f"f{i:03d}.sh": SEEDS["start.sh"] for i in range(60)}
    write_tree(tmp_path, files)
    monkeypatch.setattr(registry, "SOURCES", (_crashing("f007.sh"), *registry.SOURCES))
    serial, parallel = (
        cli(tmp_path, "--format", "json", "-j", "1", "."),
        cli(tmp_path, "--format", "json", "-j", "2", "."),
    )
    assert serial == parallel
    doc = json.loads(parallel[1])
    errors = [f["path"] for f in doc["files"] if f["error"]]
    assert errors == ["f007.sh"] and parallel[0] == 2
