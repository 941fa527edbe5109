#!/usr/bin/env bash
# A launch vlint has nothing to say about.
vllm serve Qwen/Qwen2.5-7B-Instruct \
  --max-model-len 16384 \
  --gpu-memory-utilization 0.9 \
  --max-num-seqs 128
