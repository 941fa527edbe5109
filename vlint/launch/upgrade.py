"""What a vLLM version bump does to one launch: the same invocation resolved at two releases, compared.

Pure: it reads two :class:`~vlint.launch.deployment.Deployment` objects of one invocation (the resolver
built each at its release), the findings the engine reported for each, and the explain view of each
(``vlint explain --format json``'s document, passed in by the layer that owns it), and lists what
changes, in four groups ordered by impact:

* **breaks** — what the target rejects or ignores that the launch writes (``removed``: a flag, an
  environment variable or a choice the target no longer has; ``renamed``: a removed flag with a
  replacement; ``refused``: a startup check or the memory model's "will not start" that appears), and
  the flags the target still rejects (``new`` False);
* **behaviour** (``default_changed``) — every setting vlint resolves whose effective value differs,
  with both values and, walking the bundled releases in between, the release where it changed and
  the reason vlint's defaults give for it there (with its vLLM ``file:line``);
* **memory** — the terms of vLLM's startup arithmetic, the KV cache, the concurrency and the verdict
  (with the memory model's uncertainty band), before and after, as explain computes them;
* **deprecations** (``deprecated``) — what the target accepts but a later bundled release removes or
  its parser calls deprecated, with which release;

plus **notes** (``warning``): other findings that appear at the target.

Nothing here reads a file or runs the engine: :mod:`vlint.run.upgrade` does that and calls
:func:`compare`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import Version

if TYPE_CHECKING:
    from vlint.core.finding import Finding
    from vlint.core.span import Span
    from vlint.launch.deployment import Deployment
    from vlint.memory import MemoryEstimate

#: every kind of change, in the order of the groups they belong to
KINDS = ("removed", "renamed", "refused", "default_changed", "memory", "deprecated", "warning")
GROUPS = ("breaks", "behaviour", "memory", "deprecations", "notes")
GROUP_OF = {
    "removed": "breaks",
    "renamed": "breaks",
    "refused": "breaks",
    "default_changed": "behaviour",
    "memory": "memory",
    "deprecated": "deprecations",
    "warning": "notes",
}
BREAKING = frozenset({"removed", "renamed", "refused"})

#: findings that say the release rejects or ignores what the launch writes (a flag, a value, an environment
#: variable, a registry name): listed at the target whether the source release rejected them too or not
REJECTS = frozenset(
    {
        "VL001",  # unknown flag
        "VL002",  # removed flag
        "VL003",  # flag newer than the release
        "VL004",  # invalid value or choice
        "VL006",  # ambiguous abbreviation
        "VL008",  # the model (--model refused by vllm serve)
        "VL011",  # a config key vllm serve drops
        "VL012",  # a config value vLLM cannot take
        "VL014",  # an environment variable the release removed
        "VL015",  # --config=FILE not expanded
        "VL017",  # quantization method not registered
        "VL018",  # load format
        "VL019",  # KV-cache dtype
        "VL020",  # attention backend
        "VL021",  # attention backend variable ignored
        "VL022",  # tool-call parser
        "VL023",  # reasoning parser
        "VL024",  # guided-decoding backend
        "VL025",  # architecture
        "VL026",  # environment variable value
    }
)
#: codes whose rejection means a registry entry (or a choice) is gone when the source release took it
_REGISTRY = frozenset({"VL017", "VL018", "VL019", "VL020", "VL022", "VL023", "VL024", "VL025"})
#: resolved settings that are not launch settings (the environment, the usage context)
_NOT_SETTINGS = frozenset({"env", "usage_context"})
#: behaviour changes first in this order (engine, scheduling, memory-relevant), then by name
_SETTING_ORDER = (
    "engine",
    "enable_chunked_prefill",
    "max_num_batched_tokens",
    "max_num_seqs",
    "gpu_memory_utilization",
    "max_model_len",
    "derived_max_model_len",
    "dtype",
    "kv_cache_dtype",
    "cudagraph_mode",
    "max_cudagraph_capture_size",
    "cudagraph_capture_sizes",
    "estimate_cudagraphs",
    "async_scheduling",
    "enable_prefix_caching",
    "block_size",
)
#: the memory model's terms compared (explain's JSON key, label, unit, decimals shown)
MEMORY_TERMS: tuple[tuple[str, str, str], ...] = (
    ("budget_gib", "budget (x gpu_memory_utilization)", "GiB"),
    ("weights_gib", "model weights", "GiB"),
    ("activation_gib", "activation peak", "GiB"),
    ("non_torch_gib", "non-torch memory", "GiB"),
    ("cuda_graph_gib", "CUDA graphs", "GiB"),
    ("kv_cache_gib", "available KV cache memory", "GiB"),
    ("kv_cache_tokens", "GPU KV cache size", "tokens"),
    ("max_concurrency", "max concurrency", "x"),
)
#: ``[0.20.0] vllm/config/cache.py:66``: a citation in a default's reason
_CITE = lazy_compile(r"\[(\d+(?:\.\d+)+(?:\.post\d+)?)\] (vllm/[\w/.-]+\.py(?::\d+(?:-\d+)?)?)")


@record(frozen=True, slots=True)
class Change:
    """One thing the version bump changes for a launch."""

    kind: str
    #: the flag, environment variable, setting (vLLM dest name) or memory term
    setting: str
    before: Any
    after: Any
    #: one line, naming the releases
    message: str
    #: the releases the line cites (source and target first, then where it changed)
    releases: tuple[str, ...] = ()
    #: vLLM source locations that show the change: ``[release] vllm/path.py:LINE``
    cites: tuple[str, ...] = ()
    #: the finding at the target this comes from (breaks, deprecations, notes)
    code: str | None = None
    span: Span | None = None
    #: False: already so at the source release (the bump does not cause it, nor cure it)
    new: bool = True
    #: ``vlint upgrade --fix`` rewrites it (a renamed flag, a removed flag that did nothing)
    fixable: bool = False
    #: more structured facts (removed_in, last_in, replacement, the releases where a default changed…)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return GROUP_OF[self.kind]


@record(frozen=True, slots=True)
class Verdict:
    """The memory model's answer for one release: starts, will not start, or too close to call."""

    verdict: str
    #: GiB the deciding check has left over (negative: short), and the model's uncertainty about it
    margin_gib: float | None = None
    uncertainty_gib: float | None = None
    failure: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "margin_gib": self.margin_gib,
            "uncertainty_gib": self.uncertainty_gib,
            "failure": self.failure,
        }

    def __str__(self) -> str:
        if self.margin_gib is None:
            return self.verdict
        band = f" ±{self.uncertainty_gib:.2f}" if self.uncertainty_gib else ""
        return f"{self.verdict} (margin {self.margin_gib:+.2f}{band} GiB)"


