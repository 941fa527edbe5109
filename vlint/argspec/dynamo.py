"""NVIDIA Dynamo's vLLM worker (``python -m dynamo.vllm``): its own options, which it parses before
it hands the rest of the command line to vLLM's ``AsyncEngineArgs`` parser.

How the worker parses its command line (line numbers as read in the ai-dynamo wheel of each release tag, whose
``dynamo/`` package is the repository's ``components/backends/vllm/src/dynamo/`` up to 0.5.0 and
``components/src/dynamo/`` from 0.7.0; the first commit was read in the repository itself):

- ai-dynamo/dynamo@00697417 components/backends/vllm/src/dynamo/vllm/args.py:45-62 ``parse_args``: one vLLM
  ``FlexibleArgumentParser`` (:46) with ``--endpoint`` (:50) and ``--is-prefill-worker`` (:56), then
  ``AsyncEngineArgs.add_cli_args(parser)`` (:61) and ``parser.parse_args()`` (:62). The same single parser
  through @v0.9.0 (@v0.4.0 args.py:54-89, @v0.5.0 :66-120, @v0.7.0 :89-192, @v0.9.0
  components/src/dynamo/vllm/args.py:110-285): vLLM's parsing rules (abbreviations, ``--config``) apply to the
  whole line and a word neither knows is an error.
- From @v1.0.0 (components/src/dynamo/vllm/args.py:63-100): Dynamo's own ``argparse.ArgumentParser`` with
  ``allow_abbrev=False`` (:72-75) holds ``DynamoRuntimeArgGroup`` and ``DynamoVllmArgGroup``; its
  ``parse_known_args()`` (:94) hands the unknown words to a separate vLLM ``FlexibleArgumentParser``
  (:86-87) and ``vllm_parser.parse_args(unknown)`` (:100). @v1.6.1 components/src/dynamo/vllm/args.py:117-156
  ``_parse_cli_args`` is the same (:122-125, :150, :156) and between the two takes the worker router flags
  out (``parse_worker_router_config(unknown)``, :154; components/src/dynamo/common/configuration/groups/
  router_args.py:340-363, ``RouterArgGroup`` without its frontend-only flags and ``KvRouterArgGroup``).
  ``python -m dynamo.vllm.omni`` (@v1.6.1 components/src/dynamo/vllm/omni/args.py:89-433 ``OmniArgGroup``)
  is read as the same program by vlint's sources, so its options are in the table too.

Either way an option of this table is not vLLM's and never reaches vLLM. The table is the union over those
releases, each option cited where it first appears in a release read (the defining line of the
``add_argument`` / ``add_negatable_bool_argument`` call); Dynamo's options change between its releases and the
image tag does not say which Dynamo release wrote a file, so a word vLLM does not know is reported as a warning
only: a Dynamo release vlint has not read may define it.
"""

from __future__ import annotations

#: the program name of a ``python -m dynamo.vllm`` launch (``Invocation.program``)
PROGRAM = "dynamo-vllm"

