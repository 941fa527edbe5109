"""A small synthetic vLLM argument spec, shaped like vLLM 0.33.0's ``vllm serve`` parser, and helpers
to parse argv / config files against it (no bundled schema needed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from vlint.argspec.parse import ParsedArgs, parse_invocation
from vlint.argspec.spec import ArgSpec, Argument
from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.core.version import Version
from vlint.sources.vllm_yaml import load_config


def arg(dest: str, *opts: str, **kw: Any) -> Argument:
    if kw.get("positional"):
        return Argument(dest=dest, name=dest, option_strings=(), **kw)
    return Argument(dest=dest, name=opts[0], option_strings=opts, **kw)


def toggle(dest: str, opt: str, *negatives: str) -> Argument:
    """An EnableDisableAction / BooleanOptionalAction flag (``--x`` / ``--no-x`` / ``--disable-x``)."""
    return arg(
        dest, opt, action="enable_disable", kind="none", negative_option_strings=negatives or ("--no-" + opt[2:],)
    )


ARGUMENTS = [
    arg("model_tag", positional=True, nargs="?"),
    arg("model", "--model"),
    arg("config", "--config"),
    arg("max_model_len", "--max-model-len", kind="human_int_or_auto"),
    arg("max_num_batched_tokens", "--max-num-batched-tokens", kind="human_int"),
    arg("max_num_seqs", "--max-num-seqs", kind="int"),
    arg("max_num_partial_prefills", "--max-num-partial-prefills", kind="int"),
    arg("tensor_parallel_size", "--tensor-parallel-size", "-tp", kind="int"),
    arg("gpu_memory_utilization", "--gpu-memory-utilization", "--device-memory-utilization", kind="float"),
    arg("dtype", "--dtype", choices=("auto", "half", "float16", "bfloat16", "float", "float32")),
    arg("quantization", "--quantization", "-q", optional=True),
    arg("seed", "--seed", kind="int"),
    arg("port", "--port", kind="int"),
    arg("served_model_name", "--served-model-name", nargs="+", optional=True),
    arg("api_key", "--api-key", nargs="+", optional=True),
    arg("allowed_origins", "--allowed-origins", kind="json"),
    arg("compilation_config", "--compilation-config", "-cc", kind="json"),
    arg("speculative_config", "--speculative-config", kind="json", optional=True),
    arg("optimization_level", "--optimization-level"),
    toggle(
        "enable_chunked_prefill", "--enable-chunked-prefill", "--no-enable-chunked-prefill", "--disable-chunked-prefill"
    ),
    toggle("enable_prefix_caching", "--enable-prefix-caching"),
    toggle("enforce_eager", "--enforce-eager"),
    toggle("trust_remote_code", "--trust-remote-code"),
    arg("disable_log_stats", "--disable-log-stats", action="store_true", kind="none"),
    arg("headless", "--headless", action="store_true", kind="none"),
]


def make_spec(version: str = "0.33.0", arguments: list[Argument] | None = None) -> ArgSpec:
    return ArgSpec(version=Version.parse(version), arguments=list(arguments or ARGUMENTS))


def tokens(words: list[str | tuple[str, bool]], line: int = 1) -> list[Token]:
    """argv words as tokens on one line (a ``(text, True)`` tuple is an unresolved word)."""
    out: list[Token] = []
    col = 1
    for w in words:
        text, unresolved = w if isinstance(w, tuple) else (w, False)
        out.append(Token(text, Span("start.sh", line, col, line, col + len(text)), unresolved))
        col += len(text) + 1
    return out


Parse = Callable[..., ParsedArgs]


@pytest.fixture
def spec() -> ArgSpec:
    return make_spec()


@pytest.fixture
def parse(spec: ArgSpec) -> Parse:
    """parse(argv, program="vllm serve", config=None, version=None, opaque=False) → ParsedArgs."""

    def run(
        words: list[str | tuple[str, bool]],
        program: str = "vllm serve",
        config: str | None = None,
        version: str | None = None,
        opaque: bool = False,
    ) -> ParsedArgs:
        inv = Invocation(source="shell", program=program, span=Span("start.sh", 1, 1), args=tokens(words))
        if config is not None:
            inv.config = load_config(config, "serve.yaml")
        inv.opaque_args = opaque
        return parse_invocation(inv, make_spec(version) if version else spec)

    return run


@pytest.fixture
def spec_factory() -> Callable[..., ArgSpec]:
    """make_spec(version="0.33.0", arguments=None) for tests that need another version or arguments."""
    return make_spec