def verdict_of(m: MemoryEstimate | None) -> Verdict | None:
    if m is None:
        return None
    word = "too close to call" if m.too_close_to_call else "starts" if m.starts else "will not start"
    margin = round(m.left_gib - m.need_gib, 2) if m.need_gib else None
    return Verdict(word, margin, round(m.uncertainty_gib, 2) if m.uncertainty_gib else None, m.failure)


@record(slots=True)
class Comparison:
    """One launch at two releases."""

    before: Deployment
    after: Deployment
    changes: list[Change]
    #: ``vlint explain --format json``'s document of each deployment (memory, memory_unavailable, gpu_fit)
    explain_before: dict[str, Any]
    explain_after: dict[str, Any]
    verdict_before: Verdict | None = None
    verdict_after: Verdict | None = None

    @property
    def source(self) -> Version:
        return self.before.version

    @property
    def target(self) -> Version:
        return self.after.version

    def group(self, name: str) -> list[Change]:
        return [c for c in self.changes if c.group == name]

    @property
    def breaks(self) -> list[Change]:
        return [c for c in self.changes if c.kind in BREAKING and c.new]

    def counts(self) -> dict[str, int]:
        return {g: len(self.group(g)) for g in GROUPS}


def change_dict(c: Change) -> dict[str, Any]:
    """The JSON shape of one change (``schemas/upgrade.schema.json``)."""
    return {
        "kind": c.kind,
        "group": c.group,
        "setting": c.setting,
        "before": c.before,
        "after": c.after,
        "message": c.message,
        "releases": list(c.releases),
        "cites": list(c.cites),
        "code": c.code,
        "line": c.span.line if c.span is not None else None,
        "column": c.span.column if c.span is not None else None,
        "file": c.span.path if c.span is not None else None,
        "new": c.new,
        "fixable": c.fixable,
        **({"data": c.data} if c.data else {}),
    }


