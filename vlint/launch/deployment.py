"""A resolved launch: the invocation, the target vLLM version, typed settings with the defaults that
version fills in, the model architecture and the GPU. Rules read deployments, never raw argv."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vlint.argspec.parse import ParsedArgs, Setting
from vlint.argspec.spec import ArgSpec
from vlint.core.invocation import Invocation, Token
from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import Version

if TYPE_CHECKING:
    from vlint.core.span import Span
    from vlint.hardware.gpus import GpuSpec
    from vlint.memory import MemoryEstimate
    from vlint.resolve.defaults import ResolvedValue
    from vlint.resolve.model_arch import ModelArch


@record(slots=True)
class Deployment:
    invocation: Invocation
    version: Version
    #: why this version: "--vllm-version 0.10", "image tag vllm/vllm-openai:v0.10.2", …
    version_reason: str
    #: False when the release asked for is not bundled and another one is checked (``version_reason`` says which)
    version_exact: bool
    spec: ArgSpec
    args: ParsedArgs
    model: str | None = None
    arch: ModelArch | None = None
    #: where the model facts came from (``local folder``, ``--model-config``, ``mapping``, ``HF cache``,
    #: ``catalog``, ``hub``)
    model_origin: str = ""
    #: why a place that could have told the model facts was not read (outside the lint root…)
    model_note: str = ""
    #: how the origin was reached (the folder, the mapping entry, the cache snapshot…)
    model_via: str = ""
    gpu: GpuSpec | None = None
    gpu_count: int | None = None
    gpu_reason: str = ""
    #: environment variable → value (UNRESOLVED when unknown)
    env: dict[str, Any] = field(default_factory=dict)
    #: settings as this version resolves them (user value or the version's default, with why)
    resolved: dict[str, ResolvedValue] = field(default_factory=dict)
    #: "newer" / "older" when the release asked for lies outside the bundled range (VL016), else ""
    version_outside: str = ""
    #: the release asked for (None: none was stated, the newest bundled is checked)
    version_wanted: Version | None = None
    #: ``[tool.vlint] reference-gpus`` (empty: the default list of :mod:`vlint.launch.gpu_fit`)
    reference_gpus: tuple[str, ...] = ()
    #: ``--gpu-free-gib`` / ``gpu-free-gib``: GiB free on each GPU before vLLM starts (None: all of it)
    gpu_free_gib: float | None = None
    #: who stated it: ``--gpu-free-gib 20`` or ``gpu-free-gib 20 in deploy/.vlint.toml`` ("" when not stated)
    gpu_free_source: str = ""
    #: the folder of the file the launch is in (relative paths of the launch are looked up from it)
    base_dir: Path | None = None
    #: computes the memory model's estimate (the resolver passes :func:`vlint.launch.memory_inputs.estimate_for`:
    #: the launch type does not import the layer that sizes it); None: no estimate
    estimator: Callable[[Deployment], MemoryEstimate | None] | None = None
    #: the release was read from a custom image's tag past its suffix (``acme/vllm-nixl:v0.10.2-nixl``): the
    #: tag, and the launch resolved as if the tag named no release (the engine keeps as errors only the
    #: findings that stand there too); None when the release is certain
    release_guess: str | None = None
    release_guess_alternative: Callable[[], Deployment] | None = None
    #: what a finding softened that way says of the release it rested on (the parenthesis it ends with)
    release_guess_why: str = ""
    #: the release is the newest because an unpinned ``pip install vllm`` takes it: the errors that rest on
    #: it stay errors and end with ``release_guess_why`` (where the release comes from)
    release_unpinned: bool = False
    _memory: Any = None
    _memory_done: bool = False
    #: (gpu_fit entries or None, why none), computed once by :func:`vlint.launch.gpu_fit.gpu_fit`
    _gpu_fit: Any = None
    #: :class:`~vlint.launch.memory_status.MemoryStatus`, computed once by
    #: :func:`vlint.launch.memory_status.memory_status`
    _memory_status: Any = None

    # -- reading settings ----------------------------------------------------------------------
    def setting(self, dest: str) -> Setting | None:
        """The value the user wrote for ``dest`` (None when not written)."""
        return self.args.settings.get(dest)

    def is_set(self, dest: str) -> bool:
        return dest in self.args.settings

    def span_of(self, *dests: str) -> Span:
        """Where the first of ``dests`` the launch writes is (the launch itself otherwise)."""
        for d in dests:
            s = self.args.settings.get(d)
            if s is not None:
                return s.full_span
        return self.invocation.span

    def user_value(self, dest: str, default: Any = None) -> Any:
        s = self.args.settings.get(dest)
        return default if s is None else s.value

    def value(self, dest: str, default: Any = None) -> Any:
        """The effective value: what the user wrote, else this version's default (resolved). Where vLLM
        replaces what the user wrote (``forced``: V1 before 0.11.1 turns chunked prefill back on;
        ``resolved``: ``--max-model-len auto`` becomes the derived length), that value."""
        s = self.args.settings.get(dest)
        r = self.resolved.get(dest)
        if s is not None and not (r is not None and r.origin in ("forced", "resolved") and s.value is not UNRESOLVED):
            return s.value
        if r is not None:
            return r.value
        arg = self.spec.by_dest.get(dest)
        if arg is not None and arg.default is not None:
            return arg.default
        return default

    def why(self, dest: str) -> str:
        """Where the effective value comes from, for messages."""
        s = self.args.settings.get(dest)
        r = self.resolved.get(dest)
        if s is not None and r is not None and r.origin in ("forced", "resolved"):
            return f"vLLM {self.version}: {r.why}"
        if s is not None:
            return "set in " + ("the config file" if s.origin == "config" else "the launch")
        if r is not None:
            return f"vLLM {self.version} default: {r.why}"
        return f"vLLM {self.version} default"

    def known(self, *dests: str) -> bool:
        """True when every named value is resolved (not a ``$VAR`` vlint cannot see)."""
        return all(self.value(d) is not UNRESOLVED and self.value(d) is not None for d in dests)

    def local_data_parallel(self) -> int | None:
        """Data-parallel ranks this launch starts itself: all of ``--data-parallel-size`` on one node,
        ``--data-parallel-size-local`` per node, one when it is one rank of an external load balancer
        (``--data-parallel-rank`` / ``--data-parallel-external-lb``); None when not resolved."""
        dp = self.value("data_parallel_size") if "data_parallel_size" in self.spec.by_dest else 1
        if isinstance(dp, bool) or not isinstance(dp, int):
            return None
        local = self.user_value("data_parallel_size_local")
        if isinstance(local, int) and not isinstance(local, bool):
            return local
        if self.user_value("data_parallel_external_lb") is True or self.is_set("data_parallel_rank"):
            return 1
        return dp

    def parallel_label(self, *, show_pp: bool = False) -> str:
        """``TP 2 × PP 2 × DP 4, expert parallel``: the parallel layout one rank's memory depends on."""

        def size(dest: str) -> int:
            v = self.value(dest)
            return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 1

        pp, dp = size("pipeline_parallel_size"), size("data_parallel_size")
        out = f"TP {size('tensor_parallel_size')}" + (f" × PP {pp}" if show_pp or pp > 1 else "")
        out += f" × DP {dp}" if dp > 1 else ""
        return out + (", expert parallel" if self.value("enable_expert_parallel") is True else "")

    @property
    def path(self) -> str:
        return self.invocation.path

    @property
    def env_tokens(self) -> dict[str, Token]:
        return self.invocation.env

    @property
    def memory(self) -> MemoryEstimate | None:
        """The memory model's estimate, computed once (None when model or GPU is unknown)."""
        if not self._memory_done:
            self._memory_done = True
            self._memory = self.estimator(self) if self.estimator is not None else None
        return self._memory
