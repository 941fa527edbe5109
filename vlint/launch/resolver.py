"""Invocation → Deployment: pick the vLLM version, parse the arguments, find model and GPU, fill the
version's defaults."""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from pathlib import Path

from vlint.argspec.parse import parse_invocation
from vlint.argspec.spec import Resolution, load_spec, resolve_release
from vlint.config.precedence import CLI, FILE, ConfigDefaults, Stated, decide
from vlint.core.invocation import UNPINNED_FACT, Invocation, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record, replace
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import Version
from vlint.launch.deployment import Deployment
from vlint.launch.file_context import LoneEnvironment
from vlint.launch.memory_inputs import estimate_for
from vlint.security.lint_root import LintRoot

if TYPE_CHECKING:
    from vlint.hardware.gpus import GpuSpec


@record(slots=True)
class ResolveOptions:
    """What the user told vlint: the command line (these fields override what the files state) and
    the configuration's defaults for this file (``defaults``: used only where the files state
    nothing; :mod:`vlint.config.precedence`)."""

    vllm_version: Version | None = None
    vllm_version_source: str = ""
    gpu: str | None = None
    gpu_count: int | None = None
    gpu_memory_gib: float | None = None
    #: ``--gpu-free-gib``: GiB free on the GPU before vLLM starts (other processes hold the rest)
    gpu_free_gib: float | None = None
    defaults: ConfigDefaults = field(default_factory=ConfigDefaults)
    model_paths: dict[str, str] = field(default_factory=dict)
    #: ``[tool.vlint] models``: a path or served name → a model id or an absolute folder
    models: dict[str, str] = field(default_factory=dict)
    #: ``--model-config [NAME=]PATH``: model name → config.json or folder ("" for every launch)
    model_configs: dict[str, str] = field(default_factory=dict)
    #: ``[tool.vlint] reference-gpus``: GPUs a launch that names none is checked on (empty: the default)
    reference_gpus: tuple[str, ...] = ()
    online: bool = False
    #: overrides of settings (``--set key=value``): dest or option name → text as on a command line
    overrides: dict[str, str] = field(default_factory=dict)
    #: model folders a linted file names are read only inside it (None: anywhere, for a model the
    #: user names on the command line)
    lint_root: LintRoot | None = None


