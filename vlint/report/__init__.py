"""Renderers: text (ruff-like, with code frames), JSON (versioned). Rules never format output."""
