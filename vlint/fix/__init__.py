"""Fixes: structured changes for findings (:mod:`.changes`, :mod:`.argfix`, :mod:`.memory`), the
span-based text editor (:mod:`.editor`) and the ``vlint fix`` run that applies and verifies them
(:mod:`.apply`)."""
