"""NVIDIA Dynamo's vLLM worker (``python -m dynamo.vllm``): its own options, which it parses before
it hands the rest of the command line to vLLM's ``AsyncEngineArgs`` parser.

Dynamo's worker builds one parser of its own options plus vLLM's engine arguments. Early releases
add two or five options to vLLM's ``FlexibleArgumentParser`` before ``AsyncEngineArgs.add_cli_args``
(ai-dynamo/dynamo components/backends/vllm/src/dynamo/vllm/args.py, ``parse_args``: ``--endpoint``,
``--is-prefill-worker``, later ``--migration-limit``, ``--dynamo-port-min``, ``--dynamo-port-max``);
current releases parse Dynamo's runtime and worker groups with ``parse_known_args`` and give the
unknown words to vLLM's parser (ai-dynamo/dynamo components/src/dynamo/vllm/args.py ``parse_args``;
the groups in components/src/dynamo/vllm/backend_args.py ``DynamoVllmArgGroup.add_arguments`` and
components/src/dynamo/common/configuration/groups/runtime_args.py ``DynamoRuntimeArgGroup.add_arguments``).
Either way an option of this table is not vLLM's and never reaches vLLM.

The table is the union over those files (Dynamo's options change between its releases, and the
image tag does not say which Dynamo release wrote a file), so a word vLLM does not know is reported
as a warning only: a Dynamo release vlint has not read may define it.
"""

from __future__ import annotations

#: the program name of a ``python -m dynamo.vllm`` launch (``Invocation.program``)
PROGRAM = "dynamo-vllm"

#: option (without ``--``) -> how many words follow: 0 (a switch), 1 (a value), ``"*"`` (``nargs="*"``)
#: or ``"?"`` (``nargs="?"``). Negatable switches (``add_negatable_bool_argument``) also take ``--no-``.
OWN_OPTIONS: dict[str, int | str] = {
    # components/backends/vllm/src/dynamo/vllm/args.py (ai-dynamo/dynamo@00697417, @0cd9fcdb era) parse_args
    "endpoint": 1,
    "is-prefill-worker": 0,
    "migration-limit": 1,
    "dynamo-port-min": 1,
    "dynamo-port-max": 1,
    "version": 0,
    # components/src/dynamo/vllm/backend_args.py (ai-dynamo/dynamo@036f289b) DynamoVllmArgGroup.add_arguments
    "is-decode-worker": 0,
    "use-vllm-tokenizer": 0,
    "sleep-mode-level": 1,
    "route-to-encoder": 0,
    "multimodal-encode-worker": 0,
    "multimodal-worker": 0,
    "multimodal-decode-worker": 0,
    "enable-multimodal": 0,
    "mm-prompt-template": 1,
    "frontend-decoding": 0,
    "omni": 0,
    "stage-configs-path": 1,
    "video-output-dir": 1,
    "default-video-fps": 1,
    "enable-layerwise-offload": 0,
    "layerwise-num-gpu-layers": 1,
    "vae-use-slicing": 0,
    "vae-use-tiling": 0,
    "boundary-ratio": 1,
    "flow-shift": 1,
    "diffusion-cache-backend": 1,
    "diffusion-cache-config": 1,
    "enable-cache-dit-summary": 0,
    "enable-cpu-offload": 0,
    "ulysses-degree": 1,
    "ring-degree": 1,
    "cfg-parallel-size": 1,
    "model-express-url": 1,
    # components/src/dynamo/common/configuration/groups/runtime_args.py (ai-dynamo/dynamo@007ec174)
    # DynamoRuntimeArgGroup.add_arguments
    "namespace": 1,
    "kv-state-endpoint": 1,
    "discovery-backend": 1,
    "request-plane": 1,
    "response-plane": 1,
    "event-plane": 1,
    "fpm-trace": 0,
    "connector": "*",
    "dyn-tool-call-parser": 1,
    "dyn-reasoning-parser": 1,
    "dyn-default-thinking-mode": 1,
    "exclude-tools-when-tool-choice-none": 0,
    "dyn-enable-structural-tag": 0,
    "dyn-structural-tag-scope": 1,
    "dyn-structural-tag-schema": 1,
    "dyn-structural-tag": "?",
    "custom-jinja-template": 1,
    "endpoint-types": 1,
    "dyn-endpoint-types": 1,
    "dump-config-to": 1,
    "multimodal-embedding-cache-capacity-gb": 1,
    "multimodal-embedding-cache-publisher": 0,
    "output-modalities": "*",
    "media-output-fs-url": 1,
    "media-output-http-url": 1,
    "health-check-payload": 1,
    "engine-request-limit": 1,
    "tcp-tls-cert-path": 1,
    "tcp-tls-key-path": 1,
    "tcp-tls-ca-cert-path": 1,
    "tcp-tls-insecure": 0,
    "tcp-tls-server-name": 1,
    "tcp-tls-handshake-timeout": 1,
    "tcp-tls-client-cert-path": 1,
    "tcp-tls-client-key-path": 1,
    "tcp-tls-client-ca-cert-path": 1,
    "nats-tls-ca-cert-path": 1,
    "nats-tls-insecure": 0,
    "nats-tls-client-cert-path": 1,
    "nats-tls-client-key-path": 1,
    # components/src/dynamo/vllm/args.py (ai-dynamo/dynamo@000a36a7): options its own error messages name
    # ("--engine-config-json must contain a JSON object", "--gms-shadow-mode requires --load-format gms",
    # "--enable-rl requires logprobs_mode=...", "When using --disaggregation-mode prefill", "--benchmark-mode
    # requires InstrumentedScheduler", "--benchmark-prefill-kv-read-granularity greater than 1")
    "engine-config-json": 1,
    "gms-shadow-mode": 0,
    "enable-rl": 0,
    "disaggregation-mode": 1,
    "benchmark-mode": 1,
    "benchmark-prefill-kv-read-granularity": 1,
}

#: options both parsers define: the word stays in vLLM's command line (backend_args.py defines
#: ``--enforce-eager`` for diffusion models; vLLM's engine defines it too)
SHARED = frozenset({"enforce-eager"})


def own_option(word: str) -> tuple[str, int | str] | None:
    """(option, arity) when ``word`` (``--flag`` or ``--flag=value``) is one of Dynamo's own options."""
    if not word.startswith("--") or word == "--":
        return None
    name = word[2:].partition("=")[0].replace("_", "-")
    if name in SHARED:
        return None
    if name in OWN_OPTIONS:
        return name, OWN_OPTIONS[name]
    if name.startswith("no-") and OWN_OPTIONS.get(name[3:]) == 0:
        return name, 0
    return None
