"""What to use instead of a removed vLLM flag. The removal versions come from diffing the bundled
schemas (:mod:`vlint.argspec.history`); this table only says what replaces each flag, with its source
(shared reference ``vllm-behavior.md`` §2.4, from the release wheels)."""

from __future__ import annotations

#: removed option → advice (None: nothing replaces it; the flag is simply gone)
REPLACEMENTS: dict[str, str | None] = {
    "--engine-use-ray": None,
    "--max-context-len-to-capture": "--max-seq-len-to-capture (itself removed in 0.11.0)",
    "--chat-template-text-format": "--chat-template-content-format",
    "--mm-cache-preprocessor": "--disable-mm-preprocessor-cache, later --mm-processor-cache-gb 0",
    "--quantization-param-path": None,
    "--worker-use-ray": "--distributed-executor-backend ray",
    "--speculative-model": '--speculative-config \'{"model": …, "num_speculative_tokens": …}\'',
    "--num-speculative-tokens": "--speculative-config '{\"num_speculative_tokens\": …}'",
    "--speculative-model-quantization": "--speculative-config '{\"quantization\": …}'",
    "--speculative-draft-tensor-parallel-size": "--speculative-config '{\"draft_tensor_parallel_size\": …}'",
    "--speculative-max-model-len": "--speculative-config '{\"max_model_len\": …}'",
    "--speculative-disable-by-batch-size": "--speculative-config '{\"disable_by_batch_size\": …}'",
    "--ngram-prompt-lookup-max": '--speculative-config \'{"method": "ngram", "prompt_lookup_max": …}\'',
    "--ngram-prompt-lookup-min": '--speculative-config \'{"method": "ngram", "prompt_lookup_min": …}\'',
    "--use-v2-block-manager": "nothing: delete it (block manager v2 has been the only one since 0.6.3)",
    "--device": None,
    "--enable-reasoning": "--reasoning-parser NAME alone enables reasoning",
    "--num-scheduler-steps": "nothing: multi-step scheduling was removed with the V0 engine; delete it",
    "--multi-step-stream-outputs": "nothing: multi-step scheduling was removed; delete it",
    "--disable-log-requests": "nothing: request logging is off by default (--enable-log-requests turns it on)",
    "--preemption-mode": "nothing: the V1 engine always recomputes on preemption; delete it",
    "--max-seq-len-to-capture": "--max-cudagraph-capture-size (CUDA-graph capture sizes)",
    "--scheduler-delay-factor": None,
    "--disable-async-output-proc": None,
    "--rope-scaling": "--hf-overrides '{\"rope_scaling\": {…}}'",
    "--rope-theta": "--hf-overrides '{\"rope_theta\": …}'",
    "--guided-decoding-backend": "--structured-outputs-config '{\"backend\": …}'",
    "--guided-decoding-disable-fallback": "--structured-outputs-config '{\"disable_fallback\": true}'",
    "--guided-decoding-disable-any-whitespace": "--structured-outputs-config '{\"disable_any_whitespace\": true}'",
    "--guided-decoding-disable-additional-properties": (
        "--structured-outputs-config '{\"disable_additional_properties\": true}'"
    ),
    "--num-redundant-experts": "--eplb-config '{\"num_redundant_experts\": …}'",
    "--eplb-window-size": "--eplb-config '{\"window_size\": …}'",
    "--eplb-step-interval": "--eplb-config '{\"step_interval\": …}'",
    "--eplb-log-balancedness": "--eplb-config '{\"log_balancedness\": true}'",
    "--override-pooler-config": "--pooler-config",
    "--task": "--runner {generate,pooling,draft} with --convert {embed,classify,reward}",
    "--cuda-graph-sizes": "--cudagraph-capture-sizes or --max-cudagraph-capture-size",
    "--disable-mm-preprocessor-cache": "--mm-processor-cache-gb 0",
    "--enable-multimodal-encoder-data-parallel": "--mm-encoder-tp-mode data",
    "--swap-space": "nothing in the V1 engine (it reserved no GPU memory); for KV on CPU use --kv-offloading-size",
    "--disable-frontend-multiprocessing": None,
}


def replacement_for(option: str) -> str | None:
    return REPLACEMENTS.get(option)
