"""Launches in Kubernetes: workloads and custom resources (KServe, KubeAI, KAITO, LeaderWorkerSet…),
the Helm values of the vLLM charts vlint knows. Imports vlint.sources' shared modules and below."""
