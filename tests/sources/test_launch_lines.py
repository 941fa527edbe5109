"""Invocation.lines(): the lines a launch is written on, from the key or word its command starts at
(compose ``command:``/``entrypoint:``, a container's ``command:``/``args:``, ``docker run``, the argv
list of a Python script) to its last argument. The JSON report gives it as ``deployments[].lines``."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.run.lint import LintOptions, Reader
from vlint.sources.containers import compose
from vlint.sources.kube import kubernetes
from vlint.sources.python_ast import extract as py_extract
from vlint.sources.scripts import shell


def _read(tmp_path: Path, name: str, text: str):
    (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    reader = Reader(LintOptions(root=tmp_path))
    return reader.read(tmp_path / name), reader.read


def _one(result) -> Invocation:
    assert result.error is None, result.error
    (inv,) = result.invocations
    return inv


def test_compose_command_key_starts_the_launch(tmp_path: Path) -> None:
    src, read = _read(
        tmp_path,
        "docker-compose.yml",
        """
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            environment:
              - HF_HOME=/cache
            command:
              - --model
              - Qwen/Qwen2.5-7B-Instruct
              - --max-model-len
              - "8192"
        """,
    )
    inv = _one(compose.extract(src, read))
    assert inv.lines() == (6, 10)  # `command:` to the last argument; the anchor stays where it was
    assert inv.head is not None and inv.head.line == 6


def test_compose_entrypoint_key_when_the_service_sets_one(tmp_path: Path) -> None:
    src, read = _read(
        tmp_path,
        "docker-compose.yml",
        """
        services:
          model:
            image: acme/llm:1
            entrypoint:
              - python3
              - -m
              - vllm.entrypoints.openai.api_server
            command:
              - --model
              - /model
        """,
    )
    assert _one(compose.extract(src, read)).lines() == (4, 10)


def test_compose_without_command_starts_at_the_service_key(tmp_path: Path) -> None:
    # the launch is the image's own CMD
    src, read = _read(
        tmp_path,
        "docker-compose.yml",
        """
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            ports: ["8000:8000"]
        """,
    )
    (inv,) = compose.extract(src, read).invocations
    # the service is the launch as written: its key starts it
    assert inv.head is not None and inv.head.line == 2 and inv.lines()[0] == 2


def test_container_args_key_and_image_are_inside(tmp_path: Path) -> None:
    src, read = _read(
        tmp_path,
        "deploy.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: llm}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.2
                  env:
                    - {name: A, value: "1"}
                  args:
                    - --model=Qwen/Qwen2.5-7B-Instruct
                    - --max-model-len=8192
        """,
    )
    inv = _one(kubernetes.extract(src, read))
    first, last = inv.lines()
    assert first <= 9 and last == 14 and first <= 12 <= last  # the image, the `args:` key, the arguments


def test_docker_run_word_starts_a_shell_launch(tmp_path: Path) -> None:
    src, read = _read(
        tmp_path,
        "run.sh",
        """
        #!/bin/sh
        docker run -d --gpus all \\
          -p 8000:8000 \\
          vllm/vllm-openai:v0.10.2 \\
          --model Qwen/Qwen3-8B
        """,
    )
    inv = _one(shell.extract(src, read))
    assert inv.span.line == 4  # the anchor: the image that runs vLLM
    assert inv.lines() == (2, 5)


def test_plain_vllm_serve_head_is_the_command_itself(tmp_path: Path) -> None:
    src, read = _read(tmp_path, "run.sh", "vllm serve Qwen/Qwen3-8B \\\n  --max-model-len 4096\n")
    inv = _one(shell.extract(src, read))
    assert inv.head is None and inv.lines() == (1, 2)


def test_python_argv_list_opening_line(tmp_path: Path) -> None:
    src, read = _read(
        tmp_path,
        "serve.py",
        """
        import subprocess
        cmd = [
            "vllm", "serve", "Qwen/Qwen3-8B",
            "--max-model-len", "4096",
        ]
        subprocess.Popen(cmd)
        """,
    )
    inv = _one(py_extract(src, read))
    assert inv.lines()[0] == 2 and inv.lines()[1] >= 4


def test_lines_ignore_spans_of_other_files() -> None:
    here = Span("a.sh", 5, 1, 5, 5)
    other = Span("b.env", 1, 1, 1, 9)
    inv = Invocation(source="shell", program="vllm serve", span=here, args=[Token("M", other), Token("--x", here)])
    assert inv.lines() == (5, 5)
    # a head in another file (a compose service run by its Dockerfile's CMD): the lines are the head's file's
    inv.head = Span("b.env", 2, 1, 2, 3)
    assert inv.lines() == (1, 2)


def test_compose_build_service_is_written_at_its_key(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text('FROM vllm/vllm-openai:v0.10.2\nCMD ["--model", "Qwen/Qwen3-8B"]\n')
    src, read = _read(
        tmp_path,
        "docker-compose.yml",
        """
        services:
          llm:
            build: .
            ports: ["8000:8000"]
        """,
    )
    inv = _one(compose.extract(src, read))
    assert inv.span.path.endswith("Dockerfile")  # anchored at the CMD that runs it
    assert inv.lines() == (2, 2)  # written in the compose file at the service's key


def test_compose_running_its_dockerfiles_cmd_is_written_at_the_service_key(tmp_path: Path) -> None:
    """The launch is the Dockerfile's CMD (anchored there), and in the compose file it is written at the
    service's key: ``lines()`` gives that key's line of the compose file."""
    (tmp_path / "Dockerfile.vllm").write_text(
        "FROM vllm/vllm-openai:v0.10.2\nARG M=Qwen/Qwen2.5-7B-Instruct\nENV M=${M}\n"
        'CMD ["sh", "-c", "vllm serve ${M}"]\n'
    )
    src, read = _read(
        tmp_path,
        "docker-compose.yml",
        """
        services:
          web:
            image: nginx:1.27
          vllm:
            build:
              context: .
              dockerfile: Dockerfile.vllm
        """,
    )
    inv = _one(compose.extract(src, read))
    assert inv.span.path.endswith("Dockerfile.vllm") and inv.span.line == 4  # the anchor stays at the CMD
    assert inv.head is not None and inv.head.path == "docker-compose.yml" and inv.lines() == (4, 4)


def test_compose_with_its_own_command_keeps_the_command_key_not_the_service(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.10.2\n")
    src, read = _read(
        tmp_path,
        "docker-compose.yml",
        """
        services:
          vllm:
            build: .
            command: ["--model", "Qwen/Qwen2.5-7B-Instruct"]
        """,
    )
    inv = _one(compose.extract(src, read))
    assert inv.head is not None and inv.head.line == 4 and inv.lines() == (4, 4)
