"""Writing to files: the span-based text editor, ``vlint fix`` (apply and verify), ``vlint size``.
Imports vlint.report, vlint.run and below.

The change records every check builds are :mod:`vlint.checks.changes` (memory fixes:
:mod:`vlint.checks.memory_fixes`), the parser's own fixes :mod:`vlint.argspec.fixes`; here are the
span-based text editor (:mod:`.editor`), the ``vlint fix`` run that applies and verifies them
(:mod:`.apply`) and ``vlint size`` (:mod:`.sizing`)."""
