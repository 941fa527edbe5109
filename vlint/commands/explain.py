"""``vlint explain``: show vLLM's startup memory arithmetic for each launch, and what the fixes change."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from vlint.commands.common import (
    fail,
    parse_model_configs,
    use_color,
)
from vlint.commands.options import config_options, root_option, target_options, usage_errors
from vlint.core.record import replace
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.commands.settings import RunSettings
    from vlint.launch.deployment import Deployment
    from vlint.report.explain import WhatIf


def _parse_sets(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        key, eq, val = v.partition("=")
        if not eq or not key.strip():
            raise click.BadParameter(f"expected key=value, got {v!r}", param_hint="--set")
        out[key.strip()] = val.strip()
    return out


def what_ifs(dep: Deployment) -> list[WhatIf]:
    """The memory model re-run with each change vlint would suggest for this deployment."""
    from vlint.launch.memory_inputs import gpu_inputs
    from vlint.memory import estimate_memory
    from vlint.report.explain import WhatIf
    from vlint.resolve.parallel import tp_splits

    m = dep.memory
    if m is None or dep.arch is None or dep.gpu is None:
        return []
    base = gpu_inputs(dep)
    changes: list[tuple[str, dict[str, Any]]] = []
    if not m.starts and m.estimated_max_model_len:
        changes.append((f"--max-model-len {m.estimated_max_model_len}", {"max_model_len": m.estimated_max_model_len}))
    if str(base.kv_cache_dtype) == "auto" and not dep.arch.is_mla:
        changes.append(("--kv-cache-dtype fp8", {"kv_cache_dtype": "fp8"}))
    if base.max_num_batched_tokens > 16384:
        changes.append(
            (
                "--max-num-batched-tokens 8192 (chunked prefill on)",
                {"max_num_batched_tokens": 8192, "enable_chunked_prefill": True},
            )
        )
    if base.gpu_memory_utilization >= 0.95:
        changes.append(("--gpu-memory-utilization 0.9", {"gpu_memory_utilization": 0.9}))
    if not m.starts and m.failure_stage in ("weights", "no_kv_memory", "kv_cache_check"):
        tp = base.tensor_parallel_size * 2
        if tp_splits(dep.arch, tp):
            changes.append((f"--tensor-parallel-size {tp}", {"tensor_parallel_size": tp}))
    out = []
    for label, kw in changes:
        try:
            out.append(WhatIf(label, estimate_memory(replace(base, **kw))))
        except (ValueError, ZeroDivisionError):
            continue
    return out


@click.command("explain")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--model", help="Explain this model without a file (HF id or local folder).")
@target_options
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a setting (vLLM option name or dest), e.g. --set max_model_len=32768. Repeatable.",
)
@config_options
@root_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--no-color", is_flag=True, help="Plain text (also NO_COLOR=1).")
@usage_errors
def explain_cmd(
    paths: tuple[Path, ...],
    model: str | None,
    vllm_version: str | None,
    gpu: str | None,
    gpu_memory_gib: float | None,
    gpu_free_gib: float | None,
    online: bool,
    model_configs: tuple[str, ...],
    sets: tuple[str, ...],
    config_file: Path | None,
    isolated: bool,
    lint_root: Path | None,
    fmt: str,
    no_color: bool,
) -> None:
    """Show the memory budget vLLM will compute at startup for each launch in PATHS (or for --model).

    Each file is read with the settings of its nearest configuration, as `vlint check` reads it (the
    config's gpu and vllm-version where the file states none; --isolated ignores the config).
    With --set KEY=VALUE (repeatable) each launch is shown as written and with the changes, the two
    memory bars side by side and the numbers that move."""
    from vlint.commands.settings import CliSettings, RunSettings, SettingsError
    from vlint.config.files import ConfigError
    from vlint.launch.resolver import OverrideError
    from vlint.report.explain import compare_dict, explain_dict, render_compare, render_text
    from vlint.report.text import Styler
    from vlint.security.lint_root import find_root

    if not paths and not model:
        raise click.UsageError("give files to explain, or --model NAME")
    cli = CliSettings(
        vllm_version=vllm_version,
        gpu=gpu,
        gpu_memory_gib=gpu_memory_gib,
        gpu_free_gib=gpu_free_gib,
        online=online,
        model_configs=parse_model_configs(model_configs),
        overrides=_parse_sets(sets),
        config_file=config_file,
        isolated=isolated,
    )
    settings = RunSettings(cli)
    settings.lint_root = find_root(list(paths) or [Path(".")], lint_root)
    overrides = dict(cli.overrides)
    try:
        deployments, errors = _collect(paths, model, settings)
        if overrides:
            plain = RunSettings(replace(cli, overrides={}))
            plain.lint_root = settings.lint_root
            before = _collect(paths, model, plain)[0]
        else:
            before = []
    except OverrideError as e:
        raise click.BadParameter(str(e), param_hint="--set") from None
    except (ConfigError, SettingsError) as e:
        fail(str(e))
    # with --set, each launch is shown as written and with the changes, side by side
    pairs = list(zip(before, deployments, strict=True)) if len(before) == len(deployments) and overrides else []
    if fmt == "json":
        if pairs:
            docs = [compare_dict(b, a, overrides) | _what_if_doc(a) for b, a in pairs]
        else:
            docs = [explain_dict(d, what_ifs(d)) for d in deployments]
        click.echo(json.dumps({"deployments": docs, "errors": errors}, indent=2))
    else:
        style = Styler(use_color(no_color))
        for e in errors:
            click.echo(e, err=True)
        if not deployments:
            click.echo("no vLLM launch found")
        # color=True keeps the codes when stdout is not a terminal (FORCE_COLOR in CI logs)
        keep = True if style.color else None
        if pairs:
            for b, a in pairs:
                click.echo(render_compare(b, a, overrides, style), color=keep)
        else:
            for d in deployments:
                click.echo(render_text(d, style, what_ifs(d)), color=keep)
    sys.exit(2 if errors else 0)


def _what_if_doc(dep: Deployment) -> dict[str, Any]:
    from vlint.report.explain import memory_dict

    rows = what_ifs(dep)
    return {"what_if": [{"change": w.label, "memory": memory_dict(w.memory)} for w in rows]} if rows else {}


def _collect(paths: tuple[Path, ...], model: str | None, settings: RunSettings) -> tuple[list[Deployment], list[str]]:
    """The deployments to explain (``--model`` first, then every launch in PATHS) and file errors."""
    from vlint.core.invocation import Invocation, Token
    from vlint.core.span import Span
    from vlint.launch.resolver import resolve
    from vlint.run.lint import LintOptions, lint_paths

    deployments: list[Deployment] = []
    errors: list[str] = []
    if model:
        span = Span("<command line>", 1, 1, 1, 1)
        inv = Invocation(
            source="cli", program="vllm serve", span=span, args=[Token(model, span)], label="vlint explain --model"
        )
        deployments.append(resolve(inv, settings.for_run().resolve, base_dir=Path.cwd()))
    if paths:
        first = settings.for_run(paths)
        opts = LintOptions(
            resolve=first.resolve, lint_root=settings.lint_root, settings_for=settings.engine_and_resolve
        )
        report = lint_paths(list(paths), first.engine, opts)
        for fr in report.files:
            if fr.error is not None:
                loc = f"{fr.path}:{fr.error.line}" if fr.error.line else fr.path
                errors.append(f"{loc}: error: {fr.error.message}")
            deployments.extend(fr.deployments)
    return deployments, errors
