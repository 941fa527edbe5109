"""docker compose: argv per service (string/list/folded commands, entry points, interpolation with
``.env``, anchors and merge keys), environment, devices and other facts, linked files, spans.

Spans are ``line:col`` (1-based), counted by hand from the compose texts below; every span test also
checks that the file text at the span is the token (or the expression it came from).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vlint.core.finding import Finding
from vlint.core.invocation import Invocation, Token
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, Reader, lint_paths
from vlint.sources.base import SourceResult
from vlint.sources.containers import compose
from vlint.sources.registry import sources_for


def write(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def extract(tmp_path: Path, text: str, name: str = "docker-compose.yml", **files: str) -> SourceResult:
    write(tmp_path, {name: text, **{k.replace("__", "/").replace("_dot_", "."): v for k, v in files.items()}})
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(tmp_path / name)
    assert compose.sniff(src)
    result = compose.extract(src, reader.read)
    assert result.error is None, result.error
    return result


def one(tmp_path: Path, text: str, **files: str) -> Invocation:
    (inv,) = extract(tmp_path, text, **files).invocations
    return inv


def argv(inv: Invocation) -> list[str]:
    return [("?" if t.unresolved else "") + t.text for t in inv.args]


def at(tok: Token) -> str:
    return f"{tok.span.line}:{tok.span.column}"


def text_at(tmp_path: Path, tok: Token, name: str = "docker-compose.yml") -> str:
    line = (tmp_path / name).read_text().split("\n")[tok.span.line - 1]
    return line[tok.span.column - 1 : tok.span.end_column - 1]


def lint(tmp_path: Path, name: str = "docker-compose.yml") -> list[Finding]:
    report = lint_paths([tmp_path / name], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert all(f.error is None for f in report.files), [f.error for f in report.files]
    return report.findings


# -- argv ----------------------------------------------------------------------------------------
def test_list_command_after_the_image_entry_point(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.11.1
            command:
              - Qwen/Qwen2.5-7B-Instruct
              # a comment between items
              - --max-model-len
              - "8192"
              - '--gpu-memory-utilization'
              - 0.85
        """,
    )
    assert inv.program == "vllm serve" and inv.source == "compose" and inv.label == "service vllm"
    assert argv(inv) == ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--gpu-memory-utilization", "0.85"]
    assert [at(t) for t in inv.args] == ["5:9", "7:9", "8:10", "9:10", "10:9"]
    assert [text_at(tmp_path, t) for t in inv.args] == [t.text for t in inv.args]
    assert inv.facts["vllm_version"].value == "0.11.1"
    assert inv.facts["image"].value == "vllm/vllm-openai:v0.11.1"


def test_old_and_untagged_images_and_image_named_like_vllm(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          old:
            image: vllm/vllm-openai:v0.6.3
            command: --model m1 --max-model-len 4096
          latest:
            image: vllm/vllm-openai
            command: --model m2
          custom:
            image: registry.local/team/my-vllm:3
            command: ["--model", "m3"]
          other:
            image: nginx:1.27
            command: ["--model", "m4"]
        """,
    )
    assert [(i.program, argv(i)[1]) for i in res.invocations] == [
        ("api_server", "m1"),
        ("image", "m2"),
        ("image", "m3"),
    ]


def test_folded_command_with_more_indented_lines_and_interpolation(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: intel/vllm:0.21.0-ubuntu24.04
            command: >
              vllm serve ${MODEL:-openai/gpt-oss-20b}
                --max-model-len ${LEN:-65536}
                --served-model-name $$NAME
        """,
    )
    # folded, but the more-indented lines keep their line breaks: blanks for the splitter
    assert inv.program == "vllm serve"
    assert argv(inv) == ["openai/gpt-oss-20b", "--max-model-len", "65536", "--served-model-name", "$NAME"]
    assert [at(t) for t in inv.args] == ["5:27", "6:9", "6:32", "7:9", "7:29"]
    assert text_at(tmp_path, inv.args[0]) == "openai/gpt-oss-20b"  # the default, where it is written
    assert inv.span.line == 5 and inv.span.column == 7


