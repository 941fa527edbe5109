"""Parse an :class:`~vlint.core.invocation.Invocation` the way vLLM's ``FlexibleArgumentParser`` would.

The steps mirror ``FlexibleArgumentParser.parse_args`` (vllm/utils/argparse_utils.py, 0.33.0
lines 313-502) and then argparse itself:

1. ``vllm serve --model X`` is moved to the positional model (with vLLM's deprecation warning);
2. ``--config FILE`` is expanded into arguments placed after the positional model and before the
   remaining command line (so the command line wins) — see :mod:`vlint.argspec.config_expand`;
3. ``--a_b`` is rewritten to ``--a-b`` (the part before the first ``.``), ``-O3`` to
   ``--optimization-level 3``, and dotted arguments ``--a.b.c v`` are merged into JSON for ``--a``;
4. argparse: exact option, then unique-prefix abbreviation (``allow_abbrev``), ``--flag=value``,
   nargs, the type conversion and choices of each argument; the last occurrence wins.

Everything vLLM would reject is reported as an :class:`ArgIssue` with vLLM's wording.
"""

from __future__ import annotations

import contextlib
import json

from vlint.argspec import config_expand, dynamo
from vlint.argspec.fixes import abbreviation_fix, deprecated_flag_fix, json_value_fix, removed_flag_fix, typo_fix
from vlint.argspec.issues import ArgIssue
from vlint.argspec.spec import ArgSpec, Argument
from vlint.argspec.values import ArgValueError, convert, human_readable_int
from vlint.core.invocation import Entry, Invocation
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import V


@record(slots=True)
class Setting:
    """A value the launch gives one argument (by ``dest``), and where it was written."""

    dest: str
    value: Any
    #: the option as written (``--max-num-seqs``, ``-tp``, a config key, a keyword argument)
    option: str
    #: the flag (or config key) and its value, for findings
    span: Span
    value_span: Span | None
    #: ``cli``, ``config`` (from a --config YAML file) or ``kwargs`` (Python)
    origin: str
    raw: str | None = None
    #: where the value is written when that is elsewhere in the file (the assignment of the variable
    #: the value word expands, ``GMU=0.95``); None when it is written at ``value_span``
    defined: Span | None = None

    @property
    def unresolved(self) -> bool:
        return self.value is UNRESOLVED

    @property
    def value_site(self) -> Span:
        """Where a finding about the value points: where the value is written (the variable's
        assignment, when it comes from one in the same file), else the flag and its value."""
        if self.defined is not None and self.defined.path == self.span.path:
            return self.defined
        return self.full_span

    @property
    def full_span(self) -> Span:
        if (
            self.value_span is not None
            and self.value_span.path == self.span.path
            and (self.value_span.line == self.span.line)
        ):
            return self.span.to(self.value_span)
        return self.span


@record(slots=True)
class ParsedArgs:
    #: final value per dest (last occurrence wins, as in argparse)
    settings: dict[str, Setting] = field(default_factory=dict)
    #: every occurrence per dest, in argv order
    occurrences: dict[str, list[Setting]] = field(default_factory=dict)
    issues: list[ArgIssue] = field(default_factory=list)
    #: argv holds words vlint cannot see into: absence of a flag proves nothing
    opaque: bool = False
    #: config entries vLLM drops (``key: false`` with ``vllm serve``), with the reason
    dropped: list[tuple[Entry, str]] = field(default_factory=list)

    def get(self, dest: str) -> Setting | None:
        return self.settings.get(dest)

    def value(self, dest: str, default: Any = None) -> Any:
        s = self.settings.get(dest)
        return default if s is None else s.value


@record(slots=True)
class _Item:
    """An argv word on its way through vLLM's preprocessing."""

    text: str
    span: Span
    unresolved: bool = False
    origin: str = "cli"
    entry: Entry | None = None
    written: str | None = None  # the option as the user wrote it, before rewriting
    defined: Span | None = None  # where the word's value is written, when elsewhere (Token.defined)


_NEG_NUMBER = lazy_compile(r"^-\d+$|^-\d*\.\d+$")
_DOTTED_HEAD = lazy_compile(r"(?<=--)[^.]*")


def parse_invocation(inv: Invocation, spec: ArgSpec) -> ParsedArgs:
    """Parse one launch against one version's arguments."""
    out = ParsedArgs(opaque=inv.opaque_args)
    if inv.program in ("LLM", "ray-serve"):  # keyword arguments (Python, Ray Serve engine_kwargs)
        _parse_kwargs(inv.kwargs, spec, out)
        return out
    items = [_Item(t.text, t.span, t.unresolved, defined=t.defined) for t in inv.args]
    if inv.program == dynamo.PROGRAM:
        items = _strip_dynamo_options(items)
    serve = inv.program in ("vllm serve", "image")
    if inv.program == "vllm serve":
        items = _move_model_option(items, out, spec)
    items = _expand_config(inv, items, spec, out, serve=serve)
    items = _preprocess(items, spec, out)
    _argparse(items, spec, out, allow_positional_model=serve)
    _require_model_tag(inv, spec, out)
    _reconcile_model(out)
    if inv.program == "vllm serve" and "model" not in out.settings and not out.opaque:
        _missing_model(inv, spec, out)
    if inv.program in ("vllm serve", "image") and any(t.text == OMNI_FLAG for t in inv.args):
        _omni_parser(out)
    if inv.program == dynamo.PROGRAM:
        _dynamo_parser(out)
    return out


