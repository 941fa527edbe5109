"""Which files are linted, and with what settings: .vlint.toml / [tool.vlint] files and their layers,
globs, the walk of the paths given, the precedence of facts. Imports vlint.core and vlint.security."""
