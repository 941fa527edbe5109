"""Dockerfiles: instructions (continuations, comments, directives, heredocs), stages, ARG/ENV,
exec-form JSON (also split over lines) and shell-form ENTRYPOINT/CMD, the base image's entry point,
linked entry-point scripts, secrets in ENV, sniffing.

Spans are ``line:col`` (1-based) and every one is checked against the text it points at.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, Reader, lint_paths
from vlint.sources.base import SourceResult
from vlint.sources.containers import dockerfile
from vlint.sources.containers.dockerfile import exec_form, parse_instructions
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.registry import sources_for


def extract(tmp_path: Path, text: str, name: str = "Dockerfile", **files: str) -> SourceResult:
    (tmp_path / name).write_text(textwrap.dedent(text))
    for fname, content in files.items():
        (tmp_path / fname.replace("_dot_", ".")).write_text(textwrap.dedent(content))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(tmp_path / name)
    assert dockerfile.sniff(src)
    result = dockerfile.extract(src, reader.read)
    assert result.error is None, result.error
    return result


def one(tmp_path: Path, text: str, **files: str) -> Invocation:
    (inv,) = extract(tmp_path, text, **files).invocations
    return inv


def argv(inv: Invocation) -> list[str]:
    return [("?" if t.unresolved else "") + t.text for t in inv.args]


def where(tmp_path: Path, tok: Token, name: str = "Dockerfile") -> tuple[str, str]:
    line = (tmp_path / name).read_text().split("\n")[tok.span.line - 1]
    return f"{tok.span.line}:{tok.span.column}", line[tok.span.column - 1 : tok.span.end_column - 1]


# -- instructions --------------------------------------------------------------------------------
def test_instructions_continuations_comments_and_heredocs() -> None:
    text = textwrap.dedent(
        """\
        # syntax=docker/dockerfile:1
        FROM python:3.12 AS base
        RUN apt-get update && \\
        # a comment inside the continuation is dropped
            apt-get install -y git \\

            && echo done
        RUN <<EOF
        FROM not-an-instruction
        EOF
        env A=1
        """
    )
    ins, escape = parse_instructions(text, "Dockerfile")
    assert escape == "\\"
    assert [(i.keyword, i.line) for i in ins] == [("FROM", 2), ("RUN", 3), ("RUN", 8), ("ENV", 11)]
    assert ins[1].args.text == "apt-get update &&     apt-get install -y git     && echo done"


def test_escape_directive() -> None:
    text = "# escape=`\nFROM mcr.microsoft.com/windows\nRUN dir `\n  c:\\\n"
    ins, escape = parse_instructions(text, "Dockerfile")
    assert escape == "`" and [i.keyword for i in ins] == ["FROM", "RUN"]
    assert ins[1].args.text == "dir   c:\\"


def test_exec_form_parsing() -> None:
    assert [m.text for m in exec_form(Mapped.verbatim('["a", "b \\"c\\"", "\\u0041"]'))] == ["a", 'b "c"', "A"]
    assert exec_form(Mapped.verbatim("[]")) == []
    assert exec_form(Mapped.verbatim("[ 'single' ]")) is None  # not JSON: Docker runs it in shell form
    assert exec_form(Mapped.verbatim('["a", 1]')) is None
    assert exec_form(Mapped.verbatim("python -m x")) is None


# -- launches ------------------------------------------------------------------------------------
def test_cmd_args_for_the_vllm_image_entry_point(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        FROM  vllm/vllm-openai:v0.10.2
        ENV HUGGING_FACE_HUB_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH
        CMD ["--host", "0.0.0.0",\\
             "--model", "Qwen/Qwen2.5-0.5B", \\
             "--max-model-len", "8128"]
        """,
    )
    assert inv.program == "image" and inv.label == "Dockerfile CMD"  # a 0.10.x image: either entrypoint
    assert argv(inv) == ["--host", "0.0.0.0", "--model", "Qwen/Qwen2.5-0.5B", "--max-model-len", "8128"]
    assert [where(tmp_path, t) for t in inv.args[2:4]] == [("4:7", "--model"), ("4:18", "Qwen/Qwen2.5-0.5B")]
    assert (inv.span.line, inv.span.column) == (3, 1)
    assert inv.facts["vllm_version"].value == "0.10.2" and inv.facts["image"].value == "vllm/vllm-openai:v0.10.2"
    assert inv.env["HUGGING_FACE_HUB_TOKEN"].span.line == 2