def _strip_dynamo_options(items: list[_Item]) -> list[_Item]:
    """``python -m dynamo.vllm``: Dynamo's own options (and their values) never reach vLLM's parser
    (argspec/dynamo.py says where each comes from)."""
    kept: list[_Item] = []
    i = 0
    while i < len(items):
        found = None if items[i].unresolved else dynamo.own_option(items[i].text)
        if found is None:
            kept.append(items[i])
            i += 1
            continue
        _, arity = found
        inline = "=" in items[i].text
        i += 1
        if arity == 0 or inline:
            continue
        if arity == 1:
            i += 1
            continue
        while i < len(items) and not items[i].text.startswith("-"):  # nargs "*" / "?"
            i += 1
            if arity == "?":
                break
    return kept


def _dynamo_parser(out: ParsedArgs) -> None:
    """Dynamo's options change between its releases and vlint knows those of the files it read:
    an option vLLM does not know is a warning, never an error (a Dynamo release may define it)."""
    for issue in out.issues:
        if issue.code == "VL001" and issue.severity in (None, "error"):
            issue.severity = "warning"
            issue.message += (
                "; python -m dynamo.vllm parses its own options first and vlint knows those of the Dynamo "
                "releases it has read: vLLM's parser would refuse this one, a Dynamo release may not"
            )
            issue.data["dynamo"] = True


#: ``vllm … --omni``: vllm-omni's ``vllm`` entry point hands any command line holding this flag to its own
#: parser, which extends ``vllm serve``'s (vllm-project/vllm-omni vllm_omni/entrypoints/cli/main.py:11-16)
OMNI_FLAG = "--omni"
#: what vLLM's own parser refuses; vllm-omni's may accept it
_PARSER_REFUSALS = frozenset({"VL001", "VL002", "VL004", "VL006", "VL008"})


def _omni_parser(out: ParsedArgs) -> None:
    """A launch vllm-omni parses: vLLM's refusals are warnings that say why (vlint does not know
    vllm-omni's options), never errors."""
    for issue in out.issues:
        if issue.code in _PARSER_REFUSALS and issue.severity in (None, "error"):
            issue.severity = "warning"
            issue.message += (
                "; with --omni, vllm-omni parses this command line with options of its own that vlint does not "
                "check: vLLM's parser would refuse it, vllm-omni's may not"
            )
            issue.data["vllm_omni"] = True


def _missing_model(inv: Invocation, spec: ArgSpec, out: ParsedArgs) -> None:
    """``vllm serve`` with no model anywhere (vllm/utils/argparse_utils.py:357-369, 572-583, 0.33.0)."""
    uses_config = any(t.text == "--config" for t in inv.args)
    if uses_config and inv.config is not None:
        out.issues.append(
            ArgIssue(
                "VL008",
                inv.span,
                "vLLM will not start: No model specified! Please specify model either as a positional argument or in "
                "a config file.",
                {"reason": "no-model"},
            )
        )
        return
    if uses_config:
        return  # the config file could not be read (VL010): it may name the model
    if "served_model_name" in out.settings and _features(spec).get("served_model_name_requires_positional", True):
        out.issues.append(
            ArgIssue(
                "VL008",
                inv.span,
                "vLLM will not start: `model` should be provided as the first positional argument when using "
                "`vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.",
                {"reason": "served-model-name"},
            )
        )
        return
    default = spec.by_dest["model"].default if "model" in spec.by_dest else None
    out.issues.append(
        ArgIssue(
            "VL008",
            inv.span,
            f"no model is given: vLLM {spec.version} serves its default model ({default})",
            {"reason": "default-model", "default": default},
            severity="warning",
        )
    )


# -- step 1: vllm serve --model ------------------------------------------------------------------
def _features(spec: ArgSpec) -> dict[str, Any]:
    """What this version's FlexibleArgumentParser does (recorded by the schema generator)."""
    return dict(spec.meta.get("parser_features") or {})


#: ``vllm serve … --model X`` stops the parser in these releases (FlexibleArgumentParser.parse_args raises on the
#: word ``--model``: [0.8.3] vllm/utils.py, [0.10.2] vllm/utils/__init__.py:1806-1814); from 0.11.1 it warns and
#: moves the model ([0.11.1] vllm/utils/argparse_utils.py:196-210)
MODEL_OPTION_REFUSED = (V("0.8.3"), V("0.11.1"))


