"""Findings on Python ``LLM(...)`` calls (and Ray Serve ``engine_kwargs``) name keyword arguments, not
command-line flags; ``LLM(**cfg)`` with a dict built, spread and updated before the call is read."""

from __future__ import annotations

from pathlib import Path

from tests.sources.render.helpers import lint, write
from vlint.engine.runner import keyword_wording

RUN = """\
    from vllm import LLM

    BASE = dict(model="meta-llama/Llama-3.1-70B-Instruct", gpu_memory_utilization=0.9)
    cfg = {**BASE, "tensor_parallel_size": 3}
    cfg.update(enforce_eager=True)
    llm = LLM(**cfg)
    """


def test_findings_on_a_python_launch_name_keyword_arguments(tmp_path: Path) -> None:
    write(tmp_path, {"run.py": RUN})
    found = {f.code: f for f in lint(tmp_path, "run.py")}
    assert found["VL205"].message.startswith("tensor_parallel_size=3 cannot split"), found["VL205"].message
    assert found["VL205"].span.line == 4  # the dict entry spread into LLM(**cfg)
    assert found["VL203"].message.startswith("no max_model_len:")
    fix = found["VL203"].fix
    assert fix is not None and "--" not in fix.description and "max_model_len=" in fix.description


def test_keyword_wording() -> None:
    assert keyword_wording("no --max-model-len: set --max-model-len 8192") == "no max_model_len: set max_model_len=8192"
    assert keyword_wording("--no-enable-prefix-caching turns it off") == "enable_prefix_caching=False turns it off"
    # words that are not vLLM options, and a flag in the middle of a word, stay as written
    assert keyword_wording("pass --not-a-vllm-flag or x--max-model-len") == "pass --not-a-vllm-flag or x--max-model-len"