def test_old_and_floating_tags(tmp_path: Path) -> None:
    old = one(tmp_path, 'FROM vllm/vllm-openai:v0.6.3\nCMD ["--model", "m"]\n')
    assert old.program == "api_server"
    latest = one(tmp_path, 'FROM vllm/vllm-openai:latest\nCMD ["--model", "m"]\n')
    assert latest.program == "image" and "vllm_version" not in latest.facts


def test_shell_form_entrypoint_expands_at_run_time(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        FROM vllm/vllm-openai:latest
        ENV PORT 8001
        ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server \\
            --port ${PORT:-8000} \\
            --model ${MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct} \\
            ${REVISION:+--revision "$REVISION"}
        """,
    )
    assert inv.program == "api_server" and inv.label == "Dockerfile ENTRYPOINT"
    assert argv(inv) == [
        "--port",
        "8001",
        "--model",
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        '?${REVISION:+--revision "$REVISION"}',
    ]
    assert inv.opaque_args  # the revision flag may or may not be there
    assert where(tmp_path, inv.args[2]) == ("5:5", "--model")
    assert (inv.span.line, inv.span.column) == (3, 12)  # the python3 word


def test_arg_env_and_stages(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        ARG VLLM_VERSION=v0.10.2
        FROM vllm/vllm-openai:${VLLM_VERSION} AS base
        ARG MODEL=Qwen/Qwen2.5-7B-Instruct
        ENV SERVED="${MODEL}" LEN=8192 \\
            DTYPE=auto
        FROM base AS final
        ENV VLLM_LOGGING_LEVEL=DEBUG
        CMD ["$MODEL", "--max-model-len", "8192"]
        """,
    )
    assert inv.facts["vllm_version"].value == "0.10.2"
    assert inv.program == "image"  # vllm serve or api_server: the 0.10.x entrypoint is not pinned down
    assert argv(inv) == ["$MODEL", "--max-model-len", "8192"]  # exec form: no expansion at all
    assert {k: t.text for k, t in inv.env.items()} == {
        "SERVED": "Qwen/Qwen2.5-7B-Instruct",
        "LEN": "8192",
        "DTYPE": "auto",
        "VLLM_LOGGING_LEVEL": "DEBUG",
    }
    assert where(tmp_path, inv.env["DTYPE"]) == ("5:5", "DTYPE=auto")


