"""The click options several commands take, defined once (``--root``, ``--config``, ``--isolated``,
the rule selection, the target release and GPU…), and :func:`usage_errors`, which shows a
:class:`~vlint.commands.common.UsageProblem` as click's usage error."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import click

from vlint.commands.common import UsageProblem
from vlint.core.typing_names import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def usage_errors(f: F) -> F:
    """A command's callback that raises :class:`UsageProblem` exits as click's usage error does (exit 2,
    ``Invalid value for '--gpu': …`` under the command's usage line). Put it below the click decorators."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except UsageProblem as e:
            if e.param_hint:
                raise click.BadParameter(e.message, param_hint=e.param_hint) from None
            raise click.UsageError(e.message) from None

    return cast(F, wrapper)


# -- options several commands take ------------------------------------------------------------------
def config_options(f: F) -> F:
    """``--config FILE`` and ``--isolated``."""
    f = click.option(
        "--isolated",
        is_flag=True,
        help="Ignore every configuration file (.vlint.toml, [tool.vlint]): for untrusted pull requests.",
    )(f)
    return click.option(
        "--config",
        "config_file",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Use this pyproject.toml or .vlint.toml for every file instead of the nearest one.",
    )(f)


def root_option(f: F) -> F:
    """``--root DIR``: the lint root (:mod:`vlint.security.lint_root`)."""
    return click.option(
        "--root",
        "lint_root",
        type=click.Path(path_type=Path, file_okay=False, exists=True),
        help="The only folder whose files vlint reads on its own (--config targets, env files, model "
        "folders…); fixes are written only inside it [default: the git work tree of PATHS, else their "
        "common folder].",
    )(f)


def model_config_option(f: F) -> F:
    """``--model-config [NAME=]PATH`` (repeatable; the command gets ``model_configs``)."""
    return click.option(
        "--model-config",
        "model_configs",
        multiple=True,
        metavar="[NAME=]PATH",
        help="Model facts from this config.json (or a folder with one), for every launch, or with NAME= for "
        "the launches of model NAME (or served name). Repeatable; read wherever it is.",
    )(f)


def target_options(f: F) -> F:
    """``--vllm-version``, ``--gpu``, ``--gpu-memory-gib``, ``--online``, ``--model-config``."""
    f = model_config_option(f)
    f = click.option("--online", is_flag=True, help="Allow fetching model config.json from the Hugging Face Hub.")(f)
    f = click.option("--gpu-memory-gib", type=float, help="GPU memory as vLLM sees it, for GPUs vlint does not know.")(
        f
    )
    f = click.option(
        "--gpu-free-gib",
        type=click.FloatRange(min=0),
        help="GiB free on each GPU before vLLM starts, where the GPU is known "
        "(a display or another engine holds the rest; config gpu-free-gib).",
    )(f)
    f = click.option(
        "--gpu",
        help="GPU type and count, e.g. H100 or A100-40GB:2; overrides what the files say (config gpu does not).",
    )(f)
    return click.option(
        "--vllm-version",
        help="Target vLLM release (X.Y or X.Y.Z); overrides image tags and pins (config vllm-version does not).",
    )(f)


def selection_options(f: F) -> F:
    """``--select``, ``--extend-select``, ``--ignore``."""
    f = click.option("--ignore", multiple=True, help="Skip these rules (codes, prefixes or names).")(f)
    f = click.option(
        "--extend-select", multiple=True, help="Add rules to the selected set (off-by-default ones by code or name)."
    )(f)
    return click.option("--select", multiple=True, help="Only these rules (codes, prefixes such as VL1, or names).")(f)


def exclude_options(f: F) -> F:
    """``--exclude`` and ``--extend-exclude``."""
    f = click.option(
        "--extend-exclude",
        multiple=True,
        metavar="GLOB",
        help="Also skip files and folders matching GLOB (relative to the current folder), keeping the defaults.",
    )(f)
    return click.option(
        "--exclude",
        multiple=True,
        metavar="GLOB",
        help="Skip files and folders matching GLOB, instead of the config's exclude and vlint's default "
        "folders (.venv, node_modules, build…).",
    )(f)
