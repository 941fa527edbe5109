"""How ``vllm serve --config FILE`` turns a YAML mapping into command-line arguments, per version.

``FlexibleArgumentParser.load_config_file`` (vllm/utils/argparse_utils.py, 0.33.0 lines 606-673),
history from ``../shared/reference/vllm-behavior.md`` §4.1:

* ``true`` → ``--key``.
* ``false`` → nothing, in every version since 0.6.4 (``[0.6.6.post1] vllm/utils.py:1261``). From
  0.28.0 vLLM emits ``--no-key`` *if the parser doing the expansion has that option*; for
  ``vllm serve`` that is the top-level ``vllm`` parser, which has none, so the value is still dropped.
* a list → ``--key item1 item2`` from 0.10.2 (empty lists dropped); before, ``--key "['a', 'b']"``.
* a mapping → ``--key '<json>'`` from 0.16.0; before, the Python ``repr`` (not valid JSON).
* anything else → ``--key str(value)`` (``null`` becomes the string ``None``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from vlint.argspec.issues import ArgIssue
from vlint.argspec.spec import ArgSpec
from vlint.core.invocation import ConfigFile, Entry
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.core.version import V, Version

LISTS_SINCE = V("0.10.2")
MAPPINGS_AS_JSON_SINCE = V("0.16.0")
NO_KEY_ATTEMPT_SINCE = V("0.28.0")

#: options of type ``json.loads`` without ``nargs`` that users naturally write as YAML lists
#: (vllm/entrypoints/common/cli_args.py, 0.33.0 lines 394-406)
_JSON_LIST_OPTIONS = {"allowed-origins", "allowed-methods", "allowed-headers"}

Expanded = tuple[str, Span, bool, Entry]


def _key(entry: Entry) -> str:
    return entry.key.strip()


def expand(
    config: ConfigFile,
    spec: ArgSpec,
    dropped: list[tuple[Entry, str]],
    issues: list[Any],
    *,
    top_level: bool,
) -> Iterator[Expanded]:
    """Yield ``(text, span, unresolved, entry)`` argv words for the config's entries.

    ``top_level`` is true for ``vllm serve`` (the expansion is done by the top-level ``vllm``
    parser, which knows no ``--no-…`` options) and false for ``python -m …api_server --config``.
    """
    version = spec.version
    # what this release does, as the schema generator read it from its source; version cut-offs otherwise
    sem = spec.config_semantics
    tries_no_key = sem.get("false", "no_flag_if_registered" if version >= NO_KEY_ATTEMPT_SINCE else "dropped") == (
        "no_flag_if_registered"
    )
    lists_expanded = sem.get("list", "expanded" if version >= LISTS_SINCE else "str") == "expanded"
    mappings_json = sem.get("mapping", "json" if version >= MAPPINGS_AS_JSON_SINCE else "python_repr") == "json"
    for e in config.entries:
        key = _key(e)
        value = e.value
        flag = "--" + key
        if e.unresolved:
            yield flag, e.key_span, False, e
            yield str(value), e.value_span, True, e
            continue
        if isinstance(value, bool):
            if value:
                yield flag, e.key_span, False, e
                continue
            no_key = "--no-" + key
            if tries_no_key and not top_level and spec.lookup(no_key) is not None:
                yield no_key, e.key_span, False, e
                continue
            reason = (
                "vllm serve drops every false value of a --config file"
                if top_level
                else f"vLLM {version} drops false values of a --config file"
            )
            dropped.append((e, reason))
            continue
        if isinstance(value, list):
            norm = key.replace("_", "-")
            if norm in _JSON_LIST_OPTIONS:
                issues.append(
                    ArgIssue(
                        "VL012",
                        e.value_span,
                        f"{key}: a YAML list becomes separate words, but --{norm} takes one JSON value: vLLM fails "
                        f"with 'invalid loads value'; write it as a JSON string: {key}: '{json.dumps(value)}'",
                        {"option": key, "value": value},
                    )
                )
                continue
            if not lists_expanded:
                issues.append(
                    ArgIssue(
                        "VL012",
                        e.value_span,
                        f"{key}: vLLM {version} passes a YAML list as the single word {str(value)!r} (lists are "
                        f"expanded from {LISTS_SINCE} on)",
                        {"option": key, "value": value},
                        # vLLM takes the word as the value (a served name "['a', 'b']"): a warning; a word the
                        # option's type refuses is VL004 on the word itself (vLLM's oracle data, 0.6.6.post1-0.8.5)
                        severity="warning",
                    )
                )
                yield flag, e.key_span, False, e
                yield str(value), e.value_span, True, e
                continue
            if not value:
                dropped.append((e, "an empty list is dropped"))
                continue
            yield flag, e.key_span, False, e
            spans = e.item_spans or tuple(e.value_span for _ in value)
            for item, span in zip(value, spans, strict=False):
                yield _scalar_text(item), span, False, e
            continue
        if isinstance(value, dict):
            yield flag, e.key_span, False, e
            if not mappings_json:
                issues.append(
                    ArgIssue(
                        "VL012",
                        e.value_span,
                        f"{key}: vLLM {version} passes a YAML mapping as its Python repr, which is not JSON "
                        f"(mappings become JSON from {MAPPINGS_AS_JSON_SINCE}); write the value as a JSON string",
                        {"option": key},
                    )
                )
                yield str(value), e.value_span, True, e
                continue
            yield json.dumps(value), e.value_span, False, e
            continue
        yield flag, e.key_span, False, e
        yield _scalar_text(value), e.value_span, False, e


def _scalar_text(value: Any) -> str:
    """``str(value)`` as vLLM does; floats print like Python (0.9, 1e-05)."""
    return str(value)


def serve_model_option_warning(version: Version) -> str | None:
    """vLLM moves ``vllm serve --model X`` to the positional model and warns (0.33.0
    vllm/utils/argparse_utils.py:324-356); the schema generator records whether a version does
    (``parser_features.model_flag_rewrite``), the caller checks that."""
    return (
        "with vllm serve, give the model as the positional argument (vllm serve MODEL …) or in a config "
        "file: vLLM warns that the --model option will be removed in a future version"
    )
