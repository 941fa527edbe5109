"""``vlint size``: the GPU options and settings that serve a workload (see :mod:`vlint.fix.sizing`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from vlint.commands.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    fail,
    parse_model_configs,
    use_color,
)
from vlint.commands.options import config_options, model_config_option, usage_errors
from vlint.core.typing_names import Any


@click.command("size")
@click.option("--model", required=True, help="The model (HF id or a local folder with config.json).")
@click.option(
    "--gpu",
    "gpus",
    help="GPU types to consider, each with the most GPUs to use: H100,A100-80GB:2,L4:4 (no count: up to 8) "
    "[default: the reference GPUs, T4 to MI300X, or reference-gpus in the config].",
)
@click.option("--prompt-p99", type=click.IntRange(min=1), help="99th-percentile prompt length in tokens.")
@click.option(
    "--max-tokens", type=click.IntRange(min=1), help="Completion budget per request (default: P99 of the log's)."
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    help="Requests in flight to size for (sets max_num_seqs) [default: at least one request; vLLM's "
    "max_num_seqs is kept].",
)
@click.option(
    "--requests",
    "requests_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A request log: JSON Lines of OpenAI chat/completions request bodies.",
)
@click.option(
    "--tokenizer",
    type=click.Path(path_type=Path, exists=True),
    help="tokenizer.json (or its folder) to count prompt tokens exactly (needs the `tokenizers` package).",
)
@click.option(
    "--vllm-version", help="Target vLLM release [default: vllm-version of the config, else the newest bundled]."
)
@config_options
@click.option(
    "--write",
    "write_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write a vLLM --config YAML for the best option to FILE.",
)
@click.option("--all", "show_all", is_flag=True, help="Also list the options that do not fit, with why.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--no-color", is_flag=True)
@click.option("--online", is_flag=True, help="Allow fetching config.json from the Hugging Face Hub.")
@model_config_option
@usage_errors
def size_cmd(
    model: str,
    gpus: str | None,
    prompt_p99: int | None,
    max_tokens: int | None,
    concurrency: int | None,
    requests_file: Path | None,
    tokenizer: Path | None,
    vllm_version: str | None,
    config_file: Path | None,
    isolated: bool,
    write_path: Path | None,
    show_all: bool,
    fmt: str,
    no_color: bool,
    online: bool,
    model_configs: tuple[str, ...],
) -> None:
    """Size a vLLM deployment for a workload: GPU type × count × tensor parallelism, KV-cache dtype,
    max_model_len = P99(prompt) + max_tokens, max_num_seqs, max_num_batched_tokens, KV tokens,
    concurrency and headroom, from vLLM's own startup arithmetic."""
    from vlint.commands.settings import CliSettings, RunSettings, SettingsError
    from vlint.config.files import ConfigError
    from vlint.fix.sizing import SizingError, Workload, config_yaml, parse_gpu_options, result_dict, size

    # the configuration of the current folder: its vllm-version (a default), model mappings and rules
    settings = RunSettings(
        CliSettings(
            vllm_version=vllm_version,
            online=online,
            model_configs=parse_model_configs(model_configs),
            config_file=config_file,
            isolated=isolated,
        )
    )
    try:
        here = settings.for_run()
    except (ConfigError, SettingsError) as e:
        fail(str(e))
    opts = here.resolve
    if not gpus:  # the reference GPUs: the config's reference-gpus, else vlint's list
        from vlint.launch.gpu_fit import DEFAULT_REFERENCE_GPUS

        gpus = ",".join(opts.reference_gpus or DEFAULT_REFERENCE_GPUS)
    stated = concurrency is not None
    try:
        options = parse_gpu_options(gpus)
        if requests_file is not None:
            from vlint.fix.sizing import workload_from_requests

            workload = workload_from_requests(
                requests_file, model, max_tokens=max_tokens, concurrency=concurrency or 1, tokenizer=tokenizer
            )
            workload.concurrency_stated = stated
        else:
            if prompt_p99 is None or max_tokens is None:
                raise click.UsageError("give --prompt-p99 and --max-tokens, or --requests FILE")
            workload = Workload(prompt_p99, max_tokens, concurrency or 1, concurrency_stated=stated)
        result = size(model, options, workload, opts, engine=here.engine)
    except SizingError as e:
        click.echo(f"vlint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)
    best = result.best
    if write_path is not None and best is not None:
        try:
            write_path.write_text(config_yaml(result, best, write_path.name), encoding="utf-8")
        except OSError as e:
            click.echo(f"vlint: error: {write_path}: cannot write: {e.strerror or e}", err=True)
            sys.exit(EXIT_ERROR)
    if fmt == "json":
        doc = result_dict(result)
        doc["written"] = str(write_path) if write_path is not None and best is not None else None
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render(result, show_all=show_all, color=use_color(no_color)), nl=False)
        if write_path is not None and best is not None:
            click.echo(f"Wrote {write_path} for {best.gpu} × {best.tp}.")
    if best is None:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