# -- the comparison ----------------------------------------------------------------------------------
def compare(
    before: Deployment,
    after: Deployment,
    before_findings: Iterable[Finding],
    after_findings: Iterable[Finding],
    *,
    explain: Callable[[Deployment], dict[str, Any]],
) -> Comparison:
    """``before`` and ``after`` are one invocation resolved at the source and the target release;
    ``*_findings`` the engine's findings about each; ``explain`` the explain JSON of a deployment."""
    bf, af = list(before_findings), list(after_findings)
    eb, ea = explain(before), explain(after)
    vb, va = verdict_of(before.memory), verdict_of(after.memory)
    changes = [
        *_breaks(before, after, bf, af),
        *_behaviour(before, after),
        *_memory(before, after, eb, ea, vb, va),
        *_deprecations(after, af),
        *_notes(before, after, bf, af),
    ]
    return Comparison(before, after, changes, eb, ea, vb, va)


def _key(f: Finding) -> tuple[str, str, int, int]:
    return (f.code, f.span.path, f.span.line, f.span.column)


def _rel(before: Deployment, after: Deployment) -> tuple[str, str]:
    return str(before.version), str(after.version)


def _option_of(f: Finding) -> str:
    d = f.data
    return str(d.get("option") or d.get("name") or d.get("value") or d.get("setting") or f.code)


def _breaks(before: Deployment, after: Deployment, bf: list[Finding], af: list[Finding]) -> list[Change]:
    from vlint.core.finding import SEVERITY_RANK

    src, dst = _rel(before, after)
    # the most severe finding of each place at the source: a "too close to call" warning there that is a
    # "will not start" error at the target is new
    old: dict[tuple[str, str, int, int], int] = {}
    for f in bf:
        old[_key(f)] = max(old.get(_key(f), -1), SEVERITY_RANK[f.severity])
    out: list[Change] = []
    for f in af:
        new = old.get(_key(f), -1) < SEVERITY_RANK[f.severity]
        if f.code in REJECTS and f.severity in ("error", "warning"):
            out.append(_rejection(f, before, src, dst, new))
        elif new and f.severity == "error":
            what = "will not start" if f.code == "VL210" else "refuses this launch"
            out.append(
                Change(
                    "refused",
                    str(f.data.get("setting") or ("memory" if f.code.startswith("VL2") else f.code)),
                    f"accepted by {src}",
                    f"{what} ({dst})",
                    f"vLLM {dst} {what} ({src} did not): {f.message}",
                    (src, dst),
                    code=f.code,
                    span=f.span,
                )
            )
    order = {"refused": 0, "removed": 1, "renamed": 2}
    out.sort(key=lambda c: (not c.new, order[c.kind], c.span.line if c.span else 0, c.setting))
    return out


def _rejection(f: Finding, before: Deployment, src: str, dst: str, new: bool) -> Change:
    """A flag, value or variable the target rejects or ignores."""
    option = _option_of(f)
    d = f.data
    fix = f.fix
    safe = fix is not None and bool(fix.changes) and not fix.unsafe
    was = f"accepted by {src}" if new else f"also rejected by {src}"
    tail = "" if new else f" (already so in {src})"
    releases = [src, dst, *(str(d[k]) for k in ("removed_in", "last_in", "available_from") if d.get(k))]
    if f.code == "VL002":
        replacement = d.get("replacement")
        # renamed: another option does what it did (vlint fix renames it where the value carries over)
        renamed = isinstance(replacement, str) and not replacement.startswith("nothing")
        kind = "renamed" if renamed else "removed"
        after = replacement if renamed else None
        return Change(
            kind,
            option,
            option,
            after,
            f"{option}: {was}; vLLM {dst}: {f.message}{tail}",
            tuple(dict.fromkeys(releases)),
            code=f.code,
            span=f.span,
            new=new,
            fixable=safe,
            data={k: d[k] for k in ("removed_in", "last_in", "replacement") if k in d},
        )
    if f.code in ("VL003", "VL014"):
        return Change(
            "removed",
            option,
            option,
            None,
            f"{option}: {was}; vLLM {dst}: {f.message}{tail}",
            tuple(dict.fromkeys(releases)),
            code=f.code,
            span=f.span,
            new=new,
            fixable=safe,
            data={k: d[k] for k in ("removed_in", "last_in", "available_from") if k in d},
        )
    value = d.get("value")
    gone = new and (f.code in _REGISTRY or (f.code == "VL004" and _was_choice(before, option, value)))
    return Change(
        "removed" if gone else "refused",
        option,
        value if value is not None else was,
        "rejected",
        f"{option}{' ' + str(value) if value is not None else ''}: {was}; vLLM {dst}: {f.message}{tail}",
        tuple(dict.fromkeys(releases)),
        code=f.code,
        span=f.span,
        new=new,
        fixable=safe,
        data={"choice": True} if gone and f.code == "VL004" else {},
    )


