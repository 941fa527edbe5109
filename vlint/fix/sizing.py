"""``vlint size``: which GPUs and settings serve a workload, by vLLM's own startup arithmetic.

A workload is the 99th-percentile prompt length, the completion budget (``max_tokens``) and the number
of requests in flight; it is given as numbers or read from a request log (JSON Lines of OpenAI
chat/completions request bodies). ``max_model_len`` is P99(prompt) + max_tokens.

Every candidate — GPU type × tensor-parallel size × KV-cache dtype — is a real ``vllm serve`` launch
resolved like any file vlint lints (the target version's defaults for that GPU), estimated by the
memory model and checked by vlint's own rules. It *fits* when vLLM starts, the KV cache holds the
target concurrency at ``max_model_len``, and vlint reports nothing (so a written config lints clean).

Prompt lengths are counted with the model's tokenizer when the optional ``tokenizers`` package and a
local ``tokenizer.json`` are available (``--tokenizer``, a local model folder, or the Hugging Face
cache; nothing is downloaded). Otherwise they are approximated as 4 characters per token (English
text; code and other languages differ) plus a few tokens per chat message for the chat template, and
the output says so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path

from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.launch.resolver import ResolveOptions
    from vlint.memory import MemoryEstimate

#: the approximation without a tokenizer: characters per token of English text
CHARS_PER_TOKEN = 4
#: chat-template tokens per message (role markers, separators) and to open the reply, approximated
TOKENS_PER_MESSAGE = 4
TOKENS_PER_REPLY = 3
MAX_REQUEST_LOG_BYTES = 512 * 2**20


class SizingError(ValueError):
    """Bad input (a request log vlint cannot read, a GPU it does not know…)."""


# -- the workload --------------------------------------------------------------------------------
@record(slots=True)
class Workload:
    prompt_p99: int
    max_tokens: int
    concurrency: int = 1
    #: how the prompt length was obtained, for the output
    source: str = "given"
    requests: int = 0
    tokenizer: str | None = None
    #: the user gave the concurrency (``--concurrency``): it sets max_num_seqs; otherwise vLLM's
    #: default max_num_seqs is kept and the sizing only asks that one request fits
    concurrency_stated: bool = True

    @property
    def max_model_len(self) -> int:
        return self.prompt_p99 + self.max_tokens


def percentile(values: list[int], pct: float) -> int:
    """Nearest-rank percentile (the smallest value with at least ``pct`` % of values at or below it)."""
    if not values:
        raise SizingError("no values")
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def _text_of(content: Any) -> str:
    """The text of a chat message's content (a string or a list of parts; images are not counted)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _prompts(body: dict[str, Any]) -> list[tuple[str | None, int]]:
    """(text, fixed token count) per prompt of one request body; a text of None means token ids."""
    messages = body.get("messages")
    if isinstance(messages, list):
        text = "\n".join(_text_of(m.get("content")) for m in messages if isinstance(m, dict))
        overhead = TOKENS_PER_MESSAGE * len(messages) + TOKENS_PER_REPLY
        return [(text, overhead)]
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return [(prompt, 0)]
    if isinstance(prompt, list) and prompt:
        if all(isinstance(x, int) for x in prompt):
            return [(None, len(prompt))]
        out: list[tuple[str | None, int]] = []
        for p in prompt:
            if isinstance(p, str):
                out.append((p, 0))
            elif isinstance(p, list) and all(isinstance(x, int) for x in p):
                out.append((None, len(p)))
        return out
    return []


def find_tokenizer(model: str, explicit: Path | None = None) -> Path | None:
    """A local ``tokenizer.json`` for the model: ``--tokenizer``, a model folder, or the HF cache."""
    cands: list[Path] = []
    if explicit is not None:
        cands.append(explicit / "tokenizer.json" if explicit.is_dir() else explicit)
    local = Path(model).expanduser()
    if local.is_dir():
        cands.append(local / "tokenizer.json")
    if "/" in model and not local.exists():
        from vlint.resolve.hf_cache import snapshot

        snap = snapshot(model)
        if snap is not None:
            cands.append(snap[0] / "tokenizer.json")
    return next((c for c in cands if c.is_file()), None)


