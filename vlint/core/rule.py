"""The shape of a rule: what one YAML file of the catalog says (code, severity, message, check,
``when:``, options, cases). Loading and validating them is :mod:`vlint.engine.catalog`'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BUILTIN = "builtin"


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    message: str
    docs: str = ""
    check: str | None = None
    when: dict[str, Any] | None = None
    #: for ``when:`` rules: the setting whose span a finding points at
    at: str | None = None
    scope: str = "deployment"  # "deployment" | "file"
    enabled: bool = True
    references: tuple[str, ...] = ()
    fix: str | None = None
    cases: tuple[RuleCase, ...] = ()
    path: str = ""
    #: loaded from the user's --rules-dir (not shipped with vlint)
    custom: bool = False
    #: option name → JSON Schema with ``default`` and ``description`` (``[tool.vlint.rules.CODE]``)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: security rules: the score GitHub code scanning ranks alerts by (SARIF ``security-severity``)
    security_severity: float | None = None
    tags: tuple[str, ...] = ()

    @property
    def builtin(self) -> bool:
        return self.check == BUILTIN