def test_dotenv_values_duplicates_and_required_variables(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: ${IMAGE:-vllm/vllm-openai:latest}
            environment:
              HF_TOKEN: ${HF_TOKEN}
              NVIDIA_VISIBLE_DEVICES: ${GPU_IDS:?set GPU_IDS}
            runtime: nvidia
            command:
              - --model
              - ${MODEL_NAME:?Set MODEL_NAME in .env}
              - --max-model-len
              - "${MAX_MODEL_LEN:-4096}"
              - --tensor-parallel-size
              - ${TP-1}
              - --seed
              - ${EMPTY:-7}
        """,
        _dot_env="IMAGE=vllm/vllm-openai:v0.10.2\nMAX_MODEL_LEN=131072\nMODEL_NAME=Qwen/Qwen3-8B\nMAX_MODEL_LEN=8192\n"
        "GPU_IDS=0,1\nTP=\nEMPTY=\n",
    )
    assert argv(inv) == [
        "--model",
        "Qwen/Qwen3-8B",
        "--max-model-len",
        "8192",
        "--tensor-parallel-size",
        "",
        "--seed",
        "7",
    ]
    # a 0.10.x image: vllm serve or api_server, not pinned down (either spelling of the model)
    assert inv.program == "image" and inv.facts["vllm_version"].value == "0.10.2"
    assert at(inv.args[1]) == "10:9" and text_at(tmp_path, inv.args[1]) == "${MODEL_NAME:?Set MODEL_NAME in .env}"
    assert inv.env["HF_TOKEN"] == Token("${HF_TOKEN}", inv.env["HF_TOKEN"].span, True)
    assert inv.env["NVIDIA_VISIBLE_DEVICES"].text == "0,1"
    assert inv.facts["gpu_count"].value == 2 and inv.facts["gpu_ids"].value == ("0", "1")


def test_without_dotenv_required_variables_are_unresolved(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            command: ["${MODEL:?no model}", "--max-model-len", "${LEN}"]
        """,
    )
    (inv,) = res.invocations
    assert argv(inv) == ["?${MODEL:?no model}", "--max-model-len", "?${LEN}"]
    assert not inv.opaque_args  # list items are one word each, whatever they hold
    assert res.linked == []


def test_string_command_with_an_unresolved_variable_is_opaque(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            command: Qwen/Qwen2.5-7B-Instruct ${EXTRA_ARGS}
        """,
    )
    assert argv(inv) == ["Qwen/Qwen2.5-7B-Instruct", "?${EXTRA_ARGS}"]
    assert inv.opaque_args


def test_anchors_and_merge_keys(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        x-env: &common
          VLLM_LOGGING_LEVEL: INFO
          CUDA_VISIBLE_DEVICES: "0"
        x-cmd: &cmd ["--max-model-len", "8192"]
        services:
          a:
            image: vllm/vllm-openai:v0.10.2
            environment:
              <<: *common
              CUDA_VISIBLE_DEVICES: "1"
            command: *cmd
        # b:
        #   image: vllm/vllm-openai:v0.10.2
        """,
    )
    (inv,) = res.invocations
    assert inv.env["VLLM_LOGGING_LEVEL"].text == "INFO" and inv.env["VLLM_LOGGING_LEVEL"].span.line == 2
    assert inv.env["CUDA_VISIBLE_DEVICES"].text == "1"  # the service's own key wins over the merged one
    assert argv(inv) == ["--max-model-len", "8192"] and inv.args[0].span.line == 4


