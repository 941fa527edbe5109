"""Small valid deployment files, one per source: the seeds that hostile-input tests wrap their payloads
in and the fuzzer mutates when the shared corpus is absent. Each names the file it is written to."""

from __future__ import annotations

MODEL = "meta-llama/Llama-3.1-8B-Instruct"

#: file name → content: every source vlint reads, with a launch each (the template and .env have none)
SEEDS: dict[str, str] = {
    "start.sh": f"#!/bin/bash\nMODEL={MODEL}\nvllm serve $MODEL --max-model-len 8192 --gpu-memory-utilization 0.9\n",
    "serve.yaml": f"model: {MODEL}\nmax-model-len: 8192\ntensor-parallel-size: 1\ngpu-memory-utilization: 0.9\n",
    "deploy.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.2\n"
        f'        args: ["--model", "{MODEL}", "--max-model-len", "8192"]\n'
        "        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
    ),
    "values.yaml": (
        "servingEngineSpec:\n  modelSpec:\n  - name: llama\n    repository: vllm/vllm-openai\n    tag: v0.10.2\n"
        f"    modelURL: {MODEL}\n    requestGPU: 1\n    vllmConfig:\n      maxModelLen: 8192\n"
    ),
    "templates/_pod.yaml": (
        "containers:\n- name: vllm\n  image: vllm/vllm-openai:{{ .Values.tag }}\n"
        "  args: [{{ .Values.args }}, --max-model-len, 8192]\n"
    ),
    "docker-compose.yml": (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
        f"    command: --model {MODEL} --max-model-len 8192\n    ipc: host\n"
    ),
    ".github/workflows/ci.yml": (
        "on: push\njobs:\n  serve:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"    - run: vllm serve {MODEL} --max-model-len 8192\n"
    ),
    "sky.yaml": f"resources:\n  accelerators: L4:1\nrun: |\n  vllm serve {MODEL} --max-model-len 8192\n",
    "ray.yaml": (
        "applications:\n- name: llm\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
        f"    - model_loading_config:\n        model_id: {MODEL}\n      engine_kwargs:\n        max_model_len: 8192\n"
    ),
    "Dockerfile": (
        f'FROM vllm/vllm-openai:v0.10.2\nENTRYPOINT ["vllm", "serve", "{MODEL}", "--max-model-len", "8192"]\n'
    ),
    "app.py": f'from vllm import LLM\n\nllm = LLM(model="{MODEL}", max_model_len=8192)\n',
    ".env": f"MODEL={MODEL}\nMAX_MODEL_LEN=8192\n",
}