def _was_choice(dep: Deployment, option: str, value: Any) -> bool:
    hit = dep.spec.lookup(option) if option.startswith("-") else None
    return hit is not None and hit[0].choices is not None and str(value) in {str(c) for c in hit[0].choices}


def _notes(before: Deployment, after: Deployment, bf: list[Finding], af: list[Finding]) -> list[Change]:
    """Warnings that appear at the target (not rejections, not deprecations)."""
    src, dst = _rel(before, after)
    old = {_key(f) for f in bf}
    return [
        Change(
            "warning",
            f.name,
            None,
            f.code,
            f"vLLM {dst} (not {src}): {f.code} {f.message}",
            (src, dst),
            code=f.code,
            span=f.span,
        )
        for f in af
        if f.severity == "warning" and f.code not in REJECTS and f.code != "VL009" and _key(f) not in old
    ]


# -- behaviour: the resolved settings -----------------------------------------------------------------
def plain(v: Any) -> Any:
    """A JSON value for a setting (sizes lists stay lists)."""
    if v is None or isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    return str(v)


def shown(v: Any) -> str:
    """A setting's value in one short word: long lists as ``[1, 2, 4, 8 … 512] (67 sizes)``."""
    if isinstance(v, list | tuple):
        if len(v) > 6:
            return f"[{', '.join(map(str, v[:4]))} … {v[-1]}] ({len(v)} sizes)"
        return "[" + ", ".join(map(str, v)) + "]"
    if v is None:
        return "none"
    return str(v)


def cites_in(text: str) -> list[str]:
    return [f"[{r}] {where}" for r, where in _CITE.findall(text)]


def _between(a: Version, b: Version) -> list[Version]:
    """The bundled releases from ``a`` to ``b`` (both included), in the direction of the bump."""
    from vlint.argspec.spec import bundled_versions

    lo, hi = min(a, b), max(a, b)
    path = [v for v in bundled_versions() if lo <= v <= hi]
    return path if a <= b else path[::-1]


def _walk(before: Deployment, after: Deployment) -> list[tuple[Version, dict[str, Any]]]:
    """The launch's resolved defaults at every bundled release from the source to the target (its model
    facts and GPU at the target): where each value changed on the way. What the launch sets is the
    target's parse, plus what only the source's parse has (a flag the target removed), each at the
    releases that have its argument."""
    from vlint.argspec.history import history
    from vlint.launch.resolver import defaults_input
    from vlint.resolve.defaults import resolve_defaults

    user = {**defaults_input(before), **defaults_input(after)}
    env = user.pop("env", {})
    h = history()
    present = {k: set(h.dest_present_in(k)) for k in user}
    inv = after.invocation
    out = []
    for v in _between(before.version, after.version):
        at_v = {k: x for k, x in user.items() if v in present[k] or not present[k]}
        try:
            resolved = resolve_defaults(
                v, gpu=after.gpu, usage_context=inv.usage_context, arch=after.arch, user={**at_v, "env": env}
            )
        except (ValueError, TypeError, ZeroDivisionError):  # a release the launch's values do not resolve on
            continue
        out.append((v, resolved))
    return out


#: how reports name the programs an image may run
_PROGRAMS = {
    "api_server": "python -m vllm.entrypoints.openai.api_server",
    "vllm serve": "vllm serve",
    "image": "vllm serve or the api_server module (the release does not say which)",
}