def test_entrypoint_and_command_joined(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          web:
            image: gcr.io/x/h2ogpt-runtime:0.1.0
            command: ["/workspace/generate.py", "--inference_server=vllm:vllm:5000"]
          vllm:
            image: gcr.io/x/h2ogpt-runtime:0.1.0
            entrypoint: /h2ogpt_conda/vllm_env/bin/python3.10
            command:
              - -m
              - vllm.entrypoints.openai.api_server
              - --model=h2oai/h2ogpt-4096-llama2-7b-chat
              - --tensor-parallel-size=2
        """,
    )
    (inv,) = res.invocations
    assert inv.program == "api_server" and inv.label == "service vllm"
    assert argv(inv) == ["--model=h2oai/h2ogpt-4096-llama2-7b-chat", "--tensor-parallel-size=2"]
    assert at(inv.args[0]) == "11:9" and (inv.span.line, inv.span.column) == (7, 17)


def test_entrypoint_override_drops_the_image_entry_point(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            entrypoint: ["/bin/bash", "-c"]
            environment:
              MODEL: Qwen/Qwen2.5-7B-Instruct
            command:
              - |
                echo starting
                vllm serve "$$MODEL" \\
                  --max-model-len "$${LEN:-8192}"
        """,
    )
    assert inv.program == "vllm serve" and "duplicate_serve" not in inv.facts
    assert argv(inv) == ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
    # the script is read where it is written (a quoted word starts at its quote)
    assert [at(t) for t in inv.args] == ["10:20", "11:11", "11:27"]
    assert inv.env["MODEL"].span.line == 6


def test_repeated_vllm_serve_on_a_vllm_serve_image(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          a:
            image: vllm/vllm-openai:v0.10.2
            command: vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
          b:
            image: vllm/vllm-openai:latest
            command: ["serve", "Qwen/Qwen2.5-7B-Instruct"]
          c:
            image: intel/vllm:0.21.0-ubuntu24.04
            command: vllm serve openai/gpt-oss-20b
        """,
    )
    a, b, c = res.invocations
    assert a.facts["duplicate_serve"].value == "vllm serve" and at_fact(a) == "4:14"
    assert argv(a) == ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
    assert b.facts["duplicate_serve"].value == "serve" and b.program == "image"
    assert "duplicate_serve" not in c.facts  # platform images run the command as given


def at_fact(inv: Invocation) -> str:
    span = inv.facts["duplicate_serve"].span
    assert span is not None
    return f"{span.line}:{span.column}"


def test_environment_list_and_env_file(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            env_file: [vllm.env, missing.env]
            environment:
              - VLLM_LOGGING_LEVEL=DEBUG
              - FROM_SHELL
              - PAIR=a=b
            command: ["m"]
        """,
        vllm_dot_env="HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\nVLLM_LOGGING_LEVEL=INFO\n",
    )
    assert inv.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
    assert inv.env["FROM_SHELL"].unresolved
    assert inv.env["PAIR"].text == "a=b"
    assert inv.env["HF_TOKEN"].span.path.endswith("vllm.env") and inv.env["HF_TOKEN"].span.line == 1


