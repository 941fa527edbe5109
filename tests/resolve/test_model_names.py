"""Model facts inferred from a model's name (vlint.resolve.model_names): a folder or re-upload named like a
catalog model, a quantized checkpoint of one (publisher suffix conventions), a quantized catalog record
standing for the model it quantizes — always low confidence, never a guess among several, and checked
against the weights real vLLM logs print."""

from __future__ import annotations

import pytest

from vlint.core.version import Version
from vlint.memory.weights import loaded_weights
from vlint.resolve import model_names
from vlint.resolve.catalog import catalog_record, resolve_catalog_id
from vlint.resolve.model_names import SUFFIXES, candidates, infer_arch, match
from vlint.resolve.model_sources import find_model

GIB = float(2**30)


@pytest.mark.parametrize(
    ("ref", "served", "base", "where"),
    [
        ("/models/Qwen3-8B", [], "Qwen/Qwen3-8B", "the folder name"),
        ("/models/llama-2-7b-hf", [], "meta-llama/Llama-2-7b-hf", "the folder name"),
        # ModelScope's cache writes "." as "___"
        (
            "/models/llm/Qwen/Qwen2___5-72B-Instruct-GPTQ-Int4",
            [],
            "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4",
            "the folder name",
        ),
        # a Hugging Face cache snapshot folder names its repository
        (
            "/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/" + "0" * 40,
            [],
            "Qwen/Qwen3-8B",
            "the folder name",
        ),
        # a re-upload under another organisation, an alias of a catalog record
        ("unsloth/Llama-3.2-3B-Instruct", [], "meta-llama/Llama-3.2-3B", "the model name"),
        # an unresolved model served under a catalog model's id
        ("", ["mistralai/Mistral-7B-Instruct-v0.1"], "mistralai/Mistral-7B-v0.1", "--served-model-name"),
        # no organisation (a Helm chart's `vllm serve {{ .Values.model.name }}`): a folder of that name
        ("Llama-3.2-1B", [], "meta-llama/Llama-3.2-1B", "the model name (no organisation: a local folder)"),
    ],
)
def test_names_that_stand_for_one_catalog_model(ref: str, served: list[str], base: str, where: str) -> None:
    m = match(ref, served)
    assert m is not None and m.base == base and m.where == where and m.suffix is None


