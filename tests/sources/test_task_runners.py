"""Makefiles, justfiles, Taskfiles, Procfiles, systemd units and supervisord programs: the launches in
each, with the variables the tool fills in, the environment it passes, and spans that point at the
text in the file (fixtures written in the style of real repositories' files)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.core.invocation import Invocation, Token
from vlint.run.lint import LintOptions, Reader
from vlint.security.lint_root import LintRoot
from vlint.sources.base import SourceResult
from vlint.sources.registry import sources_for
from vlint.sources.scripts import justfile, makefile, procfile, supervisord, systemd, taskfile


def extract(tmp_path: Path, module: object, text: str, name: str, files: dict[str, str] | None = None) -> SourceResult:
    for rel, content in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    reader = Reader(LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve())))
    src = reader.read(path)
    assert module.sniff(src), name  # type: ignore[attr-defined]
    assert sources_for(src)[0].name == module.NAME  # type: ignore[attr-defined]
    result = module.extract(src, reader.read_linked)  # type: ignore[attr-defined]
    assert result.error is None, result.error
    return result


def argv(inv: Invocation) -> list[str]:
    return [("?" if t.unresolved else "") + t.text for t in inv.args]


def at(path: Path, tok: Token) -> str:
    """The file text a token's span covers (first line)."""
    line = path.read_text().split("\n")[tok.span.line - 1]
    end = tok.span.end_column if tok.span.end_line == tok.span.line else len(line) + 1
    return line[tok.span.column - 1 : end - 1]


# -- Makefile ------------------------------------------------------------------------------------
MAKEFILE = """\
# Serving targets for the demo
MODEL ?= meta-llama/Llama-3.1-8B-Instruct
TP := 2
PORT = 8000
ARGS = --max-model-len 8192 \\
       --gpu-memory-utilization 0.9   # tuned on L4
export VLLM_LOGGING_LEVEL = DEBUG
GIT_SHA = $(shell git rev-parse HEAD)

.PHONY: serve serve-docker lint

serve: ## run the OpenAI server locally
\t@echo "serving $(MODEL) at $(GIT_SHA)"
\tvllm serve $(MODEL) \\
\t  --tensor-parallel-size $(TP) \\
\t  --port $(PORT) $(ARGS) --served-model-name $$SERVED_NAME

serve-docker:
\t-docker run --rm --gpus all -p $(PORT):8000 vllm/vllm-openai:v0.10.2 --model $(MODEL) $(EXTRA)

lint: ; vlint .
"""


def test_makefile_recipes(tmp_path: Path) -> None:
    r = extract(tmp_path, makefile, MAKEFILE, "Makefile")
    assert len(r.invocations) == 2
    serve, docker = r.invocations
    assert serve.label == "make target serve"
    assert argv(serve) == [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size",
        "2",
        "--port",
        "8000",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.9",
        "--served-model-name",
        "?$SERVED_NAME",
    ]
    # make's $(VAR) stands where it is written; the flags written in the recipe point at themselves
    path = tmp_path / "Makefile"
    assert at(path, serve.args[0]) == "$(MODEL)"
    assert at(path, serve.args[1]) == "--tensor-parallel-size"
    assert serve.args[1].span.line == 15
    # only exported variables reach the recipe's environment
    assert set(serve.env) == {"VLLM_LOGGING_LEVEL"} and serve.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
    assert docker.facts["image"].value == "vllm/vllm-openai:v0.10.2"
    assert argv(docker)[-1] == "?$(EXTRA)" and docker.opaque_args  # not set anywhere: the environment's


def test_makefile_backslash_that_ends_the_file_is_not_an_argument(tmp_path: Path) -> None:
    """make continues the last recipe line onto nothing: the shell never sees the backslash (GNU make
    4.3 runs ``echo a`` for ``x:\\n\\techo a \\`` at the end of the file); one before a newline is the
    usual continuation, and an escaped one (``\\\\``) stays."""
    r = extract(tmp_path, makefile, "serve:\n\tvllm serve m \\\n\t\t--port 9000 \\", "Makefile")
    (inv,) = r.invocations
    assert argv(inv) == ["m", "--port", "9000"]
    r = extract(tmp_path, makefile, "serve:\n\tvllm serve m --served-model-name a\\\\\n", "Makefile")
    (inv,) = r.invocations
    assert argv(inv)[-1] == "a\\"


