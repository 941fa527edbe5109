"""Fixes: structured changes for memory findings (:mod:`.memory`; the change records every check builds
are :mod:`vlint.checks.changes`, the parser's own fixes :mod:`vlint.argspec.fixes`), the
span-based text editor (:mod:`.editor`) and the ``vlint fix`` run that applies and verifies them
(:mod:`.apply`)."""
