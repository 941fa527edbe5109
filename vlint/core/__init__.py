"""The vocabulary every layer shares: spans, findings, invocations (argv + env + spans, the unresolved
marker), vLLM versions, where bundled data lives, text escaping. Imports nothing else of vlint."""
