"""Launches in scripts and process managers: shell (lexer, evaluator), Makefiles, justfiles,
Taskfiles, Procfiles, supervisord and systemd units. Imports vlint.sources' shared modules and below."""