@cache
def installed_vllm_version() -> Version | None:
    """The installed ``vllm`` package's version (never imported), from the first ``vllm-X.Y.Z.dist-info``
    (or ``.egg-info``) folder on ``sys.path``: the one ``importlib.metadata.version("vllm")`` reads, without
    importing importlib.metadata and the email parser on every run. Read once per process."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # not a folder (a zip), missing, unreadable
            continue
        for name in sorted(names):
            m = _VLLM_DIST.match(name)
            if m is not None:
                return Version.try_parse(m.group(1))
    return None


#: ``vllm-0.10.2.dist-info`` (pip), ``vllm-0.10.2-py3.11.egg-info`` (setup.py develop)
_VLLM_DIST = lazy_compile(r"^vllm-([^-]+?)(?:-py[\d.]+)?\.(?:dist|egg)-info$", re.IGNORECASE)


def choose_version(inv: Invocation, opts: ResolveOptions) -> tuple[Version, bool, str]:
    """(release checked, exact, why): see :func:`choose_release`."""
    res, reason = choose_release(inv, opts)
    return res.version, res.exact, reason


#: the end of the reason of a release vlint assumed (no --vllm-version, nothing in the files or the config,
#: no vllm installed): :func:`_mark_release_assumed` keys on it
NEWEST_ASSUMED = "the newest bundled release; pass --vllm-version to check another"


#: the end of the reason of a release an unpinned ``pip install vllm`` gives (:func:`_mark_release_assumed`)
UNPINNED_WHEN = "takes the newest release when it runs; vlint checks the newest it bundles"


def choose_release(inv: Invocation, opts: ResolveOptions) -> tuple[Resolution, str]:
    """The release to check a launch against and why, by precedence (:func:`vlint.config.precedence.decide`):
    ``--vllm-version`` > what the files state (the container's image tag, a ``vllm==X`` pin beside the
    launch) > ``vllm-version`` in the nearest config (``opts.defaults``) > an unpinned ``pip install
    vllm`` beside the launch (the newest release: what a build today installs) > the installed vllm >
    the newest bundled. The wanted release is then resolved by :func:`vlint.argspec.spec.resolve_release`
    (exact, same series with a note, or outside the range)."""
    cli = None
    if opts.vllm_version is not None:
        cli = Stated(opts.vllm_version, opts.vllm_version_source or f"--vllm-version {opts.vllm_version}", CLI)
    stated = None
    fact = inv.facts.get("vllm_version")
    fact_version = Version.try_parse(str(fact.value)) if fact is not None else None
    if fact is not None and fact_version is not None:
        why = (fact.detail or f"image tag ({fact.value})") + _vendor_evidence(inv) + _suffix_note(inv, fact_version)
        stated = Stated(fact_version, why, FILE)
    chosen = decide(cli, stated, opts.defaults.version())
    wanted: Version | None = chosen.value if chosen is not None else None
    reason = chosen.source if chosen is not None else ""
    unpinned = inv.facts.get(UNPINNED_FACT) if wanted is None else None
    if unpinned is not None:
        res = resolve_release(None)
        return res, f"the newest release: {unpinned.detail} {UNPINNED_WHEN}"
    if wanted is None:
        installed = installed_vllm_version()
        if installed is not None:
            wanted, reason = installed, f"installed vllm {installed}"
    res = resolve_release(wanted)
    if wanted is None:
        unknown = _unknown_image_version(inv)
        reason = f"{unknown}: version unknown, assumed {NEWEST_ASSUMED}" if unknown else NEWEST_ASSUMED
    elif res.note:
        reason += "; " + res.note
    return res, reason


def lone_environment(env: list[tuple[str, Token]], opts: ResolveOptions) -> LoneEnvironment | None:
    """The ``VLLM_*`` variables of a file of environment alone (a ``.env``) that no launch of the run
    reads, with the release to check them against: chosen like a launch's (:func:`choose_release`: the
    command line, the configuration, the installed vllm, else the newest bundled, said so) — the file
    names no image or pin of its own. None when it sets no ``VLLM_*`` variable."""
    vllm = {name: tok for name, tok in env if name.startswith("VLLM_")}
    if not vllm:
        return None
    probe = Invocation(source="dotenv", program="env", span=next(iter(vllm.values())).span)
    res, reason = choose_release(probe, opts)
    return LoneEnvironment(vllm, res.version, reason, frozenset(load_spec(res.version).env_vars))


def _unknown_image_version(inv: Invocation) -> str:
    """``image vllm/vllm-openai@sha256:… (a digest, not a release tag)`` when the launch runs in an
    image that ships vLLM but names no release (a digest, ``latest``, a vendor tag vlint cannot map);
    else ""."""
    fact = inv.facts.get("image")
    if fact is None:
        return ""
    from vlint.sources.containers.images import parse_image, unknown_version_reason

    image = parse_image(str(fact.value))
    return (unknown_version_reason(image) or "") if image is not None else ""


def _vendor_evidence(inv: Invocation) -> str:
    """`` (NVIDIA vLLM Release 25.10 notes: …)`` when the version came from a vendor image's table."""
    fact = inv.facts.get("image")
    if fact is None:
        return ""
    from vlint.sources.containers.images import parse_image, vendor_release

    image = parse_image(str(fact.value))
    found = vendor_release(image) if image is not None else None
    return f" ({found[1]})" if found else ""


def _suffix_note(inv: Invocation, version: Version) -> str:
    """`` (read as vLLM 0.10.2 …: the suffix … ignored …)`` when the release came from a custom image's tag
    that is a release plus a suffix (not from a ``vllm==`` pin that names the same launch's release)."""
    fact = inv.facts.get("image")
    if fact is None:
        return ""
    from vlint.sources.containers.images import parse_image, suffix_note, suffixed_release

    image = parse_image(str(fact.value))
    found = suffixed_release(image) if image is not None else None
    return suffix_note(image) if image is not None and found is not None and found[0] == version else ""


_GPU_COUNT_ALL = lazy_compile(r"^\s*all\s*$", re.IGNORECASE)


def _count_devices(text: str) -> int | None:
    """``0,1,2`` → 3; ``device=0,1`` → 2; ``"device=1"`` → 1; ``2`` → 2 (docker --gpus)."""
    t = text.strip().strip("'\"")
    if t.startswith("device="):
        t = t[len("device=") :]
        return len([x for x in t.split(",") if x.strip()])
    if t.isdigit():
        return int(t)
    return None


