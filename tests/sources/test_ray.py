"""Ray Serve LLM: ``LLMConfig`` in Serve config YAML (inline and linked per-model files), KubeRay
``RayService.spec.serveConfigV2`` (YAML in a string, spans mapped into the manifest), standalone
``LLMConfig`` YAML, and ``LLMConfig(...)`` in Python; parsed as EngineArgs keyword arguments with the
server's usage context.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from vlint.core.invocation import SERVER, Entry, Invocation
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, Reader, lint_paths
from vlint.sources import python_ast, ray_serve
from vlint.sources.base import SourceResult
from vlint.sources.registry import sources_for


def extract(tmp_path: Path, text: str, name: str = "serve.yaml", module: Any = ray_serve, **files: str) -> SourceResult:
    (tmp_path / name).write_text(textwrap.dedent(text))
    for fname, content in files.items():
        (tmp_path / fname.replace("_dot_", ".")).write_text(textwrap.dedent(content))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(tmp_path / name)
    assert module.sniff(src)
    result = module.extract(src, reader.read)
    assert result.error is None, result.error
    return result


def kwargs(inv: Invocation) -> dict[str, Any]:
    return {e.key: e.value for e in inv.kwargs}


def where(path: Path, e: Entry) -> tuple[str, str]:
    line = path.read_text().split("\n")[e.key_span.line - 1]
    return f"{e.key_span.line}:{e.key_span.column}", line[e.key_span.column - 1 : e.key_span.end_column - 1]


SERVE = """\
applications:
- name: llms
  import_path: ray.serve.llm:build_openai_app
  route_prefix: "/"
  args:
    llm_configs:
      - model_loading_config:
          model_id: qwen
          model_source: Qwen/Qwen2.5-7B-Instruct
        accelerator_type: A10G
        deployment_config:
          autoscaling_config: {min_replicas: 1, max_replicas: 4}
        runtime_env:
          env_vars: {VLLM_LOGGING_LEVEL: DEBUG}
        engine_kwargs:
          tensor_parallel_size: 2
          max_model_len: 8192
          hf_overrides:
            rope_scaling: {rope_type: yarn, factor: 4.0}
      - llama.yaml
- name: custom
  import_path: my_app.serve:app
  args: {llm_configs: [{model_loading_config: {model_id: x}}]}
"""


def test_serve_config_inline_and_linked(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        SERVE,
        llama_dot_yaml="""\
        model_loading_config:
          model_id: llama
        engine_kwargs:
          max_model_len: 4096
          device: auto
        """,
    )
    qwen, llama = res.invocations
    assert qwen.source == "ray-serve" and qwen.program == "ray-serve" and qwen.usage_context == SERVER
    assert kwargs(qwen) == {
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "tensor_parallel_size": 2,
        "max_model_len": 8192,
        "hf_overrides": {"rope_scaling": {"rope_type": "yarn", "factor": 4.0}},
    }
    path = tmp_path / "serve.yaml"
    assert [where(path, e) for e in qwen.kwargs[:2]] == [("9:11", "model_source"), ("16:11", "tensor_parallel_size")]
    facts = {k: f.value for k, f in qwen.facts.items()}
    assert facts == {"gpu_type": "A10G", "gpu_count": 2, "min_replicas": 1, "max_replicas": 4}
    assert qwen.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
    # the per-model file: model_id is the model when there is no model_source
    assert kwargs(llama) == {"model": "llama", "max_model_len": 4096, "device": "auto"}
    assert llama.kwargs[1].key_span.path.endswith("llama.yaml")
    assert res.linked == [tmp_path / "llama.yaml"]


def test_unknown_engine_kwarg_is_reported(tmp_path: Path) -> None:
    (tmp_path / "llm.yaml").write_text(
        "model_loading_config:\n  model_id: Qwen/Qwen2.5-7B-Instruct\n"
        "engine_kwargs:\n  device: auto\n  max_model_len: 4096\n"
    )
    report = lint_paths([tmp_path / "llm.yaml"], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert [(f.code, f.span.line, f.span.column) for f in report.findings if f.code == "VL001"] == [("VL001", 4, 3)]


RAY_SERVICE = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: deepseek
spec:
  serveConfigV2: |
    applications:
    - args:
        llm_configs:
          - model_loading_config:
              model_source: "deepseek-ai/DeepSeek-R1"
            engine_kwargs:
              tensor_parallel_size: 8
              pipeline_parallel_size: 2
              gpu_memory_utilization: 0.92
      import_path: ray.serve.llm:build_openai_app
  rayClusterConfig:
    workerGroupSpecs:
    - replicas: 2
      template:
        spec:
          containers:
          - name: ray-worker
            resources:
              limits: {nvidia.com/gpu: "8"}
"""


