"""Which vLLM releases know an option or an environment variable: the cross-version index.

``schemas/vllm/index.json`` lists, for every option string and every ``VLLM_*`` variable ever seen
in a bundled schema, the bundled versions that have it. It is generated from the schema files by
``tools/gen_schema_index.py`` (a test fails when it is stale), so a lint run reads one small file
instead of every schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from vlint.paths import schemas_dir
from vlint.version import Version


@dataclass(frozen=True, slots=True)
class History:
    versions: tuple[Version, ...]
    #: option string → indices into ``versions`` where it exists
    options: dict[str, tuple[int, ...]]
    #: dest → indices
    dests: dict[str, tuple[int, ...]]
    env_vars: dict[str, tuple[int, ...]]

    def present_in(self, option: str) -> list[Version]:
        return [self.versions[i] for i in self.options.get(option, ())]

    def env_present_in(self, name: str) -> list[Version]:
        return [self.versions[i] for i in self.env_vars.get(name, ())]


def build_index(schemas: dict[Version, dict]) -> dict:
    """The index document for the given schema documents (used by the generator and its test)."""
    versions = sorted(schemas)
    options: dict[str, list[int]] = {}
    dests: dict[str, list[int]] = {}
    env: dict[str, list[int]] = {}
    for i, v in enumerate(versions):
        meta = schemas[v].get("x-vlint", {})
        for a in meta.get("arguments", []):
            for o in list(a.get("option_strings") or []) + list(a.get("negative_option_strings") or []):
                lst = options.setdefault(o, [])
                if not lst or lst[-1] != i:
                    lst.append(i)
            lst = dests.setdefault(a["dest"], [])
            if not lst or lst[-1] != i:
                lst.append(i)
        for name in meta.get("env_vars") or {}:
            env.setdefault(name, []).append(i)
    return {
        "generated_by": "tools/gen_schema_index.py",
        "versions": [str(v) for v in versions],
        "options": {k: options[k] for k in sorted(options)},
        "dests": {k: dests[k] for k in sorted(dests)},
        "env_vars": {k: env[k] for k in sorted(env)},
    }


@cache
def history() -> History:
    path = schemas_dir() / "vllm" / "index.json"
    with path.open(encoding="utf-8") as f:
        doc = json.load(f)
    return History(
        versions=tuple(Version.parse(v) for v in doc["versions"]),
        options={k: tuple(v) for k, v in doc["options"].items()},
        dests={k: tuple(v) for k, v in doc["dests"].items()},
        env_vars={k: tuple(v) for k, v in doc["env_vars"].items()},
    )


def is_known_option(name: str) -> bool:
    """Is ``name`` (a config key without dashes, dashes or underscores) a vLLM option in any
    bundled release? Used to recognise vLLM config files."""
    h = history()
    key = name.strip().lstrip("-").replace("_", "-")
    return ("--" + key) in h.options or key.replace("-", "_") in h.dests
