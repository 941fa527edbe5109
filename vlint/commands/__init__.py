"""The subcommands of ``vlint`` (one module each)."""
