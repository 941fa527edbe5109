"""vLLM's arguments for one release, read from the bundled schema ``schemas/vllm/<version>.json``.

The schemas are generated from vLLM's own ``vllm serve`` parser by ``tools/gen_vllm_schema.py``
(see ``tools/README.md`` for the layout of ``x-vlint``). This module only reads them.
"""

from __future__ import annotations

from functools import cache

from vlint.core.record import field, record
from vlint.core.typing_names import Any
from vlint.core.version import Version

#: actions that take no value on the command line
NO_VALUE_ACTIONS = {
    "store_true",
    "store_false",
    "store_const",
    "boolean_optional",
    "enable_disable",
    "count",
    "help",
    "version",
    "append_const",
}


@record(frozen=True, slots=True)
class Argument:
    """One vLLM argument (an argparse action)."""

    dest: str
    name: str
    option_strings: tuple[str, ...]
    negative_option_strings: tuple[str, ...] = ()
    action: str = "store"
    kind: str = "str"
    optional: bool = False
    choices: tuple[Any, ...] | None = None
    nargs: Any = None
    const: Any = None
    default: Any = None
    required: bool = False
    metavar: Any = None
    deprecated: str | None = None
    help: str = ""
    group: str = ""
    positional: bool = False
    #: the qualified name of the argparse ``type`` callable the generator read (``…parse_type.<locals>._parse_type``)
    type_name: str = ""

    @property
    def takes_value(self) -> bool:
        return self.action not in NO_VALUE_ACTIONS

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Argument:
        choices = d.get("choices")
        return cls(
            dest=d["dest"],
            name=d.get("name") or (d["option_strings"][0] if d.get("option_strings") else d["dest"]),
            option_strings=tuple(d.get("option_strings") or ()),
            negative_option_strings=tuple(d.get("negative_option_strings") or ()),
            action=d.get("action") or "store",
            kind=d.get("kind") or "str",
            optional=bool(d.get("optional")),
            choices=tuple(choices) if isinstance(choices, list) else None,
            nargs=d.get("nargs"),
            const=d.get("const"),
            default=d.get("default"),
            required=bool(d.get("required")),
            metavar=d.get("metavar"),
            deprecated=d.get("deprecated") or None,
            help=d.get("help") or "",
            group=d.get("group") or "",
            positional=bool(d.get("positional")),
            type_name=d.get("type_name") or "",
        )


@record(slots=True)
class ArgSpec:
    """All arguments of one vLLM version's ``vllm serve`` parser."""

    version: Version
    arguments: list[Argument]
    env_vars: dict[str, Any] = field(default_factory=dict)
    quantization_methods: tuple[str, ...] = ()
    kv_cache_dtypes: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    #: option string → (argument, negated)
    options: dict[str, tuple[Argument, bool]] = field(default_factory=dict)
    by_dest: dict[str, Argument] = field(default_factory=dict)
    positionals: list[Argument] = field(default_factory=list)

    def __post_init__(self) -> None:
        for a in self.arguments:
            if a.positional:
                self.positionals.append(a)
            else:
                self.by_dest.setdefault(a.dest, a)
            for o in a.option_strings:
                self.options[o] = (a, o in a.negative_option_strings)
            for o in a.negative_option_strings:
                self.options[o] = (a, True)

    def __reduce__(self) -> tuple[Any, ...]:
        # a bundled release's spec crosses to and from worker processes (lint -j) as its version: the
        # other side has it loaded already (or loads it once) instead of unpickling ~1000 arguments
        if _LOADED.get(self.version) is self:
            return (load_spec, (self.version,))
        fields = (self.arguments, self.env_vars, self.quantization_methods, self.kv_cache_dtypes, self.meta)
        return (ArgSpec, (self.version, *fields))

    def lookup(self, option: str) -> tuple[Argument, bool] | None:
        return self.options.get(option)

    def prefix_matches(self, prefix: str) -> list[str]:
        """Options that start with ``prefix`` (argparse's abbreviation matching, long and single-dash)."""
        return sorted(o for o in self.options if o.startswith(prefix))

    def knows_env(self, name: str) -> bool:
        return name in self.env_vars

    @property
    def config_semantics(self) -> dict[str, Any]:
        return dict(self.meta.get("config_yaml_semantics") or {})