def _move_model_option(items: list[_Item], out: ParsedArgs, spec: ArgSpec) -> list[_Item]:
    lo, hi = MODEL_OPTION_REFUSED
    refused = False
    if lo <= spec.version < hi:
        for it in items:
            if it.text == "--model":
                out.issues.append(
                    ArgIssue(
                        "VL008",
                        it.span,
                        "vLLM will not start: With `vllm serve`, you should provide the model as a positional "
                        "argument or in a config file instead of via the `--model` option.",
                        {"reason": "model-option"},
                    )
                )
                refused = True
                break
    if not _features(spec).get("model_flag_rewrite", True):
        return items
    for k, it in enumerate(items):
        if it.text == "--model" or it.text.startswith("--model="):
            msg = config_expand.serve_model_option_warning(spec.version)
            if msg and not refused:
                out.issues.append(ArgIssue("VL009", it.span, msg, {"option": "--model"}))
            # vLLM moves the model to the front: serve <model> <everything before> <everything after>
            # (vllm/utils/argparse_utils.py:324-356), so a positional given as well becomes unrecognized
            if it.text == "--model":
                if k + 1 >= len(items):
                    return items
                model, rest = items[k + 1], k + 2
            else:
                value = it.text.removeprefix("--model=")
                model, rest = _Item(value, it.span, it.unresolved, it.origin, it.entry), k + 1
            return [model, *items[:k], *items[rest:]]
    return items


# -- step 2: --config ----------------------------------------------------------------------------
def _expand_config(inv: Invocation, items: list[_Item], spec: ArgSpec, out: ParsedArgs, *, serve: bool) -> list[_Item]:
    # vLLM expands only the exact word --config; --config=FILE is parsed as a plain option (VL015)
    config_at = next((k for k, it in enumerate(items) if it.text == "--config"), None)
    if inv.config is None:
        if config_at is not None:
            # the file could not be read: drop the reference, keep the rest
            width = 2
            return items[:config_at] + items[config_at + width :]
        return items
    cfg_items = [
        _Item(text, span, unresolved, "config", entry)
        for text, span, unresolved, entry in config_expand.expand(
            inv.config, spec, out.dropped, out.issues, top_level=serve or inv.program == "config"
        )
    ]
    if config_at is None:
        # a bare config file is its own launch; otherwise nothing expands it (--config=FILE: VL015)
        return cfg_items + items if inv.program == "config" else items
    width = 2
    before, after = items[:config_at], items[config_at + width :]
    if serve and before and not before[0].text.startswith("-"):
        return [before[0], *cfg_items, *before[1:], *after]
    return [*cfg_items, *before, *after]


# -- step 3: FlexibleArgumentParser rewriting ----------------------------------------------------
def _preprocess(items: list[_Item], spec: ArgSpec, out: ParsedArgs) -> list[_Item]:
    features = _features(spec)
    dotted = features.get("dotted_args", True)
    rewritten: list[_Item] = []
    for k, it in enumerate(items):
        t = it.text
        if t.startswith("--"):
            key, eq, value = t.partition("=")
            new_key = _DOTTED_HEAD.sub(lambda m: m.group(0).replace("_", "-"), key, count=1)
            rewritten.append(_Item(new_key + eq + value, it.span, it.unresolved, it.origin, it.entry, written=key))
        elif (
            t == "-O"
            and k + 1 < len(items)
            and items[k + 1].text in ("0", "1", "2", "3")
            and features.get("O_shorthand", True)
            and spec.lookup("--optimization-level")
        ):
            # vLLM rewrites `-O <0-3>` to --optimization-level (vllm/utils/argparse_utils.py, 0.33.0)
            rewritten.append(_Item("--optimization-level", it.span, False, it.origin, it.entry, written=t))
        elif (
            t.startswith("-O")
            and t != "-O"
            and not it.unresolved
            and features.get("O_shorthand", True)
            and spec.lookup("--optimization-level")
        ):
            level = t[3:] if t[2:3] == "=" else t[2:]
            rewritten.append(_Item("--optimization-level", it.span, False, it.origin, it.entry, written=t))
            rewritten.append(_Item(level, it.span, False, it.origin, it.entry))
        else:
            rewritten.append(it)
    # dotted arguments: --a.b.c value → merged into one JSON value for --a, appended at the end
    result: list[_Item] = []
    dict_args: dict[str, tuple[dict[str, Any], _Item, bool]] = {}
    skip = -1
    for k, it in enumerate(rewritten):
        if k == skip:
            continue
        t = it.text
        head = t.split("=", 1)[0]
        if dotted and t.startswith("-") and "." in head and not it.unresolved:
            if "=" in t:
                name, value_str = t.split("=", 1)
                value_unresolved = False
            elif k + 1 < len(rewritten):
                name, value_str = t, rewritten[k + 1].text
                value_unresolved = rewritten[k + 1].unresolved
                skip = k + 1
            else:
                out.issues.append(ArgIssue("VL004", it.span, f"argument {t}: expected one argument", {"option": t}))
                continue
            if name.endswith("+"):
                name = name[:-1]
                value_str = json.dumps(value_str.split(","))
            key, *keys = name.split(".")
            value: Any
            try:
                value = json.loads(value_str)
            except (json.JSONDecodeError, RecursionError):
                try:
                    value = human_readable_int(value_str)
                except (ValueError, ArgValueError):
                    value = value_str
            nested: Any = value
            for sub in reversed(keys):
                nested = {sub: nested}
            base, first, unres = dict_args.get(key, ({}, it, False))
            _merge(base, nested)
            dict_args[key] = (base, first, unres or value_unresolved)
            continue
        result.append(it)
    for key, (value, first, unres) in dict_args.items():
        result.append(_Item(key, first.span, False, first.origin, first.entry, written=first.written))
        result.append(_Item(json.dumps(value), first.span, unres, first.origin, first.entry))
    return result