def _entrypoint(before: Deployment, after: Deployment) -> Change | None:
    """vLLM's own image changed its ENTRYPOINT from the api_server module to ``vllm serve``: a launch that
    gives the image only arguments is read by another program after the bump (the lint of either side
    reads the arguments with the program of the tag as written)."""
    from vlint.sources.containers.images import (
        SERVE_ENTRYPOINT_CERTAIN,
        SERVE_ENTRYPOINT_SINCE,
        default_entrypoint,
        entrypoint_of_release,
        parse_image,
    )

    inv = after.invocation
    fact = inv.facts.get("image")
    ref = parse_image(str(fact.value)) if fact is not None else None
    if ref is None or "image_entrypoint" not in inv.facts or default_entrypoint(ref) is None:
        return None  # the launch names its program itself, or the image is not vLLM's own
    was, now = entrypoint_of_release(before.version), entrypoint_of_release(after.version)
    if was == now:
        return None
    src, dst = _rel(before, after)
    return Change(
        "default_changed",
        "entrypoint",
        was,
        now,
        f"entrypoint: vLLM's image runs {_PROGRAMS[was]} at {src} and {_PROGRAMS[now]} at {dst} (the api_server "
        f"module before {SERVE_ENTRYPOINT_SINCE}, vllm serve from {SERVE_ENTRYPOINT_CERTAIN}: "
        "vlint.sources.containers.images, vllm-project/vllm#17172); the image's arguments are read by it "
        "(`vlint upgrade --fix --diff` shows the file with the new tag, to lint it as such)",
        (src, dst, str(SERVE_ENTRYPOINT_SINCE), str(SERVE_ENTRYPOINT_CERTAIN)),
        span=fact.span if fact is not None else None,
        data={
            "why_before": f"the ENTRYPOINT of vLLM's image at {src}",
            "why_after": f"the ENTRYPOINT of vLLM's image: the api_server module before {SERVE_ENTRYPOINT_SINCE}, "
            f"vllm serve from {SERVE_ENTRYPOINT_CERTAIN} (vllm-project/vllm#17172)",
        },
    )


def _behaviour(before: Deployment, after: Deployment) -> list[Change]:
    src, dst = _rel(before, after)
    keys = (set(before.resolved) | set(after.resolved)) - _NOT_SETTINGS
    rank = {k: i for i, k in enumerate(_SETTING_ORDER)}
    walk: list[tuple[Version, dict[str, Any]]] | None = None
    entry = _entrypoint(before, after)
    out: list[Change] = [entry] if entry is not None else []
    for k in sorted(keys, key=lambda k: (rank.get(k, len(rank)), k)):
        bv, av = before.value(k), after.value(k)
        if bv is UNRESOLVED or av is UNRESOLVED or plain(bv) == plain(av):
            continue
        # a setting one release does not have, left at its default: its coming or going is no change of
        # this launch's behaviour (a flag it sets that the target removed is a break, above)
        if (av is None and k not in after.spec.by_dest and not before.is_set(k)) or (
            bv is None and k not in before.spec.by_dest
        ):
            continue
        if walk is None:
            walk = _walk(before, after)
        steps = _steps(k, walk)
        why_after = why_of(after, k)
        cites = [*cites_in(why_of(before, k)), *cites_in(why_after)]
        where = ""
        if steps:
            where = "; changed in " + ", ".join(
                f"{r} ({shown(x)} → {shown(y)}{': ' + why if why and why != why_after else ''})"
                for r, x, y, why in steps
            )
            for _, _, _, why in steps:
                cites += cites_in(why)
        out.append(
            Change(
                "default_changed",
                k,
                plain(bv),
                plain(av),
                f"{k}: {shown(bv)} ({src}: {why_of(before, k)}) → {shown(av)} ({dst}: {why_after}){where}",
                tuple(dict.fromkeys([src, dst, *(r for r, *_ in steps)])),
                cites=tuple(dict.fromkeys(cites)),
                data={
                    "why_before": why_of(before, k),
                    "why_after": why_after,
                    "changed_in": [
                        {"release": r, "before": plain(x), "after": plain(y), "why": why} for r, x, y, why in steps
                    ],
                },
            )
        )
    return out