def gpu_count_from(inv: Invocation) -> tuple[int | None, str]:
    fact = inv.facts.get("gpu_count")
    if fact is not None and isinstance(fact.value, int):
        return fact.value, fact.detail or "GPU request"
    for name in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
        tok = inv.env.get(name)
        if tok is not None and not tok.unresolved and tok.text.strip() and not _GPU_COUNT_ALL.match(tok.text):
            ids = [x for x in tok.text.split(",") if x.strip()]
            if ids and all(re.fullmatch(r"\s*[\w-]+\s*", x) for x in ids):
                return len(ids), f"{name}={tok.text}"
    gpus = inv.facts.get("gpus")
    if gpus is not None:
        n = _count_devices(str(gpus.value))
        if n is not None:
            return n, f"--gpus {gpus.value}"
    return None, ""


def resolve(inv: Invocation, opts: ResolveOptions, *, base_dir: Path | None = None) -> Deployment:
    res, reason = choose_release(inv, opts)
    spec = load_spec(res.version)
    args = parse_invocation(inv, spec)
    if opts.overrides:
        apply_overrides(args, spec, opts.overrides, inv.span)
    dep = Deployment(
        inv, res.version, reason, res.exact, spec, args, reference_gpus=opts.reference_gpus, estimator=estimate_for
    )
    dep.version_outside = res.outside
    dep.version_wanted = res.wanted
    dep.base_dir = base_dir
    dep.env = {k: (UNRESOLVED if t.unresolved else t.text) for k, t in inv.env.items()}
    model = args.value("model")
    dep.model = model if isinstance(model, str) and model else None
    _resolve_hardware(dep, opts)
    _resolve_free(dep, opts)
    _resolve_model(dep, opts, base_dir)
    _resolve_defaults(dep)
    _mark_release_guess(dep, opts, base_dir)
    _mark_release_assumed(dep, opts, base_dir)
    return dep


def _mark_release_assumed(dep: Deployment, opts: ResolveOptions, base_dir: Path | None) -> None:
    """A release vlint assumed (the files name none) is not a fact either: keep a way to resolve the
    launch at the first bundled release that has every option it sets, so that the engine keeps as errors
    only the findings that stand there too (the others rest on the assumption: warnings that say so)."""
    unpinned = dep.version_reason.endswith(UNPINNED_WHEN)
    if dep.release_guess_alternative is not None or not (unpinned or dep.version_reason.endswith(NEWEST_ASSUMED)):
        return
    image = dep.invocation.facts.get("image")
    if image is not None:
        from vlint.sources.containers.images import parse_image

        ref = parse_image(str(image.value))
        if ref is not None and ref.is_vllm and not ref.digest and not ref.pinned:
            return  # vllm/vllm-openai:latest, a nightly: the newest release is what it runs, not an assumption
    from vlint.argspec.history import history

    h = history()
    first = 0
    for dest, setting in dep.args.settings.items():
        # the option as written: a release names its dests its own way (--disable-log-requests sets
        # enable_log_requests from 0.10.1), so the dest of the assumed release can be younger than the flag
        written = setting.option.split("=", 1)[0].split(".", 1)[0]  # --json-arg.key: the option itself
        if written.startswith("--"):
            written = "--" + written[2:].replace("_", "-")
        ranges = h.options.get(written) if written.startswith("-") else None
        ranges = ranges or h.dests.get(dest)
        if ranges:
            first = max(first, ranges[0][0])
    earliest = h.versions[first]
    if earliest >= dep.version:
        return
    inv = dep.invocation
    at_earliest = replace(opts, vllm_version=earliest, vllm_version_source=f"vLLM {earliest}")
    dep.release_guess_alternative = lambda: resolve(inv, at_earliest, base_dir=base_dir)
    if unpinned:
        # not an assumption: the install takes the newest release, whose refusal is real; the errors stay
        # errors and say where their release comes from
        fact = inv.facts[UNPINNED_FACT]
        dep.release_unpinned = True
        dep.release_guess_why = (
            f" (vLLM {dep.version}, the newest release: {fact.detail} takes the newest release when it runs; "
            f"vLLM {earliest}, the first release with every option this launch sets, does not refuse it: pin "
            "vllm==X to keep the release you tested)"
        )
        return
    dep.release_guess_why = (
        f" (this rests on vLLM {dep.version}, assumed: the files name no release, and vLLM {earliest}, the first "
        "release with every option this launch sets, does not refuse it; pin the image tag or pass "
        "--vllm-version to check it for certain)"
    )


