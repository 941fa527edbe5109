"""What a source extracts from a file: one :class:`Invocation` per vLLM launch.

An invocation is the argv vLLM would see (after the entry point: ``serve MODEL --flag value``), the
structured settings that come from a ``--config`` YAML file or from Python keyword arguments, the
environment, and facts about the surroundings (GPU count and type, image tag, /dev/shm…). Every
token keeps the :class:`~vlint.core.span.Span` it came from. Nothing is guessed: a value that depends on
something vlint cannot see (``$VAR`` with no default, ``{{ .Values.x }}``) is marked unresolved.
"""

from __future__ import annotations

from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any

#: vLLM's usage contexts: ``vllm serve`` / the OpenAI server vs ``LLM(...)`` in Python.
SERVER = "OPENAI_API_SERVER"
LLM_CLASS = "LLM_CLASS"


#: the fact an unpinned ``pip install vllm`` gives a launch (its value ""): the resolver checks the newest
#: release, which such an install takes when it runs (:mod:`vlint.sources.pins`)
UNPINNED_FACT = "vllm_unpinned_install"
#: a shell word that is the script's own arguments (``exec vllm serve "$@"``): a wrapper's launch is
#: completed by whoever runs the script with them (a Dockerfile ENTRYPOINT with its CMD)
CALLER_ARGS = frozenset({'"$@"', "$@", '"${@}"', "${@}", '"$*"', "$*", '"${*}"', "${*}"})


@record(frozen=True, slots=True)
class Token:
    """One argv word.

    ``text`` is what the program would receive. When ``unresolved`` is true the word depends on a
    value vlint cannot know, and ``text`` holds the source spelling (``$MODEL``) instead.
    """

    text: str
    span: Span
    unresolved: bool = False
    #: where the word's value is written when that is elsewhere: the value of the variable the word
    #: expands (``GMU=0.95`` for ``--gpu-memory-utilization $GMU``); None when written at ``span``
    defined: Span | None = None
    #: a word among several that one variable expands to (``"${ARGS[@]}"``, ``$CMD``): where that variable
    #: is assigned (part of where the launch is written, :meth:`Invocation.lines`)
    written_in: Span | None = None


@record(frozen=True, slots=True)
class Entry:
    """A structured setting: a key of a vLLM ``--config`` YAML file, or a Python keyword argument."""

    key: str
    value: Any
    key_span: Span
    value_span: Span
    unresolved: bool = False
    #: spans of list items, when the value is a list
    item_spans: tuple[Span, ...] = ()


@record(slots=True)
class ConfigFile:
    """A vLLM ``--config`` YAML file as loaded (entries in file order)."""

    path: str
    entries: list[Entry]
    span: Span


@record(frozen=True, slots=True)
class Fact:
    """Something known about the launch's surroundings, with where it was read."""

    value: Any
    span: Span | None
    detail: str = ""


@record(frozen=True, slots=True)
class Problem:
    """Something a source noticed while reading a launch (rule code, where, what, numbers)."""

    code: str
    span: Span
    message: str
    data: dict[str, Any] = field(default_factory=dict)
    #: overrides the rule's severity for this problem (None: the rule's)
    severity: str | None = None


