"""``vlint server``: the Language Server Protocol server for editors (optional extra ``vlint[server]``).
Imports vlint.commands and below.

``vlint server``: a Language Server Protocol server for editors (optional extra ``vlint[server]``).

:mod:`vlint.server.session` lints open buffers through the same pipeline as ``vlint check`` and
answers code actions and hovers; :mod:`vlint.server.app` speaks LSP over stdio with pygls. Only
:mod:`vlint.server.command` is imported by the CLI; it imports pygls when the server starts.
"""
