"""vlint: the linter for vLLM deployments."""

__version__ = "0.1.0"