@pytest.mark.parametrize(
    ("ref", "base", "template", "method"),
    [
        ("Qwen/Qwen2.5-Coder-7B-Instruct-AWQ", "Qwen/Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct-AWQ", "awq"),
        ("neuralmagic/gemma-2-9b-it-FP8", "google/gemma-2-9b-it", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", None),
        (
            "someone/Qwen3-8B-FP8-dynamic",
            "Qwen/Qwen3-8B",
            "neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic",
            None,
        ),
        (
            "amd/Llama-3.1-70B-Instruct-FP8-KV",
            "meta-llama/Llama-3.1-70B",
            "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8",
            None,
        ),
        (
            "./gemma-3-27b-it-W4A16",
            "google/gemma-3-27b-it",
            "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
            "gptq",
        ),
        ("x/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen/Qwen2.5-7B-Instruct", "TheBloke/Llama-2-13B-chat-GPTQ", "gptq"),
    ],
)
def test_a_quantized_checkpoint_of_a_catalog_model(ref: str, base: str, template: str, method: str | None) -> None:
    m = match(ref)
    assert m is not None and m.base == resolve_catalog_id(base) and m.suffix is not None
    assert m.suffix.template == template
    found = infer_arch(ref)
    assert found is not None
    arch, _ = found
    assert arch.quant is not None and arch.weight_bytes is None and arch.confidence == "low"
    if method is not None:
        assert arch.quant.method == method
    if ref.endswith("Int8"):
        assert arch.quant.bits == 8


def test_every_template_is_a_quantized_catalog_record() -> None:
    for s in SUFFIXES:
        rec = catalog_record(s.template)
        assert rec is not None, s.template
        assert isinstance(rec["config"].get("quantization_config"), dict), s.template


def test_a_quantized_record_stands_for_the_model_it_quantizes() -> None:
    """Laguna-S-2.1 itself is not in the catalog; poolside's FP8 checkpoint of it is, with its shapes."""
    assert resolve_catalog_id("poolside/Laguna-S-2.1") is None
    m = match("poolside/Laguna-S-2.1")
    assert m is not None and m.dequantized and m.base == "poolside/Laguna-S-2.1-FP8" and m.suffix is None
    arch, _ = infer_arch("poolside/Laguna-S-2.1") or (None, None)
    assert arch is not None and arch.quant is None and arch.weight_bytes is None
    # a model with a record of its own is taken as itself (Qwen3.6-27B: since issue 29, from the same NVFP4 record)
    assert resolve_catalog_id("Qwen/Qwen3.6-27B") == "Qwen/Qwen3.6-27B"
    awq = infer_arch("cyankiwi/Qwen3.6-27B-AWQ-INT4")
    assert awq is not None and awq[0].quant is not None and awq[0].quant.method == "awq"
    # a trailing container word and quantization-aware training keep the model's name
    qat = match("google/gemma-4-31B-it-qat-w4a16-ct")
    assert qat is not None and qat.base == "google/gemma-4-31B-it" and not qat.dequantized


@pytest.mark.parametrize(
    ("ref", "base", "how"),
    [
        # a chat/instruct variant of a base model in the catalog (same shapes)
        ("mistralai/Mistral-Nemo-Instruct-2407", "mistralai/Mistral-Nemo-Base-2407", "as a chat/instruct variant"),
        ("meta-llama/Llama-3.2-11B-Vision-Instruct", "meta-llama/Llama-3.2-11B-Vision", "as a chat/instruct variant"),
        # a fine-tune named after its base: the longest catalog name it holds, spelled out where it can be
        ("NousResearch/Hermes-3-Llama-3.1-8B", "meta-llama/Llama-3.1-8B", "which holds the name Llama-3.1-8B"),
        (
            "mlabonne/Qwen2.5-7B-Instruct-abliterated",
            "Qwen/Qwen2.5-7B-Instruct",
            "which holds the name Qwen2.5-7B-Instruct",
        ),
        (
            "x/Qwen2.5-7B-Instruct-1M-custom",
            "Qwen/Qwen2.5-7B-Instruct-1M",
            "which holds the name Qwen2.5-7B-Instruct-1M",
        ),
    ],
)
def test_variants_and_fine_tunes_named_after_a_catalog_model(ref: str, base: str, how: str) -> None:
    m = match(ref)
    assert m is not None and m.base == base and m.where.endswith(how), m


@pytest.mark.parametrize(
    "ref",
    [
        "/models",
        "/mnt/models/",
        "/data/",
        "/workspace/tuning/pretrained_models/exported_full_model",
        "x",
        "$MODEL",
        # a base name without a size word is too generic to be found inside another name
        "someone/my-phi-4-tune",
        # names that hold no catalog name whole
        "allenai/Llama-3.1-Tulu-3-8B",
        # a bare word that is an unresolved variable, or no model name at all
        "$MODEL",
        "${MODEL_NAME}",
        "model",
        "Llama-3.1-8B class (inferred from the log)",
        "cognitivecomputations/dolphin-2.9-llama3-8b",
        # quantized or converted in a way no suffix convention sizes: never taken for the unquantized model
        "qwen3.6-27b-autoround-int4",
        "bartowski/Qwen2.5-7B-Instruct-GGUF",
        "x/Qwen3-8B-Q4_K_M",
        "turboderp/Llama-3.1-8B-Instruct-exl2",
        "unsloth/Qwen3-8B-unsloth-bnb-4bit",
        "mgoin/phi-2-super-marlin",
    ],
)
def test_no_name_no_inference(ref: str) -> None:
    assert match(ref) is None


def test_never_a_guess_among_several(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two catalog records of one name with different shapes: no answer; the launch's own organisation
    picks one."""
    monkeypatch.setattr(model_names, "_by_name", lambda: {"twin-7b": ("a/twin-7b", "b/twin-7b")})
    shapes = {"a/twin-7b": "one", "b/twin-7b": "other"}
    monkeypatch.setattr(model_names, "_shape", lambda mid: shapes[mid])
    assert match("/models/twin-7b") is None
    m = match("b/twin-7b")
    assert m is not None and m.base == "b/twin-7b"


def test_find_model_says_it_inferred(tmp_path) -> None:
    from vlint.security.lint_root import LintRoot

    r = find_model("/models/Qwen3-32B", root=LintRoot(tmp_path))
    assert r.origin == "name" and r.arch is not None
    assert "outside the lint root" in r.note and r.via.startswith("Qwen3-32B taken for Qwen/Qwen3-32B")
    assert r.arch.inferred_from_name == r.via and r.arch.confidence == "low"
    # a catalog id is never an inference, a storage location is one
    assert find_model("Qwen/Qwen3-8B").origin == "catalog"
    s3 = find_model("", locations=["s3://bucket/models/meta-llama--Meta-Llama-3.1-8B-Instruct"])
    assert s3.origin == "name" and "the storage location" in s3.via


def test_a_modelcar_image_names_the_model_by_its_tag() -> None:
    """KServe modelcars: oci://registry/org/modelcar-catalog:llama-3.2-1b-instruct serves that model."""
    oci = "oci://quay.io/redhat-ai-services/modelcar-catalog:llama-3.2-1b-instruct"
    assert [c[0] for c in candidates("/mnt/models", [], [oci])][:3] == [
        "models",
        "llama-3.2-1b-instruct",
        "modelcar-catalog",
    ]
    m = find_model("/mnt/models", locations=[oci])
    assert m.origin == "name" and m.arch is not None and "llama-3.2-1b-instruct" in m.via.lower()
    # a tag that names no model infers nothing
    assert find_model("/mnt/models", locations=["oci://quay.io/org/my-image:v1.2"]).arch is None


def test_candidates_in_order() -> None:
    assert [c[0] for c in candidates("/m/Qwen3-8B", ["svc/qwen3-8b-chat"], ["s3://b/x/Qwen3-4B"])] == [
        "Qwen3-8B",
        "Qwen3-4B",
        "qwen3-8b-chat",
    ]
    # template placeholders in a location are not names
    assert candidates("", (), ["s3://${bucket}/models/${NAME}"]) == []


#: real "Model loading took X GiB" of quantized checkpoints (tests/memory/test_quant_logs.py cites each
#: log): the name-inferred sizes of the same checkpoints, with their own catalog records hidden
LOGGED = (
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "0.19.0", "float16", 1, 8.49),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "0.19.0", "float16", 1, 5.38),
    ("RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8", "0.19.0", "bfloat16", 1, 8.14),
    ("RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic", "0.19.0", "bfloat16", 1, 8.14),
    ("redhatai/Llama-3.3-70B-Instruct-quantized.w8a8", "0.19.0", "bfloat16", 2, 33.88),
    ("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8", "0.7.1", "bfloat16", 1, 67.7229),
)
#: the conventions leave out per-checkpoint details (which layers a publisher kept unquantized): the
#: inferred size is within 3 % of the logged one on these, which is why inferred facts are low confidence
INFERRED_TOLERANCE = 0.03