def test_non_vllm_services_and_lookalikes_start_nothing(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          sglang:
            image: lmsysorg/sglang:v0.4.6
            command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2
          omni:
            image: rocm_gfx1151_vllm-omni:v0.20.0rc1
            command: ["vllm-omni", "serve", "Qwen/Qwen3-Omni"]
          db:
            image: postgres:16
        """,
    )
    assert res.invocations == []


# -- facts ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("service", "gpu_ids", "count"),
    [
        (
            "deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}",
            "all",
            None,
        ),
        (
            "deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 2, capabilities: [gpu]}]}}}",
            ("0", "1"),
            2,
        ),
        (
            "deploy: {resources: {reservations: {devices: [{capabilities: [gpu], device_ids: ['2', '3']}]}}}",
            ("2", "3"),
            2,
        ),
        ("gpus: all", "all", None),
        ("runtime: nvidia", "all", None),
        ("runtime: nvidia\n    environment: {NVIDIA_VISIBLE_DEVICES: '1'}", ("1",), 1),
        ("devices: [/dev/kfd, /dev/dri]", "all", None),
        ("gpus: all\n    environment: [CUDA_VISIBLE_DEVICES=1]", ("1",), 1),
        (
            "environment: [CUDA_VISIBLE_DEVICES=1]\n    deploy: {resources: {reservations: {devices: "
            "[{capabilities: [gpu], device_ids: ['4', '5']}]}}}",
            ("5",),
            1,
        ),
        ("environment: [HIP_VISIBLE_DEVICES=0]\n    devices: [/dev/kfd]", ("0",), 1),
    ],
)
def test_gpu_facts(tmp_path: Path, service: str, gpu_ids: object, count: int | None) -> None:
    inv = one(tmp_path, f"services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n    {service}\n    command: [m]\n")
    assert inv.facts["gpu_ids"].value == gpu_ids
    assert (inv.facts["gpu_count"].value if "gpu_count" in inv.facts else None) == count


def test_runtime_facts(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            shm_size: "16g"
            ipc: host
            privileged: true
            profiles: [gpu, big]
            command: [m]
        """,
    )
    facts = {k: f.value for k, f in inv.facts.items()}
    assert facts["shm_size"] == "16g" and facts["ipc"] == "host" and facts["privileged"] is True
    assert facts["compose_profiles"] == ("gpu", "big") and facts["compose_service"] == "vllm"
    assert str(facts["runs_with"]).startswith("compose:")


# -- linked files --------------------------------------------------------------------------------
def test_config_file_through_a_bind_mount(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            volumes:
              - ./configs/vllm.yaml:/etc/vllm/config.yaml:ro
              - type: bind
                source: ./more
                target: /more
            command: ["--config", "/etc/vllm/config.yaml", "--model", "m"]
          other:
            image: vllm/vllm-openai:v0.10.2
            command: ["m", "--config", "/elsewhere/cfg.yaml"]
        """,
        configs__vllm_dot_yaml="max-model-len: 8192\ngpu-memory-utilization: 0.8\n",
    )
    first, second = res.invocations
    assert first.config is not None and [e.key for e in first.config.entries] == [
        "max-model-len",
        "gpu-memory-utilization",
    ]
    assert first.config.entries[0].key_span.path.endswith("configs/vllm.yaml")
    assert tmp_path / "configs" / "vllm.yaml" in res.linked
    assert second.config is None
    (problem,) = second.problems
    assert problem.code == "VL010" and "inside the container" in problem.message


def test_build_reads_the_dockerfile(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          llm:
            build:
              context: ./vllm
              dockerfile: Dockerfile.vllm
              args:
                MODEL_NAME: TheBloke/zephyr-7B-beta-AWQ
                CUDA_ARCH: "8.6"
            environment:
              PORT: "5050"
        """,
        vllm__Dockerfile_dot_vllm="""\
        FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04
        ARG CUDA_ARCH
        RUN pip install vllm==0.10.2 && echo $CUDA_ARCH
        ENV HF_HOME=/cache
        CMD python3 -m vllm.entrypoints.openai.api_server \\
            --model "${MODEL_NAME:-Qwen/Qwen2.5-7B-Instruct}" --port "$PORT"
        """,
    )
    (inv,) = res.invocations
    assert inv.program == "api_server"
    assert argv(inv) == ["--model", "Qwen/Qwen2.5-7B-Instruct", "--port", "5050"]
    assert inv.args[1].span.path.endswith("vllm/Dockerfile.vllm")
    assert inv.env["HF_HOME"].text == "/cache" and inv.env["PORT"].text == "5050"
    (lost,) = inv.facts["lost_build_args"].value
    assert lost.name == "MODEL_NAME" and lost.span.line == 7
    assert tmp_path / "vllm" / "Dockerfile.vllm" in res.linked
    assert ("MODEL_NAME", "TheBloke/zephyr-7B-beta-AWQ") in [(n, t.text) for n, t in res.assignments]