def test_build_args_override_arg_defaults(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM x\nARG MODEL=default/model\nENV MODEL=$MODEL\nCMD vllm serve $MODEL\n")
    src = Reader(LintOptions(root=tmp_path)).read(tmp_path / "Dockerfile")
    given = {"MODEL": Token("given/model", src_span(tmp_path), False)}
    cfg = dockerfile.image_config(dockerfile.load_dockerfile(src, given))
    assert cfg is not None and cfg.env["MODEL"].text == "given/model"
    cfg = dockerfile.image_config(dockerfile.load_dockerfile(src))
    assert cfg is not None and cfg.env["MODEL"].text == "default/model"


def src_span(tmp_path: Path) -> Span:
    """Where a build argument given from elsewhere (a compose file) is written."""
    return Span(str(tmp_path / "docker-compose.yml"), 1, 1)


def test_arg_without_value_is_unresolved_in_env(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        FROM nvcr.io/nvidia/cuda:11.8.0-devel-ubuntu22.04
        RUN pip install vllm
        ARG model
        ARG gpu
        ENV model=$model
        ENV gpu=$gpu
        CMD python -m vllm.entrypoints.api_server --model $model --tensor-parallel-size $gpu
        """,
    )
    assert inv.program == "legacy-api-server"
    assert argv(inv) == ["--model", "?$model", "--tensor-parallel-size", "?$gpu"]
    assert inv.env["model"].unresolved and "vllm_version" not in inv.facts


def test_pip_pin_names_the_version(tmp_path: Path) -> None:
    inv = one(tmp_path, 'FROM ubuntu:22.04\nRUN pip install "vllm==0.9.1" torch\nCMD ["vllm", "serve", "m"]\n')
    assert inv.facts["vllm_version"].value == "0.9.1"


def test_entrypoint_reset_and_cleared(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        FROM vllm/vllm-openai:latest
        ENTRYPOINT []
        ENV CTX_SIZE=32768 GPU_UTIL=0.92
        COPY src/handler.py /srv/handler.py
        CMD ["python3", "-u", "/srv/handler.py"]
        """,
    )
    assert res.invocations == []  # the handler starts vLLM; vlint links it instead
    assert ("CTX_SIZE", "32768") in [(n, t.text) for n, t in res.assignments]


def test_entrypoint_without_cmd_drops_the_base_cmd(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        FROM vllm/vllm-openai:v0.10.2 AS base
        CMD ["Qwen/Qwen2.5-7B-Instruct"]
        FROM base
        ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]
        """,
    )
    (inv,) = res.invocations
    assert inv.program == "api_server" and argv(inv) == []


def test_shell_instruction_changes_the_shell(tmp_path: Path) -> None:
    inv = one(tmp_path, 'FROM ubuntu\nSHELL ["/bin/bash", "-lc"]\nCMD vllm serve my/model --max-model-len 4096\n')
    assert inv.program == "vllm serve" and argv(inv) == ["my/model", "--max-model-len", "4096"]


def test_repeated_vllm_serve(tmp_path: Path) -> None:
    inv = one(tmp_path, 'FROM vllm/vllm-openai:v0.10.2\nCMD ["vllm", "serve", "m", "--max-model-len", "4096"]\n')
    assert inv.facts["duplicate_serve"].value == "vllm serve" and argv(inv) == ["m", "--max-model-len", "4096"]


def test_entry_point_script_is_linked(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        FROM nvcr.io/nvidia/cuda:12.1.0-devel-ubuntu22.04 as base
        RUN pip3 install "git+https://github.com/vllm-project/vllm.git"
        COPY entrypoint.sh .
        ENTRYPOINT ["/workspace/entrypoint.sh"]
        """,
        entrypoint_dot_sh='#!/bin/bash\nexec python3 -u -m vllm.entrypoints.openai.api_server "$@"\n',
    )
    assert res.invocations == [] and res.linked == [tmp_path / "entrypoint.sh"]


def test_arg_read_at_run_time(tmp_path: Path) -> None:
    inv = one(
        tmp_path, "FROM vllm/vllm-openai:v0.10.2\nARG MODEL=m\nENTRYPOINT vllm serve $MODEL --max-model-len 8192\n"
    )
    (lost,) = inv.facts["lost_build_args"].value
    assert lost.name == "MODEL" and lost.span.line == 2 and "no ENV copies it" in lost.reason
    assert argv(inv)[0] == "?$MODEL"