def test_makefile_include_is_read_inside_the_root_only(tmp_path: Path) -> None:
    text = "include config.mk\ninclude ../../outside.mk\nserve:\n\tvllm serve $(MODEL) --max-model-len $(LEN)\n"
    (tmp_path.parent / "outside.mk").write_text("LEN = 1\n")
    r = extract(tmp_path / "repo", makefile, text, "Makefile", {"config.mk": "MODEL := Qwen/Qwen3-8B\n"})
    (inv,) = r.invocations
    assert argv(inv) == ["Qwen/Qwen3-8B", "--max-model-len", "?$(LEN)"]
    assert [p.code for p in r.problems] == ["VL060"] and r.problems[0].span.line == 2


def test_makefile_expansion_is_bounded(tmp_path: Path) -> None:
    # every level doubles: 2**40 characters if expanded without a budget
    lines = [f"V{i} = $(V{i + 1})$(V{i + 1})" for i in range(40)] + ["V40 = x", "serve:", "\tvllm serve $(V0)"]
    r = extract(tmp_path, makefile, "\n".join(lines) + "\n", "Makefile")
    (inv,) = r.invocations
    assert inv.args[0].unresolved or len(inv.args[0].text) <= 1_100_000


# -- justfile, Taskfile --------------------------------------------------------------------------
JUSTFILE = """\
set dotenv-load

model := "Qwen/Qwen2.5-7B-Instruct"
export HF_HOME := "/srv/hf"

# start the server
serve port="8000" tp="2":
    @echo "serving {{model}}"
    vllm serve {{model}} --port {{port}} --tensor-parallel-size {{tp}} --max-model-len 4096

bench *args:
    vllm bench serve {{args}}
"""


def test_justfile_recipes(tmp_path: Path) -> None:
    r = extract(tmp_path, justfile, JUSTFILE, "justfile")
    (inv,) = r.invocations
    assert inv.label == "just recipe serve"
    assert argv(inv) == [
        "Qwen/Qwen2.5-7B-Instruct",
        "--port",
        "8000",
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
        "4096",
    ]
    assert at(tmp_path / "justfile", inv.args[0]) == "{{model}}"
    assert inv.env["HF_HOME"].text == "/srv/hf"


TASKFILE = """\
version: '3'
vars:
  MODEL: meta-llama/Llama-3.1-8B-Instruct
env:
  VLLM_WORKER_MULTIPROC_METHOD: spawn
tasks:
  serve:
    desc: Run vLLM
    vars:
      LEN: "16384"
    cmds:
      - echo "{{.MODEL}}"
      - vllm serve {{.MODEL}} --max-model-len {{.LEN}} {{.CLI_ARGS}}
  health:
    cmds:
      - cmd: docker inspect -f '{{.State.Running}}' vllm
"""


def test_taskfile_tasks(tmp_path: Path) -> None:
    r = extract(tmp_path, taskfile, TASKFILE, "Taskfile.yml")
    (inv,) = r.invocations
    assert argv(inv) == ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384", "?{{.CLI_ARGS}}"]
    assert inv.opaque_args  # task's CLI_ARGS may add any flag
    assert inv.env["VLLM_WORKER_MULTIPROC_METHOD"].text == "spawn"
    assert at(tmp_path / "Taskfile.yml", inv.args[2]) == "{{.LEN}}"


# -- Procfile, systemd, supervisord --------------------------------------------------------------
def test_procfile(tmp_path: Path) -> None:
    text = "# foreman\nweb: vllm serve Qwen/Qwen3-8B --port $PORT --max-num-seqs 64\nworker: python worker.py\n"
    r = extract(tmp_path, procfile, text, "Procfile")
    (inv,) = r.invocations
    assert inv.label == "process web"
    assert argv(inv) == ["Qwen/Qwen3-8B", "--port", "?$PORT", "--max-num-seqs", "64"]
    assert inv.args[3].span.line == 2 and at(tmp_path / "Procfile", inv.args[3]) == "--max-num-seqs"