def _merge(original: dict[str, Any], update: dict[str, Any]) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            _merge(original[k], v)
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            original[k] = v


# -- step 4: argparse ----------------------------------------------------------------------------
def _looks_like_option(it: _Item, spec: ArgSpec) -> bool:
    t = it.text
    if it.unresolved and not t.startswith("-"):
        return False
    if not t.startswith("-") or t == "-":
        return False
    if spec.lookup(t) is not None:
        return True
    if len(t) > 2 and t[1] != "-" and (short := spec.lookup(t[:2])) is not None and short[0].takes_value:
        return True  # `-O3`: a short option with its value attached
    if "=" in t and spec.lookup(t.split("=", 1)[0]) is not None:
        # argparse matches `--opt=value` before it looks for spaces: a JSON value with spaces
        # (`--compilation-config={"mode": 3}`) is that option's value (argparse _parse_optional)
        return True
    if _NEG_NUMBER.match(t):
        return False
    return " " not in t


def _match_option(it: _Item, spec: ArgSpec, out: ParsedArgs) -> tuple[Argument, bool, str, str | None] | None:
    """(argument, negated, option string, explicit value) or None when unknown/ambiguous."""
    t = it.text
    hit = spec.lookup(t)
    if hit is not None:
        return hit[0], hit[1], t, None
    explicit: str | None = None
    name = t
    if "=" in t:
        name, explicit = t.split("=", 1)
        hit = spec.lookup(name)
        if hit is not None:
            return hit[0], hit[1], name, explicit
    written = it.written or name
    if len(t) > 2 and t[0] == "-" and t[1] != "-" and "=" not in t:
        # argparse: a two-character short option takes its value attached (`-O3` is `-O 3`)
        # (argparse _get_option_tuples, short_option_prefix)
        short = spec.lookup(t[:2])
        if short is not None and short[0].takes_value:
            return short[0], short[1], t[:2], t[2:]
    if len(name) > 1 and name.startswith("-") and not name[1:2].isdigit():
        matches = spec.prefix_matches(name)
        dests = {spec.options[m][0].dest + ("-" if spec.options[m][1] else "+") for m in matches}
        if len(matches) == 1 or (matches and len(dests) == 1):
            full = matches[0]
            arg, negated = spec.options[full]
            out.issues.append(
                ArgIssue(
                    "VL005",
                    it.span,
                    f"{written} is an abbreviation of {full}: vLLM accepts it only through argparse prefix "
                    f"matching, and it breaks as soon as another flag starts the same way; write {full}"
                    + _former_flag_note(name, spec),
                    {"option": written, "full": full},
                    fix=abbreviation_fix(it.span, written, full, arg.dest, it.origin),
                )
            )
            return arg, negated, full, explicit
        if len(matches) > 1:
            shown = ", ".join(matches[:6]) + (", …" if len(matches) > 6 else "")
            # a flag the release removed that is now a prefix of several options: argparse refuses it as
            # ambiguous, and the cause (and the fix) is the removal, so VL002 owns it, never VL006 as well
            removed = removed_option_issue(name, written, spec, it.span, now_ambiguous=matches)
            out.issues.append(
                removed
                or ArgIssue(
                    "VL006",
                    it.span,
                    f"ambiguous option: {written} could match {shown}",
                    {"option": written, "matches": matches},
                )
            )
            return None
    if it.unresolved:
        out.opaque = True
        return None
    # did-you-mean costs ~1 ms per unknown flag: past MAX_SUGGESTIONS issues (a generated or hostile
    # argv) the flags are still reported, without a suggestion
    suggest = len(out.issues) < MAX_SUGGESTIONS
    issue = unknown_option_issue(name, written, spec, it.span, from_config=it.origin == "config", suggest=suggest)
    if issue.code == "VL001" and suggest and not issue.data.get("positional"):
        issue.fix = typo_fix(it.span, written, unique_suggestion(name, spec), spec, it.origin)
    out.issues.append(issue)
    return None


def _former_flag_note(name: str, spec: ArgSpec) -> str:
    """`` (--device was its own option until vLLM 0.9.2)`` when an abbreviation is a removed flag."""
    from vlint.argspec.history import history

    older = [v for v in history().present_in(name) if v < spec.version]
    return f" ({name} was its own option until vLLM {older[-1]})" if older else ""


