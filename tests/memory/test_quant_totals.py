"""Quantized weight layouts against real checkpoint sizes.

Every bundled-catalog record of a quantized checkpoint whose weight size was read from a published
file (a ``model.safetensors.index.json`` ``metadata.total_size``, or the Git LFS pointer sizes of its
safetensors files, which add each file's header of a few KB) is sized from its
``quantization_config`` alone and compared with that total. Formats without such a record are
skipped, saying so.
"""

from __future__ import annotations

import pytest

from vlint.core.record import replace
from vlint.resolve.catalog import catalog_ids, lookup_catalog
from vlint.resolve.weight_sizes import weight_layout

FORMATS = ("awq", "gptq", "fp8", "compressed-tensors", "modelopt", "modelopt_fp4", "mxfp4", "bitsandbytes")
#: layouts reproduce published totals within this (norm/bias tensors, tied or padded vocabularies)
TOLERANCE = 0.02
#: catalog records whose layout is known not to reproduce the published total yet (asserted to still
#: differ, so a fix shows; remove the entry then)
KNOWN_GAPS = {
    "Qwen/Qwen-VL-Chat-Int4": "the Qwen-VL visual encoder (fp16, outside the GPTQ layers) is not in the layout",
    # 2.6 % larger than the AutoGPTQ layout that reproduces TheBloke's later GPTQ files to 0.02 %: an
    # early GPTQ-for-LLaMa file (wizard-mega-13B-GPTQ-4bit-128g.no-act.order.safetensors); the extra
    # 199.8 MB is about two bytes per group scale. Its tensor dtypes were not checked (no header seen).
    "TheBloke/wizard-mega-13B-GPTQ": "early GPTQ-for-LLaMa file, 2.6 % more than the AutoGPTQ layout",
    # GPTBigCode: the file holds the learned position embedding wpe (n_positions x hidden, 100.7 MB) and
    # an lm_head copy (604 MB) although the config ties it; neither is in the layout
    "TheBloke/WizardCoder-15B-1.0-GPTQ": "wpe and a stored tied lm_head are not in the GPTBigCode layout",
}


def _real_total(source: str | None) -> bool:
    s = (source or "").lower()
    published = "total_size" in s or s.startswith("git lfs pointer size")
    return published and not s.startswith("derived") and "approx" not in s


def _records() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {f: [] for f in FORMATS}
    for name in catalog_ids():
        arch = lookup_catalog(name)
        if arch is None or arch.quant is None or not arch.weight_bytes:
            continue
        if _real_total(arch.weight_bytes_source):
            out.setdefault(arch.quant.method, []).append(name)
    return out


RECORDS = _records()


@pytest.mark.parametrize("fmt", FORMATS)
def test_layout_matches_published_totals(fmt: str) -> None:
    names = RECORDS.get(fmt) or []
    if not names:
        pytest.skip(f"no bundled {fmt} checkpoint with a published safetensors total_size in the catalog")
    for name in names:
        arch = lookup_catalog(name)
        assert arch is not None and arch.weight_bytes
        computed = weight_layout(replace(arch, weight_bytes=None)).total
        if name in KNOWN_GAPS:
            assert computed != pytest.approx(arch.weight_bytes, rel=TOLERANCE), f"{name}: fixed, drop KNOWN_GAPS"
            continue
        assert computed == pytest.approx(arch.weight_bytes, rel=TOLERANCE), name
