"""The rule engine: the catalog of rules (one YAML per rule), ``when:`` conditions, and running the
checks over deployments and files into findings. Imports vlint.checks and below."""