#: unknown options of one launch that get a did-you-mean suggestion
MAX_SUGGESTIONS = 200
#: a did-you-mean becomes a fix (a rename) only when it is this close (difflib's ratio) and every option
#: of another argument, or of the other polarity (--no-…), is at least UNIQUE_MARGIN further away:
#: --gpu-memory-utilisation → --gpu-memory-utilization (0.96; next --mm-ipc-gpu-memory-gb, far below)
UNIQUE_RATIO = 0.9
UNIQUE_MARGIN = 0.05


def _close_matches(word: str, candidates: Any, n: int) -> list[str]:
    """difflib's close matches (cutoff 0.75); difflib is imported only when a name is unknown."""
    import difflib

    return difflib.get_close_matches(word, list(candidates), n=n, cutoff=0.75)


def unique_suggestion(name: str, spec: ArgSpec) -> str | None:
    """The one option ``name`` is a typo of, or None when no option, or more than one, is that close."""
    import difflib

    scored = []
    for option in _close_matches(name, spec.options, 8):
        arg, negated = spec.options[option]
        scored.append((difflib.SequenceMatcher(None, name, option).ratio(), option, (arg.dest, negated)))
    if not scored:
        return None
    scored.sort(key=lambda t: -t[0])
    best, option, meaning = scored[0]
    if best < UNIQUE_RATIO:
        return None
    if any(other != meaning and best - ratio < UNIQUE_MARGIN for ratio, _, other in scored[1:]):
        return None
    return option


def removed_option_issue(
    name: str, written: str, spec: ArgSpec, span: Span, *, now_ambiguous: list[str] | None = None
) -> ArgIssue | None:
    """VL002 when ``name`` was an option of a release before the target, from the bundled history; None
    when it never was. ``now_ambiguous``: the target's options ``name`` is now a prefix of, so argparse
    refuses it with "ambiguous option" (its _parse_optional, after _get_option_tuples found several)
    rather than "unrecognized arguments"; ``--device`` (last in 0.9.2) on 0.31.0+, where --device-ids
    and --device-memory-utilization both start with it ([0.33.0] vllm/engine/arg_utils.py:1195, :1390)."""
    from vlint.argspec.history import history
    from vlint.argspec.replacements import replacement_for

    h = history()
    present = h.present_in(name)
    target = spec.version
    before = [v for v in present if v < target]
    if not before:
        return None
    last = before[-1]
    gone = next((v for v in h.versions if v > last and v not in present), target)
    advice = replacement_for(name)
    if now_ambiguous:
        shown = ", ".join(now_ambiguous[:6]) + (", …" if len(now_ambiguous) > 6 else "")
        msg = (
            f"ambiguous option: {written}: removed in vLLM {gone} (last seen in {last}); "
            f"now an ambiguous prefix of {shown}"
        )
    else:
        msg = f"unrecognized arguments: {written}: removed in vLLM {gone} (last seen in {last})"
    if advice:
        msg += f"; use {advice}"
    data: dict[str, Any] = {
        "option": written,
        "removed_in": str(gone),
        "last_in": str(last),
        "replacement": advice,
        "target": str(target),
    }
    if now_ambiguous:
        data["matches"] = now_ambiguous
    return ArgIssue("VL002", span, msg, data)


def unknown_option_issue(
    name: str, written: str, spec: ArgSpec, span: Span, *, from_config: bool = False, suggest: bool = True
) -> ArgIssue:
    """VL002 (removed), VL003 (newer than the target) or VL001 (never existed), from the bundled history."""
    from vlint.argspec.history import history

    removed = removed_option_issue(name, written, spec, span)
    if removed is not None:
        return removed
    present = history().present_in(name)
    target = spec.version
    after = [v for v in present if v > target]
    if after:
        first = after[0]
        msg = f"unrecognized arguments: {written}: not available before vLLM {first} (checking against {target})"
        return ArgIssue("VL003", span, msg, {"option": written, "available_from": str(first), "target": str(target)})
    short = spec.lookup("-" + name[2:]) if from_config and name.startswith("--") else None
    if short is not None:
        full = short[0].name
        key = full[2:]
        return ArgIssue(
            "VL001",
            span,
            f"unrecognized arguments: {written}: short aliases are not config keys "
            f"(the key becomes --{name[2:]}, not -{name[2:]}); write {key}",
            {"option": written, "suggestion": full},
        )
    suggestion = _close_matches(name, spec.options, 1) if suggest else []
    hint = f"; did you mean {suggestion[0]}?" if suggestion else ""
    return ArgIssue(
        "VL001",
        span,
        f"unrecognized arguments: {written}{hint}",
        {"option": written, "suggestion": suggestion[0] if suggestion else None},
    )


