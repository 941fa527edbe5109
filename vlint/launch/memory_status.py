"""Did the memory model answer for a launch, and if not, why and what to do (never silent).

One :class:`MemoryStatus` per deployment: ``memory`` (the full estimate on the launch's GPU),
``gpu_fit`` (no GPU named: the estimate over the reference GPUs, :mod:`vlint.launch.gpu_fit`), or no answer
with a *kind* (for counting), a *reason* and the one-line *fix*. The text summary, the JSON and SARIF
reports, ``vlint explain`` and ``bench/reach.py`` all read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from vlint.core.invocation import CALLER_ARGS
from vlint.core.record import record, replace
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.unresolved import UNRESOLVED

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.launch.free_memory import Note

#: kind → the fix, in one phrase
FIXES = {
    "model_unknown": "map it in [tool.vlint] models, pass --model-config, or --online",
    "model_not_read": "map it in [tool.vlint] models, or pass --model-config",
    "model_unresolved": "pass --model-config PATH",
    "no_model": "pass --model-config PATH",
    "config_without_model": "lint it with the launch that reads it, or pass --model-config PATH",
    "not_a_gpu": "the memory model reproduces vLLM's CUDA/ROCm workers",
    "setting_unresolved": "write the value, or try one with vlint explain --set",
    "not_computable": "see the finding on that setting",
    "not_modelled": "vlint does not model it yet: check the startup log's KV cache lines",
}
#: kind → how the summary names a group of launches
GROUP = {
    "model_unknown": "model unknown",
    "model_not_read": "model folder not read",
    "model_unresolved": "model not resolved",
    "no_model": "no model named",
    "config_without_model": "config file without a model",
    "not_a_gpu": "not a GPU",
    "setting_unresolved": "setting not resolved",
    "not_computable": "settings the memory model cannot compute with",
    "not_modelled": "architecture not modelled",
}


#: how the reason of a ``gpu_fit`` answer for a GPU type vlint does not know starts
UNKNOWN_GPU = "the GPU type"


@record(frozen=True, slots=True)
class MemoryStatus:
    #: ``memory``, ``gpu_fit`` or None (no answer)
    answer: str | None
    #: what kept the full estimate from running (None when it ran)
    reason: str | None = None
    #: a key of :data:`FIXES` when there is no answer ("" otherwise)
    kind: str = ""

    #: ``path:line: memory: …`` for a launch the memory model says starts (the text report's line per launch)
    line: str | None = None
    #: what vlint assumed about the GPU's environment and should say (:mod:`vlint.launch.free_memory`)
    notes: tuple[Note, ...] = ()

    @property
    def fix(self) -> str:
        return FIXES.get(self.kind, "")

    @property
    def explained(self) -> str | None:
        """The reason with its fix: ``memory_unavailable`` in the reports."""
        if self.reason is None:
            return None
        return f"{self.reason} ({self.fix})" if self.fix else self.reason


def memory_status(dep: Deployment) -> MemoryStatus:
    """Computed once per deployment (before a worker process slims it down), with the launch's memory line."""
    if dep._memory_status is None:
        from vlint.launch.free_memory import environment_notes

        status = _status(dep)
        dep._memory_status = replace(status, line=_launch_line(dep, status), notes=environment_notes(dep))
    return dep._memory_status


#: how the reference devices of a ``gpu_fit`` answer are named, by their kind
_REFERENCE = {
    "GPU": "reference GPUs",
    "TPU": "reference TPUs",
    "Gaudi device": "reference Gaudi devices",
    "CPU host": "reference host sizes",
    "accelerator option": "of the task's accelerator options",
}


