"""The rule catalog: one YAML file per rule (``rules/VL101-chunked-prefill-disabled.yaml``).

A rule holds everything about itself: code, name, severity, summary, message template, docs,
references, its logic (``check:`` naming a function in :mod:`vlint.checks`, ``when:`` a JSON Schema
over the resolved settings document, or ``check: builtin`` for findings the argument parser and the
sources report themselves), and the bad/good ``cases`` that drive both its tests and its docs page.
Files are validated against ``schemas/rule.schema.json``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import yaml

from vlint.core.lazy_re import lazy_compile
from vlint.core.paths import rules_dir, schemas_dir
from vlint.core.record import field, record
from vlint.core.rule import Rule
from vlint.core.typing_names import Any

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


class RuleError(ValueError):
    """A rule file is invalid (wrong shape, unknown check, duplicate code/name)."""


_CODE = lazy_compile(r"^[A-Z][A-Z0-9]*[0-9]{3}$")


def _rule_from_dict(
    d: dict[str, Any], path: Path, custom: bool, details: Callable[[], RuleDetails] | None = None
) -> Rule:
    """The rule of a rule file's dict; with ``details``, its docs, references and cases are read from
    that function when asked for (the bundled rules: :func:`_bundled_details`)."""
    return Rule(
        code=str(d["code"]),
        name=str(d["name"]),
        severity=str(d["severity"]),
        summary=str(d["summary"]).strip(),
        message=str(d.get("message", "{message}")),
        docs_text=str(d.get("docs", "")).strip(),
        check=d.get("check"),
        when=d.get("when"),
        at=d.get("at"),
        scope=str(d.get("scope", "deployment")),
        enabled=bool(d.get("enabled", True)),
        reference_list=tuple(str(r) for r in d.get("references") or ()),
        fix=d.get("fix"),
        case_list=tuple(c for c in d.get("cases") or () if isinstance(c, dict)),
        details=details,
        path=str(path),
        custom=custom,
        options={str(k): dict(v) for k, v in (d.get("options") or {}).items()},
        security_severity=float(d["security-severity"]) if d.get("security-severity") is not None else None,
        tags=tuple(str(t) for t in d.get("tags") or ()),
    )


@cache
def rule_schema() -> dict[str, Any]:
    import json

    with (schemas_dir() / "rule.schema.json").open(encoding="utf-8") as f:
        return dict(json.load(f))


def validate_rule_dict(d: Any, path: Path, *, custom: bool) -> None:
    """Validate one rule document (jsonschema and the pattern checks, which load the argument parser,
    imported only here: listing the bundled rules needs neither)."""
    import jsonschema

    from vlint.engine.linear_regex import UnsupportedPattern
    from vlint.engine.when import check_patterns

    validator = jsonschema.Draft202012Validator(rule_schema())
    errors = sorted(validator.iter_errors(d), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        raise RuleError(f"{path}: {where}: {e.message}")
    if custom and d.get("check"):
        raise RuleError(f"{path}: custom rules use `when:` (a JSON Schema); `check:` is for vlint's own rules")
    if custom and len(d.get("message", "")) > MAX_MESSAGE_TEMPLATE:
        raise RuleError(
            f"{path}: message: {len(d['message']):,} characters; a custom rule's message template "
            f"may have at most {MAX_MESSAGE_TEMPLATE}"
        )
    if custom and d.get("when") is not None:
        try:  # before jsonschema compiles them with `re` (a pattern nested 1000 deep is a RecursionError there)
            check_patterns(d["when"])
        except UnsupportedPattern as e:
            raise RuleError(f"{path}: when: {e}") from None
        try:
            jsonschema.Draft202012Validator.check_schema(d["when"])
        except jsonschema.SchemaError as e:
            where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
            raise RuleError(f"{path}: when: is not a valid JSON Schema at {where}: {e.message}") from None


#: a custom rule file is a page of YAML; a rules folder may come from the pull request
MAX_RULE_FILE_BYTES = 1 << 20
#: a rule document's size with its YAML aliases expanded (what the validators walk): a large rule has
#: a few hundred nodes, a "billion laughs" of 700 bytes has a billion
MAX_RULE_NODES = 10_000
#: aliases (``*name``) to a mapping or a sequence in one rule file
MAX_RULE_ALIASES = 100
#: nesting of mappings and sequences in one rule file
MAX_RULE_DEPTH = 50
#: characters in a custom rule's ``message:`` (vlint's longest is about 340; the rendered message is
#: capped too, by :func:`vlint.engine.runner.render_message`)
MAX_MESSAGE_TEMPLATE = 500


def load_rule_file(path: Path, *, custom: bool = False, validate: bool = False) -> Rule:
    from vlint.security.bounded_read import read_regular

    try:
        d = yaml.load(read_regular(path, MAX_RULE_FILE_BYTES).decode("utf-8"), Loader=_Loader)
    except OSError as e:
        raise RuleError(f"{path}: cannot read rule: {e.strerror or e}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        raise RuleError(f"{path}: cannot read rule: {e}") from None
    except RecursionError:
        raise RuleError(f"{path}: cannot read rule: nested too deeply") from None
    _Expansion(path).measure(d, 1)
    _check_rule_dict(d, path, custom=custom, validate=validate)
    return _rule_from_dict(d, path, custom)


class _Expansion:
    """A rule document measured as if its YAML aliases were expanded — the tree every validator
    walks — memoised by object identity, so a "billion laughs" costs only its distinct nodes to
    measure. Raises :class:`RuleError` past :data:`MAX_RULE_NODES`, :data:`MAX_RULE_ALIASES` or
    :data:`MAX_RULE_DEPTH`, and for an alias inside the node it names (a recursive structure)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.measured: dict[int, tuple[int, int]] = {}  # id → (nodes, height)
        self.open: set[int] = set()
        self.aliases = 0

    def _refuse(self, why: str) -> RuleError:
        return RuleError(f"{self.path}: {why}: not loaded")

    def measure(self, node: Any, depth: int) -> tuple[int, int]:
        """(nodes, height) of ``node`` expanded, found at nesting ``depth``."""
        if not isinstance(node, dict | list):
            return 1, 1
        if id(node) in self.open:
            raise self._refuse("a YAML alias inside the node it names (a recursive structure)")
        known = self.measured.get(id(node))
        if known is not None:
            self.aliases += 1
            if self.aliases > MAX_RULE_ALIASES:
                raise self._refuse(f"more than {MAX_RULE_ALIASES} YAML aliases to mappings or sequences")
        else:
            self.open.add(id(node))
            known = self.measured[id(node)] = self._children(node, depth)
            self.open.discard(id(node))
        if depth + known[1] - 1 > MAX_RULE_DEPTH:
            raise self._refuse(f"nested more than {MAX_RULE_DEPTH} levels deep")
        return known

    def _children(self, node: dict[Any, Any] | list[Any], depth: int) -> tuple[int, int]:
        if depth > MAX_RULE_DEPTH:
            raise self._refuse(f"nested more than {MAX_RULE_DEPTH} levels deep")
        nodes, height = 1, 1
        for child in (*node.keys(), *node.values()) if isinstance(node, dict) else node:
            n, h = self.measure(child, depth + 1)
            nodes, height = nodes + n, max(height, h + 1)
            if nodes > MAX_RULE_NODES:
                raise self._refuse(f"more than {MAX_RULE_NODES:,} YAML nodes once its aliases are expanded")
        return nodes, height