@record(slots=True)
class Invocation:
    """One vLLM launch found in a file."""

    #: the source format that found it (``shell``, ``vllm-config``, ``kubernetes``…)
    source: str
    #: ``vllm serve``, ``api_server`` (``python -m vllm.entrypoints.openai.api_server``),
    #: ``legacy-api-server`` (``vllm.entrypoints.api_server``), ``config`` (a bare ``--config`` file)
    #: ``LLM`` (Python), ``image`` (an image's own entry point, either of the first two) or
    #: ``ray-serve`` (Ray Serve LLM ``engine_kwargs``: keyword arguments with the server's defaults)
    program: str
    #: where the launch starts (the ``vllm`` word, the first key of a config file…)
    span: Span
    #: argv after the entry point, e.g. ``[MODEL, --max-model-len, 8192]``
    args: list[Token] = field(default_factory=list)
    #: the ``--config`` file (or the file itself for a bare vLLM YAML config)
    config: ConfigFile | None = None
    #: Python keyword arguments (``LLM(...)``, ``EngineArgs(...)``, Ray ``engine_kwargs``)
    kwargs: list[Entry] = field(default_factory=list)
    #: environment variables visible to the process (name → value token)
    env: dict[str, Token] = field(default_factory=dict)
    #: surroundings: ``gpu_count``, ``gpu_type``, ``image``, ``vllm_version``, ``shm_size``…
    #: Kubernetes/Helm sources add: ``gpu_resource`` (``nvidia.com/gpu``), ``gpu_count_text`` (a GPU
    #: count vlint cannot read, ``${N}``), ``tpu_count``, ``accelerator_count`` (Gaudi…), ``gpu_label``
    #: (a node label value naming an accelerator the GPU catalog does not know), ``replicas`` (int or
    #: the raw text), ``group_size`` and ``cluster_gpu_count`` (pods and GPUs of a multi-node group:
    #: LeaderWorkerSet, KubeRay, production-stack Ray), ``shm_mounted`` (bool: a volume at /dev/shm),
    #: ``shm_medium``, ``shm_size`` (``sizeLimit`` text or ``unlimited``), ``ipc`` (``host``),
    #: ``privileged``, ``secret_env`` / ``env_from`` (names of env vars from Secrets, ``envFrom``
    #: refs), ``k8s_unexpanded_env`` (env values with ``${VAR}`` Kubernetes leaves literal),
    #: ``resource_profile`` (KubeAI), ``enabled`` (a catalog entry's switch), ``duplicate_serve`` and
    #: ``suppress`` (codes from the ``vlint.dev/disable`` annotation, comma-separated).
    #: Compose, Dockerfile, SkyPilot, GitHub Actions, Ray and Python sources add: ``gpu_ids`` (the GPU
    #: ids a container sees, a tuple of host ids, or ``all``), ``runs_with`` (launches of one file
    #: with the same value run at the same time: the services of a compose file),
    #: ``compose_profiles`` (tuple), ``compose_service``, ``lost_build_args`` (list of
    #: ``sources.dockerfile.LostBuildArg``: build arguments the run-time command reads that never
    #: reach the container), ``duplicate_serve`` (also: the words that repeat the image's entry point),
    #: ``num_nodes`` (SkyPilot), ``min_replicas`` / ``max_replicas`` (Ray autoscaling),
    #: ``ray_worker_gpus`` (GPUs of a RayService's worker groups, all replicas together);
    #: ``image_entrypoint`` (the program, when the launch is arguments the image's own entry point runs);
    #: ``parallelism_by_runtime`` (KAITO: its controller picks TP/PP from the model's size; a memory
    #: failure at the TP 1 vlint assumes is then a warning); ``settings_by_runtime`` (the platform writes the
    #: whole command, a KAITO preset: findings that rest on vLLM's defaults are not the launch's, dropped).
    #: Inferences whose launch's errors are warnings that say so: ``example_env`` (compose values from an
    #: example ``.env``), ``linked_by_name`` (a file or object taken by its name or format for the code or
    #: runtime a config runs: a Ray Serve module beside the RayService, a KServe auto-selected runtime).
    #: ``vllm_unpinned_install`` (:data:`UNPINNED_FACT`): an unpinned ``pip install vllm`` beside the launch.
    #: Shell sources add where the launch runs, for the relative paths vLLM opens: ``workdir`` (the folder the
    #: script moves to itself, ``cd "$(dirname "$0")"``: relative to its folder, or absolute), else
    #: ``workdir_assumed`` (the folder its relative ``cd``s lead to from wherever it is started; absent: its
    #: own folder, assumed), and ``created_paths`` (``sources.scripts.workdir.Created``: what it wrote before).
    facts: dict[str, Fact] = field(default_factory=dict)
    #: ``OPENAI_API_SERVER`` (also Ray Serve LLM), ``LLM_CLASS``, or ``ENGINE_CONTEXT`` (Python
    #: ``EngineArgs``/``AsyncEngineArgs``, which ``*.from_engine_args`` start in that context)
    usage_context: str = SERVER
    #: problems the source noticed, reported as findings of the rule they name
    problems: list[Problem] = field(default_factory=list)
    #: true when argv holds words vlint cannot see into (``"$@"``, ``$EXTRA_ARGS`` with no value,
    #: ``{{ .Values.args }}``): rules about a flag's *absence* then stay silent
    opaque_args: bool = False
    #: a short label (``service vllm``, ``container vllm in Deployment/llm``) for reports
    label: str = ""
    #: where the launch starts as written when that lies before ``span`` and its argv: the key that
    #: holds the command (compose ``command:``/``entrypoint:``, a container's ``command:``/``args:``),
    #: the first word of a ``docker run …`` command, the list a Python script builds argv in.
    #: None: nothing before ``span``. Read through :meth:`lines`.
    head: Span | None = None
    #: the same launch is built in that file too (its absolute path): one half of a pair of objects in
    #: two files, a KServe InferenceService and the ServingRuntime it names. When that file is linted in
    #: the same run (and reads this one), this copy is dropped and the file gets ``elsewhere_note``.
    also_in: str = ""
    elsewhere_note: str = ""

    def lines(self) -> tuple[int, int]:
        """The first and last line of this file the launch is written on: its head, anchor, argv words,
        keyword arguments and (for a bare config file) the config's keys. A reviewer pointing at any of
        them (the ``command:`` key, the ``vllm`` word, the model argument) points at this launch."""
        spans = [self.span] + ([self.head] if self.head is not None else [])
        spans += [t.span for t in self.args] + [e.key_span for e in self.kwargs] + [e.value_span for e in self.kwargs]
        spans += [t.written_in for t in self.args if t.written_in is not None]
        if self.config is not None and self.config.span.path == self.path:
            spans += [e.value_span for e in self.config.entries]
        # the file the launch is written in: the head's (a compose service whose command is its
        # Dockerfile's CMD is anchored in the Dockerfile, but written at the service's key)
        path = self.head.path if self.head is not None else self.path
        here = [s for s in spans if s.path == path and s.line > 0]
        return min(s.line for s in here), max(max(s.end_line, s.line) for s in here)

    @property
    def fragment(self) -> bool:
        """A bare vLLM ``--config`` file that names no model: settings a launch elsewhere reads (its keys
        are checked), not a launch of its own — whatever runs it gives the model."""
        return (
            self.source == "vllm-config"
            and self.program == "config"
            and not self.args
            and self.config is not None
            and not any(e.key.strip().lstrip("-").replace("_", "-") == "model" for e in self.config.entries)
        )

    @property
    def path(self) -> str:
        return self.span.path