def _launch_line(dep: Deployment, status: MemoryStatus) -> str | None:
    """``path:line: memory: MODEL on GPU, vLLM X — starts: KV tokens, concurrency, headroom`` for a launch the
    memory model says starts; on the reference GPUs (no GPU named) the short form — on how many it starts and
    what one GPU needs. None otherwise: a launch that fails has its finding (VL210, VL231), one the model
    did not answer its notice in the ``memory model:`` line."""
    from vlint.launch.gpu_fit import gpu_fit, label

    head = f"{dep.path}:{dep.invocation.span.line}: memory: {dep.model or '(no model)'}"
    if status.answer == "memory":
        m = dep.memory
        if m is None or not m.starts or m.too_close_to_call:
            return None
        if dep.gpu is not None:
            n = dep.gpu_count or 1
            device = f"{n} × {dep.gpu.name}" if n > 1 else dep.gpu.name
        else:
            device = m.device or m.platform
        mml = dep.value("max_model_len")
        at = f" at {mml:,} tokens" if isinstance(mml, int) and not isinstance(mml, bool) else ""
        parts = [f"{m.kv_cache_tokens:,} KV-cache tokens", f"{m.max_concurrency:.2f}x concurrency{at}"]
        if m.platform == "cuda":
            parts.append(f"{m.headroom_outside_budget_gib:.2f} GiB left outside the budget")
        return f"{head} on {device}, vLLM {dep.version} — starts: " + ", ".join(parts)
    if status.answer == "gpu_fit":
        fits = gpu_fit(dep) or []
        ok = [f for f in fits if f.starts and not f.too_close_to_call]
        if not ok:
            return None
        others = [label(f) for f in fits if f not in ok]
        kind = fits[0].kind
        refs = _REFERENCE.get(kind, f"reference {kind}s")
        line = f"{head}, vLLM {dep.version} — starts on {len(ok)} of {len(fits)} {refs}"
        line += f" (not on {', '.join(others)})" if others else ""
        if kind not in ("CPU host", "accelerator option"):
            need = min(f.need_gib for f in ok)
            line += f", needs ≈ {need:.1f} GiB per {kind} at gpu_memory_utilization {ok[0].gpu_memory_utilization}"
        return line
    return None


def _status(dep: Deployment) -> MemoryStatus:
    from vlint.launch.memory_inputs import blocked_by

    if dep.memory is not None:
        return MemoryStatus("memory")
    if dep.arch is None:
        return _model_status(dep)
    if dep.gpu is None:
        from vlint.launch.gpu_fit import gpu_fit, gpu_fit_unavailable, not_a_gpu, unknown_gpu_label

        fits = gpu_fit(dep)
        if fits and fits[0].kind != "GPU":
            return MemoryStatus("gpu_fit", reference_reason(fits[0].kind, dep))
        if fits:
            label = unknown_gpu_label(dep)
            if label is not None:
                return MemoryStatus(
                    "gpu_fit",
                    f"{UNKNOWN_GPU} {label} is not in vlint's GPU catalog: answered over the reference GPUs "
                    "(pass --gpu-memory-gib for the full estimate on it)",
                )
            return MemoryStatus(
                "gpu_fit", "no GPU is named: answered over the reference GPUs (pass --gpu for the full estimate)"
            )
        why = gpu_fit_unavailable(dep) or "the GPU type is unknown"
        if not_a_gpu(dep) is not None:
            return MemoryStatus(None, why.split(":", 1)[0], "not_a_gpu")
        return _setting_status(why)
    return _setting_status(blocked_by(dep) or "the memory model did not run")


#: how the reasons of answers over a platform's reference devices start (:func:`reference_reason`)
_PLATFORM_FIT = (
    "VLLM_CPU_KVCACHE_SPACE is not set",
    "the TPU type is not named",
    "the Gaudi type is not named",
    "SkyPilot launches the task on one of",
)


def reference_reason(kind: str, dep: Deployment) -> str:
    """Why a launch on a CPU, TPU or Gaudi platform, or a SkyPilot task with several accelerator options,
    is answered over a list of devices."""
    if kind == "accelerator option":
        return (
            "SkyPilot launches the task on one of its resources.accelerators: answered for each "
            "(pass --gpu NAME:COUNT for the full estimate on one)"
        )
    if kind == "CPU host":
        return (
            f"VLLM_CPU_KVCACHE_SPACE is not set, so vLLM {dep.version} takes half the host's memory per NUMA node: "
            "answered over reference host sizes (set VLLM_CPU_KVCACHE_SPACE for the full estimate)"
        )
    what = "TPU" if kind == "TPU" else "Gaudi"
    return (
        f"the {what} type is not named: answered over the reference {kind}s (a node label or resource profile "
        "naming it gives the full estimate)"
    )


