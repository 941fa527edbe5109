"""vLLM ``--config`` YAML files: a flat mapping of long option names (dashes or underscores) to values.

``vllm serve --config cfg.yaml`` turns each key into command-line arguments (see
:mod:`vlint.argspec.config_expand` for the exact, version-dependent rules). This module only reads
the file: keys, values and their spans. A bare config file found on its own in a repository becomes
an :class:`~vlint.core.invocation.Invocation` of program ``config``.
"""

from __future__ import annotations

from pathlib import Path

from vlint.core.invocation import ConfigFile, Entry, Invocation, Problem
from vlint.core.lazy_re import lazy_compile
from vlint.core.span import PositionMap, Span
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText
from vlint.sources.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    compose_all,
    merged_items,
    node_span,
    to_python,
)

NAME = "vllm-config"

#: keys that only other engines use in look-alike config files (SGLang's server args)
_FOREIGN_KEYS = {
    "mem-fraction-static",
    "chunked-prefill-size",
    "max-running-requests",
    "cuda-graph-max-bs",
    "tp-size",
    "dp-size",
    "speculative-algorithm",
    "model-path",
    "max-total-tokens",
    "schedule-policy",
    "context-length",
    "enable-metrics",
    "log-level",
}
#: keys that mark a file as something else entirely
_OTHER_FORMAT_KEYS = {"apiVersion", "kind", "services", "servingEngineSpec", "spec", "metadata", "jobs", "on"}
#: vLLM option names that any application's config uses too (``host: … port: …``, a training
#: config's ``model``/``seed``/``dtype``): they do not make a file a vLLM config on their own
_GENERIC_KEYS = {
    "host",
    "port",
    "model",
    "seed",
    "dtype",
    "tokenizer",
    "revision",
    "config",
    "help",
    "api-key",
    "download-dir",
    "quantization",
}


#: ``: *name`` after a key: where an alias is written
_ALIAS = lazy_compile(r"\s*:[ \t]*(\*[^\s,\]}]+)")


def _norm(key: str) -> str:
    return key.strip().lstrip("-").replace("_", "-")


def load_config(
    text: str,
    path: str,
    *,
    posmap: PositionMap | None = None,
    unresolved: list[tuple[int, int]] | None = None,
) -> ConfigFile:
    """Read a vLLM config YAML into entries. ``posmap`` maps text offsets to file positions when the
    text was not read verbatim from ``path`` (a here-document); ``unresolved`` lists offset ranges
    whose content vlint could not resolve."""
    docs = compose_all(text, path)
    if not docs:
        return ConfigFile(path, [], Span(path, 1, 1))
    if len(docs) > 1:
        second = docs[1].start_mark
        raise SourceError(
            "a vLLM config file holds one YAML document, this one holds several",
            second.line + 1,
            second.column + 1,
        )
    root = docs[0]
    if not isinstance(root, MappingNode):
        raise SourceError(
            "a vLLM config file must be a mapping of option names to values",
            root.start_mark.line + 1,
            root.start_mark.column + 1,
        )
    ranges = unresolved or []
    where = posmap or PositionMap.for_text(path, text)

    def span_of(node: Node, start: int | None = None) -> Span:
        """From the node's start (or ``start``) to the end of its last character: a block
        collection's end mark lies on the next line, so its last descendant's end is used."""
        last = node
        while isinstance(last, SequenceNode | MappingNode) and not last.flow_style and last.value:
            last = last.value[-1] if isinstance(last, SequenceNode) else last.value[-1][1]
        a = node.start_mark.index if start is None else start
        b = last.end_mark.index
        if isinstance(last, ScalarNode) and last.style in ("|", ">"):
            while b > a and text[b - 1] in " \t\r\n":
                b -= 1  # a block scalar's end mark is on the line after it
        if posmap is None and start is None and last is node and b == node.end_mark.index:
            return node_span(node, path)
        return where.span(a, max(b, a))

    def value_span(k: Node, v: Node) -> Span:
        """The value's span; an alias (``key: *anchor``) is spanned where it is written, not at
        the anchored node (which lies elsewhere in the file)."""
        if v.start_mark.index >= k.end_mark.index:
            return span_of(v)
        m = _ALIAS.match(text, k.end_mark.index)
        if m is None:
            return span_of(v)
        return where.span(m.start(1), m.end(1))

    def is_unresolved(node: Node) -> bool:
        a, b = node.start_mark.index, node.end_mark.index
        return any(s < b and a < e for s, e in ranges)

    entries: list[Entry] = []
    for k, v in merged_items(root):
        if not isinstance(k, ScalarNode):
            raise SourceError("config keys must be plain names", k.start_mark.line + 1, k.start_mark.column + 1)
        value = to_python(v)
        item_spans: tuple[Span, ...] = ()
        if isinstance(v, SequenceNode):
            item_spans = tuple(span_of(n) for n in v.value)
        entries.append(
            Entry(
                key=str(k.value),
                value=value,
                key_span=span_of(k),
                value_span=value_span(k, v),
                unresolved=is_unresolved(v),
                item_spans=item_spans,
            )
        )
    first = entries[0].key_span if entries else span_of(root)
    return ConfigFile(path, entries, first)