def why_of(dep: Deployment, key: str) -> str:
    """Where a resolved value comes from at its release: the launch, or the release's default with the
    reason :mod:`vlint.resolve.defaults` gives (and its citation)."""
    s = dep.args.settings.get(key)
    r = dep.resolved.get(key)
    if r is not None and (s is None or r.origin in ("forced", "resolved")):
        return r.why if r.origin != "user" else "set in the launch"
    if s is not None:
        return "set in the " + ("config file" if s.origin == "config" else "launch")
    return "the release's argument default"


def _steps(key: str, walk: list[tuple[Version, dict[str, Any]]]) -> list[tuple[str, Any, Any, str]]:
    """(release, value before it, value from it, why there) for each release on the way where ``key``'s
    resolved value changes."""
    out = []
    prev: Any = None
    started = False
    for v, resolved in walk:
        r = resolved.get(key)
        value = plain(r.value) if r is not None else None
        if started and value != prev:
            out.append((str(v), prev, value, r.why if r is not None else f"not resolved by {v}"))
        prev, started = value, True
    return out


# -- memory ---------------------------------------------------------------------------------------
def _memory(
    before: Deployment,
    after: Deployment,
    eb: dict[str, Any],
    ea: dict[str, Any],
    vb: Verdict | None,
    va: Verdict | None,
) -> list[Change]:
    src, dst = _rel(before, after)
    mb, ma = eb.get("memory"), ea.get("memory")
    out: list[Change] = []
    if mb is None or ma is None:
        if mb is not None or ma is not None:
            side, why = (dst, ea.get("memory_unavailable")) if ma is None else (src, eb.get("memory_unavailable"))
            out.append(
                Change(
                    "memory",
                    "memory model",
                    "computed" if mb is not None else None,
                    "computed" if ma is not None else None,
                    f"memory model: not computed for vLLM {side}: {why}",
                    (src, dst),
                )
            )
        out += _fit_changes(eb.get("gpu_fit"), ea.get("gpu_fit"), src, dst)
        return out
    for key, label, unit in MEMORY_TERMS:
        x, y = mb.get(key), ma.get(key)
        if x == y:
            continue
        out.append(
            Change(
                "memory",
                key,
                x,
                y,
                f"{label}: {_amount(x, unit)} ({src}) → {_amount(y, unit)} ({dst}), {_delta(x, y, unit)}",
                (src, dst),
            )
        )
    if vb is not None and va is not None and vb.verdict != va.verdict:
        out.append(
            Change(
                "memory",
                "verdict",
                vb.as_dict(),
                va.as_dict(),
                f"verdict: {vb} ({src}) → {va} ({dst})" + (f": {va.failure}" if va.failure else ""),
                (src, dst),
            )
        )
    return out


def _fit_changes(fb: list[dict[str, Any]] | None, fa: list[dict[str, Any]] | None, src: str, dst: str) -> list[Change]:
    """No GPU named: the reference GPUs' verdicts and KV tokens, before and after."""
    if not fb or not fa:
        return []
    before = {(f["gpu"], f["count"]): f for f in fb}
    out = []
    for f in fa:
        b = before.get((f["gpu"], f["count"]))
        if b is None:
            continue
        name = f"{f['count']} × {f['gpu']}" if f["count"] > 1 else f["gpu"]

        def word(x: dict[str, Any]) -> str:
            return "too close to call" if x["too_close_to_call"] else "starts" if x["starts"] else "will not start"

        if word(b) != word(f) or b["kv_cache_tokens"] != f["kv_cache_tokens"]:
            out.append(
                Change(
                    "memory",
                    f"gpu_fit:{name}",
                    {"verdict": word(b), "kv_cache_tokens": b["kv_cache_tokens"]},
                    {"verdict": word(f), "kv_cache_tokens": f["kv_cache_tokens"]},
                    f"on {name} (reference GPU): {word(b)}, {b['kv_cache_tokens']:,} KV tokens ({src}) → "
                    f"{word(f)}, {f['kv_cache_tokens']:,} KV tokens ({dst})",
                    (src, dst),
                )
            )
    return out


