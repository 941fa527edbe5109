"""Corpus: every docker-compose, Dockerfile, .env, GitHub Actions, Python, Ray Serve, SkyPilot and
"yaml-other" file of ../shared/corpus/real.

The files are laid out again as in their repositories (``<owner>/<repo>/<path>`` from INDEX.md), so
the multi-file sets link up as they do for a user (WikiDex compose + Dockerfile, a Dockerfile and its
entry-point script, ``model.py`` + ``config.py``). For each file: the whole pipeline runs without a
crash or file error; the launches found and their key settings — (model, tensor_parallel_size,
max_model_len, gpu_memory_utilization) as written (None: not set, "?": unresolved); and the findings
of the deployment rules (VL60x) and of the plain-text-secret rule these sources feed (VL502).

The table is keyed by INDEX.md row; it was derived from INDEX.md's "notable settings" and "what a
linter should say" columns and from reading the files. Where vlint disagrees with INDEX.md, a comment
says why.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from vlint.core.unresolved import UNRESOLVED
from vlint.engine.catalog import load_catalog
from vlint.engine.results import FileResult, LintReport
from vlint.engine.runner import Engine
from vlint.launch.deployment import Deployment
from vlint.run.lint import LintOptions, lint_paths

FOLDERS = (
    "docker-compose",
    "dockerfile",
    "env-file",
    "github-actions",
    "python",
    "ray-serve",
    "skypilot",
    "yaml-other",
)
MY_SOURCES = {"compose", "dockerfile", "dotenv", "skypilot", "github-actions", "ray-serve", "python"}
CODES = re.compile(r"^VL(60\d|502)$")
NEGATIVE = (133, 148)

#: INDEX row → ([(model, tp, max_model_len, gmu) per launch], sorted VL60x/VL502 codes)
EXPECTED: dict[int, tuple[list[tuple[Any, ...]], list[str]]] = {
    # docker-compose/brianlechthaler__opencode-3090ti__docker-compose.vllm.yml
    1: (
        [
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", None, 8192, 0.95),
        ],
        ["VL603"],
    ),
    # INDEX: --disable-log-requests is deprecated: reported by the argument rules (VL002/VL003), not listed here.
    # docker-compose/chronicblondiee__docker-rocm-notes__docker-compose-vllm.yml
    2: (
        [
            ("/models/llama-2-7b-hf", 1, 4096, 0.9),
        ],
        [],
    ),
    # docker-compose/Cloud-Linuxer__gpt-oss__vllm__docker-compose.yml
    3: (
        [
            ("facebook/opt-125m", 1, 4096, 0.9),
        ],
        [],
    ),
    # the commented-out services (gpt-oss-120b, Llama 3.2 Vision, ollama) are not launches.
    # docker-compose/davidamacey__OpenTranscribe__docker-compose.vllm.yml
    4: (
        [
            ("openai/gpt-oss-20b", None, 131000, 0.95),
        ],
        [],
    ),
    # INDEX: `vllm serve` in command: is wrong only on images whose ENTRYPOINT runs vllm serve; intel/vllm runs
    # the command as given, so no VL607 (agrees with the author's report that it boots).
    # docker-compose/epsilonagentx__intel_arc_gpu_llm__docker-compose.vllm.yml
    5: (
        [
            ("openai/gpt-oss-20b", None, 65536, 0.75),
        ],
        [],
    ),
    # the h2ogpt service has look-alike --inference_server args: not vLLM.
    # docker-compose/h2oai__h2ogpt__docker-compose-vllm.yml
    6: (
        [
            ("h2oai/h2ogpt-4096-llama2-7b-chat", 2, None, None),
        ],
        [],
    ),
    # INDEX: 0.78 + 0.78 on the same GPUs works only thanks to sleep mode: VL605 as a warning.
    # docker-compose/joshsanz__vllm-serve-multi__vllm__docker-compose.yml
    7: (
        [
            ("google/gemma-4-31B-it-qat-w4a16-ct", None, 262144, 0.78),
            ("deepreinforce-ai/Ornith-1.0-35B-FP8", 1, 262144, 0.78),
        ],
        ["VL605"],
    ),
    # INDEX lists 4 services; vllm-omni is another CLI, so 3 launches. INDEX says warn, vlint says error: all
    # three start with `docker compose up` (no profiles) and the last fails vLLM's startup check; the author's
    # "manual control" would be written as profiles, which VL605 honours.
    # docker-compose/kylin7226__gfx1151-tools__vllm__docker-compose.yml
    8: (
        [
            ("cyankiwi/Qwen3.6-27B-AWQ-INT4", None, 262144, 0.9),
            ("Qwen/Qwen3-ASR-8B", None, 8192, 0.9),
            ("Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", None, 4096, 0.7),
        ],
        ["VL605"],
    ),
    # docker-compose/lianshufeng__docker_llm__vllm__docker-compose.yml
    9: (
        [
            ("/models", 2, 1000, 0.99),
        ],
        ["VL603"],
    ),
    # cross-file: the build args never reach the Dockerfile's CMD (INDEX: 'build args are ignored at runtime').
    # docker-compose/MichaelMcCulloch__WikiDex__vllm__docker-compose.yml
    10: (
        [
            ("TheBloke/zephyr-7B-beta-AWQ", None, 8192, None),
        ],
        ["VL606"],
    ),
    # docker-compose/nob-git-dev__dgx_spark_code__vllm__docker-compose.yml
    11: (
        [
            ("Qwen/Qwen3-VL-8B-Instruct", None, 32768, 0.28),
            ("/models/nemotron-nvfp4", None, 32768, 0.2),
        ],
        [],
    ),
    # compose reads .env, not .env.example; with no .env beside it, vlint takes the example's values as an
    # inference (fact example_env: its errors are warnings that say so), so ${MODEL_NAME:?…} is Qwen/Qwen3-8B
    # here; see test_yihuididi_with_env_copied for `cp .env.example .env`. configs/vllm.yaml is linked through
    # the volume.
    # docker-compose/yihuididi__vllm-server__docker-compose.yml
    12: (
        [
            ("Qwen/Qwen3-8B", 1, 8192, 0.9),
        ],
        ["VL603"],
    ),
    # INDEX: the HF token in ENV (VL502). vlint also reports TP 4 in a container left with Docker's 64 MiB /dev/shm.
    # dockerfile/bq1024__Llama-3.1-8B-4Cards__Dockerfile
    13: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", 4, 8128, 0.95),
        ],
        ["VL502", "VL602", "VL603"],
    ),
    # dockerfile/bq1024__Llama-3.2-1B__Dockerfile
    14: (
        [
            ("Qwen/Qwen2.5-0.5B", None, 8128, 0.95),
        ],
        ["VL502", "VL603"],
    ),
    # INDEX wants 'no --max-model-len' reported; ${REVISION:+…} may add arguments, so absence rules stay silent.
    # dockerfile/devsaturn__internvl-vllm__Dockerfile
    15: (
        [
            ("OpenGVLab/InternVL3-14B", None, None, None),
        ],
        ["VL603"],
    ),
    # dockerfile/Fluder-Paradyne__vllm_inference__Dockerfile
    16: (
        [
            ("?", "?", None, None),
        ],
        ["VL608"],
    ),
    # no flags here: the CMD runs entrypoint.sh, which the Dockerfile links (the shell source lints it).
    # dockerfile/jasonacox__TinyLLM__vllm__optional_build__Dockerfile
    17: (
        [],
        [],
    ),
    # dockerfile/koyeb__example-vllm__Dockerfile
    18: (
        [
            ("meta-llama/Meta-Llama-3.1-8B-Instruct", None, None, None),
        ],
        ["VL603"],
    ),
    # INDEX: EXPOSE host:container is an error — not a vLLM setting, no rule. The build-arg problem is
    # reported where the build args are (row 10).
    # dockerfile/MichaelMcCulloch__WikiDex__vllm__Dockerfile
    19: (
        [
            ("TheBloke/zephyr-7B-beta-AWQ", None, 8192, None),
        ],
        [],
    ),
    # flags arrive via docker run; entrypoint.sh is linked. 'vLLM from git HEAD' has no rule.
    # dockerfile/mistralai__mistral-inference__deploy__Dockerfile
    20: (
        [],
        [],
    ),
    # ENTRYPOINT [] + a Python handler: no launch here; the handler (row 90) is linked.
    # dockerfile/Pepichain__qwen27b-runpod__Dockerfile.vllm
    21: (
        [],
        [],
    ),
    # the RunPod wrapper builds flags from env vars: no per-wrapper env→flag mapping, no launch.
    # dockerfile/runpod-workers__worker-vllm__Dockerfile
    22: (
        [],
        [],
    ),
    # INDEX: duplicate MAX_MODEL_LEN, last wins — applied when compose interpolates; no rule reports it.
    # env-file/yihuididi__vllm-server__.env.example
    23: (
        [],
        [],
    ),
    # github-actions/deepset-ai__haystack-core-integrations__.github__workflows__vllm.yml
    24: (
        [
            ("Qwen/Qwen3-0.6B", None, 1024, None),
            ("sentence-transformers/all-MiniLM-L6-v2", None, None, None),
            ("BAAI/bge-reranker-base", None, None, None),
        ],
        [],
    ),
    # INDEX: --privileged=true in CI — the shell source misses the `=true` spelling (reported as a bug).
    # github-actions/meta-llama__llama-stack__.github__actions__setup-vllm__action.yml
    25: (
        [
            ("/root/.cache/Llama-3.2-1B-Instruct", None, None, None),
        ],
        [],
    ),
    # github-actions/SemiAnalysisAI__InferenceX__.github__workflows__benchmark-tmpl.yml
    26: (
        [],
        [],
    ),
    # two background launches on GPUs 0 and 1; VL605 compares only launches known to run together (compose).
    # github-actions/vllm-project__production-stack__.github__workflows__router-e2e-test.yml
    27: (
        [
            ("facebook/opt-125m", None, None, 0.7),
            ("facebook/opt-125m", None, None, 0.7),
        ],
        [],
    ),
    # python/emirhanerbil__azure_llm_category__llm_test.py
    85: (
        [
            ("Qwen/Qwen2-7B-Instruct", 1, 5608, 0.8),
        ],
        [],
    ),
    # python/henghayan__HappyChat__quantize__awa_run.py
    86: (
        [
            ("/data2/llm3-8", None, 4096, 0.95),
        ],
        [],
    ),
    # function parameters: nothing resolvable, no findings (INDEX).
    # python/IINemo__lm-polygraph__examples__configs__model__default_vllm.py
    87: (
        [
            ("?", None, None, "?"),
        ],
        [],
    ),
    # python/micwill755__qkllm__inference__vllm__speculative_decoding__ngram__speculative_decoding.py
    88: (
        [
            ("TinyLlama/TinyLlama-1.1B-Chat-v1.0", None, None, None),
        ],
        [],
    ),
    # FAST_BOOT=True resolves the conditional flag to --enforce-eager; TP from str(N_GPU).
    # python/modal-labs__modal-examples__06_gpu_and_ml__llm-serving__vllm_inference.py
    89: (
        [
            ("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8", 1, None, None),
        ],
        [],
    ),
    # python/Pepichain__qwen27b-runpod__src__handler_vllm.py
    90: (
        [
            ("quocbao747/Qwen3.8-27B-OBLITERATED-W4A16-24GB", None, 32768, 0.92),
        ],
        [],
    ),
    # no vLLM launch in config.py; its constants are read through model.py (row 92). INDEX's JWT secret is not
    # a vLLM setting and the file is not linted on its own.
    # python/victorpengmx__llm-web-chat__backend__config.py
    91: (
        [],
        [],
    ),
    # values from the sibling config module (os.getenv defaults).
    # python/victorpengmx__llm-web-chat__backend__model.py
    92: (
        [
            ("/default/model/path", 1, 8192, 0.7),
        ],
        [],
    ),
    # ray-serve/ray-project__kuberay__ray-operator__config__samples__ray-service.deepseek.yaml
    93: (
        [
            ("deepseek-ai/DeepSeek-R1", 8, 16384, 0.92),
        ],
        [],
    ),
    # ray-serve/ray-project__kuberay__ray-operator__config__samples__ray-service.high-throughput-llm.yaml
    94: (
        [
            ("Qwen/Qwen3.5-4b", None, None, None),
        ],
        [],
    ),
    # ray-serve/ray-project__kuberay__ray-operator__config__samples__ray-service.llm-serve.yaml
    95: (
        [
            ("Qwen/Qwen2.5-7B-Instruct", None, 1024, 0.75),
        ],
        [],
    ),
    # custom import_path: the settings are env vars read by user code, no launch.
    # ray-serve/ray-project__kuberay__ray-operator__config__samples__vllm__ray-service.vllm-tpu-v6e-singlehost.yaml
    96: (
        [],
        [],
    ),
    # ray-serve/ray-project__ray__doc__source__llm__doc_code__serve__custom_vllm__custom_vllm_config.yaml
    97: (
        [
            ("Qwen/Qwen3-0.6B", None, 4096, None),
        ],
        [],
    ),
    # hf_token: <YOUR-TOKEN-HERE> is a placeholder, not a secret.
    # ray-serve/ray-project__ray__doc__source__llm__doc_code__serve__llama3_8B__serve_my_llama_3_1_8B.yaml
    98: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", None, 8192, None),
        ],
        [],
    ),
    # INDEX says fine; vlint's VL203 (not listed here) still warns about the full 32k context.
    # ray-serve/ray-project__ray__doc__source__llm__doc_code__serve__qwen__llm_config_example.yaml
    99: (
        [
            ("Qwen/Qwen2.5-0.5B-Instruct", None, None, None),
            ("Qwen/Qwen2.5-1.5B-Instruct", None, None, None),
        ],
        [],
    ),
    # ray-serve/ray-project__ray__doc__source__serve__tutorials__deployment-serve-llm__large-size-llm__serve_deepseek_…
    100: (
        [
            ("deepseek-ai/DeepSeek-R1", 8, 16384, None),
        ],
        [],
    ),
    # TP from $SKYPILOT_NUM_GPUS_PER_NODE (every alternative is :1); HF_TOKEN is an empty env, unresolved.
    # skypilot/skypilot-org__skypilot__llm__deepseek-r1__deepseek-r1-vllm.yaml
    129: (
        [
            ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", 1, 4096, None),
        ],
        [],
    ),
    # skypilot/skypilot-org__skypilot__llm__gpt-oss__gpt-oss-vllm.sky.yaml
    130: (
        [
            ("openai/gpt-oss-120b", None, None, None),
        ],
        [],
    ),
    # TP 8 × PP 2 over num_nodes 2 × H100:8: no VL601.
    # skypilot/skypilot-org__skypilot__llm__kimi-k2__kimi-k2.sky.yaml
    131: (
        [
            ("moonshotai/Kimi-K2-Instruct", 8, 32768, None),
        ],
        [],
    ),
    # the accelerator alternatives ask for 8, 4 or 2 GPUs: $SKYPILOT_NUM_GPUS_PER_NODE stays unresolved.
    # skypilot/skypilot-org__skypilot__llm__llama-3_1__llama-3_1.yaml
    132: (
        [
            ("meta-llama/Meta-Llama-3.1-8B-Instruct", "?", 4096, None),
        ],
        [],
    ),
    # NEGATIVE CONTROL: SGLang.
    # skypilot/skypilot-org__skypilot__llm__qwen__qwen3-235b.yaml
    133: (
        [],
        [],
    ),
    # --api-key comes from a SkyPilot secret: not a plain-text secret.
    # skypilot/skypilot-org__skypilot__llm__vllm__service-with-auth.yaml
    134: (
        [
            ("meta-llama/Llama-2-7b-chat-hf", None, None, None),
        ],
        [],
    ),
    # INDEX: the unquoted `pip install vllm>=0.10.0` is a redirect — no rule; no pin, so the newest schema.
    # skypilot/skypilot-org__skypilot__llm__vllm__vllm-multinode.sky.yaml
    135: (
        [
            ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 8, 32768, None),
        ],
        [],
    ),
    # NEGATIVE CONTROL: an SGLang config shaped like a vLLM --config file.
    # yaml-other/modal-labs__modal-examples__06_gpu_and_ml__llm-serving__config_very_large_models.yaml
    148: (
        [],
        [],
    ),
    # flags inside tool-specific YAML (prefill_flags strings): not a supported format, no launches.
    # yaml-other/SemiAnalysisAI__InferenceX__benchmarks__multi_node__amd_utils__models_vllm.yaml
    149: (
        [],
        [],
    ),
    # a vLLM config under a Slurm recipe's own keys: not a supported format, no launches.
    # yaml-other/SemiAnalysisAI__InferenceX__benchmarks__multi_node__srt-slurm-recipes__vllm__kimi-k3__agentic__agg-b2…
    150: (
        [],
        [],
    ),
}

#: (row, text of a token, "line:col" where it must be)
SPANS = [
    (1, "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", "19:9"),
    (3, "4096", "27:40"),  # the default of ${MAX_MODEL_LEN:-4096}
    (4, "--swap-space", "96:7"),  # a folded scalar
    (5, "--gpu-memory-utilization", "66:9"),  # more-indented lines of a folded scalar
    (8, "--enforce-eager", "83:9"),  # list items with comments between them
    (9, "0.99", "32:90"),  # a plain one-line string command
    (10, "8192", "17:246"),  # the Dockerfile's CMD (a quoted word), through the compose build
    (14, "--max-model-len", "9:7"),  # an exec-form CMD split over lines with \\
    (16, "--tensor-parallel-size", "14:58"),  # a shell-form CMD
    (24, "--max-model-len", "112:13"),  # a run: block
    (27, "0.7", "182:100"),
    (90, "--gpu-memory-utilization", "74:16"),  # a subprocess argv list
    (130, "--trust-remote-code", "27:5"),  # before the dangling backslash
    (131, "--pipeline-parallel-size", "62:7"),
]


_TREES: dict[Path, tuple[Path, dict[int, Path]]] = {}
#: INDEX row → corpus folder (format)
_FOLDER: dict[int, str] = {}


def _tree(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, Path]]:
    """The corpus laid out as ``<owner>/<repo>/<path>`` (built once), and INDEX row → file."""
    if shared not in _TREES:
        root = shared / "corpus" / "real"
        out = tmp_path_factory.mktemp("corpus")
        rows: dict[int, Path] = {}
        for line in (root / "INDEX.md").read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\| (\d+) \| `([^`]+)` \| \[([^\]]+)\]\([^)]*\) \| `([^`]+)` \|", line)
            if not m:
                continue
            dst = out / m.group(3) / m.group(4)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / m.group(2), dst)
            folder = m.group(2).split("/", 1)[0]
            if folder in FOLDERS:
                rows[int(m.group(1))] = dst
                _FOLDER[int(m.group(1))] = folder
        _TREES[shared] = (out, rows)
    return _TREES[shared]


@pytest.fixture
def tree(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, Path]]:
    return _tree(shared, tmp_path_factory)


def _lint(path: Path, root: Path) -> LintReport:
    return lint_paths([path], Engine(load_catalog()), LintOptions(root=root))


def _written(dep: Deployment, dest: str) -> Any:
    s = dep.setting(dest)
    if s is None:
        return None
    return "?" if s.value is UNRESOLVED else s.value


def _row(dep: Deployment) -> tuple[Any, ...]:
    model = dep.model or ("?" if dep.setting("model") is not None else None)
    return (model, *(_written(dep, d) for d in ("tensor_parallel_size", "max_model_len", "gpu_memory_utilization")))


def _file(tree: tuple[Path, dict[int, Path]], row: int) -> tuple[FileResult, LintReport]:
    root, rows = tree
    report = _lint(rows[row], root)
    (fr,) = report.files
    assert fr.error is None, fr.error
    return fr, report


def test_the_table_covers_every_file_of_these_folders(shared: Path, tree: tuple[Path, dict[int, Path]]) -> None:
    _root, rows = tree
    on_disk = {p.name for folder in FOLDERS for p in (shared / "corpus" / "real" / folder).iterdir()}
    assert len(on_disk) == len(rows) == len(EXPECTED)
    assert set(EXPECTED) == set(rows)


@pytest.mark.parametrize("row", sorted(EXPECTED))
def test_corpus_file(tree: tuple[Path, dict[int, Path]], row: int) -> None:
    fr, _report = _file(tree, row)
    launches, codes = EXPECTED[row]
    mine = [d for d in fr.deployments if d.invocation.source in MY_SOURCES]
    assert [_row(d) for d in mine] == launches
    assert sorted({f.code for f in fr.findings if CODES.match(f.code)}) == codes
    for dep in mine:
        for tok in dep.invocation.args:
            lines = Path(tree[0] / tok.span.path).read_text(encoding="utf-8").split("\n")
            assert 1 <= tok.span.line <= len(lines)
            assert 1 <= tok.span.column <= len(lines[tok.span.line - 1]) + 1, (tok, lines[tok.span.line - 1])


@pytest.mark.parametrize("row", NEGATIVE)
def test_negative_controls_have_no_findings(tree: tuple[Path, dict[int, Path]], row: int) -> None:
    fr, report = _file(tree, row)
    assert fr.launches == 0 and report.findings == []


@pytest.mark.parametrize(("row", "word", "where"), SPANS)
def test_corpus_spans(tree: tuple[Path, dict[int, Path]], row: int, word: str, where: str) -> None:
    fr, _report = _file(tree, row)
    tokens = [t for d in fr.deployments for t in d.invocation.args if t.text == word]
    assert tokens, word
    span = tokens[0].span
    assert f"{span.line}:{span.column}" == where
    line = (tree[0] / span.path).read_text(encoding="utf-8").split("\n")[span.line - 1]
    assert word in line[span.column - 1 : span.end_column - 1]


def test_wikidex_build_args(tree: tuple[Path, dict[int, Path]]) -> None:
    fr, report = _file(tree, 10)
    assert fr.linked == ("MichaelMcCulloch/WikiDex/vllm/Dockerfile",)
    lost = [(f.span.line, f.data["name"]) for f in report.findings if f.code == "VL606"]
    assert lost == [(10, "MODEL_NAME"), (11, "QUANTIZATION"), (12, "MAX_MODEL_LEN")]


def test_yihuididi_with_env_copied(tree: tuple[Path, dict[int, Path]], tmp_path: Path) -> None:
    """`cp .env.example .env`, as the repository says: the required variables resolve, the duplicate
    MAX_MODEL_LEN takes its last value, and the --config file comes through the volume."""
    src = tree[1][12].parent
    shutil.copytree(src, tmp_path / "repo")
    shutil.copyfile(src / ".env.example", tmp_path / "repo" / ".env")
    report = _lint(tmp_path / "repo" / "docker-compose.yml", tmp_path)
    (fr,) = report.files
    (dep,) = fr.deployments
    assert _row(dep) == ("Qwen/Qwen3-8B", 1, 8192, 0.9)
    assert dep.invocation.env["NVIDIA_VISIBLE_DEVICES"].text == "0" and dep.gpu_count == 1
    assert fr.linked == ("repo/.env", "repo/configs/vllm.yaml")
    assert dep.invocation.config is not None


@pytest.mark.parametrize(
    ("row", "linked"),
    [
        (17, "jasonacox/TinyLLM/vllm/optional_build/entrypoint.sh"),
        (20, "mistralai/mistral-inference/deploy/entrypoint.sh"),
        (21, "Pepichain/qwen27b-runpod/src/handler_vllm.py"),
        (92, "victorpengmx/llm-web-chat/backend/config.py"),
    ],
)
def test_linked_files(tree: tuple[Path, dict[int, Path]], row: int, linked: str) -> None:
    fr, _report = _file(tree, row)
    assert linked in fr.linked


def test_totals_per_folder(tree: tuple[Path, dict[int, Path]]) -> None:
    """Per-format counts, for the closing note: files and launches found."""
    root, rows = tree
    totals: dict[str, list[int]] = {}
    for row, path in rows.items():
        (fr,) = _lint(path, root).files
        t = totals.setdefault(_FOLDER[row], [0, 0])
        t[0] += 1
        t[1] += len([d for d in fr.deployments if d.invocation.source in MY_SOURCES])
    assert totals == {
        "docker-compose": [12, 16],
        "dockerfile": [10, 6],
        "env-file": [1, 0],
        "github-actions": [4, 6],
        "python": [8, 7],
        "ray-serve": [8, 8],
        "skypilot": [7, 6],
        "yaml-other": [3, 0],
    }