def _setting_status(why: str) -> MemoryStatus:
    from vlint.launch.memory_inputs import NOT_MODELLED_PREFIX

    if why.startswith(NOT_MODELLED_PREFIX):
        return MemoryStatus(None, why, "not_modelled")
    return MemoryStatus(None, why, "setting_unresolved" if "is not resolved" in why else "not_computable")


def _model_status(dep: Deployment) -> MemoryStatus:
    if dep.model is None:
        s = dep.setting("model")
        given = s is not None and (s.raw or "") not in CALLER_ARGS  # a model written as another word
        if not given and any(a.text in CALLER_ARGS for a in dep.invocation.args):
            # ``exec vllm serve "$@"``: an entrypoint wrapper, completed by its caller's arguments
            why = (
                'the model comes with the arguments the script is run with ("$@"): checked where a Dockerfile '
                "or compose service linted with it gives them (its ENTRYPOINT with a CMD or command); a pod's "
                "args are not joined to a script inside its image"
            )
            args = dep.invocation.args
            first = args[0].text if args else ""
            # the model's place taken by the arguments (``api_server "$@"``) is an unresolved model
            unresolved = s is not None or first in CALLER_ARGS
            return MemoryStatus(None, why, "model_unresolved" if unresolved else "no_model")
        if s is not None and s.value is UNRESOLVED:
            raw = s.raw or "(a variable)"
            return MemoryStatus(None, f"the model {raw} is not resolved{_partly(dep, raw)}", "model_unresolved")
        first = dep.invocation.args[0] if dep.invocation.args else None
        if first is not None and first.unresolved and not first.text.startswith("-"):
            return MemoryStatus(None, f"the model {first.text} is not resolved", "model_unresolved")
        if dep.invocation.program == "config":
            return MemoryStatus(None, "this config file names no model", "config_without_model")
        return MemoryStatus(None, "no model is named", "no_model")
    stored = _stored_at(dep)
    if stored:
        return MemoryStatus(None, stored, "model_not_read")
    if dep.model_note.startswith("model folder"):
        return MemoryStatus(
            None, dep.model_note.removesuffix(": not read") + ", so its config.json is not read", "model_not_read"
        )
    note = f"; {dep.model_note}" if dep.model_note else ""
    return MemoryStatus(None, f"the model {dep.model} is unknown to vlint{note}", "model_unknown")


def _partly(dep: Deployment, raw: str) -> str:
    """What the launch's environment holds for a model written as one variable (``$(MODEL_URI)``,
    ``${MODEL}``) that is itself not resolved (``gs://${BUCKET}/llama``: a placeholder filled before the
    manifest is applied), so the reason shows what is known; "" otherwise."""
    name = raw.removeprefix("$(").removesuffix(")") if raw.startswith("$(") else raw.lstrip("$").strip("{}")
    tok = dep.invocation.env.get(name) if name.replace("_", "").isalnum() else None
    if tok is None or not tok.text or "$" not in tok.text or tok.text in (raw, f"$({name})"):
        return ""
    return f": {name} is {tok.text}"


#: storage a model is read from that vlint never opens, by URI scheme (KServe's storageUri schemes)
_STORAGE = {
    "oci": "an OCI image (a KServe modelcar)",
    "s3": "S3 object storage",
    "gs": "Cloud Storage",
    "pvc": "a PersistentVolumeClaim",
    "hdfs": "HDFS",
    "webhdfs": "HDFS",
    "az": "Azure Blob Storage",
}


