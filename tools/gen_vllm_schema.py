#!/usr/bin/env python3
"""Dump the argument schema of the installed vLLM's ``vllm serve`` parser.

Run inside an environment where one ``vllm==X.Y.Z`` is installed::

    VLLM_TARGET_DEVICE=cpu python tools/gen_vllm_schema.py --out schemas/vllm/

It builds the ``serve`` parser exactly as ``vllm serve`` does for that version
(by running vLLM's own CLI ``main()`` up to the point where it parses argv),
walks ``parser._actions`` and writes ``schemas/vllm/<version>.json``: a JSON
Schema (draft 2020-12) over the settings document plus an ``x-vlint`` object
(see tools/README.md for the layout).

The part that turns *any* ``argparse.ArgumentParser`` into the schema dict
(:func:`describe_parser`, and ``vlint.argspec.jsonschema.build_schema``) is pure and imports nothing
from vLLM, so it is unit-tested with synthetic parsers.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import inspect
import json
import math
import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# the JSON Schema builder is shared with `vlint schema export` (stdlib only, no vlint install needed)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from vlint.argspec.jsonschema import build_schema

GENERATOR_VERSION = "2"

# --------------------------------------------------------------------------------------
# Pure part: argparse parser -> description / schema dict
# --------------------------------------------------------------------------------------

_ACTION_NAMES: dict[str, str] = {
    "_StoreAction": "store",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_StoreConstAction": "store_const",
    "_AppendAction": "append",
    "_AppendConstAction": "append_const",
    "_CountAction": "count",
    "_HelpAction": "help",
    "_VersionAction": "version",
    "_ExtendAction": "extend",
    "_SubParsersAction": "parsers",
    "BooleanOptionalAction": "boolean_optional",
}

# Type callables recognised by name (vLLM helpers across versions).
_NAMED_KINDS: dict[str, tuple[str, bool]] = {
    "human_readable_int_or_auto": ("human_int_or_auto", False),
    "human_readable_int": ("human_int", False),
    "nullable_str": ("str", True),
    "optional_str": ("str", True),
    "optional_int": ("int", True),
    "optional_float": ("float", True),
    "str2bool": ("bool", False),
    "strtobool": ("bool", False),
    "parse_dataclass": ("json", False),
    "union_dict_and_str": ("json_or_str", True),
    "loads": ("json", False),
}

_NO_VALUE_ACTIONS = {
    "store_true",
    "store_false",
    "store_const",
    "append_const",
    "count",
    "help",
    "version",
    "boolean_optional",
    "enable_disable",
}


def action_name(action: argparse.Action) -> str:
    """Normalised action name (``store``, ``boolean_optional``, ...) or the class name."""
    cls = type(action)
    for klass in cls.__mro__:
        if klass.__name__ == "EnableDisableAction":
            return "enable_disable"
        if klass.__name__ in _ACTION_NAMES and klass.__module__ == "argparse":
            if klass is cls or klass.__name__ == "BooleanOptionalAction":
                return _ACTION_NAMES[klass.__name__]
            break
    return cls.__name__


def _qualname(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None:
        name = type(fn).__qualname__
    return str(name)


def type_name(fn: Any) -> str | None:
    """``module.qualname`` of a type callable, for the record."""
    if fn is None:
        return None
    mod = getattr(fn, "__module__", None) or ""
    return f"{mod}.{_qualname(fn)}" if mod else _qualname(fn)


def _closure_values(fn: Any) -> list[Any]:
    cells = getattr(fn, "__closure__", None) or ()
    out = []
    for cell in cells:
        with contextlib.suppress(ValueError):
            out.append(cell.cell_contents)
    # default args (e.g. ``def parse_dataclass(val, cls=dataclass_cls)``)
    out.extend(getattr(fn, "__defaults__", None) or ())
    return out


def classify_type(fn: Any, _depth: int = 0) -> tuple[str, bool]:
    """Map an argparse ``type=`` callable to ``(kind, optional)``.

    ``optional`` is true when the callable turns ``""``/``"None"`` into ``None``.
    """
    if fn is None:
        return "str", False
    if fn is int:
        return "int", False
    if fn is float:
        return "float", False
    if fn is str:
        return "str", False
    if fn is bool:
        return "bool", False
    if fn is json.loads:
        return "json", False
    name = getattr(fn, "__name__", None) or ""
    qual = _qualname(fn)
    if name in ("_optional_type", "_parse_type") and _depth < 4:
        inner = [v for v in _closure_values(fn) if callable(v)]
        if inner:
            kind, _ = classify_type(inner[0], _depth + 1)
            return kind, name == "_optional_type"
    if name in _NAMED_KINDS:
        return _NAMED_KINDS[name]
    if name in ("from_cli", "from_json") or qual.endswith((".from_cli", ".from_json")):
        return "json", False
    if name == "validate_json" or qual.endswith(".validate_json"):
        return "json", False
    if isinstance(fn, type) and issubclass(fn, dict):
        return "json", False
    return f"other:{qual}", False


def type_source(fn: Any) -> str | None:
    """For unrecognised type callables: the lambda's source or the docstring's first line."""
    if fn is None:
        return None
    if getattr(fn, "__name__", "") == "<lambda>":
        try:
            src = " ".join(inspect.getsource(fn).split())
        except (TypeError, OSError):
            return None
        m = re.search(r"lambda\b.*", src)
        text = m.group(0) if m else src
        return text.rstrip(", ")[:200]
    doc = inspect.getdoc(fn)
    return doc.strip().splitlines()[0][:200] if doc else None


def _first_sentence(text: str, limit: int = 400) -> str:
    text = text.replace("%%", "%")
    text = re.sub(r"`+", "", text)
    text = " ".join(text.split())
    if not text:
        return ""
    m = re.search(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?](?=\s+[A-Z0-9\[(\"'])", text)
    if m:
        text = text[: m.end()]
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


# "X is deprecated", "Deprecated: ...", "[DEPRECATED] ...", "will be deprecated", "(deprecated)";
# not the adjective ("allow deprecated quantization methods").
_DEPRECATION_RE = re.compile(
    r"\b(is|are|been|be|now|was)\s+(now\s+)?deprecated\b|^\W*deprecated\b|\bdeprecated\s*[.:;)\]]"
    r"|\bdeprecated,?\s+(and|in favou?r|since|as of)\b|\bdeprecation\b",
    re.IGNORECASE,
)


def _deprecation(action: argparse.Action, help_text: str, deprecated_set: set[int]) -> str | None:
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(help_text.replace("%%", "%").split()))
    for s in sentences:
        if _DEPRECATION_RE.search(s):
            return s.strip()
    if getattr(action, "deprecated", False) or id(action) in deprecated_set:
        return "deprecated"
    if "Deprecated" in type(action).__name__:
        return "deprecated"
    return None


def _jsonable(value: Any) -> Any:
    """A JSON-serialisable rendering of ``value`` (repr string as the last resort)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    enum_value = getattr(value, "value", None)
    if enum_value is not None and type(value).__module__ != "builtins" and hasattr(type(value), "__members__"):
        return _jsonable(enum_value)
    if value is argparse.SUPPRESS:
        return "==SUPPRESS=="
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        pass
    else:
        return value
    r = repr(value)
    # object reprs carry memory addresses; strip them for deterministic output
    return re.sub(r" at 0x[0-9a-fA-F]+", "", r)


