"""Facts about a launch: model facts (local files, the HF cache, the bundled catalog, the hub, names),
the defaults each release fills, dtypes, quantization, parallel layouts. Imports vlint.sources and below.
"""