def _check_rule_dict(d: Any, path: Path, *, custom: bool, validate: bool) -> None:
    if not isinstance(d, dict):
        raise RuleError(f"{path}: a rule file is a mapping")
    if validate:
        validate_rule_dict(d, path, custom=custom)
    else:
        for key in ("code", "name", "severity", "summary"):
            if key not in d:
                raise RuleError(f"{path}: missing `{key}`")


def load_rules_from(folder: Path, *, custom: bool = False, validate: bool = False) -> list[Rule]:
    if not folder.is_dir():
        raise RuleError(f"{folder}: not a directory")
    paths = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    if custom:  # a rule file linking out of its folder would read (and quote, in errors) another file
        real = os.path.realpath(folder)
        for p in paths:
            if os.path.commonpath([real, os.path.realpath(p)]) != real:
                raise RuleError(f"{p}: a symbolic link out of the rules folder: not read")
    return [load_rule_file(p, custom=custom, validate=validate) for p in paths]


@record(slots=True)
class Catalog:
    rules: list[Rule]
    by_code: dict[str, Rule] = field(default_factory=dict)
    by_name: dict[str, Rule] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for r in self.rules:
            if r.code in self.by_code:
                raise RuleError(f"{r.path}: rule code {r.code} already used by {self.by_code[r.code].path}")
            if r.name in self.by_name:
                raise RuleError(f"{r.path}: rule name {r.name} already used by {self.by_name[r.name].path}")
            self.by_code[r.code] = r
            self.by_name[r.name] = r

    def find(self, ref: str) -> Rule | None:
        """A rule by code (``VL101``) or name (``chunked-prefill-disabled``)."""
        return self.by_code.get(ref.upper()) or self.by_name.get(ref)

    def resolve_selector(self, ref: str) -> list[Rule]:
        """Rules matched by a selector: a code, a name, a code prefix (``VL1``, ``VL``) or ``ALL``."""
        r = self.find(ref)
        if r is not None:
            return [r]
        up = ref.upper()
        if up == "ALL":
            return list(self.rules)
        return [x for x in self.rules if x.code.startswith(up)] if re.fullmatch(r"[A-Z]+\d{0,3}", up) else []