#: option (without ``--``) -> how many words follow: 0 (a switch), 1 (a value), ``"*"`` (``nargs="*"``)
#: or ``"?"`` (``nargs="?"``). Negatable switches (``add_negatable_bool_argument``) also take ``--no-``.
OWN_OPTIONS: dict[str, int | str] = {
    # ai-dynamo/dynamo@v0.4.0 components/backends/vllm/src/dynamo/vllm/args.py
    "endpoint": 1,  # :59
    "is-prefill-worker": 0,  # :65
    "migration-limit": 1,  # :70
    "dynamo-port-min": 1,  # :76
    "dynamo-port-max": 1,  # :82
    # ai-dynamo/dynamo@v0.5.0 components/backends/vllm/src/dynamo/vllm/args.py
    "version": 0,  # :71
    "connector": "*",  # :97
    "dyn-tool-call-parser": 1,  # :105
    "dyn-reasoning-parser": 1,  # :112
    # ai-dynamo/dynamo@v0.7.0 components/src/dynamo/common/config_dump/config_dumper.py
    "dump-config-to": 1,  # :183
    # ai-dynamo/dynamo@v0.7.0 components/src/dynamo/vllm/args.py
    "is-decode-worker": 0,  # :102
    "custom-jinja-template": 1,  # :135
    "multimodal-processor": 0,  # :141
    "multimodal-encode-worker": 0,  # :146
    "multimodal-worker": 0,  # :151
    "multimodal-decode-worker": 0,  # :156
    "multimodal-encode-prefill-worker": 0,  # :161
    "enable-multimodal": 0,  # :166
    "mm-prompt-template": 1,  # :171
    "store-kv": 1,  # :184
    # ai-dynamo/dynamo@v0.9.0 components/src/dynamo/vllm/args.py
    "dyn-endpoint-types": 1,  # :167
    "ec-processor": 0,  # :178
    "vllm-native-encoder-worker": 0,  # :221
    "ec-connector-backend": 1,  # :226
    "ec-storage-path": 1,  # :232
    "ec-extra-config": 1,  # :238
    "ec-consumer-mode": 0,  # :244
    "request-plane": 1,  # :256
    "event-plane": 1,  # :263
    "enable-local-indexer": 1,  # :270
    "use-vllm-tokenizer": 0,  # :277
    # ai-dynamo/dynamo@v1.0.0 components/src/dynamo/common/configuration/groups/runtime_args.py
    "namespace": 1,  # :72
    "discovery-backend": 1,  # :87
    "durable-kv-events": 0,  # :120
    "endpoint-types": 1,  # :153
    "multimodal-embedding-cache-capacity-gb": 1,  # :170
    "output-modalities": "*",  # :179
    "media-output-fs-url": 1,  # :189
    "media-output-http-url": 1,  # :196
    # ai-dynamo/dynamo@v1.0.0 components/src/dynamo/vllm/backend_args.py
    "disaggregation-mode": 1,  # :32
    "sleep-mode-level": 1,  # :68
    "route-to-encoder": 0,  # :79
    "frontend-decoding": 0,  # :129
    "embedding-transfer-mode": 1,  # :141
    "omni": 0,  # :152
    "stage-configs-path": 1,  # :159
    "default-video-fps": 1,  # :168
    "omni-enable-layerwise-offload": 0,  # :181
    "omni-layerwise-num-gpu-layers": 1,  # :188
    "omni-vae-use-slicing": 0,  # :196
    "omni-vae-use-tiling": 0,  # :203
    "omni-boundary-ratio": 1,  # :210
    "omni-flow-shift": 1,  # :223
    "omni-diffusion-cache-backend": 1,  # :231
    "omni-diffusion-cache-config": 1,  # :243
    "omni-enable-cache-dit-summary": 0,  # :250
    "omni-enable-cpu-offload": 0,  # :257
    "omni-enforce-eager": 0,  # :264
    "omni-ulysses-degree": 1,  # :272
    "omni-ring-degree": 1,  # :280
    "omni-cfg-parallel-size": 1,  # :288
    "headless": 0,  # :299
    "model-express-url": 1,  # :310
    # ai-dynamo/dynamo@v1.6.1 components/src/dynamo/common/configuration/groups/kv_router_args.py
    "load-aware": 0,  # :307
    "router-kv-overlap-score-credit": 1,  # :326
    "router-kv-overlap-score-credit-decay": 1,  # :340
    "router-kv-overlap-score-weight": 1,  # :355
    "router-prefill-load-scale": 1,  # :370
    "router-decode-active-request-weight": 1,  # :383
    "router-host-cache-hit-weight": 1,  # :398
    "router-disk-cache-hit-weight": 1,  # :412
    "router-temperature": 1,  # :425
    "router-kv-events": 0,  # :437
    "router-replica-sync": 0,  # :450
    "router-track-active-blocks": 0,  # :460
    "router-track-output-blocks": 0,  # :472
    "router-assume-kv-reuse": 0,  # :486
    "router-track-prefill-tokens": 0,  # :499
    "router-tracking-hash": 1,  # :511
    "router-tracking-key-file": 1,  # :519
    "router-tracking-key-id": 1,  # :526
    "router-prefill-load-model": 1,  # :533
    "router-ttl-secs": 1,  # :546
    "router-approximate-cache-policy": 1,  # :557
    "router-queue-threshold": 1,  # :570
    "router-policy-config": 1,  # :594
    "router-conditional-disagg": 0,  # :608
    "router-conditional-disagg-config": 1,  # :622
    "router-prefill-policy": 1,  # :637
    "router-decode-policy": 1,  # :653
    "router-event-threads": 1,  # :669
    "router-queue-policy": 1,  # :681
    "use-remote-indexer": 0,  # :698
    "enable-session-prefix-index": 0,  # :709
    "shared-cache-multiplier": 1,  # :721
    "shared-cache-type": 1,  # :735
    "router-predicted-ttl-secs": 1,  # :749
    # their obsolete names, accepted as aliases (``obsolete_flag=``; configuration/utils.py:161-163 @v1.6.1)
    "kv-overlap-score-weight": 1,  # :356
    "kv-events": 0,  # :446
    "track-active-blocks": 0,  # :468
    "track-output-blocks": 0,  # :482
    "assume-kv-reuse": 0,  # :495
    # ai-dynamo/dynamo@v1.6.1 components/src/dynamo/common/configuration/groups/router_args.py
    "router-mode": 1,  # :226
    "router-session-affinity-ttl-secs": 1,  # :249
    "router-session-affinity-mode": 1,  # :263
    "active-decode-blocks-threshold": 1,  # :276
    "active-prefill-tokens-threshold": 1,  # :288
    "active-prefill-tokens-threshold-frac": 1,  # :302
    # ai-dynamo/dynamo@v1.6.1 components/src/dynamo/common/configuration/groups/runtime_args.py
    "kv-state-endpoint": 1,  # :233
    "response-plane": 1,  # :256
    "fpm-trace": 0,  # :273
    "dyn-default-thinking-mode": 1,  # :306
    "exclude-tools-when-tool-choice-none": 0,  # :321
    "dyn-enable-structural-tag": 0,  # :328
    "dyn-structural-tag-scope": 1,  # :334
    "dyn-structural-tag-schema": 1,  # :340
    "dyn-structural-tag": "?",  # :347
    "multimodal-embedding-cache-publisher": 0,  # :399
    "health-check-payload": 1,  # :433
    "engine-request-limit": 1,  # :450
    "tcp-tls-cert-path": 1,  # :461
    "tcp-tls-key-path": 1,  # :469
    "tcp-tls-ca-cert-path": 1,  # :477
    "tcp-tls-insecure": 0,  # :485
    "tcp-tls-server-name": 1,  # :493
    "tcp-tls-handshake-timeout": 1,  # :501
    "tcp-tls-client-cert-path": 1,  # :511
    "tcp-tls-client-key-path": 1,  # :519
    "tcp-tls-client-ca-cert-path": 1,  # :527
    "nats-tls-ca-cert-path": 1,  # :536
    "nats-tls-insecure": 0,  # :544
    "nats-tls-client-cert-path": 1,  # :552
    "nats-tls-client-key-path": 1,  # :560
    # ai-dynamo/dynamo@v1.6.1 components/src/dynamo/vllm/backend_args.py
    "enable-rl": 0,  # :152
    "custom-encoder-class": 1,  # :180
    "embedding-worker": 0,  # :205
    "embedding-frontend-tokenization": 0,  # :215
    "embedding-worker-processes": 1,  # :232
    "realtime": 0,  # :253
    "classify-worker": 0,  # :264
    "gms-shadow-mode": 0,  # :296
    "benchmark-mode": 1,  # :310
    "benchmark-points-file": 1,  # :326
    "prefill-max-new-token-samples": 1,  # :341
    "prefill-max-kv-read-token-samples": 1,  # :355
    "decode-max-kv-read-token-samples": 1,  # :370
    "decode-max-batch-size-samples": 1,  # :384
    "prefix-max-batch-size-samples": 1,  # :398
    "benchmark-prefill-granularity": 1,  # :436
    "benchmark-prefill-kv-read-granularity": 1,  # :441
    "benchmark-prefill-batch-granularity": 1,  # :446
    "benchmark-decode-length-granularity": 1,  # :451
    "benchmark-decode-batch-granularity": 1,  # :456
    "benchmark-randomize-kda-state": 0,  # :475
    "benchmark-hybrid-live-state": 0,  # :486
    "benchmark-warmup-iterations": 1,  # :500
    "benchmark-output-path": 1,  # :508
    "benchmark-collect-imbalanced": 0,  # :518
    "benchmark-timeout": 1,  # :531
    "benchmark-max-batch-size": 1,  # :544
    # ai-dynamo/dynamo@v1.6.1 components/src/dynamo/vllm/omni/args.py
    "enable-layerwise-offload": 0,  # :120
    "layerwise-num-gpu-layers": 1,  # :128
    "vae-use-slicing": 0,  # :139
    "vae-use-tiling": 0,  # :147
    "boundary-ratio": 1,  # :155
    "flow-shift": 1,  # :167
    "cache-backend": 1,  # :175
    "cache-config": 1,  # :187
    "enable-cache-dit-summary": 0,  # :194
    "enable-cpu-offload": 0,  # :202
    "task-type": 1,  # :210
    "lora-path": "*",  # :217
    "diffusion-attention-backend": 1,  # :229
    "fastvideo-vsa-topk": 1,  # :236
    "tts-max-instructions-length": 1,  # :260
    "tts-max-new-tokens-min": 1,  # :268
    "tts-max-new-tokens-max": 1,  # :276
    "tts-ref-audio-timeout": 1,  # :284
    "tts-ref-audio-max-bytes": 1,  # :292
    "ulysses-degree": 1,  # :302
    "ulysses-a2a-permute": 0,  # :310
    "ring-degree": 1,  # :321
    "allgather-degree": 1,  # :329
    "cfg-parallel-size": 1,  # :337
    "vae-patch-parallel-size": 1,  # :346
    "text-encoder-tp-size": 1,  # :354
    "vae-parallel-mode": 1,  # :365
    "use-hsdp": 0,  # :373
    "hsdp-shard-size": 1,  # :383
    "hsdp-replicate-size": 1,  # :391
    "stage-id": 1,  # :401
    "omni-router": 0,  # :413
    # ai-dynamo/dynamo@036f289b components/src/dynamo/vllm/backend_args.py DynamoVllmArgGroup.add_arguments (a
    # commit between the releases read, not re-read here: no release read has these three; @v1.0.0 names the
    # last two --omni-diffusion-cache-backend / --omni-diffusion-cache-config, backend_args.py:231, :243)
    "video-output-dir": 1,
    "diffusion-cache-backend": 1,
    "diffusion-cache-config": 1,
    # ai-dynamo/dynamo@000a36a7 components/src/dynamo/vllm/args.py:60-66 ``_load_engine_config_json`` ("--engine-
    # config-json must contain a JSON object"; a commit after v1.6.1)
    "engine-config-json": 1,
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