def test_compose_command_replaces_the_dockerfile_cmd(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        services:
          llm:
            build: .
            command: ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"]
        """,
        Dockerfile='FROM vllm/vllm-openai:v0.10.2\nENV VLLM_LOGGING_LEVEL=INFO\nCMD ["other/model"]\n',
    )
    assert inv.program == "image" and argv(inv)[0] == "Qwen/Qwen2.5-7B-Instruct"  # 0.10.x: either entrypoint
    assert inv.facts["vllm_version"].value == "0.10.2" and inv.env["VLLM_LOGGING_LEVEL"].text == "INFO"


# -- sniffing and rules --------------------------------------------------------------------------
def test_sniff(tmp_path: Path) -> None:
    reader = Reader(LintOptions(root=tmp_path))
    cases = {
        "docker-compose.vllm.yml": ("services: {}\n", True),
        "compose.yaml": ("services: {}\n", True),
        "stack.yml": ("services:\n  a:\n    image: vllm/vllm-openai\n", True),
        "deploy.yaml": ("apiVersion: v1\nkind: Pod\nservices:\n  a:\n    image: x\n", False),
        "values.yaml": ("image: vllm/vllm-openai\n", False),
        "docker-compose.tpl.yml": ("services:\n  a:\n    image: {{ .image }}\n", False),
    }
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text)
        assert compose.sniff(reader.read(tmp_path / name)) is expected, name
    assert [s.name for s in sources_for(reader.read(tmp_path / "stack.yml"))] == ["compose"]


def test_shared_gpu_is_an_error_unless_sleep_mode(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(
        textwrap.dedent(
            """\
            services:
              a:
                image: vllm/vllm-openai:v0.10.2
                command: ["m1", "--max-model-len", "4096", "--gpu-memory-utilization", "0.6"]
                deploy: {resources: {reservations: {devices: [{capabilities: [gpu], device_ids: ["0", "1"]}]}}}
              b:
                image: vllm/vllm-openai:v0.10.2
                command: ["m2", "--max-model-len", "4096", "--gpu-memory-utilization", "0.5"]
                deploy: {resources: {reservations: {devices: [{capabilities: [gpu], device_ids: ["1"]}]}}}
              c:
                image: vllm/vllm-openai:v0.10.2
                command: ["m3", "--max-model-len", "4096", "-tp", "2"]
                deploy: {resources: {reservations: {devices: [{capabilities: [gpu], device_ids: ["2", "1"]}]}}}
            """
        )
    )
    found = [f for f in lint(tmp_path) if f.code == "VL605"]
    # a takes GPU 0 only (TP 1); b and c (TP 2 on GPUs 2 and 1) share GPU 1: 0.5 + 0.9 (default)
    assert [(f.span.line, f.severity, f.data["gpu"], f.data["launches"]) for f in found] == [
        (12, "error", "1", ["service b", "service c"])
    ]
    assert found[0].data["total"] == pytest.approx(1.4)


def test_shared_gpu_with_sleep_mode_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n"
        "  a:\n    image: vllm/vllm-openai:v0.10.2\n    gpus: all\n"
        '    command: ["m1", "--gpu-memory-utilization", "0.8", "--enable-sleep-mode"]\n'
        "  b:\n    image: vllm/vllm-openai:v0.10.2\n    gpus: all\n"
        '    command: ["m2", "--gpu-memory-utilization", "0.8"]\n'
    )
    (f,) = [f for f in lint(tmp_path, "compose.yaml") if f.code == "VL605"]
    assert f.severity == "warning" and f.data["sleep_mode"] and (f.span.line, f.span.column) == (9, 22)


def test_secrets_are_reported_where_they_are_written(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "docker-compose.yml": """\
            services:
              a:
                image: vllm/vllm-openai:v0.10.2
                environment:
                  HF_TOKEN: ${HF_TOKEN}
                  VLLM_API_KEY: sk-abcdefghijklmnopqrstuvwx
                command: ["m", "--max-model-len", "4096"]
            """,
            ".env": "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\n",
        },
    )
    report = lint_paths([tmp_path], Engine(load_catalog()), LintOptions(root=tmp_path))
    # the token interpolated from .env is reported in .env, not on the compose line that names it
    assert sorted((f.span.path, f.span.line) for f in report.findings if f.code == "VL502") == [
        (".env", 1),
        ("docker-compose.yml", 6),
    ]


def test_config_file_copied_by_the_built_image(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        services:
          llm:
            build: {context: ./image, dockerfile: docker/Dockerfile}
            command: ["m", "--config", "/srv/serve.yaml"]
        """,
        image__docker__Dockerfile="FROM vllm/vllm-openai:v0.10.2\nCOPY serve.yaml /srv/serve.yaml\n",
        image__serve_dot_yaml="max-model-len: 4096\n",
    )
    (inv,) = res.invocations
    assert inv.config is not None and inv.config.entries[0].key_span.path.endswith("image/serve.yaml")