@cache
def bundled_versions() -> tuple[Version, ...]:
    """The vLLM releases vlint has data for, oldest first (aliases included)."""
    from vlint.argspec.bundle import index

    try:
        names = index()["versions"]
    except FileNotFoundError:
        return ()
    return tuple(sorted(Version.parse(v) for v in names))


@cache
def load_spec(version: Version) -> ArgSpec:
    """The argument spec of a bundled release (exactly that release; see :func:`resolve_release`)."""
    from vlint.argspec.bundle import read_record

    meta = read_record(str(version))
    args = [Argument.from_json(a) for a in meta.get("arguments", [])]
    spec = ArgSpec(
        version=version,
        arguments=args,
        env_vars=dict(meta.get("env_vars") or {}),
        quantization_methods=_listed(meta.get("quantization_methods"), "methods"),
        kv_cache_dtypes=_listed(meta.get("kv_cache_dtypes"), "dtypes"),
        meta={k: v for k, v in meta.items() if k not in ("arguments", "env_vars")},
    )
    _LOADED[version] = spec
    return spec


#: the specs :func:`load_spec` returned (pickled by version, see ``ArgSpec.__reduce__``)
_LOADED: dict[Version, ArgSpec] = {}


def _listed(value: Any, key: str) -> tuple[str, ...]:
    """A list the generator stores either bare or as ``{"source": …, key: [...]}``."""
    if isinstance(value, dict):
        value = value.get(key)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


@record(frozen=True, slots=True)
class Resolution:
    """Which bundled release checks a wanted one, and why (one rule for lint, explain, fix, schema)."""

    #: the release whose data is used: the wanted one when it is bundled
    version: Version
    wanted: Version | None
    exact: bool
    #: "" when exact; else one sentence saying which release was used instead and why
    note: str = ""
    #: "newer" / "older" when the wanted release lies outside the bundled range (a warning, VL016)
    outside: str = ""


def resolve_release(wanted: Version | None) -> Resolution:
    """The bundled release to check ``wanted`` against.

    Bundled → itself. Newer than the newest bundled (``9.9``, a release after this vlint) → the newest,
    flagged ``outside="newer"``; older than the oldest → the oldest, ``outside="older"``. Otherwise not
    a bundled release (``0.10.1.2``, ``0.9.0rc1``, a dev build) → the nearest bundled release of the
    same minor series at or below it (else the series' first), with a note. ``None`` → the newest.
    ``0.8.5`` and ``0.8.5.post1`` are both bundled and order as PyPI does (the post release after).
    """
    versions = bundled_versions()
    if not versions:
        raise RuntimeError("no vLLM release data is bundled (schemas/vllm/index.json)")
    newest, oldest = versions[-1], versions[0]
    if wanted is None:
        return Resolution(newest, None, True)
    if wanted in versions:  # ``0.33`` is ``0.33.0``: report the bundled spelling
        return Resolution(versions[versions.index(wanted)], wanted, True)
    if wanted > newest:
        note = f"vlint knows vLLM releases up to {newest}; {wanted} is newer, checked as {newest}: update vlint"
        return Resolution(newest, wanted, False, note, "newer")
    if wanted < oldest:
        note = f"{wanted} is older than the oldest vLLM release vlint knows ({oldest}); checked as {oldest}"
        return Resolution(oldest, wanted, False, note, "older")
    series = [v for v in versions if v.minor == wanted.minor]
    below = [v for v in (series or versions) if v <= wanted]
    chosen = below[-1] if below else series[0]
    where = f"the {wanted.short()} series" if series else "the releases vlint knows"
    note = f"{wanted} is not a vLLM release vlint knows; checked as {chosen}, the nearest of {where}"
    return Resolution(chosen, wanted, False, note)