def test_ray_service_serve_config_v2(tmp_path: Path) -> None:
    res = extract(tmp_path, RAY_SERVICE, "ray-service.yaml")
    (inv,) = res.invocations
    assert kwargs(inv) == {
        "model": "deepseek-ai/DeepSeek-R1",
        "tensor_parallel_size": 8,
        "pipeline_parallel_size": 2,
        "gpu_memory_utilization": 0.92,
    }
    path = tmp_path / "ray-service.yaml"
    # spans of the YAML inside the string point into the manifest
    assert [where(path, e) for e in inv.kwargs[1:]] == [
        ("13:15", "tensor_parallel_size"),
        ("14:15", "pipeline_parallel_size"),
        ("15:15", "gpu_memory_utilization"),
    ]
    value = inv.kwargs[3].value_span
    assert (value.line, value.column, value.end_column) == (15, 39, 43)
    assert inv.facts["gpu_count"].value == 16 and inv.facts["ray_worker_gpus"].value == 16
    reader = Reader(LintOptions(root=tmp_path))
    assert [s.name for s in sources_for(reader.read(path))] == ["kubernetes", "ray-serve"]


def test_custom_apps_and_other_yaml_start_nothing(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        applications:
          - name: llm
            import_path: ray-operator.config.samples.vllm.serve_tpu:model
            runtime_env:
              env_vars: {MODEL_ID: "$MODEL_ID", MAX_MODEL_LEN: "$MAX_MODEL_LEN"}
        """,
    )
    assert res.invocations == []


def test_llm_config_in_python(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        """\
        from ray.serve.llm import LLMConfig, build_openai_app

        TP = 8
        llm_config = LLMConfig(
            model_loading_config=dict(model_id="r1", model_source="deepseek-ai/DeepSeek-R1"),
            accelerator_type="H100",
            deployment_config=dict(autoscaling_config=dict(min_replicas=1, max_replicas=2)),
            engine_kwargs=dict(max_model_len=16384, tensor_parallel_size=TP, pipeline_parallel_size=2),
        )
        app = build_openai_app({"llm_configs": [llm_config]})
        """,
        "serve_r1.py",
        module=python_ast,
    )
    (inv,) = res.invocations
    assert inv.source == "ray-serve" and inv.program == "ray-serve" and inv.usage_context == SERVER
    assert kwargs(inv) == {
        "model": "deepseek-ai/DeepSeek-R1",
        "max_model_len": 16384,
        "tensor_parallel_size": 8,
        "pipeline_parallel_size": 2,
    }
    path = tmp_path / "serve_r1.py"
    assert where(path, inv.kwargs[2]) == ("8:45", "tensor_parallel_size")
    assert inv.facts["gpu_type"].value == "H100" and inv.facts["gpu_count"].value == 16
    assert inv.facts["max_replicas"].value == 2


def test_sniff(tmp_path: Path) -> None:
    reader = Reader(LintOptions(root=tmp_path))
    for name, text, ok in (
        ("a.yaml", "applications:\n- import_path: x:y\n", True),
        ("b.yaml", "engine_kwargs:\n  max_model_len: 1\n", True),
        ("c.yaml", "applications: []\n", False),
        ("d.yml", "model: x\n", False),
    ):
        (tmp_path / name).write_text(text)
        assert ray_serve.sniff(reader.read(tmp_path / name)) is ok, name


def test_alias_cycles_are_a_file_error(tmp_path: Path) -> None:
    (tmp_path / "llm.yaml").write_text("x: &a {y: *a}\nmodel_loading_config: {model_id: m}\nengine_kwargs: *a\n")
    report = lint_paths([tmp_path / "llm.yaml"], Engine(load_catalog()), LintOptions(root=tmp_path))
    (fr,) = report.files
    assert fr.error is not None and "nested deeper" in fr.error.message


# -- applications whose import_path is a module of the repository ------------------------------------
CUSTOM_APP = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: vllm
spec:
  serveConfigV2: |
    applications:
      - name: mistral
        import_path: "vllm_serve:deployment"
        runtime_env:
          env_vars:
            MODEL_ID: "mistralai/Mistral-7B-Instruct-v0.2"
            MAX_MODEL_LEN: "8192"
"""
APP_MODULE = """\
import os
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.engine.async_llm_engine import AsyncLLMEngine

class VLLMDeployment:
    def __init__(self):
        args = AsyncEngineArgs(
            model=os.getenv("MODEL_ID", "Qwen/Qwen2.5-0.5B-Instruct"),
            max_model_len=int(os.getenv("MAX_MODEL_LEN", "4096")),
            gpu_memory_utilization=float(os.getenv("GPU_MEMORY_UTILIZATION", "0.8")),
        )
        self.engine = AsyncLLMEngine.from_engine_args(args)

deployment = VLLMDeployment.bind()
"""


def ray_app(tmp_path: Path, text: str, **files: str) -> SourceResult:
    (tmp_path / "ray-service.yaml").write_text(text)
    for fname, content in files.items():
        (tmp_path / f"{fname}.py").write_text(content)
    reader = Reader(LintOptions(root=tmp_path))
    result = python_ast.extract_ray_serve(reader.read(tmp_path / "ray-service.yaml"), reader.read)
    assert result.error is None, result.error
    return result


def test_a_custom_application_runs_the_module_with_its_env_vars(tmp_path: Path) -> None:
    """The module's engine arguments, with os.getenv read from the application's runtime_env (the default
    where the application sets nothing), anchored at the import_path; the module alone keeps its defaults."""
    result = ray_app(tmp_path, CUSTOM_APP, vllm_serve=APP_MODULE)
    (inv,) = result.invocations
    assert kwargs(inv) == {
        "model": "mistralai/Mistral-7B-Instruct-v0.2",
        "max_model_len": 8192,
        "gpu_memory_utilization": 0.8,
    }
    assert (inv.head.path, inv.head.line) == ("ray-service.yaml", 9)
    assert inv.label.startswith("application mistral (vllm_serve:deployment): AsyncEngineArgs in vllm_serve.py")
    assert inv.env["MODEL_ID"].text == "mistralai/Mistral-7B-Instruct-v0.2"
    assert tmp_path / "vllm_serve.py" in result.linked
    (alone,) = extract(tmp_path, APP_MODULE, "vllm_serve.py", module=python_ast).invocations  # its own defaults
    assert kwargs(alone)["model"] == "Qwen/Qwen2.5-0.5B-Instruct"


def test_no_launch_for_code_that_is_not_in_the_repository(tmp_path: Path) -> None:
    """Must not: a remote working_dir (the code is downloaded), a module the repository does not have, a
    path that is not a module, or a module without an engine call yields no launch."""
    remote = CUSTOM_APP.replace(
        "        runtime_env:\n",
        "        runtime_env:\n          working_dir: https://github.com/x/y/archive/master.zip\n",
    )
    for text, files in (
        (remote, {"vllm_serve": APP_MODULE}),
        (CUSTOM_APP, {}),
        (CUSTOM_APP.replace("vllm_serve:deployment", "vllm-serve.py"), {"vllm_serve": APP_MODULE}),
        (CUSTOM_APP, {"vllm_serve": "deployment = None\n"}),
    ):
        for p in tmp_path.glob("*.py"):
            p.unlink()
        assert ray_app(tmp_path, text, **files).invocations == [], text


def test_code_downloaded_from_a_remote_working_dir_is_said_not_read(tmp_path: Path) -> None:
    """A remote working_dir: the application's code is not in the files, and the file says so (no launch:
    what the code does with its env_vars is not known). A module of the repository gives no such note."""
    remote = CUSTOM_APP.replace(
        "        runtime_env:\n",
        "        runtime_env:\n          working_dir: https://github.com/x/y/archive/master.zip\n",
    ).replace("vllm_serve:deployment", "ray-operator.samples.vllm.serve:model")
    result = ray_app(tmp_path, remote)
    assert result.invocations == []
    assert result.notes == [
        "application mistral runs ray-operator.samples.vllm.serve:model from runtime_env.working_dir "
        "https://github.com/x/y/archive/master.zip, code vlint does not read: a vLLM launch it starts is not checked"
    ]
    assert ray_app(tmp_path, CUSTOM_APP, vllm_serve=APP_MODULE).notes == []
    builder = remote.replace("ray-operator.samples.vllm.serve:model", "ray.serve.llm:build_openai_app")
    assert ray_app(tmp_path, builder).notes == []  # Ray's own builder: read as one


def test_errors_resting_on_a_module_found_by_its_name_are_warnings(tmp_path: Path) -> None:
    """Without a working_dir the module beside the RayService is taken for the one the cluster's image
    imports (an inference): its errors there are warnings that say so; a working_dir names what Ray
    uploads, and the error stands."""
    module = APP_MODULE.replace("        )\n", "            no_such_arg=1,\n        )\n", 1)
    (tmp_path / "vllm_serve.py").write_text(module)

    def vl001(text: str) -> list[tuple[str, str]]:
        (tmp_path / "ray-service.yaml").write_text(text)
        report = lint_paths([tmp_path / "ray-service.yaml"], Engine(load_catalog()), LintOptions(root=tmp_path))
        return [(f.severity, f.message) for f in report.findings if f.code == "VL001"]

    ((severity, message),) = vl001(CUSTOM_APP)
    assert severity == "warning" and "vllm_serve.py is taken for the module vllm_serve:deployment imports" in message
    uploaded = CUSTOM_APP.replace("        runtime_env:\n", "        runtime_env:\n          working_dir: .\n")
    assert [s for s, _ in vl001(uploaded)] == ["error"]