def test_an_image_whose_entrypoint_is_not_known_accepts_both_spellings_of_the_model(tmp_path: Path) -> None:
    """vllm/vllm-openai moved from the api_server entrypoint to vllm serve at a release not pinned
    down (after 0.9, by 0.11.1): in between, --model (which vllm serve refuses in 0.8.3–0.11.0) is not
    an error resting on a guessed entrypoint, nor is a positional model."""
    for args in ('["--model", "Qwen/Qwen2.5-1.5B-Instruct"]', '["Qwen/Qwen2.5-1.5B-Instruct"]'):
        (tmp_path / "docker-compose.yml").write_text(
            f"services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n    command: {args}\n", encoding="utf-8"
        )
        found = lint(tmp_path)
        assert not [f for f in found if f.severity == "error"], [(f.code, f.message) for f in found]
        assert one(tmp_path, (tmp_path / "docker-compose.yml").read_text()).program == "image"


def _pinned_compose(tmp_path: Path, kv: str) -> list[Finding]:
    from vlint.launch.resolver import ResolveOptions

    (tmp_path / "docker-compose.yml").write_text(
        "services:\n"
        "  chat:\n    image: vllm/vllm-openai:v0.10.2\n    gpus: all\n"
        '    command: ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--gpu-memory-utilization", "0.6"]\n'
        "  embed:\n    image: vllm/vllm-openai:v0.10.2\n    gpus: all\n"
        f'    command: ["Qwen/Qwen2.5-0.5B-Instruct", "--max-model-len", "8192", "--kv-cache-memory-bytes", "{kv}"]\n'
    )
    opts = LintOptions(root=tmp_path, resolve=ResolveOptions(gpu="H100"))
    report = lint_paths([tmp_path / "docker-compose.yml"], Engine(load_catalog()), opts)
    return [f for f in report.findings if f.code == "VL605"]


def test_shared_gpu_counts_a_pinned_kv_cache_by_its_footprint(tmp_path: Path) -> None:
    (f,) = _pinned_compose(tmp_path, "35G")
    assert f.severity == "warning" and f.data["pinned"] == ["service embed"]
    assert f.data["total"] > 1.0 and "--kv-cache-memory-bytes" in f.message
    assert (f.span.line, f.span.column) == (9, 73)  # the pinned instance, the last to start
    assert _pinned_compose(tmp_path, "20G") == []


def test_shared_gpu_leaves_out_a_pinned_launch_it_cannot_size(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n"
        "  a:\n    image: vllm/vllm-openai:v0.10.2\n    gpus: all\n"
        '    command: ["m1", "--gpu-memory-utilization", "0.6"]\n'
        "  b:\n    image: vllm/vllm-openai:v0.10.2\n    gpus: all\n"
        '    command: ["m2", "--kv-cache-memory-bytes", "60G"]\n'
    )
    assert [f for f in lint(tmp_path) if f.code == "VL605"] == []


