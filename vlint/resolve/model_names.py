"""Model facts inferred from the model's *name*, when no place holds its own ``config.json``.

Real launches often name a model only by a folder (``/models/Qwen3-8B``, a ModelScope cache
``/models/Qwen/Qwen2___5-72B-Instruct-GPTQ-Int4``), by a re-upload under another organisation
(``unsloth/Llama-3.2-3B-Instruct``) or by a quantized checkpoint of a known model
(``Qwen/Qwen2.5-Coder-7B-Instruct-AWQ``, ``neuralmagic/gemma-2-9b-it-FP8``). Where nothing the user
gave and nothing bundled answers, this module matches the name against the bundled catalog:

1. the name (the folder's own name, the part after ``org/``) equal — ignoring case — to the name of
   exactly one catalog model (or of several records with the same shapes): that model's facts;
2. the name minus a quantization suffix a publisher's naming convention attaches (``-AWQ``,
   ``-GPTQ-Int4``, ``-FP8-dynamic``, ``-quantized.w4a16`` …) equal to one catalog model's: that
   model's shapes, with the ``quantization_config`` of a real catalog checkpoint published in that
   format (:data:`SUFFIXES`, each naming the checkpoint whose config is the convention);
3. a quantized catalog checkpoint standing for the model it quantizes (its shapes, unquantized);
4. a chat/instruct variant of a catalog model (:data:`_VARIANT_WORDS` aside, the same name);
5. a fine-tune whose name holds a catalog model's name whole, with a size word (the longest).

A name that says it is quantized in a way no convention sizes (:data:`_UNSIZED_QUANT`) is never taken
for the unquantized model, and several catalog models of different shapes never give an answer.

What comes back is an inference and says so everywhere: the facts carry confidence ``low``, the
launch's model origin is ``name``, every error that rests on them is reported as a warning
(:meth:`vlint.engine.runner.Engine.run_deployment`), and the report names the catalog model it was taken for
and how to confirm it (``[tool.vlint] models``). The quantization method itself is never asserted to
vLLM-facing checks (``--quantization`` mismatches, GPU capability): only the weight sizes use it.
Pure: bundled data only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record, replace
from vlint.core.typing_names import Any
from vlint.resolve.model_arch import ModelArch

#: organisations whose FP8 checkpoints follow a convention of their own (see :data:`SUFFIXES`)
_NVIDIA = ("nvidia",)
_REDHAT = ("neuralmagic", "redhatai", "neuralmagic-ent")


@record(frozen=True, slots=True)
class QuantSuffix:
    """A quantization suffix of a checkpoint name and the convention it stands for."""

    #: matched at the end of the lower-cased name, after ``-``, ``_`` or ``.``
    pattern: str
    #: how the report names the format
    label: str
    #: the catalog checkpoint whose ``quantization_config`` is the convention
    template: str
    #: organisations this entry is for (empty: any; entries are tried in order)
    orgs: tuple[str, ...] = ()
    #: keys replaced in the template's quantization_config, with the name as the reason (lists as
    #: tuples: the entry is a cache key)
    overrides: tuple[tuple[str, Any], ...] = ()
    #: the convention includes the template's KV-cache scheme (NVIDIA's NVFP4 checkpoints ship an FP8 KV
    #: cache, an ``-fp8-kv`` name says so); otherwise the KV-cache scheme is the template's own choice,
    #: not the format's, and is left out: the KV cache is then the model dtype, as with no scheme
    kv_cache: bool = False


#: publisher naming conventions, most specific first
SUFFIXES: tuple[QuantSuffix, ...] = (
    QuantSuffix(r"awq(?:[-_.](?:int4|4bit|w4a16|gemm))?", "AWQ 4-bit, groups of 128", "Qwen/Qwen2.5-7B-Instruct-AWQ"),
    QuantSuffix(
        r"gptq[-_.]?(?:int8|8bit)",
        "GPTQ 8-bit, groups of 128",
        "TheBloke/Llama-2-13B-chat-GPTQ",
        overrides=(("bits", 8),),
    ),
    QuantSuffix(r"gptq(?:[-_.]?(?:int4|4bit))?", "GPTQ 4-bit, groups of 128", "TheBloke/Llama-2-13B-chat-GPTQ"),
    QuantSuffix(
        r"fp8[-_.]dynamic",
        "FP8 per-channel weights (llm-compressor FP8_DYNAMIC)",
        "neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic",
    ),
    QuantSuffix(r"fp8[-_.]kv", "FP8 per-tensor weights", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", kv_cache=True),
    QuantSuffix(
        r"fp8", "FP8 per-tensor weights, FP8 KV cache (NVIDIA ModelOpt)", "nvidia/Llama-3.1-70B-Instruct-FP8", _NVIDIA
    ),
    QuantSuffix(r"fp8", "FP8 per-tensor weights", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", _REDHAT),
    QuantSuffix(r"fp8", "FP8 weights in 128 × 128 blocks", "Qwen/Qwen3-32B-FP8"),
    QuantSuffix(
        r"(?:quantized[-_.])?w4a16",
        "INT4 weights, groups of 128 (w4a16)",
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
    ),
    QuantSuffix(
        r"(?:quantized[-_.])?w8a(?:8|16)",
        "INT8 per-channel weights (w8a8 / w8a16)",
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8",
    ),
    QuantSuffix(
        r"nvfp4|fp4",
        "NVFP4, groups of 16, FP8 KV cache (NVIDIA ModelOpt)",
        "nvidia/Qwen3-32B-NVFP4",
        _NVIDIA,
        kv_cache=True,
    ),
    QuantSuffix(
        r"nvfp4", "NVFP4 weights, groups of 16", "nvidia/Gemma-4-31B-IT-NVFP4", overrides=(("ignore", ("lm_head",)),)
    ),
)

#: a word after the quantization suffix that names only the container format
#: (``gemma-4-31B-it-qat-w4a16-ct``: compressed-tensors)
_CONTAINER = lazy_compile(r"(?<=[a-z0-9])[-_.](?:ct|hf)$")
#: quantization-aware training (``-qat-``) trains the same shapes: the base is the name before it
_QAT = lazy_compile(r"[-_.]qat$")


@record(frozen=True, slots=True)
class NameMatch:
    """The catalog model a name was taken for."""

    #: the catalog id whose shapes are used
    base: str
    #: the name that matched (the folder's, the served name…), as written
    name: str
    #: where that name was read (``the folder name``, ``--served-model-name``, ``the model name``)
    where: str
    #: the quantization convention applied (None: the base's own facts)
    suffix: QuantSuffix | None = None
    #: ``base`` is a quantized checkpoint of the model the name stands for: its shapes, unquantized
    dequantized: bool = False

    @property
    def description(self) -> str:
        """``/models/Qwen3-8B → Qwen/Qwen3-8B (inferred from the folder name)``."""
        base = f"the model {self.base} quantizes (its shapes, unquantized)" if self.dequantized else self.base
        quant = f" + {self.suffix.label} as {self.suffix.template} publishes it" if self.suffix else ""
        return f"{self.name} taken for {base}{quant} (inferred from {self.where})"


# ------------------------------------------------------------------------------------------
# the names a launch gives its model


_HASH = lazy_compile(r"^[0-9a-f]{40}$")


def _path_names(ref: str) -> list[str]:
    """Model names a path carries: its own folder name; for a Hugging Face cache folder
    (``models--org--name[/snapshots/<rev>]``) or a ``org--name`` folder, the name after ``--``;
    ModelScope's ``___`` for ``.`` (``Qwen2___5-7B``) undone."""
    parts = [p for p in ref.replace("\\", "/").split("/") if p and p not in (".", "..", "~")]
    if len(parts) >= 2 and parts[-2] == "snapshots" and _HASH.match(parts[-1]):
        parts = parts[:-2]
    if not parts:
        return []
    last = parts[-1]
    if last.startswith("models--") and last.count("--") >= 2:
        last = last.split("--", 2)[2]
    elif last.count("--") == 1:
        last = last.split("--", 1)[1]
    names = [last]
    if "___" in last:
        names.insert(0, last.replace("___", "."))
    return names


