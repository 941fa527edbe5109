"""vLLM's arguments per release: the bundled schemas, parsing an argv exactly as that release
does, ``--config`` expansion, the parser's own fixes. Imports vlint.config, vlint.security, vlint.core.
"""