UNIT = """\
[Unit]
Description=vLLM OpenAI-compatible server
After=network-online.target

[Service]
User=vllm
Environment="MODEL=Qwen/Qwen2.5-7B-Instruct" HF_HOME=/srv/hf
Environment=VLLM_LOGGING_LEVEL=INFO
EnvironmentFile=-/etc/default/vllm
EnvironmentFile=vllm.env
ExecStartPre=/usr/bin/nvidia-smi
ExecStart=
ExecStart=/opt/vllm/bin/vllm serve ${MODEL} \\
    --max-model-len 32768 \\
    # a comment line inside the continuation is skipped
    --port %i --served-model-name 100%%
Restart=always

[Install]
WantedBy=multi-user.target
"""


def test_systemd_unit(tmp_path: Path) -> None:
    r = extract(
        tmp_path,
        systemd,
        UNIT,
        "deploy/vllm@.service",
        {"deploy/vllm.env": "HF_TOKEN=hf_0123456789abcdefghijklmnopqrstuv\n"},
    )
    (inv,) = r.invocations
    assert inv.label == "ExecStart of vllm@.service"
    assert argv(inv) == [
        "Qwen/Qwen2.5-7B-Instruct",
        "--max-model-len",
        "32768",
        "--port",
        "?%i",
        "--served-model-name",
        "100%",
    ]
    assert inv.args[1].span.line == 14
    assert inv.env["HF_TOKEN"].text.startswith("hf_")  # from the EnvironmentFile, for the secret rules
    assert ("HF_TOKEN", inv.env["HF_TOKEN"]) in r.assignments
    # the host path is not read (outside the lint root), and says so on its line
    assert [(p.code, p.span.line) for p in r.problems] == [("VL060", 9)]
    assert r.linked == [(tmp_path / "deploy/vllm.env").resolve()] or r.linked[0].name == "vllm.env"


def test_systemd_exec_prefixes(tmp_path: Path) -> None:
    text = "[Service]\nExecStart=@-/usr/bin/python3 vllm-server -m vllm.entrypoints.openai.api_server --model x/y\n"
    r = extract(tmp_path, systemd, text, "a.service")
    (inv,) = r.invocations
    assert inv.program == "api_server" and argv(inv) == ["--model", "x/y"]


SUPERVISOR = """\
[supervisord]
nodaemon=true

[program:vllm]
command=/usr/local/bin/python3 -m vllm.entrypoints.openai.api_server
    --model %(ENV_MODEL)s
    --max-model-len 8192 --max-num-seqs 32   ; tuned for one A10G
directory=%(here)s
environment=VLLM_LOGGING_LEVEL="INFO",HF_HOME="/data/hf"
autorestart=true

[program:router]
command=/usr/local/bin/router --port 9000
"""


def test_supervisord_program(tmp_path: Path) -> None:
    r = extract(tmp_path, supervisord, SUPERVISOR, "conf.d/vllm.conf")
    (inv,) = r.invocations
    assert inv.label == "program vllm" and inv.program == "api_server"
    assert argv(inv) == ["--model", "?%(ENV_MODEL)s", "--max-model-len", "8192", "--max-num-seqs", "32"]
    assert inv.args[2].span.line == 7 and at(tmp_path / "conf.d/vllm.conf", inv.args[2]) == "--max-model-len"
    assert {k: t.text for k, t in inv.env.items()} == {"VLLM_LOGGING_LEVEL": "INFO", "HF_HOME": "/data/hf"}


def test_conf_without_programs_is_not_supervisord(tmp_path: Path) -> None:
    path = tmp_path / "nginx.conf"
    path.write_text("upstream vllm { server vllm:8000; }\n")
    src = Reader(LintOptions(root=tmp_path)).read(path)
    assert not supervisord.sniff(src) and sources_for(src) == []