def load_catalog(extra_dirs: tuple[Path, ...] = ()) -> Catalog:
    rules = list(_bundled_rules())
    for d in extra_dirs:
        rules.extend(load_rules_from(d, custom=True, validate=True))
    return Catalog(sorted(rules, key=lambda r: r.code))


#: a rule's docs, references and cases (:attr:`vlint.core.rule.Rule.details`)
RuleDetails = tuple[str, tuple[str, ...], tuple[dict[str, Any], ...]]
#: the keys of a rule file a lint run does not read: kept out of the copy every start loads
_DETAIL_KEYS = ("docs", "references", "cases")


def _bundled_paths() -> list[Path]:
    folder = rules_dir()
    if not folder.is_dir():
        raise RuleError(f"{folder}: not a directory")
    names = [
        e.name
        for e in os.scandir(folder)
        if e.name.endswith((".yaml", ".yml")) and not e.name.startswith(".") and e.is_file()
    ]
    paths = [folder / n for n in sorted(n for n in names if n.endswith(".yaml"))]
    return paths + [folder / n for n in sorted(n for n in names if n.endswith(".yml"))]


@cache
def _bundled_rules() -> tuple[Rule, ...]:
    paths = _bundled_paths()
    docs = _cached_rule_docs(paths, lean=True)
    return tuple(_rule_from_dict(d, p, False, _details_of(str(d["code"]))) for d, p in zip(docs, paths, strict=True))


def _details_of(code: str) -> Callable[[], RuleDetails]:
    return lambda: _bundled_details()[code]


@cache
def _bundled_details() -> dict[str, RuleDetails]:
    """Every bundled rule's docs, references and cases, by code (read on the first rule page, SARIF
    report or rule-case test of a process)."""
    return {
        str(d["code"]): (
            str(d.get("docs", "")).strip(),
            tuple(str(r) for r in d.get("references") or ()),
            tuple(c for c in d.get("cases") or () if isinstance(c, dict)),
        )
        for d in _cached_rule_docs(_bundled_paths(), lean=False)
    }