_GPU_SERVICE = (
    "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
    '    command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "2"]\n'
    "    deploy:\n      resources:\n        reservations:\n          devices:\n"
)


@pytest.mark.parametrize(
    ("device", "line"),
    [
        (
            "            - driver: nvidia\n"
            "              device_ids: ['0', '1', '2']\n              capabilities: [gpu]\n",
            10,
        ),
        ("            - driver: nvidia\n              count: 2\n              capabilities: [gpu]\n", 10),
        ("            - capabilities: [gpu]\n", 9),
    ],
)
def test_the_gpu_facts_point_at_the_line_that_says_which_or_how_many(tmp_path: Path, device: str, line: int) -> None:
    """``device_ids``/``count`` when the request writes one (a VL601 on the GPUs reserved lands there),
    else the device request itself."""
    inv = one(tmp_path, _GPU_SERVICE + device)
    assert inv.facts["gpu_ids"].span is not None and inv.facts["gpu_ids"].span.line == line


# -- an example .env ---------------------------------------------------------------------------------
EXAMPLE_COMPOSE = """\
    services:
      vllm:
        image: vllm/vllm-openai:v0.10.2
        command: --model $MODEL --max-model-len ${MAX_LEN} --no-such-flag
"""


def test_an_example_env_gives_values_when_there_is_no_env(tmp_path: Path) -> None:
    """The ``.env`` a repository keeps out of git, with an example committed for users to copy: the example's
    values are an inference; the launch says so, and its errors are warnings that say so."""
    inv = one(tmp_path, EXAMPLE_COMPOSE, _dot_env_dot_example="MODEL=Qwen/Qwen2.5-7B-Instruct\nMAX_LEN=8192\n")
    assert argv(inv)[:4] == ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
    fact = inv.facts["example_env"]
    assert fact.value == ".env.example" and fact.detail.startswith("MAX_LEN, MODEL from .env.example, an example")
    (vl001,) = [f for f in lint(tmp_path) if f.code == "VL001"]
    assert vl001.severity == "warning" and "rests on values of .env.example, an example" in vl001.message


def test_no_example_when_the_env_is_there_or_no_value_comes_from_it(tmp_path: Path) -> None:
    """Must not: a real ``.env`` wins (the example is not read); an example whose values the launch does
    not use marks nothing (its errors stay errors); a file of another name (``.env.prod``) is no example."""
    inv = one(
        tmp_path,
        EXAMPLE_COMPOSE,
        _dot_env="MODEL=meta-llama/Llama-3.1-8B-Instruct\nMAX_LEN=4096\n",
        _dot_env_dot_example="MODEL=Qwen/Qwen2.5-7B-Instruct\nMAX_LEN=8192\n",
    )
    assert argv(inv)[1] == "meta-llama/Llama-3.1-8B-Instruct" and "example_env" not in inv.facts
    assert [f.severity for f in lint(tmp_path) if f.code == "VL001"] == ["error"]


def test_an_unused_or_unnamed_example_marks_nothing(tmp_path: Path) -> None:
    plain_cmd = EXAMPLE_COMPOSE.replace("$MODEL", "Qwen/Qwen2.5-7B-Instruct").replace("${MAX_LEN}", "8192")
    inv = one(tmp_path, plain_cmd, _dot_env_dot_example="OTHER=1\n")
    assert "example_env" not in inv.facts
    assert [f.severity for f in lint(tmp_path) if f.code == "VL001"] == ["error"]
    (tmp_path / ".env.example").unlink()
    inv = one(tmp_path, EXAMPLE_COMPOSE, _dot_env_dot_prod="MODEL=Qwen/Qwen2.5-7B-Instruct\n")
    assert argv(inv)[1] == "?$MODEL" and "example_env" not in inv.facts
