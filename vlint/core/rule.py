"""The shape of a rule: what one YAML file of the catalog says (code, severity, message, check,
``when:``, options, cases). Loading and validating them is :mod:`vlint.engine.catalog`'s."""

from __future__ import annotations

import re
from collections.abc import Callable

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.typing_names import Any

BUILTIN = "builtin"

#: the keys every rule file has (``required`` of schemas/rule.schema.json) and the shapes of two of them
RULE_FILE_KEYS = ("code", "name", "severity", "summary", "message")
_TOP_KEY = lazy_compile(r"^(code|name|severity|summary|message)[ \t]*:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_CODE = lazy_compile(r"^[A-Z][A-Z0-9]*[0-9]{3}$")
_SEVERITY = {"error", "warning", "info"}


def looks_like_rule_file(text: str) -> bool:
    """Is this YAML a rule of vlint's catalog shape (a policy rule for ``--rules-dir``, a file of rules/),
    not a deployment? It has every required key of the rule schema at the top level, a rule code and a
    severity. Read from the text (the file is not parsed again): a rule that mentions vLLM is no launch."""
    found: dict[str, str] = {}
    for m in _TOP_KEY.finditer(text):
        found.setdefault(m.group(1), m.group(2).strip("'\""))
    return (
        all(k in found for k in RULE_FILE_KEYS)
        and _CODE.match(found["code"]) is not None
        and found["severity"] in _SEVERITY
    )


@record(frozen=True, slots=True)
class RuleCase:
    title: str
    doc: str  # "bad" | "good"
    file: str
    content: str
    expect: tuple[str, ...]
    args: tuple[str, ...] = ()
    #: extra files next to ``file`` (a --config YAML, a .env)
    files: tuple[tuple[str, str], ...] = ()
    #: the rule's options for this case (``[tool.vlint.rules.CODE]``)
    options: tuple[tuple[str, Any], ...] = ()
    #: how ``content`` is written to ``file`` (``latin-1`` for a file that is not UTF-8)
    encoding: str = "utf-8"
    #: the files as the diff base has them (``--diff-base`` in ``args``): name → content
    before: tuple[tuple[str, str], ...] = ()


def case_from_dict(c: dict[str, Any]) -> RuleCase:
    """One ``cases:`` item of a rule file."""
    return RuleCase(
        title=str(c.get("title", "")),
        doc=str(c.get("doc", "bad")),
        file=str(c.get("file", "start.sh")),
        content=str(c.get("content", "")),
        expect=tuple(str(x) for x in c.get("expect") or ()),
        args=tuple(str(x) for x in c.get("args") or ()),
        files=tuple((str(k), str(v)) for k, v in (c.get("files") or {}).items()),
        options=tuple((str(k), v) for k, v in (c.get("options") or {}).items()),
        encoding=str(c.get("encoding", "utf-8")),
        before=tuple((str(k), str(v)) for k, v in (c.get("before") or {}).items()),
    )


@record(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    message: str
    #: the rule's "Why" text (:attr:`docs`); empty when :attr:`details` loads it
    docs_text: str = ""
    check: str | None = None
    when: dict[str, Any] | None = None
    #: for ``when:`` rules: the setting whose span a finding points at
    at: str | None = None
    scope: str = "deployment"  # "deployment" | "file"
    enabled: bool = True
    #: its references (:attr:`references`); empty when :attr:`details` loads them
    reference_list: tuple[str, ...] = ()
    fix: str | None = None
    #: the rule file's ``cases`` as read (:attr:`case_data`; turned into :class:`RuleCase` only when asked
    #: for: a lint run never reads them, the docs and the rule tests do)
    case_list: tuple[dict[str, Any], ...] = field(default=(), compare=False, repr=False)
    #: the bundled rules' docs, references and cases, read only when asked for (rule pages, SARIF, the
    #: cases' tests): a lint run does not need them, and they are 83 % of the rule catalog's bytes
    details: Callable[[], tuple[str, tuple[str, ...], tuple[dict[str, Any], ...]]] | None = field(
        default=None, compare=False, repr=False
    )
    path: str = ""
    #: loaded from the user's --rules-dir (not shipped with vlint)
    custom: bool = False
    #: option name → JSON Schema with ``default`` and ``description`` (``[tool.vlint.rules.CODE]``)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: security rules: the score GitHub code scanning ranks alerts by (SARIF ``security-severity``)
    security_severity: float | None = None
    tags: tuple[str, ...] = ()

    @property
    def docs(self) -> str:
        return self.details()[0] if self.details is not None else self.docs_text

    @property
    def references(self) -> tuple[str, ...]:
        return self.details()[1] if self.details is not None else self.reference_list

    @property
    def case_data(self) -> tuple[dict[str, Any], ...]:
        """The rule file's ``cases`` as read (turned into :class:`RuleCase` only when asked for)."""
        return self.details()[2] if self.details is not None else self.case_list

    @property
    def cases(self) -> tuple[RuleCase, ...]:
        """The rule's bad/good cases (they drive its tests and its docs page)."""
        return tuple(case_from_dict(c) for c in self.case_data)

    @property
    def builtin(self) -> bool:
        return self.check == BUILTIN