@pytest.mark.parametrize(("model", "version", "dtype", "tp", "logged"), LOGGED, ids=[c[0] for c in LOGGED])
def test_inferred_quantized_sizes_against_real_logs(
    monkeypatch: pytest.MonkeyPatch, model: str, version: str, dtype: str, tp: int, logged: float
) -> None:
    own = resolve_catalog_id(model)
    assert own is not None
    table = {k: tuple(i for i in v if i != own) for k, v in model_names._by_name().items()}
    monkeypatch.setattr(model_names, "_by_name", lambda: {k: v for k, v in table.items() if v})
    found = infer_arch(model)
    assert found is not None, model
    arch, how = found
    assert how.suffix is not None and how.base != own
    w = loaded_weights(
        arch, serving_dtype=dtype, version=Version.parse(version), gpu=None, tp=tp, parts=[arch.num_layers]
    )
    got = w.per_stage[0] / GIB
    assert abs(got - logged) / logged < INFERRED_TOLERANCE, f"{model}: inferred {got:.2f} GiB vs {logged} GiB logged"


def test_a_non_nvidia_nvfp4_name_infers_without_crashing() -> None:
    """The generic NVFP4 suffix's template override (``ignore``) is a cache key: it must be hashable
    (poolside/Laguna-S-2.1-NVFP4, harvest record h050, raised TypeError: unhashable type 'list')."""
    found = infer_arch("someone/Qwen3-8B-NVFP4")
    assert found is not None
    arch, how = found
    assert how.suffix is not None and arch.quant is not None and arch.quant.ignore == ("lm_head",)


def test_the_kv_cache_scheme_comes_with_the_name_only_where_the_convention_has_one() -> None:
    """An NVFP4 checkpoint of NVIDIA's comes with its FP8 KV cache (the convention); another publisher's
    ``-NVFP4`` names the weights' format only: the template's KV-cache scheme is the template's choice, so
    the KV cache stays the model dtype (RedHatAI/gemma-4-26B-A4B-it-NVFP4, harvest record h219: 3,912,140
    tokens logged with --kv-cache-dtype auto; an FP8 cache taken from nvidia/Gemma-4-31B-IT-NVFP4 made it
    8.0 M)."""
    from vlint.resolve.model_arch import checkpoint_kv_cache_dtype

    other, _ = infer_arch("RedHatAI/gemma-4-26B-A4B-it-NVFP4") or (None, None)
    assert other is not None and other.quant is not None and other.quant.method
    assert checkpoint_kv_cache_dtype(other, Version.parse("0.25.1")) is None
    nvidia, _ = infer_arch("nvidia/Qwen3-14B-NVFP4") or (None, None)
    assert nvidia is not None and checkpoint_kv_cache_dtype(nvidia, Version.parse("0.25.1")) == "fp8"  # must not change