#: rows of the table without --all: the best options, one per GPU type and KV-cache dtype (the fewest GPUs
#: that fit; more of the same type only add headroom), at most this many; "… N more" says what is left out
MAX_ROWS = 12


def shown_rows(result: object, show_all: bool) -> tuple[list[Any], int]:
    """The rows the text table shows, and how many fitting rows it leaves out."""
    from vlint.fix.sizing import SizingResult

    assert isinstance(result, SizingResult)
    if show_all:
        return list(result.rows), 0
    fewest, seen = [], set()
    for r in result.fitting:
        if (r.gpu, r.kv_cache_dtype) not in seen:
            seen.add((r.gpu, r.kv_cache_dtype))
            fewest.append(r)
    shown = fewest[:MAX_ROWS]
    return shown, len(result.fitting) - len(shown)


def render(result: object, *, show_all: bool = False, color: bool = False) -> str:
    from vlint.fix.sizing import SizingResult
    from vlint.report.text import Styler

    assert isinstance(result, SizingResult)
    st = Styler(color)
    w = result.workload
    out = [
        st(f"{result.model} on vLLM {result.version}", bold=True),
        f"  workload: prompt P99 {w.prompt_p99:,} + max_tokens {w.max_tokens:,} = max_model_len "
        f"{w.max_model_len:,} tokens; "
        + (
            f"{w.concurrency} concurrent request{'s' if w.concurrency != 1 else ''}"
            if w.concurrency_stated
            else "at least one request at a time (--concurrency not given: vLLM's default max_num_seqs is "
            "kept, and no headroom is computed)"
        ),
        f"  prompt lengths: {w.source}",
        "",
    ]
    rows, hidden = shown_rows(result, show_all)
    head = (
        "GPUs",
        "TP",
        "kv-cache",
        "max_model_len",
        "max_num_seqs",
        "max_batched_tokens",
        "KV tokens",
        "concurrency",
        "headroom",
    )
    table = [head]
    for r in rows:
        table.append(
            (
                ("* " if r is result.best else "  ") + f"{r.gpu} × {r.tp}",
                str(r.tp),
                r.kv_cache_dtype,
                f"{r.max_model_len:,}",
                str(r.max_num_seqs),
                f"{r.max_num_batched_tokens:,}",
                f"{r.kv_tokens:,}",
                f"{r.concurrency:.1f}x",
                f"{h * 100:+.0f}%" if r.fits and (h := r.headroom_for(w)) is not None else "-",
            )
        )
    if len(table) > 1:
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        for k, row in enumerate(table):
            cells = [c.ljust(widths[i]) if i in (0, 2) else c.rjust(widths[i]) for i, c in enumerate(row)]
            line = "  " + "  ".join(cells).rstrip()
            if k == 0:
                line = st(line, bold=True)
            elif not rows[k - 1].fits:
                line += "  " + st(rows[k - 1].reason, fg="yellow")
            out.append(line)
    else:
        out.append("  " + st("no option fits", fg="red", bold=True) + " (--all lists every option with why)")
    skipped = len(result.rows) - len(result.fitting)
    if hidden:
        out.append(
            f"  … {hidden} more option{'s fit' if hidden != 1 else ' fits'} (more GPUs of a type above"
            + (f", or past the first {MAX_ROWS}" if len(rows) == MAX_ROWS else "")
            + "; --all lists every option)."
        )
    out.append("")
    if skipped and not show_all:
        out.append(f"  {skipped} other option{'s do' if skipped != 1 else ' does'} not fit (--all shows why).")
    if result.best is not None:
        b = result.best
        out.append(
            f"  best: {b.gpu} × {b.tp}"
            + (f" with an {b.kv_cache_dtype} KV cache" if b.kv_cache_dtype != "auto" else "")
            + f" (fewest GPU memory that fits; {b.concurrency:.1f}x concurrency at {b.max_model_len:,} tokens)"
        )
    out.append(
        "  concurrency: requests of max_model_len tokens the KV cache holds at once (vLLM's 'Maximum "
        "concurrency'); headroom: beyond the target"
        + ("." if w.concurrency_stated else " (give --concurrency N to size for N requests in flight).")
    )
    return "\n".join(out) + "\n"
