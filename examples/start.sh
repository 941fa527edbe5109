#!/usr/bin/env bash
# Serve Llama 3.1 8B on one H100 with an OpenAI-compatible API.
set -euo pipefail

MODEL=meta-llama/Llama-3.1-8B-Instruct
PORT=${PORT:-8000}

CUDA_VISIBLE_DEVICES=0 nohup vllm serve "$MODEL" \
  --port "$PORT" \
  --gpu-memory-utilization 0.97 \
  --no-enable-chunked-prefill \
  --max-num-seq 256 \
  --trust-remote-code \
  > vllm.log 2>&1 &