def _argparse(items: list[_Item], spec: ArgSpec, out: ParsedArgs, *, allow_positional_model: bool) -> None:
    positionals = [a for a in spec.positionals if allow_positional_model]
    i = 0
    n = len(items)
    only_positional = False
    while i < n:
        it = items[i]
        if not only_positional and it.text == "--" and not it.unresolved:
            only_positional = True
            i += 1
            continue
        if only_positional or not _looks_like_option(it, spec):
            if it.unresolved and it.origin == "cli" and (_could_be_many(it) or not positionals):
                # words vlint cannot read where no positional is left ("$EXTRA"): any flag, or none;
                # never "unrecognized" (precision), but what vLLM gets is not fully known
                out.opaque = True
                i += 1
                continue
            if positionals:
                arg = positionals.pop(0)
                value = UNRESOLVED if it.unresolved else it.text
                _record(out, arg, value, arg.dest, it.span, it.span, it, raw=it.text)
            else:
                out.issues.append(
                    ArgIssue(
                        "VL001", it.span, f"unrecognized arguments: {it.text}", {"option": it.text, "positional": True}
                    )
                )
            i += 1
            continue
        match = _match_option(it, spec, out)
        if match is None:
            i += 1
            # an unknown flag's value would be rejected with it; don't report it twice
            value_item = None
            if it.unresolved:
                # an option vlint cannot read (--$FLAG): the words after it may be its values
                while i < n and not _looks_like_option(items[i], spec):
                    i += 1
                continue
            if i < n and "=" not in it.text and not _looks_like_option(items[i], spec):
                value_item = items[i]
                i += 1
            _attach_removed_flag_fix(out, it, value_item, spec)
            continue
        arg, negated, option, explicit = match
        i += 1
        if arg.deprecated:
            out.issues.append(_deprecated_issue(it, arg, option, spec))
        if not arg.takes_value:
            if explicit is not None:
                out.issues.append(
                    ArgIssue(
                        "VL004",
                        it.span,
                        f"argument {option}: ignored explicit argument {explicit!r}",
                        {"option": option, "value": explicit, "reason": "flag takes no value"},
                    )
                )
                continue
            value = _flag_value(arg, negated)
            _record(out, arg, value, option, it.span, None, it)
            continue
        values: list[_Item] = []
        if explicit is not None:
            values = [_Item(explicit, it.span, it.unresolved, it.origin, it.entry)]
        else:
            want = arg.nargs
            if want in (None, "?") or isinstance(want, int):
                count = 1 if want in (None, "?") else int(want)
                while len(values) < count and i < n and not _looks_like_option(items[i], spec):
                    values.append(items[i])
                    i += 1
            else:  # "+", "*", "..."
                while i < n and not _looks_like_option(items[i], spec):
                    values.append(items[i])
                    i += 1
            if not values and want not in ("?", "*"):
                n_word = (
                    "one argument" if want is None else "at least one argument" if want == "+" else f"{want} arguments"
                )
                out.issues.append(
                    ArgIssue("VL004", it.span, f"argument {option}: expected {n_word}", {"option": option})
                )
                continue
        if not values:
            const = arg.const
            if arg.kind == "bool" and isinstance(const, str):
                # 0.6/0.7 StoreBoolean(nargs="?", const="True") turns the word into a bool itself
                # ([0.6.6.post1] vllm/engine/arg_utils.py StoreBoolean.__call__)
                with contextlib.suppress(ArgValueError):
                    const = convert("bool", const)
            _record(out, arg, const, option, it.span, None, it)
            continue
        converted = _convert_values(arg, option, values, out, spec, kvs_fallback=_json_kvs_fallback(spec, arg))
        if converted is _INVALID:
            continue
        value_span = (
            values[0].span.to(values[-1].span) if values[-1].span.path == values[0].span.path else values[0].span
        )
        raw = " ".join(v.text for v in values)
        defined = values[0].defined if len(values) == 1 else None
        _record(out, arg, converted, option, it.span, value_span, it, raw=raw, defined=defined)


_INVALID = object()


def _deprecated_issue(it: _Item, arg: Argument, option: str, spec: ArgSpec) -> ArgIssue:
    """VL009 in vLLM's words, with the release that removes the flag and what replaces it (the bundled
    history of releases and the table of replacements of removed flags, :mod:`vlint.argspec.replacements`)."""
    from vlint.argspec.history import history
    from vlint.argspec.replacements import replacement_for

    h = history()
    present = set(h.present_in(option))
    gone = next((v for v in h.versions if v > spec.version and v not in present), None)
    advice = replacement_for(option)
    msg = f"{it.written or option} is deprecated in vLLM {spec.version}: {arg.deprecated}"
    if gone is not None:
        msg += f" (removed in vLLM {gone})"
    if advice and advice.startswith("nothing"):
        msg += f"; nothing replaces it{advice[len('nothing') :]}"
    elif advice:
        msg += f"; use {advice}"
    entry = it.entry if it.origin == "config" else None
    entry_spans = (entry.key_span, entry.value_span) if entry is not None else ()
    return ArgIssue(
        "VL009",
        it.span,
        msg,
        {"option": option, "removed_in": str(gone) if gone else None, "replacement": advice},
        fix=deprecated_flag_fix(it.written or option, arg, advice, spec, it.span, it.origin, entry_spans),
    )