def looks_like_vllm_config(src: SourceText, known_option: object, *, explicit: bool = False) -> bool:
    """Content sniffing: a flat mapping whose keys are mostly vLLM option names, and none of
    another engine's. ``known_option(name) -> bool`` answers for a normalized key. ``explicit`` (the
    file was named on the command line): every key a vLLM option is enough, ``model:`` alone too."""
    text = src.text
    if "{{" in text and "}}" in text:
        return False
    try:
        docs = compose_all(text, src.path)
    except SourceError:
        return False
    if len(docs) != 1 or not isinstance(docs[0], MappingNode):
        return False
    keys = [k.value for k, _ in merged_items(docs[0]) if isinstance(k, ScalarNode)]
    if not keys or any(k in _OTHER_FORMAT_KEYS for k in keys):
        return False
    normalized = [_norm(str(k)) for k in keys]
    if any(k in _FOREIGN_KEYS for k in normalized):
        return False
    # nested mappings are allowed only as values of options (compilation-config…)
    known = [k for k in normalized if known_option(k)]  # type: ignore[operator]
    if explicit and len(known) == len(normalized):
        return True
    if not any(k not in _GENERIC_KEYS for k in known):
        return False  # host/port/model alone: any application's config
    return (len(known) >= 2 and len(known) / len(normalized) >= 0.6) or (len(normalized) == 1 and len(known) == 1)


#: a config file found on its own whose keys are more than this share not vLLM options is a launcher's
#: or a benchmark's file with some vLLM settings (VL051); at most this share, a vLLM config file whose
#: unknown keys vLLM refuses (VL001: ``vllm-release: v2.24.0`` among eleven vLLM options)
_OWN_KEYS_SHARE = 0.25


def _owner_keys(entries: list[Entry], unknown: list[Entry]) -> list[Entry]:
    """The keys that are another program's: when more than :data:`_OWN_KEYS_SHARE` of the keys are
    unknown, those not written the way this file writes vLLM's options (a ``vllm-release`` among dashed
    options is meant for vLLM, a ``num_prompts`` there is not)."""
    if not unknown or len(unknown) / len(entries) <= _OWN_KEYS_SHARE:
        return []
    known = [e.key for e in entries if e not in unknown]
    dashed = bool(known) and all("_" not in k for k in known) and any("-" in k for k in known)
    return [e for e in unknown if not (dashed and "-" in e.key and "_" not in e.key)]


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    """A config file found on its own (its content looks like vLLM's, no launch names it). When more
    than a quarter of its keys are not vLLM options, only the vLLM options are its settings; the
    others are the file's owner's (a launcher's or a benchmark's own keys), named in one VL051 note
    instead of VL001 errors. A file that a launch reads with ``--config`` is checked by that launch,
    every key included."""
    from vlint.argspec.history import is_known_option

    config = load_config(src.text, src.path)
    if not config.entries:
        return SourceResult()
    flags = [e for e in config.entries if e.key.startswith("-")]
    if flags and len(flags) * 2 > len(config.entries):
        return _flag_list(flags)
    unknown = [e for e in config.entries if not is_known_option(_norm(e.key))]
    other = _owner_keys(config.entries, unknown)
    result = SourceResult()
    if other:
        config = ConfigFile(config.path, [e for e in config.entries if e not in other], config.span)
        names = ", ".join(e.key for e in other[:5]) + (f" and {len(other) - 5} more" if len(other) > 5 else "")
        result.problems.append(
            Problem(
                "VL051",
                other[0].key_span,
                f"{len(other)} key{'s' if len(other) != 1 else ''} of this file {'are' if len(other) != 1 else 'is'} "
                f"not vLLM option{'s' if len(other) != 1 else ''} ({names}): read as another program's settings; "
                "the vLLM options are checked. If vLLM reads this file with --config, vLLM refuses them: "
                "lint the launch that passes it",
                {"keys": [e.key for e in other]},
            )
        )
    if config.entries:
        result.invocations.append(
            Invocation(source=NAME, program="config", span=config.span, config=config, label="config file")
        )
    return result


def _flag_list(flags: list[Entry]) -> SourceResult:
    """A file found on its own whose keys are written as command-line flags (``--max-model-len: 8192``):
    a list of flags for a command line (``vllm serve m $(tr '\\n' ' ' < args.yaml)``), not a launch. vLLM's
    ``--config`` puts ``--`` before every key (``----max-model-len``, refused as unrecognized:
    [0.19.1] vllm/utils/argparse_utils.py:501-517), so a launch that passes it with ``--config`` is
    checked there, every key an error; here one note says what was not checked."""
    names = ", ".join(e.key for e in flags[:3]) + (f" and {len(flags) - 3} more" if len(flags) > 3 else "")
    result = SourceResult()
    result.problems.append(
        Problem(
            "VL051",
            flags[0].key_span,
            f"the keys of this file are written as command-line flags ({names}): read as a list of flags for a "
            "command line, not as a vLLM config, and not checked; vLLM's --config puts -- before every key "
            "(----max-model-len) and refuses them, so write them without the dashes if vLLM reads this file",
            {"keys": [e.key for e in flags], "flags": True},
        )
    )
    return result


def resolve_config_path(ref: str, base: Path) -> Path:
    p = Path(ref)
    return p if p.is_absolute() else (base / p)