def token_counter(model: str, explicit: Path | None = None) -> tuple[Callable[[str], int], str | None]:
    """(count tokens of a text, the tokenizer file used or None for the approximation)."""
    path = find_tokenizer(model, explicit)
    if path is not None:
        try:
            from tokenizers import Tokenizer  # optional dependency
        except ImportError:
            path = None
        else:
            try:
                tok = Tokenizer.from_file(str(path))
            except Exception as e:  # a broken tokenizer.json: say so, use the approximation
                raise SizingError(f"{path}: cannot load the tokenizer: {e}") from None
            return (lambda text: len(tok.encode(text, add_special_tokens=True).ids)), str(path)
    if explicit is not None and path is None:
        raise SizingError(f"{explicit}: no tokenizer.json, or the optional `tokenizers` package is not installed")
    return (lambda text: math.ceil(len(text) / CHARS_PER_TOKEN)), None


def read_requests(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, request body) for each line of an OpenAI-style JSON Lines request log."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise SizingError(f"{path}: cannot read: {e.strerror or e}") from None
    if size > MAX_REQUEST_LOG_BYTES:
        raise SizingError(f"{path}: {size / 2**20:.0f} MiB is over the {MAX_REQUEST_LOG_BYTES // 2**20} MiB limit")
    with path.open(encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise SizingError(f"{path}:{n}: not JSON: {e.msg}") from None
            if isinstance(obj, dict) and isinstance(obj.get("body"), dict):  # OpenAI batch file lines
                obj = obj["body"]
            if not isinstance(obj, dict):
                raise SizingError(f"{path}:{n}: expected a request object")
            yield n, obj


def workload_from_requests(
    path: Path,
    model: str,
    *,
    max_tokens: int | None = None,
    concurrency: int = 1,
    tokenizer: Path | None = None,
) -> Workload:
    """P99 prompt length (and completion budget, unless given) from a request log."""
    count, used = token_counter(model, tokenizer)
    lengths: list[int] = []
    budgets: list[int] = []
    requests = 0
    for n, body in read_requests(path):
        prompts = _prompts(body)
        if not prompts:
            raise SizingError(f"{path}:{n}: no `messages` or `prompt` in the request")
        requests += 1
        for text, fixed in prompts:
            lengths.append(fixed + (count(text) if text is not None else 0))
        budget = body.get("max_completion_tokens", body.get("max_tokens"))
        if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
            budgets.append(budget)
    if not lengths:
        raise SizingError(f"{path}: no requests")
    if max_tokens is None:
        if not budgets:
            raise SizingError(f"{path}: the requests set no max_tokens; give --max-tokens")
        max_tokens = percentile(budgets, 99)
    how = (
        f"counted with the tokenizer {used}"
        if used
        else f"approximated as {CHARS_PER_TOKEN} characters per token plus {TOKENS_PER_MESSAGE} per chat message "
        "(no tokenizer: install `tokenizers` and pass --tokenizer for exact counts)"
    )
    return Workload(
        prompt_p99=percentile(lengths, 99),
        max_tokens=max_tokens,
        concurrency=concurrency,
        source=f"P99 of {len(lengths):,} prompts in {path.name}, {how}",
        requests=requests,
        tokenizer=used,
    )


# -- the candidates ------------------------------------------------------------------------------
@record(slots=True)
class GpuOption:
    name: str
    #: most GPUs of this type to use (tensor parallelism); None: up to 8
    count: int | None = None


def parse_gpu_options(text: str) -> list[GpuOption]:
    """``H100,A100-80GB:2,L4:4`` → options (each name must be in the GPU catalog)."""
    from vlint.hardware.gpus import lookup_gpu

    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, count = part.partition(":")
        if lookup_gpu(name) is None:
            raise SizingError(f"unknown GPU {name!r}")
        if count and (not count.isdigit() or int(count) < 1):
            raise SizingError(f"GPU count must be a positive integer, not {count!r}")
        out.append(GpuOption(name.strip(), int(count) if count else None))
    if not out:
        raise SizingError("no GPU given")
    return out


@record(slots=True)
class SizeRow:
    gpu: str
    gpu_total_gib: float
    tp: int
    kv_cache_dtype: str
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    kv_tokens: int = 0
    concurrency: float = 0.0
    starts: bool = False
    fits: bool = False
    #: why it does not fit (or vlint's findings on it)
    reason: str = ""
    memory: MemoryEstimate | None = field(default=None, repr=False)

    @property
    def gpu_memory_gib(self) -> float:
        return self.tp * self.gpu_total_gib

    def headroom(self, target: int) -> float:
        """KV capacity beyond the target concurrency, as a fraction (0.5 = 50% more)."""
        return self.concurrency / max(target, 1) - 1

    def headroom_for(self, workload: Workload) -> float | None:
        """:meth:`headroom` over the stated concurrency; None without ``--concurrency`` (no target)."""
        return self.headroom(workload.concurrency) if workload.concurrency_stated else None


@record(slots=True)
class SizingResult:
    model: str
    version: str
    workload: Workload
    rows: list[SizeRow]

    @property
    def fitting(self) -> list[SizeRow]:
        return [r for r in self.rows if r.fits]

    @property
    def best(self) -> SizeRow | None:
        fit = self.fitting
        return fit[0] if fit else None


def _next_pow2(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(n, 1))))


