"""Where each fact comes from: the one place that orders the command line, the files and the config.

DESIGN.md "Where each fact comes from": for every fact vlint needs about a launch (the vLLM release,
the GPU type, the GPU count, the GPU memory), the order is the same everywhere (lint, explain, fix,
size, the language server):

1. what the user passed on the **command line** (``--vllm-version``, ``--gpu``…): it overrides
   everything, as documented;
2. what the **files state** (an image tag, a ``vllm==`` pin, ``nvidia.com/gpu`` limits, a
   nodeSelector…) for that launch and the files it links;
3. the **configuration's default** (``vllm-version``/``gpu`` in the nearest ``.vlint.toml`` or
   ``[tool.vlint]``, or a ``per-path`` table): used only where the files state nothing;
4. whatever the caller falls back on (the installed vllm, the newest bundled release, no GPU).

:func:`decide` is that order; the resolver asks it for each fact, and :class:`ConfigDefaults` carries
level 3 from the configuration (:mod:`vlint.config.files`) to the resolver. Nothing here reads files.
"""

from __future__ import annotations

from vlint.core.record import record
from vlint.core.typing_names import Generic, TypeVar
from vlint.core.version import Version

T = TypeVar("T")

CLI = "command line"
FILE = "file"
CONFIG = "configuration"


@record(frozen=True, slots=True)
class Stated(Generic[T]):
    """A value and who stated it: ``source`` is what reports show (``--gpu H100``, ``image tag
    vllm/vllm-openai:v0.10.2``, ``gpu in deploy/.vlint.toml``); ``level`` one of CLI/FILE/CONFIG."""

    value: T
    source: str
    level: str


def decide(cli: Stated[T] | None, stated: Stated[T] | None, config: Stated[T] | None) -> Stated[T] | None:
    """The value that applies: the command line, else what the files state, else the config default."""
    for choice in (cli, stated, config):
        if choice is not None:
            return choice
    return None


@record(frozen=True, slots=True)
class ConfigDefaults:
    """Level 3: the configuration's defaults for one file (its nearest config and per-path tables).

    ``*_source`` says where each was written (``vllm-version in .vlint.toml``), for reports and
    ``--show-settings``."""

    vllm_version: Version | None = None
    vllm_version_source: str = ""
    gpu: str | None = None
    gpu_count: int | None = None
    gpu_source: str = ""
    gpu_memory_gib: float | None = None
    gpu_memory_source: str = ""
    #: ``gpu-free-gib``: GiB free on the GPU before vLLM starts (None: not stated)
    gpu_free_gib: float | None = None
    gpu_free_source: str = ""
    #: ``reference-gpus``: the GPUs a launch that names none is checked on (None: vlint's list)
    reference_gpus: tuple[str, ...] | None = None
    reference_gpus_source: str = ""

    def version(self) -> Stated[Version] | None:
        if self.vllm_version is None:
            return None
        return Stated(self.vllm_version, self.vllm_version_source or f"vllm-version {self.vllm_version}", CONFIG)

    def gpu_type(self) -> Stated[str] | None:
        if self.gpu is None:
            return None
        return Stated(self.gpu, self.gpu_source or f"gpu {self.gpu}", CONFIG)

    def count(self) -> Stated[int] | None:
        if self.gpu_count is None:
            return None
        return Stated(self.gpu_count, self.gpu_source or f"gpu count {self.gpu_count}", CONFIG)

    def memory(self) -> Stated[float] | None:
        if self.gpu_memory_gib is None:
            return None
        return Stated(self.gpu_memory_gib, self.gpu_memory_source or f"gpu-memory-gib {self.gpu_memory_gib}", CONFIG)

    def free(self) -> Stated[float] | None:
        if self.gpu_free_gib is None:
            return None
        return Stated(self.gpu_free_gib, self.gpu_free_source or f"gpu-free-gib {self.gpu_free_gib:g}", CONFIG)
