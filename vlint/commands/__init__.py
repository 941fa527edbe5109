"""The subcommands of ``vlint`` (one module each) and the rule pages ``vlint rule`` prints. Imports
vlint.fix, vlint.report, vlint.run and below."""