#: a model name without an organisation that can be a folder's name (no variable, space or markup)
_FOLDER_WORD = lazy_compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _looks_like_path(ref: str) -> bool:
    return ref.startswith(("/", "./", "../", "~")) or ref.count("/") >= 2 or "\\" in ref


def candidates(ref: str, served: Sequence[str] = (), locations: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """(name, organisation or "", where it was read) to try, in order: the model's own name, the
    places its files are downloaded from (a KServe ``storageUri``), then each ``--served-model-name``."""
    out: list[tuple[str, str, str]] = []
    if ref:
        if _looks_like_path(ref):
            out += [(n, "", "the folder name") for n in _path_names(ref)]
        elif ref.count("/") == 1:
            org, name = ref.split("/", 1)
            out.append((name, org, "the model name"))
        elif _FOLDER_WORD.fullmatch(ref):
            # no organisation: vLLM takes it as a folder of the working directory (else a legacy hub id)
            out.append((ref, "", "the model name (no organisation: a local folder)"))
    for loc in locations:
        path = loc.split("://", 1)[-1]
        names = _path_names(path)[:1]
        if loc.startswith("oci://") and names and ":" in names[0]:
            # a KServe modelcar image (oci://quay.io/org/modelcar-catalog:llama-3.2-1b-instruct): the tag
            # names the model, the repository often only the catalog
            repo, _, tag = names[0].rpartition(":")
            names = [tag, repo]
        out += [(n, "", f"the storage location {loc}") for n in names if "$" not in n and "{" not in n]
    for s in served:
        if not isinstance(s, str) or not s or _looks_like_path(s):
            continue
        org, _, name = s.rpartition("/")
        out.append((name, org, "--served-model-name"))
    seen: set[str] = set()
    unique = []
    for n, org, where in out:
        if n.lower() not in seen and len(n) >= 3:
            seen.add(n.lower())
            unique.append((n, org, where))
    return unique


# ------------------------------------------------------------------------------------------
# matching against the catalog


@cache
def _by_name() -> dict[str, tuple[str, ...]]:
    """Lower-cased model name (after ``org/``) → the catalog ids that name (ids and aliases)."""
    from vlint.resolve.catalog import _index

    table: dict[str, set[str]] = {}
    for key, pos in _index().items():
        name = key.rsplit("/", 1)[-1]
        table.setdefault(name, set()).add(str(pos[0]))
    return {k: tuple(sorted(v)) for k, v in table.items()}


_SHAPE_KEYS = (
    "model_type",
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "intermediate_size",
    "vocab_size",
    "quantization_config",
)


def _shape(mid: str, quantization: bool = True) -> str | None:
    from vlint.resolve.catalog import catalog_record

    rec = catalog_record(mid)
    if rec is None:
        return None
    cfg = rec.get("config") or {}
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    keys = _SHAPE_KEYS if quantization else _SHAPE_KEYS[:-1]
    return json.dumps([cfg.get(k, text.get(k)) for k in keys], sort_keys=True, default=str)


@cache
def _by_stem() -> dict[str, tuple[str, ...]]:
    """Lower-cased name of the model a quantized catalog checkpoint was made from (its name minus the
    quantization suffix: ``qwen3.6-27b`` for ``nvidia/Qwen3.6-27B-NVFP4``) → those checkpoints. A
    quantized checkpoint keeps its model's shapes, so it tells them when the model itself is not in
    the catalog."""
    from vlint.resolve.catalog import _index

    table: dict[str, set[str]] = {}
    for key, pos in _index().items():
        org, _, name = key.rpartition("/")
        cut = _suffix_of(name, org)
        if cut is not None:
            table.setdefault(cut[0], set()).add(str(pos[0]))
    return {k: tuple(sorted(v)) for k, v in table.items()}


def _one_model(name: str, org: str, table: dict[str, tuple[str, ...]] | None = None) -> str | None:
    """The catalog id a bare name stands for: one record, or several of the same shapes (the same
    model under several organisations), preferring the launch's own organisation."""
    ids = (table if table is not None else _by_name()).get(name.lower())
    if not ids:
        return None
    if len(ids) == 1:
        return ids[0]
    same_org = [i for i in ids if i.split("/", 1)[0].lower() == org.lower()] if org else []
    if len(same_org) == 1:
        return same_org[0]
    shapes = {_shape(i) for i in ids}
    return ids[0] if len(shapes) == 1 and None not in shapes else None


def _suffix_of(name: str, org: str) -> tuple[str, QuantSuffix] | None:
    """(the name without its quantization suffix, the convention) when the name ends in one."""
    low = name.lower()
    tail = _CONTAINER.search(low)
    if tail is not None:
        low = low[: tail.start()]
    org_low = org.lower()
    for s, rx in _suffix_patterns():
        if s.orgs and org_low not in s.orgs:
            continue
        m = rx.search(low)
        if m is not None and m.start() > 0:
            return _QAT.sub("", low[: m.start()]), s
    return None


@cache
def _suffix_patterns() -> tuple[tuple[QuantSuffix, re.Pattern[str]], ...]:
    """Each suffix convention with its pattern at the end of a name, compiled once."""
    return tuple((s, re.compile(rf"[-_.]{s.pattern}$")) for s in SUFFIXES)


#: words that name a variant of the same weights' shapes: a chat/instruct fine-tune of a base model keeps
#: its architecture (``Mistral-Nemo-Instruct-2407`` is ``Mistral-Nemo-Base-2407`` in shape)
_VARIANT_WORDS = frozenset({"instruct", "it", "chat", "base", "hf", "pt"})
#: a parameter-count word (``8b``, ``0.5b``, ``8x7b``, ``a3b``, ``e4b``, ``135m``): a base name without
#: one is too generic to be found inside another name
_SIZE_WORD = lazy_compile(r"^(?:\d+x)?[ae]?\d+(?:\.\d+)?[bm]$")


def _words(name: str) -> tuple[str, ...]:
    return tuple(w for w in re.split(r"[-_\s]+", name.lower()) if w)


def _variant_key(name: str) -> tuple[str, ...]:
    return tuple(w for w in _words(name) if w not in _VARIANT_WORDS)


@cache
def _entries() -> tuple[tuple[str, str, tuple[str, ...], bool], ...]:
    """Per catalog id and alias: (id, the model name it stands for, that name's variant key, whether the
    record's own name carries a quantization suffix)."""
    from vlint.resolve.catalog import _index

    out = []
    for key, pos in _index().items():
        org, _, name = key.rpartition("/")
        cut = _suffix_of(name, org)
        stem = cut[0] if cut is not None else name
        out.append((str(pos[0]), stem, _variant_key(stem), cut is not None))
    return tuple(out)


@cache
def _by_variant() -> dict[tuple[str, ...], tuple[str, ...]]:
    table: dict[tuple[str, ...], set[str]] = {}
    for mid, _, key, _ in _entries():
        table.setdefault(key, set()).add(mid)
    return {k: tuple(sorted(v)) for k, v in table.items()}


@cache
def _quantized_ids() -> frozenset[str]:
    return frozenset(e[0] for e in _entries() if e[3])


def _quantized_name(mid: str) -> bool:
    return mid in _quantized_ids()


@cache
def _sized_by_first_word() -> dict[str, tuple[int, ...]]:
    """The entries :func:`_contained` may find inside a name (two words or more, one a size word), by
    the first word of their variant key: a name holds one only if it holds that word."""
    table: dict[str, list[int]] = {}
    for i, (_, _, base, _) in enumerate(_entries()):
        if len(base) >= 2 and any(_SIZE_WORD.match(w) for w in base):
            table.setdefault(base[0], []).append(i)
    return {w: tuple(v) for w, v in table.items()}


def _unique(ids: Sequence[str], org: str) -> str | None:
    """One record among those a variant or a contained name points to: records named as the model
    itself before quantized checkpoints of it, the launch's organisation first, else all of one shape
    (quantization aside: a quantized checkpoint only stands for the shapes)."""
    plain = sorted({i for i in ids if not _quantized_name(i)})
    pool = plain or sorted(set(ids))
    if len(pool) <= 1:
        return pool[0] if pool else None
    same_org = [i for i in pool if i.split("/", 1)[0].lower() == org.lower()] if org else []
    if len(same_org) == 1:
        return same_org[0]
    shapes = {_shape(i, quantization=bool(plain)) for i in pool}
    return pool[0] if len(shapes) == 1 and None not in shapes else None


def _holds(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    n = len(part)
    return any(words[i : i + n] == part for i in range(len(words) - n + 1))


def _spelled(name: str, words: tuple[str, ...]) -> str:
    """The part of ``name`` (as written) that spells ``words``, variant words allowed between them."""
    gap = r"[-_\s]+(?:(?:" + "|".join(sorted(_VARIANT_WORDS)) + r")[-_\s]+)*"
    m = re.search(gap.join(re.escape(w) for w in words), name, re.IGNORECASE)
    return m.group(0) if m else "-".join(words)


def _contained(key: tuple[str, ...], org: str, words: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(catalog id, its name) of the longest catalog model name found whole inside ``key`` (a fine-tune
    named after its base: ``Hermes-3-Llama-3.1-8B`` holds ``Llama-3.1-8B``); the base name must carry
    a size word and leave something around it."""
    best: list[tuple[str, str]] = []
    best_len = 0
    entries, by_first = _entries(), _sized_by_first_word()
    for i in sorted({i for w in set(key) for i in by_first.get(w, ())}):  # in catalog order
        mid, stem, base, _ = entries[i]
        n = len(base)
        if n >= len(key) or n < best_len:
            continue
        if _holds(key, base):
            if n > best_len:
                best, best_len = [], n
            best.append((mid, stem))
    spelled_key = max((_variant_key(st) for _, st in best), key=len, default=())
    if not best:
        return None
    # the record whose own words (instruct, chat…) the name spells out, when there is one
    spelled = [(m, st) for m, st in best if _holds(words, _words(st))]
    if spelled:
        most = max(len(_words(st)) for _, st in spelled)
        best = [(m, st) for m, st in spelled if len(_words(st)) == most]
    mid = _unique([m for m, _ in best], org)
    if mid is None:
        return None
    stem = next(st for m, st in best if m == mid)
    return mid, stem if _holds(words, _words(stem)) else "-".join(spelled_key)


#: a word that says the weights are quantized or converted in a way no suffix convention above sizes
#: (``-int4``, ``-autoround``, ``-marlin``, ``-GGUF``, ``-Q4_K_M``, ``-exl2``, ``-4bit`` …): such a name
#: is never taken for its unquantized model
_UNSIZED_QUANT = re.compile(
    r"(?:^|[-_.])(?:int[2-8]|[2-8]bit|w[2-8]a(?:8|16)|awq|gptq|fp[48]|nvfp4|mxfp4|bnb|gguf|ggml|exl2|hqq|"
    r"autoround|marlin|quark|q[2-8](?:_[a-z0-9]+)*|iq[1-4](?:_[a-z0-9]+)*|[2-8]bpw)(?=$|[-_.])",
    re.IGNORECASE,
)


def match(ref: str, served: Sequence[str] = (), locations: Sequence[str] = ()) -> NameMatch | None:
    """The catalog model the launch's model name stands for, or None (never a guess among several)."""
    for name, org, where in candidates(ref, served, locations):
        base = _one_model(name, org)
        if base is not None:
            return NameMatch(base, name, where)
        cut = _suffix_of(name, org)
        stem, suffix = cut if cut is not None else (name, None)
        if _UNSIZED_QUANT.search(stem):
            continue  # quantized in a way vlint cannot size from the name
        if suffix is not None:
            base = _one_model(stem, org)
            if base is not None:
                return NameMatch(base, name, where, suffix)
        base = _one_model(stem, org, _by_stem())
        if base is not None:
            return NameMatch(base, name, where, suffix, dequantized=True)
        key = _variant_key(stem)
        base = _unique(_by_variant().get(key, ()), org)
        if base is not None:
            return NameMatch(base, name, f"{where}, as a chat/instruct variant", suffix, _quantized_name(base))
        inside = _contained(key, org, _words(stem))
        if inside is not None:
            base, found = inside
            how = f"{where}, which holds the name {_spelled(stem, _words(found))}"
            return NameMatch(base, name, how, suffix, _quantized_name(base))
    return None


@cache
def _template_quant(suffix: QuantSuffix) -> dict[str, Any] | None:
    from vlint.resolve.catalog import catalog_record

    rec = catalog_record(suffix.template)
    q = (rec or {}).get("config", {}).get("quantization_config")
    if not isinstance(q, dict):
        return None
    q = json.loads(json.dumps(q))
    if not suffix.kv_cache:
        for holder in (q, q.get("quantization")):
            if isinstance(holder, dict):
                holder.pop("kv_cache_scheme", None)
                holder.pop("kv_cache_quant_algo", None)
    for k, v in suffix.overrides:
        q[k] = list(v) if isinstance(v, tuple) else v  # tuples in the entry: it is hashed (@cache)
    return q


def infer_arch(
    ref: str, served: Sequence[str] = (), locations: Sequence[str] = ()
) -> tuple[ModelArch, NameMatch] | None:
    """The model facts inferred from the launch's model name (confidence ``low``), or None."""
    from vlint.resolve.catalog import arch_from_record, catalog_record

    m = match(ref, served, locations)
    if m is None:
        return None
    rec = catalog_record(m.base)
    if rec is None:
        return None
    rec = json.loads(json.dumps(rec))
    rec["id"] = ref or m.name
    cfg = rec["config"]
    if m.dequantized:
        cfg.pop("quantization_config", None)
        rec["weight_bytes"] = None
    quantized = isinstance(cfg.get("quantization_config"), dict)
    if m.suffix is not None and not quantized:
        q = _template_quant(m.suffix)
        if q is None:
            return None
        cfg["quantization_config"] = q
        rec["weight_bytes"] = None  # the base's bytes are not this checkpoint's
    arch = arch_from_record(rec)
    return (
        replace(
            arch,
            source=f"inferred from the name: {m.description}; facts of the catalog record {m.base}",
            confidence="low",
            inferred_from_name=m.description,
            notes=(*arch.notes, f"model facts inferred from the name: {m.description}"),
        ),
        m,
    )
