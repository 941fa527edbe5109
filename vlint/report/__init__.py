"""Renderers of a run's report: text (ruff-like, with code frames), JSON, SARIF, GitHub, GitLab, and
``explain``. Rules never format output. Imports vlint.run and below."""