def _group_titles(parser: argparse.ArgumentParser) -> dict[int, str | None]:
    titles: dict[int, str | None] = {}
    for group in parser._action_groups:
        for act in group._group_actions:
            titles.setdefault(id(act), group.title)
    # mutually exclusive groups live in their container group already
    return titles


def _all_option_strings(parser: argparse.ArgumentParser, action: argparse.Action) -> list[str]:
    """Every option string argparse accepts for ``action`` (help-visible or hidden)."""
    seen: list[str] = []
    for opt in action.option_strings:
        if opt not in seen:
            seen.append(opt)
    for opt, act in parser._option_string_actions.items():
        if act is action and opt not in seen:
            seen.append(opt)
    return seen


def _negative_strings(action: argparse.Action, all_opts: list[str], kind_action: str) -> list[str]:
    neg: set[str] = set()
    explicit = getattr(action, "negative_option_strings", None)
    if explicit:
        neg |= {o for o in explicit if o in all_opts}
    if kind_action in ("boolean_optional", "enable_disable"):
        neg |= {o for o in all_opts if o.startswith("--no-")}
    return sorted(neg)


def describe_action(
    parser: argparse.ArgumentParser,
    action: argparse.Action,
    group: str | None,
    deprecated_set: set[int] | None = None,
) -> dict[str, Any]:
    """Describe one argparse action as a JSON-serialisable dict."""
    deprecated_set = deprecated_set or set()
    act = action_name(action)
    all_opts = _all_option_strings(parser, action)
    negatives = _negative_strings(action, all_opts, act)
    positives = [o for o in all_opts if o not in negatives]
    visible = set(action.option_strings)
    hidden = sorted(o for o in all_opts if o not in visible)
    long_opts = [o for o in positives if o.startswith("--")]
    positional = not action.option_strings
    name = long_opts[0] if long_opts else (positives[0] if positives else action.dest)

    fn = action.type
    nargs = action.nargs
    takes_value = nargs != 0 and act not in _NO_VALUE_ACTIONS
    if fn is None and not takes_value:
        kind, optional = "none", False
    elif fn is None and "boolean" in type(action).__name__.lower():
        kind, optional = "bool", False  # e.g. vLLM's StoreBoolean: "true"/"false"
    else:
        kind, optional = classify_type(fn)
    choices = None
    if action.choices is not None and not isinstance(action.choices, dict):
        choices = [_jsonable(c) for c in action.choices]
        if None in choices:
            optional = True
    help_text = action.help if isinstance(action.help, str) else ""
    if help_text == argparse.SUPPRESS:
        help_text = ""
    metavar = action.metavar
    if isinstance(metavar, tuple):
        metavar = list(metavar)
    return {
        "action": act,
        "action_class": type(action).__name__,
        "choices": choices,
        "const": _jsonable(action.const),
        "default": _jsonable(action.default),
        "deprecated": _deprecation(action, help_text, deprecated_set),
        "dest": action.dest,
        "group": group,
        "help": _first_sentence(help_text),
        "help_suppressed": action.help == argparse.SUPPRESS,
        "hidden_option_strings": hidden,
        "kind": kind,
        "metavar": metavar,
        "name": name,
        "nargs": nargs,
        "negative_option_strings": negatives,
        "option_strings": positives,
        "optional": optional,
        "positional": positional,
        "required": bool(action.required),
        "type_name": type_name(fn),
        "type_source": type_source(fn) if kind.startswith("other:") else None,
    }


