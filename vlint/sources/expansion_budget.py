"""One expansion budget per file: how much text variable substitution may produce for it, how deep
references may nest, and how many times the files it pulls in may be evaluated.

Every expander in vlint's sources substitutes values that may themselves be the product of
substitution — shell ``$VAR``, compose and ``.env`` ``${VAR}``, Dockerfile ``ENV``, make ``$(VAR)``,
just ``{{var}}``, go-task ``{{.VAR}}``, supervisord ``%(name)s``, GitHub ``${{ env.X }}``, Kubernetes
``$(VAR)``. ``B = $(A)$(A)``, ``C = $(B)$(B)``… doubles per line, and a long value used many times
multiplies: a 34 KB justfile asked for gigabytes. So all expanders of one file, and of the files it
pulls in (a sourced script, an included Makefile, the ``.env`` of a compose file), draw on one
:class:`ExpansionBudget`. The registry opens one around each file's extraction (:func:`opened`);
an expander takes it with :func:`current`.

Past the budget a reference is kept *unresolved* (its source spelling, like any value vlint cannot
know: never guessed) and the file gets one notice, VL904, saying its values were not all checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from vlint.core.invocation import Problem
from vlint.core.record import field, record
from vlint.core.span import Span

#: characters substitution may produce for one file and the files it pulls in, all expanders together
#: (the Makefile reader's own budget was this size before). Real deployment files stay far below it:
#: none of the 310 real files of vlint's corpora produces 1 KB (the most, 518 characters); hostile ones
#: ask for gigabytes. A substituted character costs up to about 200 bytes of memory on its way through
#: the readers (its origin in the file, the shell reader's position map), so a file that uses all of it
#: costs about 200 MB and a second or two, not 24 GB.
MAX_EXPANDED_CHARS = 1_000_000
#: a reference nested deeper than this (make's ``A = $(B)``, ``B = $(C)``…; a variable that names
#: itself, which make refuses) stays unresolved (the Makefile reader's own depth before)
MAX_DEPTH = 10
#: evaluations of pulled-in files (shell ``source``/``.``, make ``include``) for one file. Each is kept
#: and reused while the variables it starts from are the same, so a real file needs one per file it
#: pulls in; only a hostile tree (files that each pull in all the others) comes near this
MAX_PULLS = 1_000


@record(slots=True)
class ExpansionBudget:
    """What expansion may still do for one file."""

    #: characters substitution may still produce
    chars: int = MAX_EXPANDED_CHARS
    #: pulled-in files that may still be evaluated
    pulls: int = MAX_PULLS
    #: characters substitution produced
    spent: int = 0
    #: the limits reached, in order (the notice names them)
    reached: list[str] = field(default_factory=list)

    @property
    def used_up(self) -> bool:
        """Some limit was reached: some value of the file was left unresolved."""
        return bool(self.reached)

    def spend(self, n: int) -> bool:
        """May substitution produce ``n`` more characters? Takes them if so. Once the characters are
        used up every later substitution is refused (an empty one costs nothing): what comes after
        does not depend on what happened to fit."""
        if n <= 0:
            return True
        if n > self.chars:
            self.chars = 0
            self._reach(f"its substitutions would produce more than {MAX_EXPANDED_CHARS:,} characters")
            return False
        self.chars -= n
        self.spent += n
        return True

    def nest(self, depth: int) -> bool:
        """May a reference at ``depth`` (0: written in the file) be expanded?"""
        if depth < MAX_DEPTH:
            return True
        self._reach(f"its references nest deeper than {MAX_DEPTH} levels")
        return False

    def pull(self) -> bool:
        """May one more pulled-in file be evaluated? Takes one evaluation if so."""
        if self.pulls > 0:
            self.pulls -= 1
            return True
        self._reach(f"it would evaluate the files it pulls in (source, include) more than {MAX_PULLS:,} times")
        return False

    def absorb(self, other: ExpansionBudget) -> None:
        """Count what ``other`` (the budget a pulled-in file was expanded with on its own, kept for
        every file that reads it) spent as spent here too."""
        if other.spent > self.chars:
            self._reach(f"its substitutions would produce more than {MAX_EXPANDED_CHARS:,} characters")
        self.chars = max(0, self.chars - other.spent)
        self.spent += other.spent
        for why in other.reached:
            self._reach(why)

    def notice(self, path: str) -> Problem:
        """The one VL904 notice for a file whose budget ran out (on its first line: the limit is the
        file's as a whole)."""
        why = "; ".join(self.reached)
        return Problem(
            "VL904",
            Span(path, 1, 1, 1, 1),
            f"vlint stopped expanding variables in this file: {why}. The values past that point are kept "
            "unresolved, so the settings they make are not checked",
            {"expansion_budget": MAX_EXPANDED_CHARS, "limits": list(self.reached)},
        )

    def _reach(self, why: str) -> None:
        if why not in self.reached:
            self.reached.append(why)


_CURRENT: ContextVar[ExpansionBudget | None] = ContextVar("vlint_expansion_budget", default=None)


def current() -> ExpansionBudget:
    """The budget of the file being read. Outside :func:`opened` (a source called on its own) a new
    one: then each caller that takes it is bounded on its own, and no notice is reported."""
    return _CURRENT.get() or ExpansionBudget()


@contextmanager
def opened() -> Iterator[ExpansionBudget]:
    """A new budget, current for the block: one file's extraction (the registry opens it)."""
    budget = ExpansionBudget()
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)
