"""Finding launches in files: one module per format (scripts, Kubernetes, containers, Python, CI, …),
their shared helpers, and rendering with kubectl/helm. Imports vlint.hardware, vlint.argspec and below.
"""