def describe_parser(parser: argparse.ArgumentParser) -> list[dict[str, Any]]:
    """Describe every action of ``parser`` (sorted by dest, then name)."""
    titles = _group_titles(parser)
    deprecated_set = {id(a) for a in getattr(parser, "_deprecated", set()) or set()}
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        out.append(describe_action(parser, action, titles.get(id(action)), deprecated_set))
    out.sort(key=lambda a: (a["dest"], a["name"]))
    return out


def dump_schema(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------
# vLLM-specific part (only runs where vLLM is installed)
# --------------------------------------------------------------------------------------

_MAKE_ARG_PARSER_MODULES = (
    "vllm.entrypoints.common.cli_args",  # 0.33
    "vllm.entrypoints.launchers.cli_args",  # 0.29-0.32
    "vllm.entrypoints.openai.cli_args",  # 0.5.5-0.28
)
_FLEXIBLE_PARSER_MODULES = ("vllm.utils.argparse_utils", "vllm.utils")
_CLI_MAINS = ("vllm.entrypoints.cli.main", "vllm.scripts")


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__("parser captured")
        self.parser = parser


def _site_relative(path: str | None) -> str:
    if not path:
        return "?"
    p = Path(path)
    parts = p.parts
    if "vllm" in parts:
        idx = len(parts) - 1 - parts[::-1].index("vllm")
        # the package dir named vllm closest to site-packages
        for i, part in enumerate(parts):
            if part == "vllm" and i > 0 and parts[i - 1] in ("site-packages", "dist-packages"):
                idx = i
                break
        return "/".join(parts[idx:])
    return p.name


def _src_location(obj: Any) -> str:
    try:
        file = inspect.getsourcefile(obj)
        _, line = inspect.getsourcelines(obj)
    except (TypeError, OSError):
        return "?"
    return f"{_site_relative(file)}:{line}"


def _first_importable(mods: tuple[str, ...], attr: str) -> tuple[str, Any] | None:
    for mod in mods:
        try:
            m = importlib.import_module(mod)
        except Exception:
            continue
        if hasattr(m, attr):
            return mod, getattr(m, attr)
    return None


def _serve_subparser(top: argparse.ArgumentParser) -> argparse.ArgumentParser:
    assert top._subparsers is not None, "top-level vllm parser has no subcommands"
    for act in top._subparsers._group_actions:
        if isinstance(act, argparse._SubParsersAction) and "serve" in act.choices:
            return act.choices["serve"]
    raise RuntimeError("no 'serve' subcommand found")


def load_serve_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser | None, dict[str, Any]]:
    """Build vLLM's serve parser the way ``vllm serve`` does.

    Strategy 1: run vLLM's CLI ``main()`` with ``parse_args`` patched to raise,
    capturing the real top-level parser (its ``serve`` subparser is what
    ``vllm serve`` uses). Strategy 2: ``ServeSubcommand().subparser_init``.
    Strategy 3: ``make_arg_parser`` on a ``serve`` subparser built like main().
    """
    flex = _first_importable(_FLEXIBLE_PARSER_MODULES, "FlexibleArgumentParser")
    if flex is None:
        raise RuntimeError("FlexibleArgumentParser not importable")
    flex_mod, Flex = flex
    info: dict[str, Any] = {"flexible_parser_module": flex_mod}
    errors: list[str] = []

    for main_mod in _CLI_MAINS:
        try:
            mod = importlib.import_module(main_mod)
            main = mod.main
        except Exception as e:
            missing = getattr(e, "name", None) if isinstance(e, ModuleNotFoundError) else None
            if missing and main_mod.startswith(missing):
                continue  # this version has no such CLI module (0.6.x has no vllm.entrypoints.cli)
            errors.append(f"{main_mod}: {type(e).__name__}: {e}")
            print(f"gen_vllm_schema: {errors[-1]}", file=sys.stderr)
            continue
        orig = Flex.parse_args

        def _capture(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
            raise _Captured(self)

        Flex.parse_args = _capture
        saved_env = dict(os.environ)
        try:
            main()
        except _Captured as c:
            top = c.parser
            info["parser_source"] = f"{main_mod}:main"
            info["fallback_reasons"] = errors
            return _serve_subparser(top), top, info
        except BaseException as e:  # SystemExit included
            errors.append(f"{main_mod}.main(): {type(e).__name__}: {e}")
            print(f"gen_vllm_schema: {errors[-1]}", file=sys.stderr)
        finally:
            Flex.parse_args = orig
            os.environ.clear()
            os.environ.update(saved_env)

    top = Flex(prog="vllm", description="vLLM CLI")
    subparsers = top.add_subparsers(required=False, dest="subparser")
    try:
        from vllm.entrypoints.cli.serve import ServeSubcommand  # type: ignore[import-not-found]

        ServeSubcommand().subparser_init(subparsers)
        info["parser_source"] = "vllm.entrypoints.cli.serve:ServeSubcommand.subparser_init"
        info["fallback_reasons"] = errors
        return _serve_subparser(top), top, info
    except Exception as e:
        errors.append(f"ServeSubcommand: {type(e).__name__}: {e}")

    found = _first_importable(_MAKE_ARG_PARSER_MODULES, "make_arg_parser")
    if found is None:
        raise RuntimeError("cannot build the serve parser:\n" + "\n".join(errors))
    top = Flex(prog="vllm", description="vLLM CLI")
    subparsers = top.add_subparsers(required=False, dest="subparser")
    sp = subparsers.add_parser("serve", usage="vllm serve <model_tag> [options]")
    sp.add_argument("model_tag", type=str, nargs="?", help="The model tag to serve")
    found[1](sp)
    info["parser_source"] = f"{found[0]}:make_arg_parser (serve wiring replicated)"
    info["fallback_reasons"] = errors
    return sp, top, info


def _src_of(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (TypeError, OSError):
        return ""


def config_yaml_semantics(flex_cls: type, top: argparse.ArgumentParser | None) -> dict[str, Any]:
    """How this version's ``--config`` YAML is turned into argv (from the source)."""
    fn = getattr(flex_cls, "load_config_file", None) or getattr(flex_cls, "_load_config_file", None)
    if fn is None:
        return {"supported": False}
    src = _src_of(fn)
    code = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    if "--no-" in code:
        false = "no_flag_if_registered"
    elif "isinstance(value, bool)" in code:
        false = "dropped"
    else:
        false = "str"
    store_boolean_exception = "StoreBoolean" in code
    lists = "expanded" if "isinstance(value, list)" in code else "str"
    mappings = "json" if ("isinstance(value, dict)" in code and "json.dumps" in code) else "python_repr"
    top_opts = sorted(top._option_string_actions) if top is not None else None
    if false == "no_flag_if_registered" and top_opts is not None:
        serve_false = "no_flag" if any(o.startswith("--no-") for o in top_opts) else "dropped"
    elif false == "str":
        serve_false = "str"
    else:
        serve_false = "dropped"
    return {
        "supported": True,
        "source": _src_location(fn),
        "function": fn.__qualname__,
        "true": "--key",
        "false": false,
        "false_effective_with_vllm_serve": serve_false,
        "store_boolean_exception": store_boolean_exception,
        "list": lists,
        "empty_list": "dropped" if lists == "expanded" else "str",
        "mapping": mappings,
        "scalar": "--key str(value)",
        "null": "--key None",
        "expanding_parser": "top-level vllm parser" if top is not None else "serve parser",
        "top_level_option_strings": top_opts,
        "extensions": ["yaml", "yml"],
    }


def parser_features(flex_cls: type) -> dict[str, Any]:
    """Detected behaviours of FlexibleArgumentParser.parse_args (from the source)."""
    src = _src_of(flex_cls)
    pa = _src_of(getattr(flex_cls, "parse_args", None))
    return {
        "class": f"{flex_cls.__module__}.{flex_cls.__qualname__}",
        "source": _src_location(flex_cls),
        "parse_args_source": _src_location(getattr(flex_cls, "parse_args", None)),
        "underscore_to_dash": "replace('_', '-')" in pa or 'replace("_", "-")' in pa,
        "dash_rewrite_stops_at_dot": r"[^\.]*" in pa,
        "dotted_args": "create_nested_dict" in pa,
        "dotted_list_append_plus": 'endswith("+")' in pa or "endswith('+')" in pa,
        "dotted_human_readable_values": "create_nested_dict" in pa and "human_readable_int" in pa,
        "duplicate_key_warning": "Found duplicate keys" in pa,
        "model_flag_rewrite": "--model" in pa and "positional" in pa,
        "served_model_name_requires_positional": "served[-_]model[-_]name" in pa,
        "task_hint": "--task is not a vllm serve option" in src,
        "help_search": "--help=" in pa,
        "O_shorthand": ("-O" in pa) and ("optimization" in pa or "'-O'" in pa or '"-O"' in pa),
        "O_shorthand_maps_to": "--optimization-level"
        if "--optimization-level" in pa
        else ("-O" if "-O" in pa else None),
        "enable_disable_registered": "EnableDisableAction" in src,
        "deprecated_kwarg_backport": "_deprecated" in src,
    }


def env_vars() -> dict[str, Any]:
    try:
        envs = importlib.import_module("vllm.envs")
    except Exception as e:
        return {"__error__": repr(e)}
    table = getattr(envs, "environment_variables", {})
    home = os.path.expanduser("~")
    out: dict[str, Any] = {}
    saved = dict(os.environ)
    try:
        # evaluate every default in a minimal environment (only HOME and PATH), twice:
        # a default that differs between the two (a generated uuid) is recorded as such
        minimal = {"HOME": home or "/root", "PATH": "/usr/local/bin:/usr/bin:/bin"}

        def evaluate(getter: Any) -> str:
            os.environ.clear()
            os.environ.update(minimal)
            try:
                r = repr(getter())
            except Exception as e:
                return f"<error: {type(e).__name__}>"
            if home and home != "/":
                r = r.replace(home, "~")
            return re.sub(r" at 0x[0-9a-fA-F]+", "", r)

        for name, getter in table.items():
            first, second = evaluate(getter), evaluate(getter)
            if first != second:
                n = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), 0)
                prefix = first[:n]
                prefix = prefix[: max(prefix.rfind("_"), prefix.rfind("-")) + 1]  # drop random chars
                first = f"<generated per process, starts with {prefix!r}>"
            out[name] = first
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return dict(sorted(out.items()))


