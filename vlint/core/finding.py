"""What a rule reports."""

from __future__ import annotations

from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any

SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


#: what a :class:`SettingChange` does to a launch's settings
CHANGE_ACTIONS = ("set", "add", "remove", "rename")


@record(frozen=True, slots=True)
class SettingChange:
    """One machine-applicable change of a launch's settings (``vlint fix`` edits the file by these spans).

    * ``set``: write ``value`` in place of the value at ``spans[0]``;
    * ``add``: write ``option`` (and ``value`` unless None) after ``anchor``;
    * ``remove``: delete the flag/key and value tokens at ``spans``;
    * ``rename``: write ``option`` in place of the flag or key at ``spans[0]`` (keeping its value; a
      ``value`` other than None becomes the value, for replacements such as ``--mm-processor-cache-gb 0``).

    ``target`` says where the spans live: ``cli`` (an argv word: a shell word, a YAML list item) or
    ``config`` (a key of a vLLM ``--config`` YAML mapping).
    """

    dest: str
    action: str
    value: Any = None
    #: the option to write (``--max-model-len``; ``--no-enable-prefix-caching`` for a negative flag)
    option: str | None = None
    spans: tuple[Span, ...] = ()
    anchor: Span | None = None
    target: str = "cli"


@record(frozen=True, slots=True)
class Fix:
    """A suggested change: a sentence, optionally the replacement text for a span, and the structured
    :class:`SettingChange` edits that ``vlint fix`` applies (empty: the fix is advice only)."""

    description: str
    span: Span | None = None
    replacement: str | None = None
    #: True when applying it changes behaviour (e.g. lowers max_model_len); safe fixes never change
    #: what vLLM does (a spelling, an abbreviation, a flag that has no effect)
    unsafe: bool = False
    changes: tuple[SettingChange, ...] = ()
    #: other ways out that ``changes`` does not apply (``--unsafe-fixes`` applies only the first way;
    #: the description ends with ``; or`` and each of these)
    alternatives: tuple[str, ...] = ()
    #: rules the fix knowingly brings: what it makes effective is what the user already wrote (VL011 turning
    #: an ignored ``enable-prefix-caching: false`` into ``--no-enable-prefix-caching`` brings VL610's advice);
    #: ``vlint fix``'s re-lint does not hold those against it
    brings: tuple[str, ...] = ()

    @property
    def applied_description(self) -> str:
        """What ``changes`` do: the description without the alternatives."""
        suffix = "".join("; or " + a for a in self.alternatives)
        if self.alternatives and self.description.endswith(suffix):
            return self.description[: -len(suffix)]
        return self.description

    @property
    def applicable(self) -> bool:
        """Can ``vlint fix`` apply it (are there machine-readable changes)?"""
        return bool(self.changes)

    @property
    def label(self) -> str:
        """How reports introduce it: ``fix`` / ``fix (unsafe)`` only for what ``vlint fix`` (and the
        editor's quick fix) can apply, ``help`` for advice to follow by hand (as rustc and ruff do)."""
        if not self.applicable:
            return "help"
        return "fix (unsafe)" if self.unsafe else "fix"


@record(slots=True)
class Finding:
    code: str
    name: str
    severity: str
    span: Span
    message: str
    data: dict[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    #: which launch the finding is about (``vllm serve`` at line 3…), for reports
    context: str = ""

    @property
    def path(self) -> str:
        return self.span.path

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.path, self.span.line, self.span.column, self.code, self.message)


def remove_words(dest: str, spans: tuple[Span, ...], *, target: str = "cli") -> SettingChange:
    """Delete argv words (an unknown flag and its value) or a config entry (key and value spans)."""
    return SettingChange(dest, "remove", None, None, spans, target=target)


def rename(dest: str, span: Span, option: str, *, target: str = "cli", value: Any = None) -> SettingChange:
    """Write ``option`` in place of the flag (or config key) at ``span``."""
    return SettingChange(dest, "rename", value, option, (span,), target=target)
