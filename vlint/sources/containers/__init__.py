"""Launches in container files: Dockerfiles, docker-compose (+ .env), image references. Imports
vlint.sources' shared modules and below."""
