"""Write the keyword fields of vLLM's composite-option config classes per release (vlint/data/config_fields.json).

From 0.16.0 every vLLM config class forbids unknown fields (``@config``: ``ConfigDict(extra="forbid")``,
[0.16.0] vllm/config/utils.py:54-55), so a key of ``--compilation-config``/``--speculative-config``/… that is
not a field is refused ("Unexpected keyword argument"). This runs inside each release's venv (the ones
``tools/gen_all_schemas.sh`` builds) and records, per class, the names ``__init__`` takes (dataclass fields
with init=True, InitVars included) and the pydantic ``extra`` setting:

    python tools/gen_config_fields.py --envs /work/cache/vllm-envs 0.17.1 0.33.0   # merge into the data file
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "vlint" / "data" / "config_fields.json"
#: the JSON options whose keys are a config class's fields
CLASSES = {
    "compilation_config": "CompilationConfig",
    "speculative_config": "SpeculativeConfig",
    "structured_outputs_config": "StructuredOutputsConfig",
    "eplb_config": "EPLBConfig",
    "kv_transfer_config": "KVTransferConfig",
    "kv_events_config": "KVEventsConfig",
    "attention_config": "AttentionConfig",
}
PROBE = r"""
import dataclasses, json, sys, typing
import vllm.config as C
out = {}
for dest, name in json.loads(sys.argv[1]).items():
    cls = getattr(C, name, None)
    if cls is None or not dataclasses.is_dataclass(cls):
        continue
    names = sorted(n for n, f in cls.__dataclass_fields__.items()
                   if f.init and f._field_type is not dataclasses._FIELD_CLASSVAR)
    cfg = getattr(cls, "__pydantic_config__", None) or {}
    literals = {}
    try:
        hints = typing.get_type_hints(cls)
    except Exception:
        hints = {}
    for n in names:
        t = hints.get(n)
        args = []
        stack = [t]
        while stack:  # Literal[...] alone or inside Optional/Union/Annotated
            x = stack.pop()
            if typing.get_origin(x) is typing.Literal:
                args += [a for a in typing.get_args(x) if isinstance(a, str)]
            else:
                stack += list(typing.get_args(x))
        if args:
            literals[n] = sorted(set(args))
    out[dest] = {"class": name, "fields": names, "extra": cfg.get("extra"),
                 "pydantic": hasattr(cls, "__pydantic_fields__") or hasattr(cls, "__pydantic_validator__"),
                 "literals": literals}
print("JSON" + json.dumps(out))
"""


def probe(py: Path) -> dict:
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", VLLM_LOGGING_LEVEL="ERROR")
    res = subprocess.run([str(py), "-c", PROBE, json.dumps(CLASSES)], capture_output=True, text=True, env=env)
    line = next((x for x in res.stdout.splitlines() if x.startswith("JSON")), None)
    if line is None:
        raise RuntimeError(res.stderr[-2000:])
    return json.loads(line[4:])


#: where each release registers its KV connectors (read as text: KVConnectorFactory.register_connector("Name", …))
FACTORY = "lib/python3.11/site-packages/vllm/distributed/kv_transfer/kv_connector/factory.py"


def kv_connectors(env: Path) -> list[str] | None:
    import re

    f = env / FACTORY
    if not f.exists():
        return None
    return sorted(set(re.findall(r'register_connector\(\s*"([A-Za-z0-9_]+)"', f.read_text())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--envs", default=os.environ.get("VLLM_ENVS", "/work/cache/vllm-envs"))
    ap.add_argument("--connectors-only", action="store_true", help="only the KV-connector names (from the source)")
    ap.add_argument("releases", nargs="+")
    args = ap.parse_args()
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    data.setdefault("source", "tools/gen_config_fields.py: dataclass fields (init=True) of vllm.config classes")
    rel = data.setdefault("releases", {})
    key = lambda v: tuple(int(x) for x in v.replace(".post", ".").split("."))  # noqa: E731
    conns = data.setdefault("kv_connectors", {})
    for r in args.releases:
        if not args.connectors_only:
            rel[r] = probe(Path(args.envs) / r / "bin" / "python")
            print(f"{r}: {', '.join(sorted(rel[r]))}", file=sys.stderr)
        names = kv_connectors(Path(args.envs) / r)
        if names is not None:
            conns[r] = names
    data["kv_connectors"] = dict(sorted(conns.items(), key=lambda kv: key(kv[0])))
    data["releases"] = dict(sorted(rel.items(), key=lambda kv: key(kv[0])))
    OUT.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