def _attach_removed_flag_fix(out: ParsedArgs, it: _Item, value_item: _Item | None, spec: ArgSpec) -> None:
    """The VL002 just reported for ``it`` gets its fix (the replacement flag, or removal)."""
    issue = out.issues[-1] if out.issues else None
    if issue is None or issue.code != "VL002" or issue.span != it.span:
        return
    entry = it.entry if it.origin == "config" else None
    issue.fix = removed_flag_fix(
        issue.data,
        it.span,
        origin=it.origin,
        value_span=value_item.span if value_item is not None else None,
        entry_spans=(entry.key_span, entry.value_span) if entry is not None else (),
        spec=spec,
    )


def _could_be_many(it: _Item) -> bool:
    """May this unresolved word stand for several words? An unquoted expansion is split by the shell, a
    template or ``"$@"`` / ``"${A[@]}"`` expands to any number of words; ``"$MODEL"`` is exactly one."""
    t = it.text
    return t.startswith(("$", "{{", "`")) or "$@" in t or "$*" in t or "[@]}" in t or "[*]}" in t


def _flag_value(arg: Argument, negated: bool) -> Any:
    if arg.action == "store_false":
        return False
    if arg.action == "store_const":
        return arg.const
    if arg.action == "count":
        return 1
    return not negated


#: 0.8.5-0.9.x read a word that is not ``{…}`` as ``KEY=VALUE,…`` pairs (nullable_kvs, "will be removed in
#: v0.10.0") for the options typed with their wrapper around json.loads — the dict-typed fields — not for those
#: typed json.loads itself or a config class's from_cli / parse_dataclass (``-O3``): [0.8.5.post1]
#: vllm/engine/arg_utils.py:51-60 (optional_type, used at :186), [0.9.2] :57-66 (parse_type, :254-256);
#: 0.8.4 types --limit-mm-per-prompt nullable_kvs itself (:671, the schema's other:nullable_kvs) and 0.10.0's
#: optional_type has no fallback (:76-84) — both ends read from the wheels, the releases between assumed alike
JSON_KVS_FALLBACK = (V("0.8.5"), V("0.10.0"))
_KVS_WRAPPERS = ("optional_type.<locals>._optional_type", "parse_type.<locals>._parse_type")
#: the test vLLM's wrapper makes (``re.match("^{.*}$", val)``, no DOTALL)
_JSON_BRACES = lazy_compile(r"^{.*}$")


def _json_kvs_fallback(spec: ArgSpec, arg: Argument) -> bool:
    lo, hi = JSON_KVS_FALLBACK
    return arg.kind == "json" and arg.type_name.endswith(_KVS_WRAPPERS) and lo <= spec.version < hi


def _invalid_value_issue(arg: Argument, option: str, v: _Item, e: ArgValueError, spec: ArgSpec) -> ArgIssue:
    """VL004 for a word the argument's type refuses, in vLLM's words. The dict options typed with vLLM's
    wrapper around json.loads say "Value … cannot be converted to <function loads …>" (the wrapper turns
    the JSON error into an ArgumentTypeError: [0.33.0] vllm/engine/arg_utils.py:161-170, used at :420;
    the oracle's records of 0.33.0, e.g. --mm-processor-kwargs '{bad'); json.loads itself, "invalid loads
    value". ``KEY=VALUE`` pairs there, after the fallback that read them is gone (:data:`JSON_KVS_FALLBACK`),
    get the JSON object they meant and a fix that writes it."""
    wrapped = arg.kind == "json" and arg.type_name.endswith(_KVS_WRAPPERS)
    message = f"argument {option}: " + (f"Value {v.text} cannot be converted to json.loads" if wrapped else str(e))
    data: dict[str, Any] = {"option": option, "value": v.text}
    fix = None
    if wrapped and spec.version >= JSON_KVS_FALLBACK[1] and "=" in v.text:
        try:
            pairs = convert("other:nullable_kvs", v.text)
        except ArgValueError:
            pairs = None
        if pairs:
            message += (
                f" (KEY=VALUE pairs were read here only before vLLM {JSON_KVS_FALLBACK[1]}, whose parser dropped"
                f" that fallback; write JSON: {json.dumps(pairs)})"
            )
            data["json"] = pairs
            fix = json_value_fix(v.span, arg.dest, option, pairs, v.text, v.origin)
    return ArgIssue("VL004", v.span, message, data, fix=fix)


def _convert_values(
    arg: Argument,
    option: str,
    values: list[_Item],
    out: ParsedArgs,
    spec: ArgSpec,
    *,
    kvs_fallback: bool = False,
) -> Any:
    results: list[Any] = []
    for v in values:
        if v.unresolved:
            results.append(UNRESOLVED)
            continue
        kind = arg.kind
        if kvs_fallback and v.text not in ("", "None") and not _JSON_BRACES.match(v.text):
            kind = "other:nullable_kvs"
        try:
            value = convert(kind, v.text, optional=arg.optional)
        except ArgValueError as e:
            out.issues.append(_invalid_value_issue(arg, option, v, e, spec))
            return _INVALID
        # vLLM's optional_type turns "None" into None before argparse checks the choices; 0.9-era parsers list
        # the Literal's None as the string 'None', so None is not among them and argparse refuses it
        # ([0.9.2] vllm/engine/arg_utils.py optional_type; vLLM's oracle data: --preemption-mode None)
        none_refused = value is None and v.text == "None" and None not in arg.choices if arg.choices else False
        if arg.choices is not None and ((value is not None and value not in arg.choices) or none_refused):
            shown = ", ".join(repr(c) for c in arg.choices)
            out.issues.append(
                ArgIssue(
                    "VL004",
                    v.span,
                    f"argument {option}: invalid choice: {v.text!r} (choose from {shown})",
                    {"option": option, "value": v.text, "choices": list(arg.choices)},
                )
            )
            return _INVALID
        results.append(value)
    if arg.nargs in (None, "?"):
        return results[0]
    return results