def _mark_release_guess(dep: Deployment, opts: ResolveOptions, base_dir: Path | None) -> None:
    """A release read from a custom image's tag past its suffix is a good guess, not a certainty: keep a
    way to resolve the launch as if the tag named no release (the engine softens the errors that rest on it)."""
    inv = dep.invocation
    note = _suffix_note(inv, dep.version)
    if not note or note not in dep.version_reason or opts.vllm_version is not None:
        return
    image = inv.facts["image"]
    dep.release_guess = str(image.value)
    facts = {k: v for k, v in inv.facts.items() if k != "vllm_version"}
    blind = replace(inv, facts=facts)
    dep.release_guess_alternative = lambda: resolve(blind, opts, base_dir=base_dir)
    dep.release_guess_why = (
        f" (this rests on vLLM {dep.version}, read from the custom image tag {dep.release_guess} past its "
        "suffix; pass --vllm-version to check it for certain)"
    )


class OverrideError(ValueError):
    """A ``--set key=value`` vLLM would not accept."""


def apply_overrides(args: Any, spec: Any, overrides: dict[str, str], span: Any) -> None:
    """Replace settings with ``--set`` values, converted like vLLM converts command-line words."""
    from vlint.argspec.parse import Setting
    from vlint.argspec.values import ArgValueError, convert

    for key, text in overrides.items():
        name = key.strip().lstrip("-").replace("_", "-")
        hit = spec.lookup("--" + name)
        if hit is None:
            raise OverrideError(f"--set {key}: vLLM {spec.version} has no option --{name}")
        arg, negated = hit
        if not arg.takes_value:
            truthy = text.strip().lower() in ("1", "true", "yes", "on")
            value: Any = truthy != negated
        else:
            try:
                value = convert(arg.kind, text, optional=arg.optional)
            except ArgValueError as e:
                raise OverrideError(f"--set {key}={text}: {e}") from None
        args.settings[arg.dest] = Setting(arg.dest, value, f"--set {key}", span, None, "override", text)


def _resolve_free(dep: Deployment, opts: ResolveOptions) -> None:
    """What is free on the GPU at start: the command line > the config default (files never say)."""
    d = opts.defaults
    free = opts.gpu_free_gib
    cli = Stated(free, f"--gpu-free-gib {free:g}", CLI) if free is not None else None
    config = d.free()
    got = decide(cli, None, config)
    if got is not None:
        dep.gpu_free_gib = float(got.value)
        dep.gpu_free_source = got.source


def _resolve_hardware(dep: Deployment, opts: ResolveOptions) -> None:
    """GPU type (or memory) and count, each by :func:`vlint.config.precedence.decide`: the command line >
    what the files state > the config default. A GPU label the catalog does not know is stated too:
    the config default never replaces what a file says."""
    from vlint.hardware.gpus import gpu_from_memory, lookup_gpu

    inv = dep.invocation
    d = opts.defaults
    # a GPU is (name, GiB or None): GiB set for --gpu-memory-gib / gpu-memory-gib
    cli: Stated[tuple[str | None, float | None]] | None = None
    if opts.gpu_memory_gib is not None:
        cli = Stated((opts.gpu, opts.gpu_memory_gib), f"--gpu-memory-gib {opts.gpu_memory_gib}", CLI)
    elif opts.gpu:
        cli = Stated((opts.gpu, None), f"--gpu {opts.gpu}", CLI)
    stated: Stated[tuple[str | None, float | None]] | None = None
    if "gpu_type" in inv.facts:
        fact = inv.facts["gpu_type"]
        stated = Stated((str(fact.value), None), fact.detail or f"GPU type {fact.value}", FILE)
    elif "gpu_label" in inv.facts:  # a GPU the catalog does not know: stated, but no GPU
        stated = Stated((None, None), "", FILE)
    config: Stated[tuple[str | None, float | None]] | None = None
    memory, named = d.memory(), d.gpu_type()
    if memory is not None:
        config = Stated((d.gpu, memory.value), memory.source, memory.level)
    elif named is not None:
        config = Stated((named.value, None), named.source, named.level)
    gpu = decide(cli, stated, config)
    if gpu is not None:
        name, gib = gpu.value
        if gib is not None:
            dep.gpu = gpu_from_memory(gib, name or "custom")
        elif name is not None:
            dep.gpu = lookup_gpu(name) or _instance_gpu(name)
        dep.gpu_reason = gpu.source
    count_stated = None
    n, why = gpu_count_from(inv)
    if why:
        count_stated = Stated(n, why, FILE)
    cli_count = Stated(opts.gpu_count, "--gpu NAME:COUNT", CLI) if opts.gpu_count is not None else None
    count = decide(cli_count, count_stated, d.count())
    dep.gpu_count = count.value if count is not None else None
    if count is not None:
        dep.gpu_reason = (dep.gpu_reason + "; " if dep.gpu_reason else "") + f"{count.value} GPU(s) from {count.source}"
    node = inv.facts.get("instance_gpu_count")
    if node is not None and isinstance(node.value, int) and dep.gpu_count != node.value:
        # the node's GPUs are not the pod's: a request (nvidia.com/gpu) decides what the container
        # gets, and without one nothing is assumed
        what = f"the request ({dep.gpu_count}) is used" if dep.gpu_count is not None else "no GPU count is assumed"
        note = f"the instance type has {node.value} GPU(s), {what}"
        dep.gpu_reason = (dep.gpu_reason + "; " if dep.gpu_reason else "") + note