def _cached_rule_docs(paths: list[Path], *, lean: bool = False) -> list[dict[str, Any]]:
    """The bundled rule files as dicts. Parsing 100-odd YAML files is ~9 ms of every start; their JSON
    copy in the cache folder (:func:`vlint.core.paths.cache_dir`) loads in ~1 ms. The copy is named by
    a checksum of vlint's version and each file's name, size and modification time (a stat, not a read
    of every file: ~2 ms less per start), so an edited rule file makes a new copy; an unusable cache is
    ignored."""
    import json
    import zlib

    from vlint import __version__
    from vlint.core.paths import cache_dir

    crc = zlib.crc32(__version__.encode())
    try:
        for p in paths:
            st = p.stat()
            crc = zlib.crc32(f"{p.name}:{st.st_size}:{st.st_mtime_ns};".encode(), crc)
    except OSError as e:
        raise RuleError(f"cannot read rule: {e}") from None
    folder = cache_dir()
    cached = folder / f"rules-{crc:08x}{'' if lean else '-full'}.json" if folder is not None else None
    if cached is not None:
        try:
            docs = json.loads(cached.read_bytes())
            if isinstance(docs, list) and len(docs) == len(paths) and all(isinstance(d, dict) for d in docs):
                return docs
        except (OSError, ValueError):
            pass
    try:
        data = [p.read_bytes() for p in paths]
    except OSError as e:
        raise RuleError(f"cannot read rule: {e}") from None
    docs = []
    for p, b in zip(paths, data, strict=True):
        try:
            d = yaml.load(b, Loader=_Loader)
        except yaml.YAMLError as e:
            raise RuleError(f"{p}: cannot read rule: {e}") from None
        _check_rule_dict(d, p, custom=False, validate=False)
        docs.append(d)
    lean_docs = [{k: v for k, v in d.items() if k not in _DETAIL_KEYS} for d in docs]
    if cached is not None:
        base = folder / f"rules-{crc:08x}"  # type: ignore[operator]
        for target, content in ((base.with_suffix(".json"), lean_docs), (Path(f"{base}-full.json"), docs)):
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                text = json.dumps(content)
                if json.loads(text) == content:  # YAML values JSON would change (int keys, dates): not cached
                    tmp = target.with_suffix(f".{os.getpid()}.tmp")
                    tmp.write_text(text, encoding="utf-8")
                    os.replace(tmp, target)
            except (OSError, TypeError, ValueError):  # a read-only home, a value JSON cannot hold: no cache
                pass
        _prune_rule_copies(folder)  # type: ignore[arg-type]
    return lean_docs if lean else docs


#: copies of the rule catalog the cache folder keeps (a lean and a full one each): one per vlint version
#: (or edit of a rule file) in use; older ones are removed when a new one is written, so that years of
#: upgrades do not pile up (~300 KB each). A version whose copy went is parsed again once (~9 ms).
KEPT_RULE_COPIES = 8
_RULE_COPY = lazy_compile(r"rules-[0-9a-f]{8}(?:-full)?\.json")


def _prune_rule_copies(folder: Path) -> None:
    """Remove all but the :data:`KEPT_RULE_COPIES` newest catalog copies of ``folder`` (vlint's own
    ``rules-XXXXXXXX[-full].json`` files only; nothing else there is touched)."""
    try:
        found = []
        for p in folder.iterdir():
            if _RULE_COPY.fullmatch(p.name):
                found.append((p.stat().st_mtime_ns, p.name.removesuffix(".json").removesuffix("-full"), p))
    except OSError:
        return
    newest = sorted({(t, key) for t, key, _ in found}, reverse=True)
    kept: set[str] = set()
    for _, key in newest:
        if len(kept) < KEPT_RULE_COPIES:
            kept.add(key)
    for _, key, p in found:
        if key not in kept:
            with contextlib.suppress(OSError):
                p.unlink()
