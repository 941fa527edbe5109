"""Dynamo's own options of ``python -m dynamo.vllm`` (vlint/argspec/dynamo.py), as its releases define them."""

from __future__ import annotations

from vlint.argspec.dynamo import OWN_OPTIONS, own_option


def test_options_of_each_era() -> None:
    # v0.4.0 (one parser), v1.0.0 (DynamoVllmArgGroup), v1.6.1 (worker router flags, legacy benchmark flags)
    assert own_option("--migration-limit") == ("migration-limit", 1)
    assert own_option("--disaggregation-mode=prefill") == ("disaggregation-mode", 1)
    assert own_option("--router-mode") == ("router-mode", 1)
    assert own_option("--benchmark-prefill-kv-read-granularity") == ("benchmark-prefill-kv-read-granularity", 1)
    assert own_option("--connector") == ("connector", "*")
    assert own_option("--no-use-vllm-tokenizer") == ("no-use-vllm-tokenizer", 0)


def test_vllm_words_stay_vllm() -> None:
    assert own_option("--enforce-eager") is None  # both parsers define it (SHARED)
    assert own_option("--model") is None and "model" not in OWN_OPTIONS
    assert own_option("--tensor-parallel-size") is None