def env_var_choices() -> dict[str, Any]:
    """``{NAME: {"values": [...], "case_sensitive": bool}}`` for the variables ``vllm/envs.py``
    validates against a fixed list (``env_with_choices`` / ``env_list_with_choices``, read from the
    getter's closure): vLLM raises ``ValueError`` for any other value when it reads them."""
    try:
        envs = importlib.import_module("vllm.envs")
    except Exception:
        return {}
    out: dict[str, Any] = {}
    for name, getter in getattr(envs, "environment_variables", {}).items():
        cells = _closure_cells(getter)
        if "choices" not in cells:
            continue
        choices = cells["choices"]
        try:
            values = choices() if callable(choices) else choices
            out[name] = {
                "values": sorted(str(v) for v in values),
                "case_sensitive": bool(cells.get("case_sensitive", True)),
                # env_list_with_choices / env_set_with_choices: comma-separated, each item checked
                "list": bool(re.search(r"(list|set)_with_choices|_env_(list|set)\b", _getter_name(getter))),
            }
        except Exception as e:
            out[name] = {"values": None, "error": f"{type(e).__name__}: {str(e)[:120]}"}
    return dict(sorted(out.items()))


def _getter_name(getter: Any) -> str:
    """The qualname of the validating function a getter wraps (``env_list_with_choices.<locals>…``)."""
    names = [getattr(getter, "__qualname__", "")]
    names += [getattr(v, "__qualname__", "") for v in _closure_cells(getter).values() if callable(v)]
    return " ".join(names)


