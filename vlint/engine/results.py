"""What a run found: per file (its launches, error, findings) and for the run (findings, suppressed
findings, the credentials seen and how every output masks them). Built by :mod:`vlint.run.lint`,
read by suppression, reports, fixes and the language server."""

from __future__ import annotations

from vlint.core.finding import Finding
from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING
from vlint.security.secrets import LineSource, Redactor, Secret

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment


@record(slots=True)
class FileError:
    message: str
    line: int | None = None
    column: int | None = None


@record(slots=True)
class FileResult:
    path: str
    launches: int = 0
    error: FileError | None = None
    findings: list[Finding] = field(default_factory=list)
    deployments: list[Deployment] = field(default_factory=list)
    sources: tuple[str, ...] = ()
    #: other files this one's launches read (``--config``)
    linked: tuple[str, ...] = ()
    #: files whose launches read this one
    used_by: tuple[str, ...] = ()
    #: the file's text was read (code frames may show its lines)
    read: bool = False
    #: why a file that mentions vLLM yielded nothing vlint checked (no launch, no note); "" otherwise
    skipped: str = ""
    #: what was not checked in this file for a reason that is no fault of the file (a tool vlint
    #: needs is not installed, a file it names was not given): one line each, with the fix
    notes: tuple[str, ...] = ()


@record(slots=True)
class LintReport:
    files: list[FileResult]
    findings: list[Finding]
    #: credentials seen in the files: every renderer masks them wherever they would appear
    secrets: list[Secret] = field(default_factory=list)
    #: findings that suppression comments or annotations hid (not in ``findings``)
    suppressed: list[Finding] = field(default_factory=list)
    #: display paths of the files whose text this run read: the only ones a report may quote
    read_paths: frozenset[str] = frozenset()
    _redactor: Redactor | None = None

    @property
    def secret_values(self) -> set[str]:
        return {s.value for s in self.secrets}

    def redactor(self, lines: LineSource | None = None) -> Redactor:
        """What every renderer masks text with (built once; ``lines`` gives the files' text, to mask
        secrets by where they are written)."""
        if self._redactor is None:
            self._redactor = Redactor(self.secrets, lines or (lambda path: None))
        return self._redactor
