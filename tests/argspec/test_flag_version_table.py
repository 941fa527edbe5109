"""Flag × version verdicts, end to end through the parser and the bundled schemas.

Each row: a launch word and, per bundled release, what vlint says (None = accepted). The expectations
come from the shared reference (vllm-behavior.md §2.4, removal per release from the wheels) and are
checked against the argument lists generated from each release's own parser.
"""

from __future__ import annotations

import pytest

from vlint.argspec.history import history
from vlint.argspec.parse import parse_invocation
from vlint.argspec.spec import bundled_versions, load_spec
from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.core.version import V, Version

S = Span("start.sh", 1, 1, 1, 2)


def verdict(version: Version, *words: str) -> str | None:
    inv = Invocation(
        source="t", program="vllm serve", span=S, args=[Token(w, S) for w in ("Qwen/Qwen2.5-7B-Instruct", *words)]
    )
    codes = sorted({i.code for i in parse_invocation(inv, load_spec(version)).issues if i.code != "VL009"})
    return codes[0] if codes else None


#: replaced by the first argparse choice the release has for the option (the choices vary by release)
CHOICE = "{choice}"

# (words, last release that accepts them, first release that accepts them); a flag removed later is
# reported as too new (VL003) before the release that added it
ROWS = [
    (("--swap-space", "4"), V("0.17.1"), None),  # gone in 0.18.0
    (("--num-scheduler-steps", "8"), V("0.10.0"), None),  # gone in 0.10.1
    (("--use-v2-block-manager",), V("0.9.2"), None),  # gone in 0.10.0
    (("--preemption-mode", "recompute"), V("0.10.2"), None),  # gone in 0.11.0
    (("--guided-decoding-backend", CHOICE), V("0.11.2"), None),  # gone in 0.12.0 (its choices vary)
    (("--task", "generate"), V("0.12.0"), None),  # gone in 0.13.0
    (("--speculative-model", "x"), V("0.8.2"), None),  # gone in 0.8.3
    (("--max-cudagraph-capture-size", "256"), None, V("0.11.1")),  # added 0.11.1
    (("--attention-backend", "FLASHINFER"), None, V("0.13.0")),  # added 0.13.0
    (("--performance-mode", "throughput"), None, V("0.17.0")),  # added 0.17.0
    (("--disable-prefix-caching",), None, V("0.33.0")),  # EnableDisableAction, 0.33.0
    (("--max-model-len", "8192"), None, None),  # always
]


@pytest.mark.parametrize(("words", "last", "first"), ROWS, ids=[r[0][0] for r in ROWS])
def test_verdicts(words: tuple[str, ...], last: Version | None, first: Version | None) -> None:
    oldest = bundled_versions()[0]
    added = history().present_in(words[0])[0]
    for v in bundled_versions():
        hit = load_spec(v).lookup(words[0])
        choice = str(hit[0].choices[0]) if hit is not None and hit[0].choices else "x"
        got = verdict(v, *(choice if w == CHOICE else w for w in words))
        if last is not None:
            want = "VL003" if v < added else None if v <= last else "VL002"
        elif first is not None:
            want = None if v >= first else ("VL003" if v >= oldest else "VL001")
        else:
            want = None
        assert got == want, f"{' '.join(words)} on vLLM {v}: got {got}, want {want}"


def test_bool_flag_value_accepted_only_by_old_releases() -> None:
    """`--enable-chunked-prefill=false` was a StoreBoolean in 0.6/0.7; a BooleanOptionalAction rejects it."""
    assert verdict(V("0.6.6.post1"), "--enable-chunked-prefill=false") is None
    assert verdict(V("0.19.1"), "--enable-chunked-prefill=false") == "VL004"


def test_block_size_choices_before_0_18() -> None:
    assert verdict(V("0.17.1"), "--block-size", "24") == "VL004"
    assert verdict(V("0.18.1"), "--block-size", "24") is None