def _closure_cells(fn: Any, depth: int = 0) -> dict[str, Any]:
    """Free variables of ``fn`` and of the functions it closes over (two levels)."""
    out: dict[str, Any] = {}
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
    if code is None:
        return out
    for var, cell in zip(code.co_freevars, cells, strict=False):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        out.setdefault(var, value)
        if depth < 2 and callable(value) and getattr(value, "__closure__", None):
            for k, v in _closure_cells(value, depth + 1).items():
                out.setdefault(k, v)
    return out


def _literal_strings_from_source(path: Path, names: tuple[str, ...]) -> list[str] | None:
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError):
        return None
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if value is None or not any(isinstance(t, ast.Name) and t.id in names for t in targets):
            continue
        if isinstance(value, ast.Dict):
            return [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if isinstance(value, ast.Subscript):  # Literal[...]
            sl = value.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if isinstance(value, ast.List | ast.Tuple):
            return [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def _vllm_root() -> Path:
    import vllm  # type: ignore[import-not-found]

    return Path(vllm.__file__).parent


def quantization_methods() -> dict[str, Any]:
    try:
        m = importlib.import_module("vllm.model_executor.layers.quantization")
        methods = list(m.QUANTIZATION_METHODS)
        return {"source": "import", "methods": methods}
    except Exception as e:
        err = f"{type(e).__name__}: {e}"
    path = _vllm_root() / "model_executor" / "layers" / "quantization" / "__init__.py"
    got = _literal_strings_from_source(path, ("QuantizationMethods", "QUANTIZATION_METHODS"))
    return {"source": f"parsed {_site_relative(str(path))} ({err})", "methods": got}


def kv_cache_dtypes(arguments: list[dict[str, Any]]) -> dict[str, Any]:
    from typing import get_args

    for mod in ("vllm.config.cache", "vllm.config"):
        try:
            m = importlib.import_module(mod)
        except Exception:
            continue
        lit = getattr(m, "CacheDType", None)
        if lit is not None and get_args(lit):
            return {"source": f"{mod}.CacheDType", "dtypes": [str(a) for a in get_args(lit)]}
    for arg in arguments:
        if arg["dest"] == "kv_cache_dtype" and arg["choices"]:
            return {
                "source": "--kv-cache-dtype choices",
                "dtypes": [c for c in arg["choices"] if c is not None],
            }
    return {"source": None, "dtypes": None}


# --------------------------------------------------------------------------------------
# Registries: the values vLLM checks against its own tables rather than argparse choices
# --------------------------------------------------------------------------------------


def _literal_strings(tp: Any) -> list[str]:
    """The string members of a ``Literal[...]`` (through ``Union``/``Optional``/``Annotated``)."""
    import typing

    out: list[str] = []
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        for a in typing.get_args(tp):
            out.extend(_literal_strings(a) if not isinstance(a, str) else [a])
    elif origin is not None:
        for a in typing.get_args(tp):
            out.extend(_literal_strings(a))
    return out


def _attr(path: str) -> Any:
    """``module:attr.sub`` → the object (ImportError/AttributeError when absent)."""
    mod, _, attr = path.partition(":")
    obj: Any = importlib.import_module(mod)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _values_of(obj: Any) -> list[str]:
    """Strings named by a registry object: Literal members, Enum member names (or values for a
    ``str`` Enum), dict keys, list/set items."""
    import enum

    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        members = list(obj.__members__.values())
        if issubclass(obj, str):
            return [str(m.value) for m in members]
        return [m.name for m in members]
    if isinstance(obj, dict):
        return [str(k) for k in obj]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [str(v) for v in obj if isinstance(v, str)]
    return _literal_strings(obj)


def _manager_names(module: str, cls_attr: str) -> list[str]:
    """Names registered with a tool/reasoning parser manager after importing its package:
    eagerly registered (``tool_parsers``/``reasoning_parsers``) and lazily registered ones."""
    mod = importlib.import_module(module)
    manager = getattr(mod, cls_attr)
    names: set[str] = set()
    for field in ("tool_parsers", "reasoning_parsers", "lazy_parsers"):
        table = getattr(manager, field, None)
        if isinstance(table, dict):
            names.update(str(k) for k in table)
    return sorted(names)


def _arg_values(arguments: list[dict[str, Any]], dest: str) -> list[str] | None:
    """The values an argument lists: argparse ``choices``, else a ``{a,b,…}`` metavar."""
    for a in arguments:
        if a["dest"] != dest:
            continue
        if a["choices"]:
            return [str(c) for c in a["choices"] if c is not None]
        mv = a.get("metavar")
        if isinstance(mv, str) and mv.startswith("{") and mv.endswith("}"):
            return [x.strip() for x in mv[1:-1].split(",") if x.strip()]
    return None


#: where each registry lives, tried in order (the first that yields values wins); ``arg:DEST``
#: reads the argument's choices/metavar. Every source is recorded in the output.
REGISTRY_SOURCES: dict[str, tuple[str, ...]] = {
    "load_formats": (
        "vllm.model_executor.model_loader:_LOAD_FORMAT_TO_MODEL_LOADER",
        "vllm.model_executor.model_loader:LoadFormats",
        "vllm.config.load:LoadFormats",
        "vllm.config:LoadFormat",
        "arg:load_format",
    ),
    "attention_backends": (
        "vllm.v1.attention.backends.registry:AttentionBackendEnum",
        "vllm.attention.backends.registry:AttentionBackendEnum",
        "vllm.attention.backends.registry:_Backend",
        "vllm.platforms.interface:_Backend",
        "vllm.attention.selector:_Backend",
    ),
    "tool_call_parsers": (
        "manager:vllm.tool_parsers:ToolParserManager",
        "manager:vllm.entrypoints.openai.tool_parsers:ToolParserManager",
        "arg:tool_call_parser",
    ),
    "reasoning_parsers": (
        "manager:vllm.reasoning:ReasoningParserManager",
        "manager:vllm.entrypoints.openai.reasoning_parsers:ReasoningParserManager",
        "arg:reasoning_parser",
    ),
    "tasks": (
        "vllm.config.model:TaskOption",
        "vllm.config:TaskOption",
        "arg:task",
    ),
    "runners": ("vllm.config.model:RunnerOption", "vllm.config:RunnerOption", "arg:runner"),
    "converts": ("vllm.config.model:ConvertOption", "vllm.config:ConvertOption", "arg:convert"),
    "guided_decoding_backends": (
        "vllm.config.structured_outputs:StructuredOutputsBackend",
        "vllm.config:StructuredOutputsBackend",
        "vllm.config:GuidedDecodingBackend",
        "vllm.config:GuidedDecodingBackendV1",
        "arg:guided_decoding_backend",
        "arg:structured_outputs_config.backend",
    ),
    "architectures": ("registry:vllm.model_executor.models:ModelRegistry",),
}


def _registry_values(how: str, arguments: list[dict[str, Any]]) -> list[str] | None:
    if how.startswith("arg:"):
        return _arg_values(arguments, how[4:])
    if how.startswith("manager:"):
        mod, _, cls = how[len("manager:") :].partition(":")
        return _manager_names(mod, cls)
    if how.startswith("registry:"):
        reg = _attr(how[len("registry:") :])
        return sorted(str(a) for a in reg.get_supported_archs())
    return _values_of(_attr(how))


def _registry_missing_module(regs: dict[str, Any]) -> str | None:
    """A non-vLLM module whose absence kept a registry from being read (None when all were read or
    failed for other reasons: a registry the release does not have is not an error)."""
    for reg in regs.values():
        if reg.get("values"):
            continue
        for why in reg.get("tried") or ():
            m = re.search(r"No module named '([^']+)'", why)
            if m and not m.group(1).startswith("vllm"):
                return m.group(1).split(".")[0]
    return None


def registries(arguments: list[dict[str, Any]]) -> dict[str, Any]:
    """``{name: {source, values}}`` for every registry in :data:`REGISTRY_SOURCES`; a registry
    no source yields is ``{source: None, values: None, tried: [why each failed]}`` (absent, never
    guessed)."""
    out: dict[str, Any] = {}
    for name, sources in REGISTRY_SOURCES.items():
        tried: list[str] = []
        for how in sources:
            try:
                values = _registry_values(how, arguments)
            except Exception as e:  # absent in this release, or its import fails
                tried.append(f"{how}: {type(e).__name__}: {str(e)[:160]}")
                continue
            if values:
                out[name] = {"source": how, "values": sorted(set(values))}
                break
            tried.append(f"{how}: no values")
        else:
            out[name] = {"source": None, "values": None, "tried": tried}
    return out


def _dist_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _platform_name() -> str | None:
    try:
        from vllm.platforms import current_platform  # type: ignore[import-not-found]
    except Exception as e:
        return f"<error: {type(e).__name__}>"
    return type(current_platform).__name__


def generate(stubs: list[str] | None = None) -> dict[str, Any]:
    """Import vLLM, build its serve parser and return the schema dict."""
    version = _dist_version("vllm")
    if version is None:
        raise SystemExit("vllm is not installed in this environment")
    serve, top, info = load_serve_parser()
    arguments = describe_parser(serve)
    flex_cls = type(serve)
    features = parser_features(flex_cls)
    make_found = _first_importable(_MAKE_ARG_PARSER_MODULES, "make_arg_parser")
    json_dests = sorted({a["dest"] for a in arguments if a["kind"] in ("json", "json_or_str")})
    x: dict[str, Any] = {
        "vllm_version": version,
        "generator_version": GENERATOR_VERSION,
        "python": ".".join(map(str, sys.version_info[:3])),
        "torch": _dist_version("torch"),
        "platform": _platform_name(),
        "parser_module": make_found[0] if make_found else None,
        "parser_source": info.get("parser_source"),
        "parser_fallback_reasons": info.get("fallback_reasons", []),
        "flexible_parser_module": info.get("flexible_parser_module"),
        "prog": serve.prog,
        "usage": serve.usage,
        "allow_abbrev": serve.allow_abbrev,
        "top_level_allow_abbrev": top.allow_abbrev if top is not None else None,
        "parser_features": features,
        "dotted_arguments": json_dests if features["dotted_args"] else [],
        "config_yaml_semantics": config_yaml_semantics(flex_cls, top),
        "stubs": sorted(stubs or []),
        "arguments": arguments,
        "env_vars": env_vars(),
        "env_var_choices": env_var_choices(),
        "quantization_methods": quantization_methods(),
        "kv_cache_dtypes": kv_cache_dtypes(arguments),
        "registries": registries(arguments),
    }
    return build_schema(
        arguments,
        title=f"vLLM {version} `vllm serve` settings",
        x_vlint=x,
        dotted=features["dotted_args"],
    )


# --------------------------------------------------------------------------------------
# Environment preparation for importing old vLLM on a CPU-only machine
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def _quiet_argv() -> Iterator[None]:
    saved = sys.argv[:]
    # "--help" makes vLLM compute help text (NEEDS_HELP); never put "serve" here:
    # with "serve" + "--help" some versions omit --model.
    sys.argv = ["vllm", "--help"]
    try:
        yield
    finally:
        sys.argv = saved


def force_cpu_platform() -> str:
    """Make vLLM resolve ``current_platform`` to its CPU platform on this CUDA-less machine.

    0.7+ resolve the platform lazily through ``builtin_platform_plugins``: every
    builtin plugin but ``cpu`` is made to answer "not available" and ``cpu`` to
    answer ``CpuPlatform`` (most releases detect CPU only from a ``+cpu`` wheel
    version). 0.6.x resolve it while ``vllm.platforms`` is imported, from
    ``"cpu" in importlib.metadata.version("vllm")``: that one lookup is answered
    with ``<version>+cpu`` during the import. The parser is unchanged by this
    except for platform-dependent choices (recorded as ``x-vlint.platform``).
    """
    from importlib import metadata

    real_version = metadata.version

    def fake_version(name: str) -> str:
        v = real_version(name)
        return f"{v}+cpu" if name == "vllm" else v

    metadata.version = fake_version  # type: ignore[assignment]
    try:
        platforms = importlib.import_module("vllm.platforms")
    finally:
        metadata.version = real_version  # type: ignore[assignment]
    plugins = getattr(platforms, "builtin_platform_plugins", None)
    if isinstance(plugins, dict):
        for key in list(plugins):
            if key == "cpu":
                plugins[key] = lambda: "vllm.platforms.cpu.CpuPlatform"
            else:
                plugins[key] = lambda: None
        return "builtin_platform_plugins patched: only 'cpu' active"
    return "vllm.platforms imported with metadata.version('vllm') reporting '+cpu'"


def apply_torch_shims() -> list[str]:
    """Re-add torch APIs that old vLLM calls and the CPU torch used here no longer has.

    Only attributes that are missing are added; each is an alias of the current API.
    """
    done: list[str] = []
    try:
        import torch  # type: ignore[import-not-found]
    except Exception:
        return done
    cpu_c = getattr(torch._C, "_cpu", None)
    if cpu_c is not None and not hasattr(cpu_c, "_is_avx512_supported") and hasattr(torch.cpu, "_is_avx512_supported"):
        # vllm/platforms/cpu.py <= 0.17 calls torch._C._cpu._is_avx512_supported()
        cpu_c._is_avx512_supported = torch.cpu._is_avx512_supported
        done.append("torch._C._cpu._is_avx512_supported = torch.cpu._is_avx512_supported")
    return done


def install_stubs(names: list[str]) -> list[str]:
    """Put empty modules for ``names`` into ``sys.modules`` (see tools/README.md)."""
    done = []
    for name in names:
        if name in sys.modules:
            continue
        mod = types.ModuleType(name)
        mod.__dict__["__vlint_stub__"] = True
        sys.modules[name] = mod
        done.append(name)
    return done


def hide_modules(names: list[str]) -> list[str]:
    """Make ``names`` absent (``sys.modules[name] = None``: ``importlib.util.find_spec`` answers
    None and ``import`` raises ImportError), for compiled extensions a release probes with
    ``find_spec`` and then cannot load against this torch (0.6.0-0.6.1: ``vllm._core_C``, whose
    ``ScalarType`` lookup would fail): vLLM then takes its own path for platforms without them."""
    for name in names:
        sys.modules[name] = None  # type: ignore[assignment]
    return list(names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="schemas/vllm/", help="output folder (default: %(default)s)")
    ap.add_argument("--stdout", action="store_true", help="print the schema instead of writing it")
    ap.add_argument(
        "--stub",
        action="append",
        default=[],
        help="module to replace by an empty stub before importing vLLM (repeatable)",
    )
    ap.add_argument(
        "--hide",
        action="append",
        default=[],
        help="compiled module to treat as absent (sys.modules[MOD] = None; repeatable)",
    )
    ap.add_argument("--timestamp", action="store_true", help="add x-vlint.generated_at (UTC date)")
    args = ap.parse_args(argv)

    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    stubs = install_stubs(args.stub)
    hidden = hide_modules(args.hide)
    shims = apply_torch_shims()
    real_stdout = sys.stdout
    # vLLM logs to stdout; keep it off the --stdout output
    with _quiet_argv(), contextlib.redirect_stdout(sys.stderr):
        how = force_cpu_platform() if os.environ.get("VLLM_TARGET_DEVICE") == "cpu" else None
        schema = generate(stubs)
    missing = _registry_missing_module(schema["x-vlint"].get("registries") or {})
    if missing:
        # a registry could not be read because a dependency is absent: say so like an import error,
        # so that tools/gen_all_schemas.sh installs it and runs the generator again
        print(f"ModuleNotFoundError: No module named '{missing}' (while reading a registry)", file=sys.stderr)
        return 3
    schema["x-vlint"]["platform_forcing"] = how
    schema["x-vlint"]["shims"] = shims
    if hidden:
        schema["x-vlint"]["hidden_modules"] = hidden
    if args.timestamp:
        import datetime

        schema["x-vlint"]["generated_at"] = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    text = dump_schema(schema)
    if args.stdout:
        real_stdout.write(text)
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{schema['x-vlint']['vllm_version']}.json"
    path.write_text(text)
    n = len(schema["x-vlint"]["arguments"])
    print(f"wrote {path} ({n} arguments, {len(text)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