def _amount(v: Any, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "tokens":
        return f"{int(v):,} tokens"
    if unit == "x":
        return f"{float(v):.2f}x"
    return f"{float(v):.2f} {unit}"


def _delta(x: Any, y: Any, unit: str) -> str:
    if x is None or y is None:
        return "n/a"
    d = float(y) - float(x)
    pct = f" ({d / float(x) * 100:+.1f} %)" if x else ""
    if unit == "tokens":
        return f"{int(d):+,} tokens{pct}"
    if unit == "x":
        return f"{d:+.2f}x{pct}"
    return f"{d:+.2f} {unit}{pct}"


# -- deprecations -----------------------------------------------------------------------------------
def _deprecations(after: Deployment, af: list[Finding]) -> list[Change]:
    """What the target accepts and a later bundled release removes (flags, variables, choices), and what
    the target's parser itself calls deprecated (VL009)."""
    from vlint.argspec.history import history
    from vlint.argspec.spec import bundled_versions, load_spec

    h = history()
    dst = str(after.version)
    later = [v for v in bundled_versions() if v > after.version]
    out: list[Change] = []
    seen: set[str] = set()
    for f in af:
        if f.code != "VL009":
            continue
        option = _option_of(f)
        gone = _gone_after(h.present_in(option), after.version, later) if option.startswith("-") else None
        when = f"; removed in {gone[0]} (last in {gone[1]})" if gone else "; no bundled release removes it yet"
        seen.add(option)
        out.append(
            Change(
                "deprecated",
                option,
                option,
                None,
                f"{option}: vLLM {dst}: {f.message}{when}",
                tuple(dict.fromkeys([dst, *(gone or ())])),
                code=f.code,
                span=f.span,
                data={"removed_in": gone[0], "last_in": gone[1]} if gone else {},
            )
        )
    if not later:
        return out
    for s in after.args.settings.values():
        if s.origin == "override":
            continue
        option = s.option if s.option.startswith("-") else "--" + s.option.replace("_", "-")
        if option in seen or option not in after.spec.options:
            continue
        gone = _gone_after(h.present_in(option), after.version, later)
        if gone is not None:
            seen.add(option)
            back = _back_in(h.present_in(option), gone[0])
            out.append(
                Change(
                    "deprecated",
                    option,
                    option,
                    None,
                    f"{option}: accepted by {dst}, removed in {gone[0]} (last in {gone[1]})"
                    + (f", back in {back}" if back else ""),
                    tuple(dict.fromkeys([dst, gone[0], gone[1], *([back] if back else [])])),
                    span=s.span,
                    data={"removed_in": gone[0], "last_in": gone[1], **({"back_in": back} if back else {})},
                )
            )
            continue
        hit = after.spec.lookup(option)
        arg = hit[0] if hit is not None else None
        if arg is None or arg.choices is None or s.value is UNRESOLVED or str(s.value) not in map(str, arg.choices):
            continue
        for v in later:
            other = load_spec(v).by_dest.get(arg.dest)
            if other is not None and other.choices is not None and str(s.value) not in map(str, other.choices):
                seen.add(option)
                out.append(
                    Change(
                        "deprecated",
                        option,
                        s.value,
                        None,
                        f"{option} {s.value}: a choice of {dst}, not of {v} (its choices no longer list it)",
                        (dst, str(v)),
                        span=s.value_span or s.span,
                        data={"removed_in": str(v), "choice": True},
                    )
                )
                break
    for name, tok in after.invocation.env.items():
        if not name.startswith("VLLM_") or name not in after.spec.env_vars:
            continue
        gone = _gone_after(h.env_present_in(name), after.version, later)
        if gone is not None:
            out.append(
                Change(
                    "deprecated",
                    name,
                    name,
                    None,
                    f"{name}: read by {dst}, removed in {gone[0]} (last in {gone[1]})",
                    (dst, gone[0], gone[1]),
                    span=tok.span,
                    data={"removed_in": gone[0], "last_in": gone[1]},
                )
            )
    return out


def _gone_after(present: list[Version], at: Version, later: list[Version]) -> tuple[str, str] | None:
    """(first later release without it, the last one with it before that), or None."""
    have = set(present)
    if at not in have:
        return None
    last = at
    for v in later:
        if v not in have:
            return str(v), str(last)
        last = v
    return None


def _back_in(present: list[Version], removed_in: str) -> str | None:
    gone = Version.parse(removed_in)
    return next((str(v) for v in present if v > gone), None)
