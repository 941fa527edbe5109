"""Python: ``LLM(...)``/``EngineArgs(...)``/``AsyncEngineArgs(...)`` found with ``ast`` (never imported
or executed), static values, ``subprocess`` launches of ``vllm serve``, negative controls, spans.

Spans are ``line:col`` (1-based, characters not bytes) and are checked against the text they name.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from vlint.core.invocation import LLM_CLASS, Entry, Invocation, Token
from vlint.run.lint import LintOptions, Reader
from vlint.sources import python_ast
from vlint.sources.base import SourceResult
from vlint.sources.registry import sources_for


def extract(tmp_path: Path, text: str, name: str = "app.py", **files: str) -> SourceResult:
    (tmp_path / name).write_text(textwrap.dedent(text))
    for fname, content in files.items():
        (tmp_path / f"{fname}.py").write_text(textwrap.dedent(content))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(tmp_path / name)
    assert python_ast.sniff(src)
    return python_ast.extract(src, reader.read)


def launches(tmp_path: Path, text: str, **files: str) -> list[Invocation]:
    result = extract(tmp_path, text, **files)
    assert result.error is None, result.error
    return result.invocations


def one(tmp_path: Path, text: str, **files: str) -> Invocation:
    (inv,) = launches(tmp_path, text, **files)
    return inv


def kwargs(inv: Invocation) -> dict[str, Any]:
    return {e.key: ("?" + str(e.value) if e.unresolved else e.value) for e in inv.kwargs}


def argv(inv: Invocation) -> list[str]:
    return [("?" if t.unresolved else "") + t.text for t in inv.args]


def where(tmp_path: Path, item: Entry | Token, name: str = "app.py") -> tuple[str, str]:
    span = item.key_span if isinstance(item, Entry) else item.span
    line = (tmp_path / name).read_text().split("\n")[span.line - 1]
    return f"{span.line}:{span.column}", line[span.column - 1 : span.end_column - 1]


def test_llm_with_literals_constants_and_spans(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        from vllm import LLM, SamplingParams

        # Modeli yükle
        model_name = "Qwen/Qwen2-7B-Instruct"
        spec = {"method": "ngram", "num_speculative_tokens": 3}
        llm = LLM(
            model=model_name,
            trust_remote_code=True,  # "Required"
            gpu_memory_utilization=.95, max_model_len=5608,
            speculative_config=spec,
        )
        """,
    )
    assert inv.program == "LLM" and inv.source == "python" and inv.usage_context == LLM_CLASS and inv.label == "LLM"
    assert kwargs(inv) == {
        "model": "Qwen/Qwen2-7B-Instruct",
        "trust_remote_code": True,
        "gpu_memory_utilization": 0.95,
        "max_model_len": 5608,
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 3},
    }
    assert where(tmp_path, inv.kwargs[3]) == ("9:33", "max_model_len")
    value = inv.kwargs[2].value_span
    assert (value.line, value.column, value.end_column) == (9, 28, 31)  # .95
    assert (inv.span.line, inv.span.column) == (6, 7)


def test_columns_count_characters_not_bytes(tmp_path: Path) -> None:
    inv = one(tmp_path, 'from vllm import LLM\nllm = LLM("ünïcödé/modèl", max_model_len=2048)  # ü\n')
    assert where(tmp_path, inv.kwargs[1]) == ("2:28", "max_model_len")
    assert kwargs(inv)["model"] == "ünïcödé/modèl"  # the first positional argument is the model


def test_module_import_alias_and_engine_args(tmp_path: Path) -> None:
    res = launches(
        tmp_path,
        """\
        import vllm
        import vllm as v
        from vllm.engine.arg_utils import AsyncEngineArgs as AEA
        from vllm import EngineArgs

        a = vllm.LLM(model="m1")
        b = v.LLM("m2", tensor_parallel_size=2)
        c = vllm.engine.arg_utils.EngineArgs(model="m3")
        d = AEA(model="m4", enforce_eager=True)
        e = EngineArgs(model="m5")
        """,
    )
    assert [(i.label, kwargs(i)["model"], i.usage_context) for i in res] == [
        ("LLM", "m1", LLM_CLASS),
        ("LLM", "m2", LLM_CLASS),
        ("EngineArgs", "m3", python_ast.ENGINE_CONTEXT),
        ("AsyncEngineArgs", "m4", python_ast.ENGINE_CONTEXT),
        ("EngineArgs", "m5", python_ast.ENGINE_CONTEXT),
    ]


