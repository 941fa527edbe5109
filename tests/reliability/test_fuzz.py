"""Fuzzing: a small, fixed budget in CI (about 300 examples, a few seconds: the ``ci`` hypothesis
profile of tests/budgets.py); the long budget (3,000 examples) with ``--hypothesis-profile=long`` or
``python bench/fuzz.py --hypothesis``, and ``bench/fuzz.py --minutes N`` fuzzes for as long as asked.

Property: for every generated or mutated input, linting returns 0, 1 or 2 with a well-formed report in
every output format (text, json, sarif, github, gitlab) and never an exception or an internal error
(:func:`tests.reliability.fuzzing.Checker.run`). Runs are derandomized (the same inputs on every CI run);
``VLINT_FUZZ_RANDOM=1`` draws new ones.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from budgets import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .fuzzing import (
    FORMATS,
    GENERATORS,
    IMAGES,
    MODELS,
    SCALARS,
    Checker,
    corpus_files,
    mutate,
    mutated_corpus_case,
    option_names,
)
from .seeds import SEEDS


def fuzz_settings(ci: int, long: int) -> settings:
    return settings(
        max_examples=examples(ci=ci, long=long),
        deadline=None,
        derandomize=not os.environ.get("VLINT_FUZZ_RANDOM"),
        database=None,
        suppress_health_check=list(HealthCheck),  # a slow or large draw is no failure of vlint
        print_blob=True,  # a failure prints how to replay it (@reproduce_failure)
    )


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Checker:
    return Checker(tmp_path_factory.mktemp("fuzz") / "case")


def holds(checker: Checker, case: dict[str, Any]) -> None:
    failures = checker.run(case)
    assert failures == [], f"{failures[0]}\ninput: {case!r}"[:6000]


# -- hypothesis strategies: settings, command lines, wrappers --------------------------------------------
values = st.one_of(
    st.sampled_from(SCALARS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
)
options = st.sampled_from(option_names())
#: (option, value or None for a bare flag) pairs: vLLM arguments
arguments = st.lists(st.tuples(options, st.one_of(st.none(), values)), max_size=10)


def words(pairs: list[tuple[str, Any]]) -> list[str]:
    out: list[str] = []
    for opt, value in pairs:
        out += [opt] if value is None else [opt, str(value)]
    return out


@st.composite
def vllm_configs(draw: st.DrawFn) -> str:
    """A vLLM ``--config`` YAML file: option names as keys (dashes or underscores), any values."""
    doc: dict[str, Any] = {"model": draw(st.sampled_from(MODELS))} if draw(st.booleans()) else {}
    for opt, value in draw(arguments):
        key = opt.lstrip("-")
        doc[key.replace("-", "_") if draw(st.booleans()) else key] = draw(
            st.one_of(
                st.just(value), st.lists(values, max_size=3), st.dictionaries(st.text(max_size=6), values, max_size=3)
            )
        )
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=draw(st.sampled_from([None, True, False])))


def quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


@st.composite
def command_lines(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from([["vllm", "serve"], ["python", "-m", "vllm.entrypoints.openai.api_server", "--model"]]))
    argv = [*head, draw(st.sampled_from(MODELS)), *words(draw(arguments))]
    quoted = [w if draw(st.booleans()) and w.isprintable() and " " not in w else quote(w) for w in argv]
    env = draw(st.lists(st.tuples(st.sampled_from(["HF_TOKEN", "CUDA_VISIBLE_DEVICES", "VLLM_USE_V1"]), values)))
    prefix = "".join(f"{k}={quote(str(v))} " for k, v in env)
    return "#!/bin/bash\n" + prefix + draw(st.sampled_from([" ", " \\\n  "])).join(quoted) + "\n"


@st.composite
def kubernetes_manifests(draw: st.DrawFn) -> str:
    argv = ["--model", draw(st.sampled_from(MODELS)), *words(draw(arguments))]
    container: dict[str, Any] = {"name": "vllm", "image": draw(st.sampled_from(IMAGES))}
    if draw(st.booleans()):
        container["args"] = argv
    else:
        container["command"] = ["/bin/sh", "-c", " ".join(["vllm", "serve", *map(quote, argv[1:])])]
    if draw(st.booleans()):
        container["resources"] = {"limits": {"nvidia.com/gpu": draw(values)}}
    if draw(st.booleans()):
        container["env"] = [{"name": "HF_TOKEN", "value": draw(values)}]
    pod = {"containers": [container]}
    doc = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "v"},
        "spec": {"template": {"spec": pod}},
    }
    return yaml.safe_dump(doc, sort_keys=False)


@st.composite
def compose_files(draw: st.DrawFn) -> str:
    argv = ["--model", draw(st.sampled_from(MODELS)), *words(draw(arguments))]
    service: dict[str, Any] = {"image": draw(st.sampled_from(IMAGES))}
    service["command"] = argv if draw(st.booleans()) else " ".join(map(quote, argv))
    if draw(st.booleans()):
        service["environment"] = {"HF_TOKEN": draw(values), "CUDA_VISIBLE_DEVICES": draw(values)}
    if draw(st.booleans()):
        service["deploy"] = {"resources": {"reservations": {"devices": [{"driver": "nvidia", "count": draw(values)}]}}}
    return yaml.safe_dump({"services": {"vllm": service}}, sort_keys=False)


STRUCTURED = {
    "serve.yaml": vllm_configs(),
    "start.sh": command_lines(),
    "deploy.yaml": kubernetes_manifests(),
    "docker-compose.yml": compose_files(),
}


@pytest.mark.parametrize("name", sorted(STRUCTURED))
@fuzz_settings(25, 300)
@given(data=st.data(), mutated=st.booleans(), r=st.randoms(use_true_random=False))
def test_structured_inputs(checker: Checker, name: str, data: st.DataObject, mutated: bool, r: random.Random) -> None:
    text = data.draw(STRUCTURED[name])
    holds(checker, {name: mutate(r, text) if mutated else text})


@fuzz_settings(80, 800)
@given(generator=st.sampled_from(sorted(GENERATORS)), mutated=st.booleans(), r=st.randoms(use_true_random=False))
def test_generated_inputs(checker: Checker, generator: str, mutated: bool, r: random.Random) -> None:
    case = GENERATORS[generator](r)
    if mutated:
        name = r.choice(sorted(case))
        case[name] = mutate(r, case[name])
    holds(checker, case)


@fuzz_settings(40, 400)
@given(r=st.randoms(use_true_random=False))
def test_mutated_seed_files(checker: Checker, r: random.Random) -> None:
    """Byte flips, line drops, token swaps… of the built-in seed files (one per source)."""
    holds(checker, mutated_corpus_case(r, corpus_files(None)))


@fuzz_settings(60, 600)
@given(r=st.randoms(use_true_random=False))
def test_mutated_corpus_files(checker: Checker, shared: Path, r: random.Random) -> None:
    """The same on the 150 real deployment files of ``../shared/corpus/real``."""
    holds(checker, mutated_corpus_case(r, _corpus(shared)))


_CORPUS: dict[Path, list[tuple[str, bytes]]] = {}


def _corpus(shared: Path) -> list[tuple[str, bytes]]:
    if shared not in _CORPUS:
        _CORPUS[shared] = corpus_files(shared)
    return _CORPUS[shared]


def test_the_checker_sees_failures(checker: Checker, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property can fail: an internal error, an exception in a renderer."""
    from vlint.sources import registry
    from vlint.sources.base import Source

    def boom(src: Any, read: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(registry, "SOURCES", (Source("boom", lambda s: True, boom), *registry.SOURCES))
    assert "internal error" in checker.run({"start.sh": SEEDS["start.sh"]})[0]
    monkeypatch.undo()
    monkeypatch.setattr("vlint.report.gitlab.render", lambda *a: "[1]")
    assert checker.run({"start.sh": "vllm serve m --max-num-seqs x\n"}) == ["gitlab: 1 issues"]
    assert FORMATS == ("text", "json", "sarif", "github", "gitlab")


# -- every crash the fuzzer found, as it found it ------------------------------------------------------------
REGRESSIONS: dict[str, dict[str, str | bytes]] = {
    # compose: deploy.resources.reservations.devices count 200166679055 built a list of that many ids
    "compose-device-count": {
        "docker-compose.yml": (
            "services:\n  vllm:\n    image: vllm/vllm-openai:nightly\n    command: --model m\n    deploy:\n"
            "      resources:\n        reservations:\n          devices:\n          - driver: nvidia\n"
            "            count: 200166679055\n            capabilities: [gpu]\n"
        )
    },
    "compose-device-count-superscript": {
        "docker-compose.yml": (
            "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n    command: --model m\n"
            "    environment:\n      CUDA_VISIBLE_DEVICES: '²'\n    deploy:\n      resources:\n        reservations:\n"
            "          devices:\n          - driver: nvidia\n            count: 2\n            capabilities: [gpu]\n"
        )
    },
    # a repeated nargs=+ option holding an unresolved word: the duplicate message json.dumps'ed the sentinel
    "unresolved-item-in-a-repeated-list": {
        ".github/workflows/ci.yml": (
            "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n    - run: |\n"
            "        vllm serve m --served-model-name a '${{ inputs.x }}' --served-model-name 2\n"
        )
    },
    # compose GPUs "all" and --tensor-parallel-size 2147483648: VL605 listed that many GPU ids (MemoryError)
    "compose-all-gpus-huge-tensor-parallel": {
        "docker-compose.yml": (
            "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            '    command: ["--model", "m", "--tensor-parallel-size", "2147483648"]\n    deploy:\n      resources:\n'
            "        reservations:\n          devices:\n          - driver: nvidia\n            count:  \n"
            "            capabilities: [gpu]\n"
        )
    },
    # a model path starting with ~ and no such user: Path.expanduser raised RuntimeError
    "model-path-of-an-unknown-user": {"serve.yaml": "model: ~{ .Values.model {}\nmax-model-len: 4096\n"},
    # Python passes integers as they are: float(10**400) raised OverflowError in the gmu checks
    "python-gpu-memory-utilization-10**400": {
        "app.py": "from vllm import LLM\nLLM(model='m', gpu_memory_utilization=1" + "0" * 400 + ")\n"
    },
    # a 400-digit /dev/shm size parses as inf: int(inf) raised OverflowError
    "compose-shm-size-400-digits": {
        "docker-compose.yml": (
            "services:\n  v:\n    image: vllm/vllm-openai:v0.10.2\n    command: --model m --tensor-parallel-size 2\n"
            f"    shm_size: {'9' * 400}gb\n"
        )
    },
    # an unresolved item in --cudagraph-capture-sizes reached the defaults' size comparison (TypeError)
    "unresolved-cudagraph-capture-size": {
        "serve.sh": 'vllm serve meta-llama/Llama-3.1-8B-Instruct --cudagraph-capture-sizes 8 "${{ inputs.x }}"\n'
    },
    # --pipeline-pa (an abbreviation) 1035784148411: the memory model laid out one list entry per stage
    "pipeline-parallel-size-10**12": {
        "deploy.yaml": SEEDS["deploy.yaml"].replace('"8192"', '"8192", "--pipeline-pa", "1035784148411"')
        + "      nodeSelector:\n        nvidia.com/gpu.product: A10G\n"
    },
    # 700 unary minus signs across lines: ast.parse reads them, ast.unparse (for the shown text) recursed too deep
    "python-unparse-recursion": {"app.py": "from vllm import LLM\nLLM(model=" + "-\n" * 700 + "1)\n"},
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_regressions(checker: Checker, name: str) -> None:
    holds(checker, REGRESSIONS[name])


def test_python_syntax_warnings_are_not_printed(checker: Checker) -> None:
    """``1if x else 2`` (invalid decimal literal) made ast.parse print a SyntaxWarning on stderr."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        holds(checker, {"app.py": "from vllm import LLM\nLLM(model='m', max_model_len=1if 1 else 2, x='\\d')\n"})
    assert [str(w.message) for w in seen if issubclass(w.category, SyntaxWarning | DeprecationWarning)] == []