def _launch(model: str, row: SizeRow) -> list[str]:
    argv = [
        model,
        "--max-model-len",
        str(row.max_model_len),
        "--tensor-parallel-size",
        str(row.tp),
    ]
    if row.max_num_seqs > 0:  # 0: leave it to vLLM (its default for the GPU and release)
        argv += ["--max-num-seqs", str(row.max_num_seqs)]
    if row.max_num_batched_tokens:
        argv += ["--max-num-batched-tokens", str(row.max_num_batched_tokens)]
    if row.kv_cache_dtype != "auto":
        argv += ["--kv-cache-dtype", row.kv_cache_dtype]
    return argv


def _resolve(model: str, row: SizeRow, opts: ResolveOptions, gpu: str) -> Deployment:
    from vlint.core.invocation import Invocation, Token
    from vlint.core.record import replace
    from vlint.core.span import Span
    from vlint.launch.resolver import resolve

    span = Span("<vlint size>", 1, 1, 1, 1)
    inv = Invocation(
        source="cli",
        program="vllm serve",
        span=span,
        args=[Token(w, span) for w in _launch(model, row)],
        label=f"vlint size {gpu}×{row.tp}",
    )
    return resolve(inv, replace(opts, gpu=gpu, gpu_count=row.tp), base_dir=Path.cwd())


def size(
    model: str, gpus: list[GpuOption], workload: Workload, opts: ResolveOptions, *, engine: Any = None
) -> SizingResult:
    """Evaluate every candidate and rank those that fit (fewest GPU GiB, then auto KV, then concurrency).
    ``engine`` judges each candidate (the configuration's rules; default every rule that is on)."""
    from vlint.checks.memory_fixes import base_inputs, fp8_applies
    from vlint.core.finding import SEVERITY_RANK
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.hardware.gpus import lookup_gpu
    from vlint.resolve.parallel import TP_SIZES, tp_splits

    engine = engine or Engine(load_catalog())
    rows: list[SizeRow] = []
    version = ""
    mml = workload.max_model_len
    mns = _next_pow2(workload.concurrency)
    for option in gpus:
        spec = lookup_gpu(option.name)
        assert spec is not None
        # the probe leaves max_num_seqs to vLLM, to learn its default for this GPU and release
        probe = _resolve(model, SizeRow(option.name, spec.total_gib, 1, "auto", mml, 0, 0), opts, option.name)
        version = str(probe.version)
        arch = probe.arch
        if arch is None:
            raise SizingError(f"vlint does not know the model {model!r} (a local folder with config.json, or --online)")
        limit = option.count or 8
        default_mns = probe.resolved.get("max_num_seqs")
        vllm_default = default_mns.value if default_mns is not None and isinstance(default_mns.value, int) else None
        # --concurrency sets max_num_seqs (the next power of two); without it, vLLM's own default (256 or
        # 1024 by GPU and release), which the written config then leaves out
        seqs = mns if workload.concurrency_stated or vllm_default is None else vllm_default
        for tp in (t for t in TP_SIZES if t <= limit and tp_splits(arch, t)):
            fp8_ok = False
            for kv in ("auto", "fp8"):
                if kv == "fp8" and not fp8_ok:
                    continue
                row = SizeRow(option.name, spec.total_gib, tp, kv, mml, seqs, 0)
                mnbt = _resolve(model, row, opts, option.name).value("max_num_batched_tokens")
                row.max_num_batched_tokens = max(int(mnbt), row.max_num_seqs) if isinstance(mnbt, int) else 0
                dep = _resolve(model, row, opts, option.name)
                _judge(row, dep, engine, workload, SEVERITY_RANK)
                rows.append(row)
                if kv == "auto":
                    base = base_inputs(dep)
                    fp8_ok = base is not None and fp8_applies(dep, base)
    rows.sort(key=lambda r: (not r.fits, r.gpu_memory_gib, r.kv_cache_dtype != "auto", -r.concurrency))
    return SizingResult(model, version, workload, rows)


