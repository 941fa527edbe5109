"""The subcommands of ``vlint`` (one module each) and the rule pages ``vlint rule`` prints. Imports
vlint.fix, vlint.report, vlint.run and below."""

#: command name → (module, attribute): a command's module is imported only when it runs (or for
#: ``--help``), so ``vlint PATH`` does not pay for the explain/fix/size/schema commands at start-up
COMMANDS = {
    "check": ("vlint.commands.check", "check_cmd"),
    "explain": ("vlint.commands.explain", "explain_cmd"),
    "schema": ("vlint.commands.schema", "schema_cmd"),
    "rules": ("vlint.commands.rules", "rules_cmd"),
    "rule": ("vlint.commands.rules", "rule_cmd"),
    "fix": ("vlint.commands.fix", "fix_cmd"),
    "size": ("vlint.commands.size", "size_cmd"),
    "server": ("vlint.server.command", "server_cmd"),
    "models": ("vlint.commands.models", "models_cmd"),
    "upgrade": ("vlint.commands.upgrade", "upgrade_cmd"),
}