def _record(
    out: ParsedArgs,
    arg: Argument,
    value: Any,
    option: str,
    span: Span,
    value_span: Span | None,
    it: _Item,
    raw: str | None = None,
    defined: Span | None = None,
) -> None:
    written = it.written or option
    if it.origin == "config" and it.entry is not None:
        span = it.entry.key_span
        value_span = it.entry.value_span
        written = it.entry.key
    s = Setting(arg.dest, value, written, span, value_span, it.origin, raw, defined)
    prev = out.occurrences.setdefault(arg.dest, [])
    if prev and arg.action not in ("append", "count"):
        last = prev[-1]
        if last.origin == it.origin == "cli":
            out.issues.append(
                ArgIssue(
                    "VL007",
                    span,
                    f"{written} is given more than once; the last value wins ({_show(value)}, "
                    f"earlier {_show(last.value)} at line {last.span.line})",
                    {"option": written, "value": value, "previous": last.value, "previous_line": last.span.line},
                )
            )
    prev.append(s)
    if arg.action == "count" and arg.dest in out.settings:
        old = out.settings[arg.dest]
        s.value = (old.value or 0) + 1
    out.settings[arg.dest] = s


def _show(value: Any) -> str:
    if value is UNRESOLVED:
        return "unresolved"
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):  # a list may hold unresolved items (--served-model-name a "$B")
        return json.dumps(value, default=lambda v: "unresolved" if v is UNRESOLVED else str(v))
    return str(value)


def _require_model_tag(inv: Invocation, spec: ArgSpec, out: ParsedArgs) -> None:
    """0.6.x-0.7.x declare ``vllm serve``'s positional model required: a model given only with ``--model``
    or in the --config file stops the parser ([0.6.6.post1] vllm/scripts.py:158 ``model_tag`` positional;
    [0.7.3] vllm/utils.py:1224 "No model_tag specified!" for a --config launch)."""
    tag_arg = next((a for a in spec.arguments if a.positional and a.dest == "model_tag"), None)
    if inv.program != "vllm serve" or tag_arg is None or not tag_arg.required or out.opaque:
        return
    tag = out.settings.get("model_tag")
    if tag is not None and tag.value is not None:
        return
    via_config = inv.config is not None and any(s.origin == "config" for s in out.settings.values())
    message = (
        "vLLM will not start: No model_tag specified! Please check your command-line arguments."
        if via_config and spec.version >= V("0.6.3")
        else "vLLM will not start: the following arguments are required: model_tag"
    )
    out.issues.append(ArgIssue("VL008", inv.span, message, {"reason": "model-tag-required"}))


def _reconcile_model(out: ParsedArgs) -> None:
    """``vllm serve MODEL`` puts the model in ``model_tag``; vLLM copies it to ``model``."""
    tag = out.settings.pop("model_tag", None)
    out.occurrences.pop("model_tag", None)
    if tag is not None and tag.value is not None:
        tag.dest = "model"
        out.settings["model"] = tag
        out.occurrences.setdefault("model", []).insert(0, tag)


# -- Python keyword arguments --------------------------------------------------------------------
def _parse_kwargs(entries: list[Entry], spec: ArgSpec, out: ParsedArgs) -> None:
    from vlint.argspec.values import python_value_kind_ok

    for e in entries:
        arg = spec.by_dest.get(e.key)
        if arg is None:
            suggestion = _close_matches(e.key, spec.by_dest, 1)
            hint = f"; did you mean {suggestion[0]}?" if suggestion else ""
            out.issues.append(
                ArgIssue(
                    "VL001",
                    e.key_span,
                    f"EngineArgs.__init__() got an unexpected keyword argument {e.key!r}{hint}",
                    {"option": e.key, "suggestion": suggestion[0] if suggestion else None},
                )
            )
            continue
        value = UNRESOLVED if e.unresolved else e.value
        if value is not UNRESOLVED and not python_value_kind_ok(arg.kind, value):
            out.issues.append(
                ArgIssue(
                    "VL004",
                    e.value_span,
                    f"{e.key}={value!r} is not a valid {arg.kind} value",
                    {"option": e.key, "value": value},
                )
            )
            continue
        s = Setting(arg.dest, value, e.key, e.key_span, e.value_span, "kwargs")
        out.occurrences.setdefault(arg.dest, []).append(s)
        out.settings[arg.dest] = s
