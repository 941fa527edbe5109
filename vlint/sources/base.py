"""The contract every source (file format) implements, and what it returns."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from vlint.core.invocation import Invocation, Problem, Token
from vlint.core.record import field, record
from vlint.core.span import Span


class SourceError(Exception):
    """The file cannot be read or parsed. Reported as ``path:line: error …`` (exit code 2)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class OutsideRoot(SourceError):
    """A file a linted file refers to that vlint does not read: outside the lint root, or in a
    version-control folder (:mod:`vlint.security.lint_root`). The message names the path, never its content."""

    def __init__(self, path: Path, shown: str, why: str) -> None:
        super().__init__(f"{shown} {why}: not read")
        self.path = path
        self.shown = shown
        #: ``lies outside the lint root /repo``, ``is inside a version-control folder (.git/)…``
        self.why = why


def refused(error: SourceError, span: Span, problems: list[Problem], what: str) -> bool:
    """When ``error`` is the lint root's refusal of a reference, report it (VL060) on ``span``, the
    text that names it, and return True; other read errors are the caller's to handle."""
    if not isinstance(error, OutsideRoot):
        return False
    problems.append(
        Problem(
            "VL060",
            span,
            f"{what} {error.why}: not read, so what it holds is not checked",
            {"refused": str(error.path)},
        )
    )
    return True


@record(slots=True)
class SourceText:
    """A file's text, with the path shown to users and the path on disk."""

    path: str
    abspath: Path
    text: str
    #: (bytes that are not UTF-8, line of the first) when the file was read leniently
    undecodable: tuple[int, int] | None = None


@record(slots=True)
class SourceResult:
    invocations: list[Invocation] = field(default_factory=list)
    #: ``NAME=value`` assignments written in the file (shell variables, ENV, env: entries), for
    #: rules that scan for secrets even where no launch uses them
    assignments: list[tuple[str, Token]] = field(default_factory=list)
    #: the variables a file of environment alone sets (a ``.env``: ``NAME=value`` for launches written
    #: elsewhere), each token spanning ``NAME=value`` from the name; when no launch of the run reads the
    #: file, its ``VLLM_*`` names are checked on their own (VL013, VL014)
    environment: list[tuple[str, Token]] = field(default_factory=list)
    #: values that are credentials whatever their name (a Kubernetes ``Secret``'s ``stringData`` and,
    #: base64-encoded, ``data``): (key, value token, base64-encoded)
    secret_tokens: list[tuple[str, Token, bool]] = field(default_factory=list)
    #: file-level notes (``template, not linted``…)
    problems: list[Problem] = field(default_factory=list)
    #: what was not checked where nothing is known to be wrong with the file — a tool vlint needs is
    #: not installed, a file it names is not among those vlint was given —: one line each, with the
    #: fix; reported apart from the findings (they are facts about this run, not about the file)
    notes: list[str] = field(default_factory=list)
    #: other files this one pulled in (absolute paths): a ``--config`` YAML, an ``.env`` file
    linked: list[Path] = field(default_factory=list)
    #: wrapper scripts whose launch this file completes (absolute paths): an image's ENTRYPOINT script
    #: that runs vLLM with its own arguments (``"$@"``) and the CMD that gives them. The script's own
    #: copy of that launch, with the arguments left open, is dropped when this file is linted with it
    completes: list[Path] = field(default_factory=list)
    #: documents of another format written in this file that a tool of the file applies (a Kubernetes
    #: manifest a script writes from a here-document and runs ``kubectl apply -f`` on): (source name,
    #: text blanked outside the document, so that its lines are this file's); the runner reads them
    #: with that source as part of this file
    embedded: list[tuple[str, str]] = field(default_factory=list)
    #: a parse error after which the rest of the file could not be read; what came before it
    #: (``invocations``) is still linted, the error is reported and makes the exit code 2
    error: SourceError | None = None


#: Reads a linked file (``--config cfg.yaml`` relative to a script) into a :class:`SourceText` (with
#: the path users see), or raises :class:`SourceError`. Provided by the runner so that size limits,
#: decoding and caching are the same for every file.
ReadFile = Callable[[Path], "SourceText"]


@record(frozen=True, slots=True)
class Source:
    """A file format vlint reads."""

    name: str
    #: does this source apply to the file? (name/extension/content sniffing; cheap)
    sniff: Callable[[SourceText], bool]
    extract: Callable[[SourceText, ReadFile], SourceResult]


def set_head(invocations: Iterable[Invocation], head: Span | None) -> None:
    """Record ``head`` (the key or word the launches' command starts at, as written) on every launch of
    ``head``'s file that has none yet; :meth:`Invocation.lines` reads it."""
    if head is None:
        return
    for inv in invocations:
        if inv.head is None and inv.span.path == head.path:
            inv.head = head