def test_unresolved_values_keep_their_source_text(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        import os
        from vllm import LLM

        def load_model(model_path: str, gpu_memory_utilization: float):
            llm = LLM(model=model_path, gpu_memory_utilization=gpu_memory_utilization,
                      max_model_len=int(os.getenv("CTX", 8192)), dtype=os.environ["DTYPE"],
                      seed=os.getenv("SEED"))
            return llm
        """,
    )
    assert kwargs(inv) == {
        "model": "?model_path",
        "gpu_memory_utilization": "?gpu_memory_utilization",
        "max_model_len": 8192,  # os.getenv's default is what runs unless the environment says otherwise
        "dtype": '?os.environ["DTYPE"]',
        "seed": '?os.getenv("SEED")',
    }


def test_kwargs_spread_and_positional_extras(tmp_path: Path) -> None:
    res = launches(
        tmp_path,
        """\
        from vllm import LLM
        CFG = dict(model="m", max_model_len=4096)
        a = LLM(**CFG)
        b = LLM(**load_config())
        c = LLM("m", "tokenizer")
        """,
    )
    a, b, c = res
    assert kwargs(a) == {"model": "m", "max_model_len": 4096} and not a.opaque_args
    assert kwargs(b) == {} and b.opaque_args
    assert kwargs(c) == {"model": "m"} and c.opaque_args


def test_sibling_module_constants(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        from vllm import AsyncEngineArgs
        import config

        engine_args = AsyncEngineArgs(model=config.MODEL_PATH, max_model_len=config.MAX_MODEL_LEN,
                                      quantization=config.MISSING)
        """,
        config="""\
        import os
        MODEL_PATH = os.getenv("MODEL_PATH", "/default/model/path")
        MAX_MODEL_LEN = int(os.getenv("MAX_MODEL_LEN", 8192))
        """,
    )
    (inv,) = res.invocations
    assert kwargs(inv) == {"model": "/default/model/path", "max_model_len": 8192, "quantization": "?config.MISSING"}
    assert res.linked == [tmp_path / "config.py"]


def test_subprocess_argv_list_built_in_steps(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        import os
        import shutil
        import subprocess

        MODEL = os.environ.get("MODEL_REPO", "quocbao747/Qwen3.8-27B")
        CTX_SIZE = int(os.environ.get("CTX_SIZE", "32768"))
        FAST_BOOT = True
        N_GPU = 2

        def serve():
            binp = shutil.which("vllm") or "vllm"
            cmd = [binp, "serve", MODEL, "--max-model-len", str(CTX_SIZE)]
            cmd += ["--enforce-eager" if FAST_BOOT else "--no-enforce-eager"]
            cmd.append("--tensor-parallel-size")
            cmd.extend([str(N_GPU)])
            subprocess.Popen(cmd, env=dict(os.environ))
        """,
    )
    assert inv.program == "vllm serve" and inv.source == "python" and inv.label == "subprocess"
    assert argv(inv) == [
        "quocbao747/Qwen3.8-27B",
        "--max-model-len",
        "32768",
        "--enforce-eager",
        "--tensor-parallel-size",
        "2",
    ]
    assert [where(tmp_path, t) for t in inv.args[:3]] == [
        ("12:27", "MODEL"),
        ("12:34", '"--max-model-len"'),
        ("12:53", "str(CTX_SIZE)"),
    ]
    assert not inv.opaque_args


def test_subprocess_under_unknown_conditions_and_shell_strings(tmp_path: Path) -> None:
    res = launches(
        tmp_path,
        """\
        import os, subprocess
        from subprocess import run

        cmd = ["vllm", "serve", "m"]
        if os.environ.get("REASONING_PARSER"):
            cmd += ["--reasoning-parser", os.environ["REASONING_PARSER"]]
        subprocess.Popen(cmd)
        subprocess.Popen(" ".join(["vllm", "serve", "m2", "--max-model-len", "1024"]), shell=True)
        os.system("vllm serve m3 --max-model-len 2048")
        run(["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m4"])
        subprocess.run(["python", "-m", "sglang.launch_server", "--model-path", "m5", "--tp", "2"])
        subprocess.run(["echo", "vllm serve not-a-launch"])
        """,
    )
    assert [(i.program, argv(i)) for i in res] == [
        ("vllm serve", ["m", "?${…}"]),
        ("vllm serve", ["m2", "--max-model-len", "1024"]),
        ("vllm serve", ["m3", "--max-model-len", "2048"]),
        ("api_server", ["--model", "m4"]),
    ]
    assert res[0].opaque_args and not res[1].opaque_args
    assert res[2].args[0].span.line == 9


@pytest.mark.parametrize(
    "text",
    [
        # another library's LLM class
        "from langchain_community.llms import VLLM\nfrom mylib import LLM\nLLM(model='m')\nVLLM(model='m')\n",
        # SGLang
        "import sglang as sgl\nllm = sgl.Engine(model_path='m', tp_size=2)\n# not vllm serve\n",
        # a name LLM that is not imported from vllm
        "import vllm\nclass LLM: pass\nLLM(model='m')\n",
    ],
)
def test_lookalikes_are_not_vllm(tmp_path: Path, text: str) -> None:
    (tmp_path / "app.py").write_text(text)
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(tmp_path / "app.py")
    assert python_ast.extract(src, reader.read).invocations == []


def test_never_executed_or_imported(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        import this_module_does_not_exist_anywhere
        from vllm import LLM
        raise SystemExit("executing this file would stop here")
        LLM(model="m", max_model_len=4096)
        """,
    )
    assert kwargs(inv) == {"model": "m", "max_model_len": 4096}


