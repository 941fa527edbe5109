"""The real shell scripts and vLLM config files of ../shared/corpus/real (see its INDEX.md).

For every file: it is read without a crash, the launches found and their key settings match the
table below (written from INDEX.md and the files themselves), and the findings of the stable rules
match what INDEX.md's "what a linter should say" column asks for where a rule exists. Where the
table disagrees with INDEX.md, a comment says why.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from vlint.core.unresolved import UNRESOLVED
from vlint.engine.catalog import load_catalog
from vlint.engine.results import FileResult
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths

U = UNRESOLVED
#: the findings compared here: parse/argument rules and the first rules of the catalog. Newer
#: rules (version history, environment, images…) have tests of their own.
STABLE = {
    "VL001", "VL004", "VL005", "VL006", "VL007", "VL009", "VL010", "VL038", "VL011", "VL012",
    "VL101", "VL102", "VL103", "VL104", "VL105", "VL201", "VL202", "VL203", "VL501", "VL502",
}  # fmt: skip
#: an unknown, removed or too-new flag is the same mistake whatever the bundled history says
SAME = {"VL002": "VL001", "VL003": "VL001"}


@dataclass(frozen=True)
class L:
    """One launch: program, model, tensor_parallel_size, max_model_len, gpu_memory_utilization as
    written (None: not set; U: set to something vlint cannot resolve)."""

    program: str
    model: Any
    tp: Any
    mml: Any
    gmu: Any


@dataclass(frozen=True)
class Case:
    launches: tuple[L, ...]
    findings: frozenset[str]  # "CODE@line" of the STABLE rules
    error_line: int | None = None
    bug: str | None = None  # a known vlint bug makes this file's expectation fail


def case(*launches: L, findings: tuple[str, ...] = (), error_line: int | None = None, bug: str | None = None) -> Case:
    return Case(tuple(launches), frozenset(findings), error_line, bug)


SHELL: dict[str, Case] = {
    "DoanNgocCuong__": case(
        L("image", "/workspace/tuning/pretrained_models/exported_full_model", None, 1024, 0.7),
        # --api-key hoailb-vllm in plain text; --swap-space is fine on the image's vLLM 0.7.0 (the
        # oldest bundled schema that has it stands in for 0.7.0)
        findings=("VL502@9",),
    ),
    "Hiroaki-Masuzawa__": case(L("image", "Qwen/Qwen2.5-VL-3B-Instruct", None, 116480, None)),
    "Mikeriess__Synth_data__run_vllm.sh": case(
        L("api_server", "meta-llama/llama-3.1-405b-instruct-fp8", 8, None, 0.9),
        findings=("VL203@1",),  # no --max-model-len for a 128k model
    ),
    "Mikeriess__Synth_data__run_vllm_small.sh": case(
        L("api_server", "google/gemma-2-9b-it", 4, None, 1.0),
        findings=("VL201@3",),  # gpu-memory-utilization 1.0
    ),
    "PLMQ2785__": case(
        L("api_server", "./gemma-3-27b-it-W4A16", None, 8192, 0.9),  # `uv run python -m …`, tabs
        findings=("VL501@7",),
    ),
    # INDEX: max-model-len 10240 from the here-document; the script reassigns MAX_MODEL_LEN in an `if`,
    # so the value is unresolved (never guessed)
    "SemiAnalysisAI__InferenceX__benchmarks__single_node__fixed_seq_len__deprecated__gptoss": case(
        L("vllm serve", None, U, U, 0.9)
    ),
    "SemiAnalysisAI__InferenceX__benchmarks__single_node__fixed_seq_len__deprecated__kimik2.5": case(
        L("vllm serve", None, U, U, 0.95),  # the model is an unquoted $MODEL (may be any number of words)
        findings=("VL201@39", "VL501@46"),
    ),
    # INDEX: GMU 0.90 or 0.94 by branch: unresolved here
    "SemiAnalysisAI__InferenceX__benchmarks__single_node__fixed_seq_len__deprecated__minimaxm3": case(
        L("vllm serve", None, None, U, U),
        findings=("VL501@124",),
    ),
    # INDEX: MAX_MODEL_LEN never reaches vllm serve; the argv holds arrays assigned in branches (opaque),
    # so rules about a missing flag stay silent
    "SemiAnalysisAI__InferenceX__benchmarks__single_node__fixed_seq_len__dsv4": case(
        L("vllm serve", None, None, None, 0.8),
        findings=("VL501@78",),
    ),
    "Xiangxiangzhu__": case(
        L("vllm serve", "/models/llm/Qwen/Qwen2___5-72B-Instruct-GPTQ-Int4", 2, 9800, 1.0),
        findings=("VL201@11", "VL105@13"),  # --gpu-memory-utilization 1 (integer form)
    ),
    "Zongjy__": case(
        L("vllm serve", "meta-llama/Llama-3.1-8B-Instruct", None, 6000, 0.99),
        findings=("VL201@8", "VL501@10"),  # --trust_remote_code (underscores)
    ),
    # the trailing backslash before a whitespace-only line ends the command: the commented flags
    # below it are not part of it
    "alexm-redhat__": case(L("vllm serve", None, U, None, None)),
    "argonne-lcf__": case(),  # negative control: a user script with vLLM-like flags
    # alone, its vllm_config.yaml (saved under another name in the corpus) is not found: VL038;
    # see test_coder_cong_script_with_its_config for the pair
    "coder-cong__PesticideRecipeGen__train__GRPO__start_vllm_server.sh": case(
        L("vllm serve", None, None, None, None),
        findings=("VL038@11",),
    ),
    "dagnaputra__": case(
        L("image", "Qwen/Qwen2.5-7B-Instruct", None, 1024, 0.7),  # underscore flags on vllm-openai:latest
        findings=("VL502@6",),
    ),
    "jasonacox__TinyLLM__vllm__optional_build__entrypoint.sh": case(
        L("api_server", U, U, None, None),
        findings=("VL001@56",),  # --worker-use-ray was removed
    ),
    # settings go to a custom entrypoint as `-e` variables: no vLLM launch in this file
    "jasonacox__TinyLLM__vllm__optional_build__run.sh": case(),
    # INDEX: $MODEL is undefined in the file (it may come from the environment: unresolved); the stray
    # line with an unmatched quote is a syntax error, reported at the quote that never closes
    "jasonacox__TinyLLM__vllm__run-awq.sh": case(
        L("image", U, None, None, 0.95),
        findings=("VL201@30", "VL105@31"),
        error_line=48,
    ),
    "jasonacox__TinyLLM__vllm__run.sh": case(
        L("image", U, None, None, 0.95),
        findings=("VL201@27", "VL105@28"),
    ),
    # a comment line inside the continued `export` ends it; the launch is the next command
    "kika__": case(L("vllm serve", "Qwen/Qwen3-0.6B", 1, 32768, 0.85)),
    "mistralai__": case(L("api_server", None, None, None, None)),  # exec … "$@": nothing static
    "multimodal-art-projection__": case(
        L("api_server", "/map-vepfs/models/jiajun/DeepSeek/DeepSeek-R1-Distill-Llama-70B", 4, 15000, 0.95),
        findings=("VL201@3",),
    ),
    "seungrokj__": case(
        L("vllm serve", "/models/Llama-3.1-70B-Instruct", 8, None, 0.9),
        findings=("VL203@3", "VL001@7"),  # --swap-space does not exist in 0.33.0
    ),
    "southfreebird__": case(
        L("vllm serve", "meta-llama/Meta-Llama-3.1-8B-Instruct", 2, None, 0.97),
        findings=("VL203@1", "VL501@3", "VL201@6"),
    ),
    "tlrmchlsmth__": case(
        L("vllm serve", "meta-llama/Llama-3.1-8B-Instruct", None, None, None),  # commented flags excluded
        findings=("VL203@2", "VL105@4"),
    ),
    "yandy__": case(
        L("api_server", "deepseek-ai/DeepSeek-V3", None, None, None),  # PowerShell; image v0.6.6.post1
        findings=("VL203@1", "VL501@1"),
    ),
    "zaidalyafeai__": case(L("vllm serve", None, 2, 4096, 0.95), findings=("VL201@6",)),  # model is $1
    "zeuscsc__": case(L("api_server", "/workspace/vllm-models/vllm-0", None, 8192, 0.8)),  # --gpus='"device=0"'
}

CONFIGS: dict[str, Case] = {
    "TrungCun__": case(L("config", "Qwen/Qwen2.5-Coder-7B-Instruct-AWQ", None, 2048, 0.85)),
    # INDEX: `enforce_eager: false` would be --no-enforce-eager; vllm serve drops it (same as the default)
    "bgeneto__": case(L("config", None, None, 16384, 0.55)),
    # a bare config file is a launch: no max-model-len (VL203, info: the model folder is not read)
    # no VL203: no GPU named, and with bnb 4-bit weights over TP 2 the full context fits on every reference GPU
    "coder-cong__": case(L("config", "/data/lyl/models/qwen2.5-7B", 2, None, 0.6), findings=("VL105@9",)),
    "runpod-workers__worker-vllm__configs__gemma": case(
        L("config", "google/gemma-4-31b-it", None, 8192, 0.95),
        findings=("VL201@2", "VL501@5", "VL001@11"),  # vllm-release: v2.24.0
    ),
    "runpod-workers__worker-vllm__configs__gpt-oss": case(
        L("config", "openai/gpt-oss-120b", None, 8192, 0.95),
        findings=("VL201@2", "VL501@5"),
    ),
    "runpod-workers__worker-vllm__configs__llama": case(
        L("config", "meta-llama/Llama-3.1-8B-Instruct", None, 8192, 0.95),
        findings=("VL201@2", "VL501@5"),
    ),
    "simonnxren__": case(L("config", None, None, None, 0.2)),
    "yihuididi__": case(L("config", None, None, 8192, 0.9)),
}


@cache
def engine() -> Engine:
    return Engine(load_catalog())


def lint_one(path: Path, root: Path) -> FileResult:
    report = lint_paths([path], engine(), LintOptions(root=root))
    (result,) = report.files
    return result


def launch_of(dep: Any) -> L:
    def v(dest: str) -> Any:
        value = dep.user_value(dest)
        return U if value is UNRESOLVED else value

    return L(
        dep.invocation.program, v("model"), v("tensor_parallel_size"), v("max_model_len"), v("gpu_memory_utilization")
    )


def stable_findings(result: FileResult) -> set[str]:
    return {f"{SAME.get(f.code, f.code)}@{f.span.line}" for f in result.findings if SAME.get(f.code, f.code) in STABLE}


def params(folder: str, table: dict[str, Case]) -> list[Any]:
    out = []
    for prefix, c in table.items():
        marks = [pytest.mark.xfail(reason=c.bug, strict=True)] if c.bug else []
        out.append(pytest.param(folder, prefix, c, id=prefix.rstrip("_")[:60], marks=marks))
    return out


def find(folder: Path, prefix: str) -> Path:
    matches = [p for p in folder.iterdir() if p.name.startswith(prefix)]
    assert len(matches) == 1, (prefix, [p.name for p in matches])
    return matches[0]


@pytest.mark.parametrize(("folder", "prefix", "expected"), params("shell", SHELL) + params("vllm-config-yaml", CONFIGS))
def test_corpus_file(shared: Path, folder: str, prefix: str, expected: Case) -> None:
    root = shared / "corpus" / "real" / folder
    result = lint_one(find(root, prefix), root)
    assert [launch_of(d) for d in result.deployments] == list(expected.launches)
    assert result.launches == len(expected.launches)
    assert (result.error.line if result.error else None) == expected.error_line
    assert stable_findings(result) == set(expected.findings)


@pytest.mark.parametrize(("folder", "table"), [("shell", SHELL), ("vllm-config-yaml", CONFIGS)])
def test_every_corpus_file_is_in_the_table(shared: Path, folder: str, table: dict[str, Case]) -> None:
    root = shared / "corpus" / "real" / folder
    names = sorted(p.name for p in root.iterdir())
    covered = sorted(find(root, prefix).name for prefix in table)
    assert covered == names


def test_the_whole_folders_lint_without_a_crash(shared: Path) -> None:
    real = shared / "corpus" / "real"
    report = lint_paths([real / "shell", real / "vllm-config-yaml"], engine(), LintOptions(root=real))
    assert len(report.files) == len(SHELL) + len(CONFIGS)
    errors = {r.path: r.error.line for r in report.files if r.error is not None}
    assert errors == {"shell/jasonacox__TinyLLM__vllm__run-awq.sh": 48}
    assert sum(r.launches for r in report.files) == sum(len(c.launches) for c in [*SHELL.values(), *CONFIGS.values()])


def test_negative_control_gives_nothing(shared: Path) -> None:
    root = shared / "corpus" / "real" / "shell"
    result = lint_one(find(root, "argonne-lcf__"), root)
    assert result.launches == 0 and result.findings == [] and result.error is None


def test_sglang_config_negative_control_gives_nothing(shared: Path) -> None:
    root = shared / "corpus" / "real" / "yaml-other"
    result = lint_one(find(root, "modal-labs__"), root)
    assert result.launches == 0 and result.findings == [] and result.error is None


def test_coder_cong_script_with_its_config(shared: Path, tmp_path: Path) -> None:
    """INDEX multi-file set: ``nohup vllm serve --config vllm_config.yaml`` reads the config file next
    to it (saved in the corpus under other names: copied here with the names the script uses)."""
    real = shared / "corpus" / "real"
    folder = tmp_path / "train" / "GRPO"
    folder.mkdir(parents=True)
    shutil.copy(find(real / "shell", "coder-cong__"), folder / "start_vllm_server.sh")
    shutil.copy(find(real / "vllm-config-yaml", "coder-cong__"), folder / "vllm_config.yaml")
    report = lint_paths([tmp_path], engine(), LintOptions(root=tmp_path))
    by_path = {r.path: r for r in report.files}
    script = by_path["train/GRPO/start_vllm_server.sh"]
    config = by_path["train/GRPO/vllm_config.yaml"]
    assert [launch_of(d) for d in script.deployments] == [L("vllm serve", "/data/lyl/models/qwen2.5-7B", 2, None, 0.6)]
    (dep,) = script.deployments
    assert dep.env["CUDA_VISIBLE_DEVICES"] == "6,7"
    assert dep.user_value("enforce_eager") is True and dep.user_value("quantization") == "bitsandbytes"
    assert config.launches == 0 and config.used_by == ("train/GRPO/start_vllm_server.sh",)
    assert script.linked == ("train/GRPO/vllm_config.yaml",)
    codes = {(f.code, f.span.path, f.span.line) for f in report.findings}
    assert ("VL105", "train/GRPO/vllm_config.yaml", 9) in codes  # enforce-eager: True, at the config's line
    assert not any(c == "VL010" for c, _, _ in codes)


def test_heredoc_config_of_the_gptoss_script(shared: Path) -> None:
    root = shared / "corpus" / "real" / "shell"
    result = lint_one(
        find(root, "SemiAnalysisAI__InferenceX__benchmarks__single_node__fixed_seq_len__deprecated__gptoss"), root
    )
    (dep,) = result.deployments
    config = dep.invocation.config
    assert config is not None
    assert [(e.key, e.value, e.key_span.line) for e in config.entries] == [
        ("no-enable-prefix-caching", True, 28),
        ("max-cudagraph-capture-size", 2048, 29),
        ("max-num-batched-tokens", 8192, 30),
        ("max-model-len", "$MAX_MODEL_LEN", 31),
    ]
    assert dep.user_value("enable_prefix_caching") is False
    assert dep.user_value("max_num_batched_tokens") == 8192
    assert dep.env["VLLM_MXFP4_USE_MARLIN"] == "1"


def test_dotted_json_flag_of_the_kimi_script(shared: Path) -> None:
    root = shared / "corpus" / "real" / "shell"
    result = lint_one(
        find(root, "SemiAnalysisAI__InferenceX__benchmarks__single_node__fixed_seq_len__deprecated__kimik2.5"), root
    )
    (dep,) = result.deployments
    assert dep.user_value("compilation_config") == {"pass_config": {"fuse_allreduce_rms": True}}
    assert dep.user_value("enable_prefix_caching") is False


def test_secrets_of_the_corpus_are_masked(shared: Path) -> None:
    root = shared / "corpus" / "real" / "shell"
    for prefix, secret in [("dagnaputra__", "test_api_key"), ("DoanNgocCuong__", "hoailb-vllm")]:
        result = lint_one(find(root, prefix), root)
        (f,) = [f for f in result.findings if f.code == "VL502"]
        assert secret not in f.message and secret not in str(f.data)
