"""``vlint explain``: the memory budget of each deployment, as a bar and as vLLM's log numbers.

All quantities are per GPU rank, GiB = 2**30 bytes, like vLLM's logs.
"""

from __future__ import annotations

from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.launch.free_memory import free_source
from vlint.launch.memory_inputs import NEEDED, blocked_by
from vlint.launch.memory_status import memory_status

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.memory import MemoryEstimate

BAR_WIDTH = 64
SPARE = "left outside the budget"
#: (name, glyph without colour, colour): with colour every part is a full block in its colour; without
#: it, glyphs that stay apart in any font (the shades ▓▒░ do not)
_SEGMENTS = (
    ("weights", "#", "magenta"),
    ("activation", "+", "yellow"),
    ("non-torch", "%", "cyan"),
    ("CUDA graphs", "~", "blue"),
    ("KV cache", "=", "green"),
    # one name for the spare memory, in the bar and in the table: what is left past the budget once the
    # CUDA context (taken before vLLM's budget is measured), other engines and late CUDA graphs have theirs
    ("CUDA context, other processes", ":", "bright_black"),
    (SPARE, ".", "white"),
)
#: where vLLM's budget (gpu_memory_utilization × total) ends
_BUDGET_END = "|"


@record(slots=True)
class _Part:
    segment: int
    gib: float


@record(slots=True)
class WhatIf:
    """The same deployment with one suggested change, re-estimated."""

    label: str
    memory: MemoryEstimate


def explain_dict(dep: Deployment, whatifs: list[WhatIf] | None = None) -> dict[str, Any]:
    """The documented JSON shape of one deployment (keys are stable; more may be added)."""
    m = dep.memory
    inv = dep.invocation
    d: dict[str, Any] = {
        "source": {"file": inv.path, "line": inv.span.line, "column": inv.span.column, "label": inv.label},
        "model": dep.model,
        "model_facts": model_facts(dep),
        "vllm_version": str(dep.version),
        "vllm_version_reason": dep.version_reason,
        "gpu": {
            "name": dep.gpu.name if dep.gpu else None,
            "count": dep.gpu_count,
            "total_gib": round(dep.gpu.total_gib, 2) if dep.gpu else None,
            "free_gib": dep.gpu_free_gib,
            "free_source": free_source(dep) if dep.gpu else None,
        },
        "parallel": {
            "tp": _int(dep.value("tensor_parallel_size"), 1),
            "pp": _int(dep.value("pipeline_parallel_size"), 1),
            "dp": _int(dep.value("data_parallel_size"), 1),
        },
        "settings": {
            k: _plain(dep.value(k))
            for k in (
                "max_model_len",
                "gpu_memory_utilization",
                "max_num_seqs",
                "max_num_batched_tokens",
                "kv_cache_dtype",
                "block_size",
                "enable_chunked_prefill",
                "enforce_eager",
                "enable_prefix_caching",
                "max_cudagraph_capture_size",
            )
        },
        "settings_origin": {
            k: ("user" if dep.is_set(k) else "default")
            for k in ("max_model_len", "gpu_memory_utilization", "max_num_seqs", "max_num_batched_tokens")
        },
        "memory": memory_dict(m) if m is not None else None,
        "memory_unavailable": memory_unavailable(dep) if m is None else None,
        "gpu_fit": _gpu_fit(dep) if m is None else None,
        "notes": [{"kind": n.kind, "text": n.text} for n in memory_status(dep).notes],
    }
    if whatifs:
        d["what_if"] = [{"change": w.label, "memory": memory_dict(w.memory)} for w in whatifs]
    return d


def memory_unavailable(dep: Deployment) -> str | None:
    """Why the full memory estimate did not run, with the fix (:mod:`vlint.launch.memory_status`)."""
    from vlint.launch.memory_status import memory_status

    return memory_status(dep).explained or blocked_by(dep)


def _gpu_fit(dep: Deployment) -> list[dict[str, Any]] | None:
    from vlint.launch.gpu_fit import fit_dict, gpu_fit

    fits = gpu_fit(dep)
    return [fit_dict(f) for f in fits] if fits else None


