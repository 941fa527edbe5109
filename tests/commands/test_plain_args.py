"""The click-free reader of a plain ``vlint PATH…`` (:mod:`vlint.commands.plain_args`) against click's
own reading of ``vlint check``: same fields, same defaults, same values on the same command lines, and
``None`` (click reads it) for everything else."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from vlint.cli import invoke
from vlint.commands import COMMANDS
from vlint.commands.check import check_cmd
from vlint.commands.lint_run import CheckArgs
from vlint.commands.plain_args import CHOICES, COUNTS, FLAGS, MULTIPLE, STRINGS, plain_args
from vlint.core import record as records

#: check's options that hand the run to ``vlint fix`` (never on the fast path)
FIX_ONLY = {"apply_fixes", "show_diff", "unsafe_fixes"}


def _params() -> dict[str, click.Parameter]:
    return {p.name: p for p in check_cmd.params if p.name is not None}


def _option(flag: str) -> click.Option:
    for p in check_cmd.params:
        if isinstance(p, click.Option) and flag in p.opts + p.secondary_opts:
            return p
    raise AssertionError(f"vlint check has no option {flag}")


def test_check_args_are_the_click_parameters_with_their_defaults() -> None:
    """One field per parameter of ``vlint check`` (the fix options aside), each defaulting to what click
    passes when the option is not given."""
    assert {f.name for f in records.fields(CheckArgs)} == set(_params()) - FIX_ONLY
    assert _click_reading([]) == CheckArgs()


@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_each_flag_is_a_click_flag_of_the_same_field(flag: str) -> None:
    opt = _option(flag)
    assert opt.is_flag and not opt.multiple and opt.name == FLAGS[flag]


def test_each_valued_option_matches_click() -> None:
    for flag, (field, allowed) in CHOICES.items():
        opt = _option(flag)
        assert opt.name == field and isinstance(opt.type, click.Choice) and tuple(opt.type.choices) == allowed
    for flag, field in STRINGS.items():
        opt = _option(flag)
        assert opt.name == field and opt.type is click.STRING and not opt.multiple
    for flag, field in MULTIPLE.items():
        opt = _option(flag)
        assert opt.name == field and opt.type is click.STRING and opt.multiple
    for flag, field in COUNTS.items():
        opt = _option(flag)
        assert opt.name == field and isinstance(opt.type, click.IntRange) and opt.type.min == 1


def _click_reading(argv: list[str]) -> CheckArgs:
    ctx = check_cmd.make_context("check", list(argv))
    return CheckArgs(**{k: v for k, v in ctx.params.items() if k not in FIX_ONLY})


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["examples/serve.yaml"],
        ["examples/serve.yaml", "examples/start.sh"],
        ["--isolated", "examples"],
        ["-q", "--no-color", "--format", "json", "examples/serve.yaml"],
        ["--format=sarif", "--fail-on", "error", "--exit-zero", "examples"],
        ["--select", "VL1", "--select=VL2", "--ignore", "VL230", "--extend-select", "VL903", "examples"],
        ["--gpu", "H100:2", "--vllm-version", "0.10.2", "--gpu", "L4", "examples/serve.yaml"],
        ["-j", "2", "--jobs=3", "--exclude", "k8s/*", "--extend-exclude", "x", "examples"],
        ["--online", "--statistics", "--no-render", "--no-suppress", "--quiet", "examples"],
    ],
)
def test_reads_like_click(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert plain_args(argv, COMMANDS) == _click_reading(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["rules"],
        ["check", "examples"],
        ["--help"],
        ["-h"],
        ["--version"],
        ["-"],
        ["--", "examples"],
        ["no-such-file.yaml"],
        ["--format", "xml", "examples"],
        ["--fail-on", "never", "examples"],
        ["-j", "0", "examples"],
        ["-j", "two", "examples"],
        ["-qj2", "examples"],
        ["--gpu"],
        ["--gpu", "--isolated", "examples"],
        ["--isolated=yes", "examples"],
        ["--fix", "examples"],
        ["--baseline", "b.json", "examples"],
        ["--config", "pyproject.toml", "examples"],
    ],
)
def test_everything_else_goes_to_click(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert plain_args(argv, COMMANDS) is None


def test_a_value_the_run_refuses_is_said_by_click(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--gpu NOPE`` passes the plain reader; the run refuses it before linting, and click says so with
    the command's usage line, exit 2 — as without the fast path."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert plain_args(["--gpu", "NOPE", "examples/serve.yaml"], COMMANDS) is not None
    assert invoke(["--isolated", "--gpu", "NOPE", "examples/serve.yaml"]) == 2
    err = capsys.readouterr().err
    assert "Usage: vlint check" in err and "Invalid value for --gpu: unknown GPU 'NOPE'" in err


def test_the_fast_path_lints_as_click_does(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    argv = ["--isolated", "--format", "json", "examples/serve.yaml"]
    fast = invoke(argv), capsys.readouterr().out
    slow = invoke(["check", *argv]), capsys.readouterr().out  # a command name: click reads it
    assert fast == slow and fast[0] == 1 and '"VL011"' in fast[1]
