"""Ray Serve LLM builders with single configs: ``build_dp_openai_app`` (``args.llm_config``, each
replica one data-parallel rank) and ``build_pd_openai_app`` (``prefill_config``/``decode_config``,
inline or a path to a YAML file)."""

from __future__ import annotations

from pathlib import Path

from tests.sources.render.helpers import lint, write

SERVE = """\
    applications:
      - name: dp-qwen
        route_prefix: /
        import_path: ray.serve.llm:build_dp_openai_app
        args:
          llm_config:
            model_loading_config:
              model_id: qwen
              model_source: Qwen/Qwen2.5-7B-Instruct
            accelerator_type: L4
            engine_kwargs:
              tensor_parallel_size: 1
              data_parallel_size: 2
              max_model_len: 300000
      - name: pd
        import_path: ray.serve.llm:build_pd_openai_app
        args:
          prefill_config: configs/prefill.yaml
          decode_config:
            model_loading_config: {model_id: Qwen/Qwen2.5-7B-Instruct}
            engine_kwargs: {max_num_seqs: 64, no_such_arg: 1}
    """
PREFILL = """\
    model_loading_config:
      model_id: Qwen/Qwen2.5-7B-Instruct
    engine_kwargs:
      enforce_eager: true
    """


def test_dp_and_pd_builders_are_read(tmp_path: Path) -> None:
    write(tmp_path, {"serve.yaml": SERVE, "configs/prefill.yaml": PREFILL})
    found = {(f.code, f.span.path, f.span.line) for f in lint(tmp_path, "serve.yaml")}
    assert ("VL204", "serve.yaml", 14) in found  # llm_config (singular) is read
    assert ("VL001", "serve.yaml", 21) in found  # the decode config
    assert ("VL105", "configs/prefill.yaml", 4) in found  # the prefill config's file
    # each DP replica is one rank on TP x PP GPUs: data_parallel_size 2 is not 2 GPUs per replica
    assert not any(code == "VL601" for code, _, _ in found)