def _instance_gpu(name: str) -> GpuSpec | None:
    """``--gpu g6.24xlarge``: the GPU of a cloud instance type (vlint.hardware.instances)."""
    from vlint.hardware.instances import lookup_instance

    got = lookup_instance(name)
    return got[0] if got is not None else None


def _resolve_model(dep: Deployment, opts: ResolveOptions, base_dir: Path | None) -> None:
    from vlint.resolve.model_sources import find_model

    served = dep.value("served_model_name")
    names = [n for n in served if isinstance(n, str)] if isinstance(served, list | tuple) else []
    if isinstance(served, str):
        names = [served]
    where = dep.invocation.facts.get("model_location")
    locations = [str(where.value)] if where is not None else []
    if dep.model is None and "" not in opts.model_configs and not names and not locations:
        return
    revision = dep.value("revision")
    found = find_model(
        dep.model or "",
        base_dir=base_dir,
        model_paths=opts.model_paths,
        online=opts.online,
        root=opts.lint_root,
        model_configs=opts.model_configs,
        models=opts.models,
        names=names,
        revision=revision if isinstance(revision, str) else None,
        locations=locations,
    )
    dep.arch, dep.model_origin, dep.model_note, dep.model_via = found.arch, found.origin, found.note, found.via


def without_model_facts(dep: Deployment) -> Deployment:
    """The launch as vlint would see it knowing nothing of its model: no architecture, no memory
    estimate, the release's defaults filled without model facts (for the engine to tell which
    findings rest on facts inferred from a name)."""
    return _resolved_again(dep, arch=None, model_origin="", model_via="")


def _resolved_again(dep: Deployment, **changes: Any) -> Deployment:
    """``dep`` with ``changes``, its memory answers dropped and its defaults resolved again."""
    again = replace(dep, **changes, _memory=None, _memory_done=False, _gpu_fit=None, _memory_status=None)
    _resolve_defaults(again)
    return again


def with_unread_settings(dep: Deployment) -> Deployment:
    """The launch with every memory setting it does not write made unknown: what words vlint cannot
    read (``$EXTRA_ARGS``) may set (for the engine to tell which findings rest on those settings'
    defaults)."""
    from vlint.argspec.parse import Setting
    from vlint.launch.memory_inputs import NEEDED

    settings = dict(dep.args.settings)
    for dest in NEEDED:
        if dest not in settings:
            option = "--" + dest.replace("_", "-")
            settings[dest] = Setting(dest, UNRESOLVED, option, dep.invocation.span, None, "cli", raw="(unread words)")
    return _resolved_again(dep, args=replace(dep.args, settings=settings))


def defaults_input(dep: Deployment) -> dict[str, Any]:
    """What :func:`vlint.resolve.defaults.resolve_defaults` reads of a launch as ``user``: the values it
    sets (by dest, unresolved ones left out) and its environment under ``env``."""
    user: dict[str, Any] = {}
    for dest, s in dep.args.settings.items():
        if s.value is not UNRESOLVED:
            user[dest] = s.value
    user["env"] = {k: v for k, v in dep.env.items() if v is not UNRESOLVED}
    return user


def _resolve_defaults(dep: Deployment) -> None:
    from vlint.resolve.defaults import resolve_defaults

    dep.resolved = resolve_defaults(
        dep.version, gpu=dep.gpu, usage_context=dep.invocation.usage_context, arch=dep.arch, user=defaults_input(dep)
    )