def render_gpu_fit(dep: Deployment, style: Any) -> list[str]:
    """The reference-GPU table of a launch that names no GPU."""
    from vlint.launch.gpu_fit import gpu_fit, label

    fits = gpu_fit(dep) or []
    if not fits:
        return []
    from vlint.launch.memory_status import memory_status

    kind = fits[0].kind
    why = memory_status(dep).reason or ""
    head = why.split(":", 1)[0] if kind != "GPU" else "no GPU is named"
    per = "" if kind in ("CPU host", "accelerator option") else f" ({fits[0].count} per replica)"
    which = "on each of the task's accelerator options" if kind == "accelerator option" else f"on the reference {kind}s"
    lines = [f"  {head}: the memory model {which}{per}"]
    rows = [("GPUs" if kind == "accelerator option" else kind, "GiB", "verdict", "KV tokens", "concurrency", "needs")]
    for f in fits:
        rows.append(
            (
                label(f),
                f"{f.total_gib:.2f}",
                f.verdict,
                f"{f.kv_cache_tokens:,}" if f.starts else "-",
                f"{f.max_concurrency:.2f}x" if f.starts else "-",
                f"{f.need_gib:.1f} GiB",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    color = {"starts": "green", "fails": "red", "too close to call": "yellow"}
    for k, r in enumerate(rows):
        cells = [r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].ljust(widths[2])]
        cells += [c.rjust(w) for c, w in zip(r[3:], widths[3:], strict=True)]
        text = "    " + "  ".join(cells).rstrip()
        lines.append(style(text, bold=True) if k == 0 else style(text, fg=color.get(r[2])))
    lines.append(
        "    "
        + style(
            {
                "GPU": "needs: GPU memory one GPU needs to start at the launch's gpu_memory_utilization; "
                "pass --gpu for the full budget",
                "accelerator option": "needs: GPU memory one GPU needs to start at the launch's "
                "gpu_memory_utilization; pass --gpu NAME:COUNT for the full budget on one",
                "CPU host": "needs: host memory per NUMA node whose half holds one request of max_model_len; "
                "set VLLM_CPU_KVCACHE_SPACE for the full estimate",
            }.get(kind, f"needs: device memory one {kind} needs to start at the launch's gpu_memory_utilization"),
            dim=True,
        )
    )
    return lines


def model_facts(dep: Deployment) -> dict[str, Any]:
    """Where the model's config facts came from: ``origin`` is one of ``local folder``,
    ``--model-config``, ``mapping``, ``HF cache``, ``catalog``, ``hub``, ``served name`` (a folder the
    launch serves under its Hugging Face id), ``name`` (another model's facts, taken for it by its name:
    ``inferred`` says how) (None: not found)."""
    return {
        "origin": dep.model_origin or None,
        "source": dep.arch.source if dep.arch is not None else None,
        "via": dep.model_via or None,
        "note": dep.model_note or None,
        "confidence": dep.arch.confidence if dep.arch is not None else None,
        "inferred": (dep.arch.inferred_from_name or None) if dep.arch is not None else None,
    }


def model_facts_line(dep: Deployment) -> str | None:
    """``model facts: catalog (bundled catalog: …)`` for the text view."""
    if dep.arch is None:
        return None
    if dep.arch.inferred_from_name:
        return (
            f"model facts: inferred from the name, low confidence — {dep.arch.inferred_from_name}; "
            "map the model in [tool.vlint] models or pass --model-config to use its own config.json"
        )
    how = (
        dep.model_via
        if dep.model_origin in ("mapping", "--model-config", "served name") and dep.model_via
        else dep.arch.source
    )
    how = how.split("; ", 1)[0]
    low = ", low confidence: partly inferred" if dep.arch.confidence == "low" else ""
    return f"model facts: {dep.model_origin or 'given'}{low}" + (f" ({how})" if how else "")


def gpu_facts_line(dep: Deployment) -> str | None:
    """``GPU facts: nodeSelector node.kubernetes.io/instance-type=g6.24xlarge: 4 × L4 (SkyPilot
    catalog …); 4 GPU(s) from …`` when the GPU came from a cloud instance type: the table's entry and
    its source, then the count and where it came from."""
    if "instance_type" not in dep.invocation.facts or not dep.gpu_reason:
        return None
    return f"GPU facts: {dep.gpu_reason}"


def memory_dict(m: MemoryEstimate) -> dict[str, Any]:
    return {
        "platform": m.platform,
        "engine": m.engine,
        "budget_gib": round(m.budget_gib, 2),
        "weights_gib": round(m.weights_gib, 2),
        "activation_gib": round(m.activation_gib, 2),
        "non_torch_gib": round(m.non_torch_gib, 2),
        "cuda_graph_gib": round(m.cuda_graph_gib, 2),
        "cuda_graph_in_budget": m.cuda_graph_in_budget,
        "kv_cache_gib": round(m.kv_cache_gib, 2),
        "kv_bytes_per_token": round(m.kv_bytes_per_token),
        "kv_cache_tokens": int(m.kv_cache_tokens),
        "max_concurrency": round(m.max_concurrency, 2),
        "num_blocks": int(m.num_blocks),
        "block_size": int(m.block_size),
        "headroom_outside_budget_gib": round(m.headroom_outside_budget_gib, 2),
        "pinned_kv": None
        if m.pinned_kv is None
        else {
            "pinned_gib": round(m.pinned_kv.pinned_gib, 2),
            "load_room_gib": round(m.pinned_kv.load_room_gib, 2),
            "uncertainty_gib": round(m.pinned_kv.uncertainty_gib, 2),
            "fit_bytes": m.pinned_kv.fit_bytes,
            "verdict": m.pinned_kv.verdict,
        },
        "starts": m.starts,
        "failure": m.failure,
        "estimated_max_model_len": m.estimated_max_model_len,
        "risks": list(m.risks),
        "assumptions": list(m.assumptions),
        "notes": list(m.notes),
    }


def _int(v: Any, default: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def _plain(v: Any) -> Any:
    if v is None or isinstance(v, bool | int | float | str):
        return v
    return str(v)


def _parts(m: MemoryEstimate) -> tuple[list[_Part], list[_Part]]:
    """The GPU's memory, per rank: (inside vLLM's budget, outside it). CUDA graphs are drawn where
    vLLM puts them: inside the budget (V1 from 0.20) or outside it (V0, and V1 before 0.20)."""
    graphs_in = m.cuda_graph_gib if m.cuda_graph_in_budget else 0.0
    graphs_out = 0.0 if m.cuda_graph_in_budget else m.cuda_graph_gib
    inside = [
        _Part(0, m.weights_gib),
        _Part(1, m.activation_gib),
        _Part(2, m.non_torch_gib),
        _Part(3, graphs_in),
        _Part(4, max(m.kv_cache_gib, 0.0)),
    ]
    outside_total = max(m.total_gib - m.budget_gib, 0.0)
    graphs_out = min(graphs_out, outside_total)
    spare = min(max(m.headroom_outside_budget_gib, 0.0), outside_total - graphs_out)
    taken = max(outside_total - graphs_out - spare, 0.0)
    outside = [_Part(3, graphs_out), _Part(5, taken), _Part(6, spare)]
    return [p for p in inside if p.gib > 0], [p for p in outside if p.gib > 0]


def _cells(gibs: list[float], width: int) -> list[int]:
    """Cells per part, exactly ``width`` in all (largest remainders get the leftover cells); a part
    of any size gets at least one cell, so what the legend names is drawn."""
    total = sum(gibs)
    if total <= 0 or not gibs:
        return [0] * len(gibs)
    exact = [g / total * width for g in gibs]
    counts = [max(1, int(c)) for c in exact]
    while sum(counts) > width and max(counts) > 1:
        counts[counts.index(max(counts))] -= 1
    for i in sorted(range(len(exact)), key=lambda i: exact[i] - counts[i], reverse=True):
        if sum(counts) >= width:
            break
        counts[i] += 1
    return counts


def _glyph(segment: int, style: Any) -> str:
    name, plain, color = _SEGMENTS[segment]
    if not getattr(style, "color", False):
        return plain
    return style("·" if name == SPARE else "█", fg=color, dim=name == SPARE)


def bar(m: MemoryEstimate, style: Any, width: int = BAR_WIDTH, *, overflow_note: bool = True) -> str:
    """The GPU's memory to scale: the budget's parts, ``|`` where the budget ends, then what lies
    outside it (CUDA graphs when vLLM puts them there, the CUDA context and other processes, and what
    is left)."""
    inside, outside = _parts(m)
    counts = _cells([p.gib for p in inside + outside], width)
    out = []
    for k, (part, n) in enumerate(zip(inside + outside, counts, strict=True)):
        if k == len(inside) and outside:
            out.append(style(_BUDGET_END, bold=True))
        out.append(_glyph(part.segment, style) * n)
    graphs_in = m.cuda_graph_gib if m.cuda_graph_in_budget else 0.0
    over = m.weights_gib + m.activation_gib + m.non_torch_gib + graphs_in - m.budget_gib
    suffix = style(f"  over budget by {over:.2f} GiB", fg="red", bold=True) if over > 0 and overflow_note else ""
    return "[" + "".join(out) + "]" + suffix


def legend(ms: list[MemoryEstimate], style: Any) -> str:
    """What the bars above draw, in the same glyphs and colours (a part no bar draws is left out),
    with its size for a single bar."""
    drawn: dict[int, float] = {}
    for m in ms:
        inside, outside = _parts(m)
        for p in inside + outside:
            drawn[p.segment] = drawn.get(p.segment, 0.0) + p.gib
    items = []
    for seg in sorted(drawn):
        name = _SEGMENTS[seg][0]
        size = f" {drawn[seg]:.2f} GiB" if len(ms) == 1 else ""
        items.append(f"{_glyph(seg, style)} {name}{size}")
    if any(_parts(m)[1] for m in ms):
        items.append(f"{style(_BUDGET_END, bold=True)} end of the budget")
    return "  ".join(items)


def render_text(dep: Deployment, style: Any, whatifs: list[WhatIf] | None = None) -> str:
    inv = dep.invocation
    lines = [style(f"{inv.path}:{inv.span.line}: {inv.label or inv.program} — {dep.model or '(no model)'}", bold=True)]
    m = dep.memory
    gpu = (
        f"{dep.gpu.name} ({dep.gpu.total_gib:.2f} GiB)"
        if dep.gpu
        else "CPU backend"
        if m is not None and m.platform == "cpu"
        else f"{m.device} ({m.total_gib:.2f} GiB)"
        if m is not None and m.platform != "cuda"
        else _platform_name(dep)
    )
    lines.append(f"  vLLM {dep.version} ({dep.version_reason}); {gpu}; {dep.parallel_label(show_pp=True)}")
    facts = model_facts_line(dep)
    gpu_from = gpu_facts_line(dep)
    if gpu_from:
        lines.append("  " + style(gpu_from, dim=True))
    if m is None:
        if facts:
            lines.append("  " + style(facts, dim=True))
        fit = render_gpu_fit(dep, style)
        if fit:
            return "\n".join(lines + fit + _notes(dep, style)) + "\n"
        lines.append(f"  memory model: not computed — {memory_unavailable(dep)}")
        return "\n".join(lines + _notes(dep, style)) + "\n"
    if m.platform != "cuda":
        return "\n".join(lines + _platform_lines(dep, m, style, facts)) + "\n"
    lines.append("  " + bar(m, style))
    lines.append("  " + legend([m], style))
    lines.append("")
    rows = [
        ("total GPU memory", f"{m.total_gib:.2f} GiB", f"{dep.gpu.name if dep.gpu else 'GPU'}: what vLLM sees"),
        (
            "free before vLLM starts",
            f"{min(dep.gpu_free_gib, m.total_gib) if dep.gpu_free_gib is not None else m.total_gib:.2f} GiB",
            free_source(dep),
        ),
        (
            "budget (× gpu_memory_utilization)",
            f"{m.budget_gib:.2f} GiB",
            f"{dep.value('gpu_memory_utilization')} ({dep.why('gpu_memory_utilization')})",
        ),
        ("model weights", f"{m.weights_gib:.2f} GiB", 'log "Model loading took … GiB"'),
        (
            "activation peak",
            f"{m.activation_gib:.2f} GiB",
            f"the profile run of {dep.value('max_num_batched_tokens')} tokens",
        ),
        ("non-torch memory", f"{m.non_torch_gib:.2f} GiB", "NCCL, CUDA context growth"),
        (
            "CUDA graphs",
            f"{m.cuda_graph_gib:.2f} GiB",
            "inside the budget" if m.cuda_graph_in_budget else "outside the budget (estimate)",
        ),
        ("available KV cache memory", f"{m.kv_cache_gib:.2f} GiB", 'log "Available KV cache memory: … GiB"'),
        ("KV bytes per token", f"{m.kv_bytes_per_token / 1024:.1f} KiB", f"blocks of {m.block_size} tokens"),
        (
            "GPU KV cache size",
            f"{m.kv_cache_tokens:,} tokens",
            'log "GPU KV cache size: … tokens"' if m.kv_bytes_per_token else "none: the model keeps no KV cache",
        ),
        (
            "max concurrency",
            f"{m.max_concurrency:.2f}x",
            f'log "Maximum concurrency for {dep.value("max_model_len")} tokens per request"',
        ),
        (
            SPARE,
            f"{m.headroom_outside_budget_gib:.2f} GiB",
            "past the budget, after the CUDA context, other processes and late CUDA graphs: for NCCL and the rest",
        )
        if m.pinned_kv is None
        else (
            "left after the pinned KV cache",
            f"{m.headroom_outside_budget_gib:.2f} GiB",
            "--kv-cache-memory-bytes skips the budget: free at start − weights − non-torch − KV − CUDA graphs, "
            f"for the activation peak ({m.activation_gib:.2f} GiB) and the sampler warm-up",
        ),
    ]
    lines += _table(
        ("per GPU", "value", "where it comes from (log: the line of vLLM's startup log that shows it)"), rows, style
    )
    lines.append(_verdict_line(m, style))
    for r in m.risks:
        lines.append("  " + style("risk: ", fg="yellow", bold=True) + r)
    for w in whatifs or []:
        wm = w.memory
        verdict = style("starts", fg="green") if wm.starts else style("fails", fg="red")
        lines.append(
            f"  what if {w.label}: {verdict}, KV {wm.kv_cache_gib:.2f} GiB, "
            f"{wm.kv_cache_tokens:,} tokens, {wm.max_concurrency:.2f}x"
        )
        lines.append("    " + bar(wm, style))
    for a in m.assumptions[:6]:
        lines.append("  " + style("assumes: " + a, dim=True))
    if facts:  # where the model's config facts came from (catalog, cache, mapping, folder, hub)
        lines.append("  " + style(facts, dim=True))
    return "\n".join(lines + _notes(dep, style)) + "\n"


def _notes(dep: Deployment, style: Any) -> list[str]:
    """``note: …`` per assumption about the GPU's environment (:mod:`vlint.launch.free_memory`)."""
    return ["  " + style("note: ", fg="cyan", bold=True) + n.text for n in memory_status(dep).notes]


def _platform_name(dep: Deployment) -> str:
    from vlint.launch.platform import CPU, DISPLAY, platform_of

    plat = platform_of(dep)
    if plat is None:
        return "unknown GPU"
    return "CPU backend" if plat == CPU else f"{DISPLAY.get(plat, plat)}, device type not named"


def _table(head: tuple[str, str, str], rows: list[tuple[str, str, str]], style: Any) -> list[str]:
    w0 = max(len(r[0]) for r in (head, *rows))
    w1 = max(len(r[1]) for r in (head, *rows))
    out = [style(f"  {head[0]:<{w0}}  {head[1]:>{w1}}  {head[2]}", bold=True)]
    for a, b, c in rows:
        out.append(f"  {a:<{w0}}  {b:>{w1}}  {style(c, dim=True) if c else ''}".rstrip())
    out.append("")
    return out


def _verdict_line(m: MemoryEstimate, style: Any) -> str:
    if m.starts:
        return "  " + style("starts", fg="green", bold=True)
    return "  " + style("will not start: ", fg="red", bold=True) + str(m.failure)


def _platform_lines(dep: Deployment, m: MemoryEstimate, style: Any, facts: str | None) -> list[str]:
    """The CPU backend, a TPU or a Gaudi device: the KV cache gets a space the platform decides its own
    way (:mod:`vlint.memory.platforms`), not what a CUDA profile run leaves."""
    space = m.notes[0].split("(", 1)[-1].rsplit(")", 1)[0] if m.notes else ""
    cpu = m.platform == "cpu"
    rows = []
    if not cpu:
        rows.append(("device memory", f"{m.total_gib:.2f} GiB", f"{m.device}: what the plugin starts from"))
    rows += [
        (
            "model weights" + (" (host memory)" if cpu else ""),
            f"{m.weights_gib:.2f} GiB",
            'log "Model loading took … GiB"' + ("; host size not checked" if cpu else ""),
        ),
        ("KV cache space", f"{m.kv_cache_gib:.2f} GiB", space),
        ("KV bytes per token", f"{m.kv_bytes_per_token / 1024:.1f} KiB", f"blocks of {m.block_size} tokens"),
        (
            "KV cache size",
            f"{m.kv_cache_tokens:,} tokens",
            'log "GPU KV cache size: … tokens" (V1 says GPU on every platform)',
        ),
        (
            "max concurrency",
            f"{m.max_concurrency:.2f}x",
            f'log "Maximum concurrency for {dep.value("max_model_len")} tokens per request"',
        ),
        ("one request of max_model_len", f"{m.request_kv_gib:.2f} GiB", "the KV cache vLLM's startup check asks for"),
    ]
    how = {
        "cpu": "CPU backend: the KV cache is a fixed slice of host memory, not what profiling leaves",
        "tpu": "TPU (tpu-inference): the KV cache gets the device memory × gpu_memory_utilization the loaded weights "
        "leave",
        "hpu": "Intel Gaudi (vllm-gaudi): the KV cache gets the free memory after loading × gpu_memory_utilization, "
        "less HPU-graph memory",
    }[m.platform]
    out = [f"  {how}", ""]
    out += _table(("per rank", "value", "where it comes from"), rows, style)
    out.append(_verdict_line(m, style))
    if m.too_close_to_call:
        out.append(
            "  "
            + style(
                f"too close to call: the margin is inside ±{m.uncertainty_gib:.2f} GiB (no startup log of "
                "this platform calibrates the model)",
                fg="yellow",
            )
        )
    out += ["  " + style("assumes: " + a, dim=True) for a in m.assumptions[:6]]
    if facts:
        out.append("  " + style(facts, dim=True))
    return out


# -- --set: before and after side by side ----------------------------------------------------------
COMPARE_BAR_WIDTH = 40


def compare_dict(before: Deployment, after: Deployment, sets: dict[str, str]) -> dict[str, Any]:
    """The after-deployment's JSON shape, plus ``before`` (memory as written) and what changed."""
    d = explain_dict(after)
    d["set"] = dict(sets)
    d["before"] = {
        "settings": {k: _plain(before.value(k)) for k in d["settings"]},
        "memory": memory_dict(before.memory) if before.memory is not None else None,
        "memory_unavailable": blocked_by(before) if before.memory is None else None,
    }
    return d


def _cmp_rows(b: MemoryEstimate | None, a: MemoryEstimate | None) -> list[tuple[str, str, str, str]]:
    def gib(m: MemoryEstimate | None, attr: str) -> float | None:
        return None if m is None else float(getattr(m, attr))

    def fmt(v: float | None, unit: str, nd: int = 2) -> str:
        if v is None:
            return "-"
        return f"{v:,.0f} {unit}".strip() if nd == 0 else f"{v:.{nd}f}{'x' if unit == 'x' else ' ' + unit}"

    def delta(x: float | None, y: float | None, unit: str, nd: int = 2) -> str:
        if x is None or y is None or abs(y - x) < 10 ** (-nd) / 2:
            return ""
        sign = "+" if y > x else "-"
        return sign + fmt(abs(y - x), unit, nd)

    rows = []
    for label, attr, unit, nd in (
        ("budget", "budget_gib", "GiB", 2),
        ("model weights", "weights_gib", "GiB", 2),
        ("activation peak", "activation_gib", "GiB", 2),
        ("non-torch memory", "non_torch_gib", "GiB", 2),
        ("CUDA graphs", "cuda_graph_gib", "GiB", 2),
        ("available KV cache memory", "kv_cache_gib", "GiB", 2),
        ("GPU KV cache size", "kv_cache_tokens", "tokens", 0),
        ("max concurrency", "max_concurrency", "x", 2),
        (SPARE, "headroom_outside_budget_gib", "GiB", 2),
    ):
        x, y = gib(b, attr), gib(a, attr)
        rows.append((label, fmt(x, unit, nd), fmt(y, unit, nd), delta(x, y, unit, nd)))
    return rows


def _verdict(m: MemoryEstimate | None, style: Any) -> str:
    if m is None:
        return "not computed"
    return style("starts", fg="green") if m.starts else style("will not start", fg="red")


def render_compare(before: Deployment, after: Deployment, sets: dict[str, str], style: Any) -> str:
    """Memory bars as written and with the ``--set`` changes, side by side, and the numbers that moved."""
    inv = after.invocation
    lines = [
        style(f"{inv.path}:{inv.span.line}: {inv.label or inv.program} — {after.model or '(no model)'}", bold=True)
    ]
    gpu = f"{after.gpu.name} ({after.gpu.total_gib:.2f} GiB)" if after.gpu else "unknown GPU"
    lines.append(f"  vLLM {after.version} ({after.version_reason}); {gpu}")
    changed = [
        k
        for k in NEEDED  # every setting the memory model reads
        if before.value(k) != after.value(k)
    ]
    for k in changed:
        lines.append(f"  {k}: {_plain(before.value(k))} → {_plain(after.value(k))}")
    if not changed:
        lines.append("  --set " + " ".join(f"{k}={v}" for k, v in sets.items()) + ": no setting changes")
    mb, ma = before.memory, after.memory
    if mb is None and ma is None:
        lines.append(f"  memory model: not computed — {blocked_by(after)}")
        return "\n".join(lines) + "\n"
    right_title = "after (--set " + ", ".join(f"{k}={v}" for k, v in sets.items()) + ")"
    lines += side_by_side(before, after, "before (as written)", right_title, style)
    return "\n".join(lines) + "\n"


def side_by_side(
    before: Deployment,
    after: Deployment,
    left_title: str,
    right_title: str,
    style: Any,
    heads: tuple[str, str] = ("before", "after"),
) -> list[str]:
    """The two memory bars side by side, their legend, the numbers before and after with the change,
    and the verdicts (``vlint explain --set``, ``vlint upgrade``)."""
    mb, ma = before.memory, after.memory
    w = COMPARE_BAR_WIDTH
    lines = ["", f"  {left_title:<{w + 2}}    {right_title}"]
    left = bar(mb, style, w, overflow_note=False) if mb is not None else f"(not computed: {blocked_by(before)})"
    right = bar(ma, style, w, overflow_note=False) if ma is not None else f"(not computed: {blocked_by(after)})"
    pad = " " * max(0, w + 2 - _visible_len(left))
    lines.append(f"  {left}{pad}    {right}")
    lines.append("  " + legend([x for x in (mb, ma) if x is not None], style))
    lines.append("")
    rows = [("per GPU", *heads, "change"), *_cmp_rows(mb, ma)]
    rows.append(("verdict", _verdict(mb, style), _verdict(ma, style), ""))
    widths = [max(_visible_len(r[i]) for r in rows) for i in range(4)]
    for k, r in enumerate(rows):
        cells = [r[0] + " " * (widths[0] - _visible_len(r[0]))]
        cells += [" " * (widths[i] - _visible_len(r[i])) + r[i] for i in (1, 2, 3)]
        text = "  " + "  ".join(cells).rstrip()
        lines.append(style(text, bold=True) if k == 0 else text)
    for m, when in ((mb, heads[0]), (ma, heads[1])):
        if m is not None and not m.starts:
            lines.append("  " + style(f"{when}: ", fg="red", bold=True) + str(m.failure))
    return lines


def _visible_len(text: str) -> int:
    """Length without ANSI colour codes."""
    import re

    return len(re.sub(r"\x1b\[[0-9;]*m", "", text))