def _judge(row: SizeRow, dep: Deployment, engine: Any, workload: Workload, rank: dict[str, int]) -> None:
    m = dep.memory
    row.memory = m
    if m is None:
        from vlint.launch.memory_inputs import blocked_by

        row.reason = f"no estimate: {blocked_by(dep)}"
        return
    row.kv_tokens = m.kv_cache_tokens
    row.concurrency = m.max_concurrency
    row.starts = m.starts
    if not m.starts:
        row.reason = (m.failure or "does not start").split(". ")[0]
        return
    if m.max_concurrency < workload.concurrency:
        row.reason = (
            f"holds {m.max_concurrency:.1f} requests of {row.max_model_len:,} tokens, not {workload.concurrency}"
        )
        return
    findings = [f for f in engine.run_deployment(dep) if rank[f.severity] >= rank["warning"]]
    if findings:
        row.reason = "; ".join(f"{f.code} {f.name}" for f in findings)
        return
    row.fits = True


def config_yaml(result: SizingResult, row: SizeRow, name: str = "serve.yaml") -> str:
    """A vLLM ``--config`` file for one row (vlint lints it clean for that GPU and version)."""
    w = result.workload
    lines = [
        f"# Written by `vlint size` for {row.gpu} × {row.tp} (tensor parallel), vLLM {result.version}.",
        f"# Workload: prompt P99 {w.prompt_p99:,} + max_tokens {w.max_tokens:,} tokens; "
        + (f"{w.concurrency} concurrent requests." if w.concurrency_stated else "at least one request at a time."),
        f"# Memory model: {row.kv_tokens:,} KV-cache tokens, {row.concurrency:.1f}x concurrency at "
        f"{row.max_model_len:,} tokens per request.",
        f"# Check it: vlint {name} --gpu {row.gpu}:{row.tp} --vllm-version {result.version}",
        f"model: {json.dumps(result.model) if not _plain(result.model) else result.model}",
        f"max-model-len: {row.max_model_len}",
        f"tensor-parallel-size: {row.tp}",
    ]
    if w.concurrency_stated:
        lines.append(f"max-num-seqs: {row.max_num_seqs}")
    if row.max_num_batched_tokens:
        lines.append(f"max-num-batched-tokens: {row.max_num_batched_tokens}")
    if row.kv_cache_dtype != "auto":
        lines.append(f"kv-cache-dtype: {row.kv_cache_dtype}")
    return "\n".join(lines) + "\n"


def _plain(text: str) -> bool:
    from vlint.fix.editor import yaml_string

    return yaml_string(text) == text


def result_dict(result: SizingResult) -> dict[str, Any]:
    w = result.workload
    best = result.best
    return {
        "model": result.model,
        "vllm_version": result.version,
        "workload": {
            "prompt_p99": w.prompt_p99,
            "max_tokens": w.max_tokens,
            "max_model_len": w.max_model_len,
            "concurrency": w.concurrency if w.concurrency_stated else None,
            "source": w.source,
            "requests": w.requests,
            "tokenizer": w.tokenizer,
        },
        "rows": [
            {
                "gpu": r.gpu,
                "gpus": r.tp,
                "tensor_parallel_size": r.tp,
                "kv_cache_dtype": r.kv_cache_dtype,
                "max_model_len": r.max_model_len,
                "max_num_seqs": r.max_num_seqs,
                "max_num_batched_tokens": r.max_num_batched_tokens,
                "kv_cache_tokens": r.kv_tokens,
                "max_concurrency": round(r.concurrency, 2),
                "headroom": None if (h := r.headroom_for(w)) is None else round(h, 3),
                "starts": r.starts,
                "fits": r.fits,
                "reason": r.reason or None,
                "best": r is best,
            }
            for r in result.rows
        ],
    }