def _stored_at(dep: Deployment) -> str:
    """Why the model is not read when its files live in storage vlint does not open: the place the
    launch's files come from (``model_location``: a KServe ``storageUri``, downloaded to the folder the
    launch reads), a folder below a mount of object storage (``storage_mounts``: a Cloud Storage FUSE
    volume) or a model named by a storage URI itself (``gs://bucket/llama``); "" otherwise."""
    fact = dep.invocation.facts.get("model_location")
    model = dep.model or ""
    uri = str(fact.value) if fact is not None else model if "://" in model else ""
    where = (fact.detail or "storage") if fact is not None else ""
    mounts = dep.invocation.facts.get("storage_mounts")
    mounted = ""
    for mount, storage, how in mounts.value if mounts is not None and not uri else ():
        if model == mount or model.startswith(mount + "/"):
            rest = model[len(mount) :].strip("/")
            uri, mounted = storage + (f"/{rest}" if rest else ""), how
            break
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if not scheme or scheme in ("http", "https", "hf"):
        return ""
    what = _STORAGE.get(scheme, f"{scheme}:// storage")
    if mounted:
        return f"the model at {model} is {uri} in {what}, mounted by {mounted}, which vlint does not read"
    if where and uri != model:
        return f"the model at {model} comes from {where} {uri}, {what}, which vlint does not read"
    return f"the model {uri} is in {what}, which vlint does not read"


def summary_line(deployments: Iterable[Deployment]) -> str | None:
    """``memory model: 5 of 7 launches (…); not checked: 2 — model /models/x unknown (fix)``; None
    when there is no launch."""
    deps = list(deployments)
    if not deps:
        return None
    statuses = [(d, memory_status(d)) for d in deps]
    answered = [s for _, s in statuses if s.answer is not None]
    devices = sum(1 for s in answered if s.answer == "gpu_fit" and (s.reason or "").startswith(_PLATFORM_FIT))
    fit = sum(1 for s in answered if s.answer == "gpu_fit") - devices
    line = f"memory model: {len(answered)} of {len(deps)} launch{'es' if len(deps) != 1 else ''}"
    if devices:
        line += (
            f" ({devices} over a list of devices — SkyPilot accelerator options, reference TPUs, Gaudi devices or "
            "CPU hosts: name the device, or set VLLM_CPU_KVCACHE_SPACE, for the full estimate)"
        )
    if fit:
        unknown = sum(1 for s in answered if s.answer == "gpu_fit" and (s.reason or "").startswith(UNKNOWN_GPU))
        if not unknown:
            line += f" ({fit} on the reference GPUs: no GPU named, pass --gpu or set [tool.vlint] gpu)"
        else:
            named = f"{fit - unknown} with no GPU named, " if fit > unknown else ""
            line += (
                f" ({fit} on the reference GPUs: {named}{unknown} with a GPU type vlint does not know; pass --gpu, "
                "[tool.vlint] gpu or --gpu-memory-gib)"
            )
    inferred = sum(1 for d, s in statuses if s.answer is not None and d.arch is not None and d.arch.inferred_from_name)
    if inferred:
        line += (
            f" ({inferred} with model facts inferred from {'its' if inferred == 1 else 'their'} name: "
            "map the model in [tool.vlint] models to check it for certain)"
        )
    missing = [(d, s) for d, s in statuses if s.answer is None]
    if not missing:
        return line + "."
    line += f"; not checked: {len(missing)} — "
    if len(missing) == 1:
        d, s = missing[0]
        return line + f"{_where(d)} {s.reason} ({s.fix})."
    kinds = Counter(s.kind for _, s in missing)
    groups = []
    for kind, n in kinds.most_common():
        names = sorted({d.model for d, s in missing if s.kind == kind and d.model})
        which = f": {', '.join(names[:2])}{', …' if len(names) > 2 else ''}" if names else ""
        groups.append(f"{n} {GROUP[kind]}{which} ({FIXES[kind]})")
    return line + "; ".join(groups) + "."


def note_lines(deployments: Iterable[Deployment]) -> list[str]:
    """``note: start.sh:1: the RTX-4090 is a consumer GPU, …``: one line per kind of assumption the launches
    share (:func:`vlint.launch.free_memory.note_lines`)."""
    from vlint.launch.free_memory import note_lines as lines

    return lines([(f"{d.path}:{d.invocation.span.line}", n) for d in deployments for n in memory_status(d).notes])


def _where(dep: Deployment) -> str:
    return f"{dep.path}:{dep.invocation.span.line}:"


def counts(deployments: Iterable[Deployment]) -> dict[str, int]:
    """Launches per answer and per kind of gap: ``memory``, ``gpu_fit``, then each kind."""
    c: Counter[str] = Counter()
    for d in deployments:
        s = memory_status(d)
        c[s.answer or s.kind] += 1
    return dict(c)