def test_secrets_in_env_are_reported(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text(
        "FROM vllm/vllm-openai:v0.10.2\n"
        "ENV HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\n"
        "ARG API_KEY=sk-abcdefghijklmnopqrstuvwx\n"
        'CMD ["m", "--max-model-len", "4096"]\n'
    )
    report = lint_paths([tmp_path / "Dockerfile"], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert [(f.code, f.span.line, f.span.column) for f in report.findings if f.code == "VL502"] == [
        ("VL502", 2, 5),
        ("VL502", 3, 5),
    ]


def test_sniff(tmp_path: Path) -> None:
    reader = Reader(LintOptions(root=tmp_path))
    cases = {
        "Dockerfile": ("RUN x\n", True),
        "Dockerfile.vllm": ("", True),
        "vllm.Dockerfile": ("", True),
        "Containerfile": ("", True),
        "build-recipe": ("# c\n\nARG X=1\nFROM ubuntu\n", True),
        "notes": ("FROM here on, nothing\n", False),
        "serve.sh": ("FROM=1\n", False),
        "README.md": ("FROM ubuntu\n", False),
    }
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text)
        assert dockerfile.sniff(reader.read(tmp_path / name)) is expected, name
    assert [s.name for s in sources_for(reader.read(tmp_path / "Dockerfile.vllm"))] == ["dockerfile"]


def test_not_a_vllm_image(tmp_path: Path) -> None:
    res = extract(tmp_path, 'FROM nginx:1.27\nCMD ["nginx", "-g", "daemon off;"]\n')
    assert res.invocations == []


def test_a_secret_arg_copied_to_env_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text(
        "FROM vllm/vllm-openai:v0.10.2\n"
        "ARG HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\n"
        "ENV HF_TOKEN=$HF_TOKEN\n"
        'CMD ["m", "--max-model-len", "4096"]\n'
    )
    report = lint_paths([tmp_path / "Dockerfile"], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert [(f.span.line, f.span.column) for f in report.findings if f.code == "VL502"] == [(2, 5)]


def test_config_file_copied_into_the_image(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "serve.yaml").write_text("max-model-len: 8192\n")
    res = extract(
        tmp_path,
        """\
        FROM vllm/vllm-openai:v0.10.2
        COPY configs/serve.yaml /etc/vllm/
        CMD ["Qwen/Qwen2.5-7B-Instruct", "--config", "/etc/vllm/serve.yaml"]
        """,
    )
    (inv,) = res.invocations
    assert inv.config is not None and [e.key for e in inv.config.entries] == ["max-model-len"]
    assert res.linked == [tmp_path / "configs" / "serve.yaml"]
    other = one(tmp_path, 'FROM vllm/vllm-openai:v0.10.2\nCMD ["m", "--config", "/etc/elsewhere.yaml"]\n')
    (problem,) = other.problems
    assert problem.code == "VL010" and "nothing maps it from the repository" in problem.message


def test_base_image_without_cmd_or_entrypoint_is_no_launch(tmp_path: Path) -> None:
    # FROM vllm/vllm-openai plus layers: the launch (and its model) is written where the image runs
    assert extract(tmp_path, "FROM vllm/vllm-openai:v0.10.2\nCOPY chat.jinja /app/chat.jinja\n").invocations == []
    multi = "FROM nvidia/cuda:12.4.0-devel-ubuntu22.04 AS build\nRUN make\n"
    multi += "FROM vllm/vllm-openai:v0.10.2\nRUN pip install x\n"
    assert extract(tmp_path, multi).invocations == []


def test_a_cmd_of_its_own_is_still_a_launch(tmp_path: Path) -> None:
    (inv,) = extract(tmp_path, 'FROM vllm/vllm-openai:v0.10.2\nCMD ["--model", "Qwen/Qwen3-8B"]\n').invocations
    assert [t.text for t in inv.args][-1] == "Qwen/Qwen3-8B"
    (inv,) = extract(tmp_path, 'FROM python:3.12\nENTRYPOINT ["vllm", "serve", "Qwen/Qwen3-8B"]\n').invocations
    assert inv.args[0].text == "Qwen/Qwen3-8B"


def test_a_floating_vllm_base_image_is_vl603_without_a_launch(tmp_path: Path) -> None:
    result = extract(tmp_path, "FROM vllm/vllm-openai:latest\nRUN pip install x\n")
    assert result.invocations == []
    (p,) = result.problems
    assert p.code == "VL603" and p.span.line == 1 and "latest" in p.message
    # pinned, or not a vLLM image: nothing
    assert extract(tmp_path, "FROM vllm/vllm-openai:v0.10.2\nRUN pip install x\n").problems == []
    assert extract(tmp_path, "FROM python:latest\nRUN pip install vllm==0.10.2\n").problems == []


def test_a_floating_vllm_base_image_that_runs_something_else_is_vl603(tmp_path: Path) -> None:
    """ENTRYPOINT ["/bin/bash"]: vLLM is started by hand in the image; its floating base is still VL603."""
    result = extract(tmp_path, 'FROM vllm/vllm-openai:latest\nWORKDIR /w\nENTRYPOINT [ "/bin/bash" ]\n')
    assert result.invocations == []
    assert [(p.code, p.span.line) for p in result.problems] == [("VL603", 1)]
    # pinned: nothing; a launch of its own: VL603 comes from the launch, not a second time from the file
    assert extract(tmp_path, 'FROM vllm/vllm-openai:v0.10.2\nENTRYPOINT ["/bin/bash"]\n').problems == []
    launch = extract(tmp_path, 'FROM vllm/vllm-openai:latest\nCMD ["--model", "Qwen/Qwen3-8B"]\n')
    assert len(launch.invocations) == 1 and [p.code for p in launch.problems] == []


# -- an ENTRYPOINT script that runs vLLM with its own arguments, completed by the CMD ---------------
_WRAPPER = (
    "#!/usr/bin/env bash\nset -euo pipefail\n"
    'exec python3 -m vllm.entrypoints.openai.api_server \\\n  --port 8000 \\\n  "$@"\n'
)


def test_cmd_completes_the_entry_point_scripts_launch(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        FROM vllm/vllm-openai:v0.10.2
        COPY entrypoint.sh /entrypoint.sh
        ENTRYPOINT ["/entrypoint.sh"]
        CMD ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"]
        """,
        entrypoint_dot_sh=_WRAPPER,
    )
    # the script's words where the script writes them, the CMD's where the Dockerfile does
    assert argv(inv) == ["--port", "8000", "--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"]
    assert inv.program == "api_server" and not inv.opaque_args
    assert inv.span.path.endswith("entrypoint.sh") and inv.span.line == 3
    assert where(tmp_path, inv.args[3]) == ("4:18", "Qwen/Qwen2.5-7B-Instruct")
    assert inv.facts["vllm_version"].value == "0.10.2" and inv.head is not None and inv.head.line == 3
    assert inv.lines() == (3, 4)  # in the Dockerfile: its ENTRYPOINT and CMD


def test_a_script_completed_by_its_dockerfile_is_checked_there_once(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text(
        'FROM vllm/vllm-openai:v0.10.2\nCOPY entrypoint.sh /entrypoint.sh\nENTRYPOINT ["/entrypoint.sh"]\n'
        'CMD ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096", "--no-such-flag"]\n'
    )
    (tmp_path / "entrypoint.sh").write_text(_WRAPPER)
    engine = Engine(load_catalog())
    for jobs in (1, 2):
        report = lint_paths([tmp_path], engine, LintOptions(root=tmp_path, jobs=jobs, auto_jobs=False))
        by_path = {Path(fr.path).name: fr for fr in report.files}
        assert (by_path["Dockerfile"].launches, by_path["entrypoint.sh"].launches) == (1, 0), jobs
        assert by_path["entrypoint.sh"].notes == (
            'its vLLM launch takes the arguments the script is run with ("$@"): checked in '
            f"{by_path['Dockerfile'].path}, which runs it with them",
        )
        (dep,) = by_path["Dockerfile"].deployments
        assert dep.model == "Qwen/Qwen2.5-7B-Instruct"
        unknown = [f for f in report.findings if f.code == "VL001"]
        assert [(Path(f.span.path).name, f.span.line, f.severity) for f in unknown] == [("Dockerfile", 4, "error")]


def test_no_cmd_no_script_or_no_caller_args_builds_nothing_new(tmp_path: Path) -> None:
    # no CMD: the arguments come from docker run / a pod's args; the script keeps its own launch
    res = extract(
        tmp_path,
        'FROM vllm/vllm-openai:v0.10.2\nCOPY entrypoint.sh /entrypoint.sh\nENTRYPOINT ["/entrypoint.sh"]\n',
        entrypoint_dot_sh=_WRAPPER,
    )
    assert res.invocations == [] and res.completes == [] and res.linked == [tmp_path / "entrypoint.sh"]
    # the script is not copied in from the repository: nothing is read
    res = extract(
        tmp_path,
        'FROM vllm/vllm-openai:v0.10.2\nENTRYPOINT ["/entrypoint.sh"]\nCMD ["--model", "m"]\n',
        entrypoint_dot_sh=_WRAPPER,
    )
    assert res.invocations == [] and res.completes == []
    # the script's launch does not take its arguments: the CMD does not go into it
    res = extract(
        tmp_path,
        'FROM vllm/vllm-openai:v0.10.2\nCOPY entrypoint.sh /entrypoint.sh\nENTRYPOINT ["/entrypoint.sh"]\n'
        'CMD ["--model", "m"]\n',
        entrypoint_dot_sh="#!/bin/sh\nexec vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000\n",
    )
    assert res.invocations == [] and res.completes == []