def test_syntax_error_is_a_file_error(tmp_path: Path) -> None:
    result = extract(tmp_path, "from vllm import LLM\nLLM(model='m'\n")
    assert result.error is not None and result.error.line is not None and "syntax" in result.error.message.lower()


def test_sniff(tmp_path: Path) -> None:
    reader = Reader(LintOptions(root=tmp_path))
    for name, text, ok in (
        ("a.py", "from vllm import LLM\n", True),
        ("b.py", "import subprocess\nsubprocess.run(['vllm', 'serve', 'm'])\n", True),
        ("c.py", "from ray.serve.llm import LLMConfig\n", True),
        ("d.py", "import os\nMODEL_PATH = os.getenv('MODEL_PATH')\n", False),
        ("e.txt", "from vllm import LLM\n", False),
    ):
        (tmp_path / name).write_text(text)
        assert python_ast.sniff(reader.read(tmp_path / name)) is ok, name
    assert [s.name for s in sources_for(reader.read(tmp_path / "a.py"))] == ["python"]


# -- a construction retried word for word is one launch ---------------------------------------------


def test_a_retried_engine_construction_is_one_launch(tmp_path: Path) -> None:
    text = """\
        from vllm import AsyncEngineArgs

        def build(cfg):
            attempt = dict(cfg)
            for _ in range(5):
                try:
                    args = AsyncEngineArgs(**attempt)
                    break
                except TypeError:
                    attempt.pop("x", None)
            else:
                args = AsyncEngineArgs(**attempt)
            return args
        """
    (inv,) = launches(tmp_path, text)
    assert inv.span.line == 7  # the first construction


def test_identical_constructions_in_two_functions_stay_two(tmp_path: Path) -> None:
    text = """\
        from vllm import LLM

        def small():
            cfg = {"model": "Qwen/Qwen2.5-0.5B-Instruct"}
            return LLM(**cfg)

        def large():
            cfg = {"model": "Qwen/Qwen2.5-7B-Instruct"}
            return LLM(**cfg)
        """
    assert [i.span.line for i in launches(tmp_path, text)] == [5, 9]


def test_different_constructions_in_one_function_stay_two(tmp_path: Path) -> None:
    text = """\
        from vllm import LLM

        def both():
            a = LLM(model="Qwen/Qwen2.5-0.5B-Instruct")
            b = LLM(model="Qwen/Qwen2.5-7B-Instruct")
            return a, b
        """
    assert len(launches(tmp_path, text)) == 2


# -- parameters of a function the module calls ------------------------------------------------------
LAUNCHER = textwrap.dedent("""\
    import subprocess

    def launch(model: str = "Qwen/Qwen2.5-7B-Instruct", tp: int = 1, max_len=None, *, port="8000"):
        cmd = ["vllm", "serve", model, "--tensor-parallel-size", str(tp), "--port", port]
        if max_len is not None:
            cmd += ["--max-model-len", str(max_len)]
        return subprocess.Popen(cmd)
""")


@pytest.mark.parametrize(
    ("call", "words"),
    [
        # the module's one call: its arguments, else the defaults (the value written at the def)
        ("launch()", ["Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "1", "--port", "8000"]),
        ("launch('m', 2, 4096)", ["m", "--tensor-parallel-size", "2", "--port", "8000", "--max-model-len", "4096"]),
        ("launch(tp=4, port='9000')", ["Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "4", "--port", "9000"]),
    ],
)
def test_parameters_of_a_function_the_module_calls_once(tmp_path: Path, call: str, words: list[str]) -> None:
    inv = one(tmp_path, LAUNCHER + f'\nif __name__ == "__main__":\n    {call}\n')
    assert argv(inv) == words


@pytest.mark.parametrize(
    "calls",
    [
        "",  # never called here: a library function, whoever calls it gives the values
        "launch()\nlaunch('other/model')\n",  # two calls: two launches vlint cannot tell apart
        "launch(**CONFIG)\n",  # arguments vlint cannot see
        "launch('m', 2, 4096, 5)\n",  # a call that fails (too many arguments)
        "launch(nope=1)\n",  # a call that fails (an unknown keyword)
    ],
)
def test_parameters_stay_unknown_without_one_readable_call(tmp_path: Path, calls: str) -> None:
    inv = one(tmp_path, LAUNCHER + "\nCONFIG = {}\n" + calls)
    assert argv(inv)[0] == "?model"


def test_a_method_is_not_bound_by_a_plain_call(tmp_path: Path) -> None:
    text = (
        "import subprocess\n"
        "class Server:\n"
        "    def launch(self, model='Qwen/Qwen2.5-7B-Instruct'):\n"
        "        subprocess.Popen(['vllm', 'serve', model])\n"
        "def launch(model='x'):\n"
        "    pass\n"
        "launch()\n"
    )
    inv = one(tmp_path, text)
    assert argv(inv)[0] == "?model"
