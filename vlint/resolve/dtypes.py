"""The model dtype checks vLLM makes at startup that depend on the model type and the release.

* ``--dtype float16`` is refused for some model types: ``ValueError: The model type 'gemma3' does not
  support float16. Reason: Numerical instability. Please use bfloat16 or float32 instead.``
  (``_check_valid_dtype`` and ``_FLOAT16_NOT_SUPPORTED_MODELS``, ``vllm/config/model.py:2398-2420`` in
  0.33.0). The table below is read from every bundled release's source: the check is in 0.9.2 and
  not in 0.8.5.post1; ``gemma3_text`` joins in 0.10.2 (absent in 0.10.0); ``plamo2`` is listed up to
  0.25.1 and gone in 0.28.0. Releases between two bundled ones where the list changed are treated
  as not refusing (no finding rather than a false one).
* ``--dtype auto`` on a GPU without bfloat16 falls back to the first supported dtype from 0.9.0 (vLLM
  PR #17265, ``_resolve_auto_dtype``): float16, or float32 for a model type that refuses float16.

The model type is the top-level ``model_type`` of ``config.json`` (``config.model_type`` in vLLM):
``gemma3`` for Gemma-3 4B–27B, ``gemma3_text`` for the text-only 1B.
"""

from __future__ import annotations

from vlint.core.version import V, Version

#: model type → (first bundled release that refuses float16, last one that does or None)
_REFUSES_FLOAT16: dict[str, tuple[str, str | None]] = {
    "gemma2": ("0.9.2", None),
    "gemma3": ("0.9.2", None),
    "glm4": ("0.9.2", None),
    "plamo2": ("0.9.2", "0.25.1"),
    "gemma3_text": ("0.10.2", None),
}
#: model types whose float16 output is unreliable whatever the release (the advice of every fix)
UNSTABLE_IN_FLOAT16 = frozenset(_REFUSES_FLOAT16)
#: `--dtype auto` falls back from bfloat16 on pre-Ampere GPUs from this release (vLLM PR #17265)
AUTO_DTYPE_FALLBACK_SINCE = V("0.9.0")


def refuses_float16(model_type: str | None, version: Version) -> bool:
    """vLLM ``version`` stops with "does not support float16" for ``model_type``."""
    span = _REFUSES_FLOAT16.get(model_type or "")
    if span is None:
        return False
    since, last = span
    return version >= V(since) and (last is None or version <= V(last))


def float16_refusal(model_type: str) -> str:
    """vLLM's message."""
    return (
        f"ValueError: The model type '{model_type}' does not support float16. Reason: Numerical "
        "instability. Please use bfloat16 or float32 instead."
    )
