"""vLLM's registries per release: the values it checks against its own tables, not argparse choices.

Quantization methods, load formats, KV-cache dtypes, attention backends, tool-call and reasoning
parsers, tasks/runners/converts, structured-output (guided decoding) backends and the model
architectures of the model registry — each read by ``tools/gen_vllm_schema.py`` from the
release's own code (``x-vlint.registries``; where it came from is in ``registries.json``
``sources``). ``schemas/vllm/registries.json`` keeps, for every value, the releases that have it,
so a check can say "removed in X" or "added in Y". Loaded only by the checks that use it.
"""

from __future__ import annotations

from functools import cache

from vlint.core.record import record
from vlint.core.version import Version

#: id(registry) → (the registry, so the id stays its own; release → its values)
_VALUES_AT: dict[int, tuple[Registry, dict[Version, tuple[str, ...]]]] = {}


@record(frozen=True, slots=True)
class Registry:
    name: str
    versions: tuple[Version, ...]
    #: value → ranges of indices into ``versions``
    values: dict[str, list[list[int]]]
    #: the releases where this registry was read (elsewhere: unknown, never judged)
    extracted: list[list[int]]

    def _index(self, version: Version) -> int | None:
        try:
            return self.versions.index(version)
        except ValueError:
            return None

    def known_at(self, version: Version) -> bool:
        from vlint.argspec.bundle import contains

        i = self._index(version)
        return i is not None and contains(self.extracted, i)

    def values_at(self, version: Version) -> list[str]:
        """The values release ``version`` has (computed once per registry and release: a registry holds
        up to ~600 values, asked about once per launch)."""
        from vlint.argspec.bundle import contains

        held = _VALUES_AT.setdefault(id(self), (self, {}))
        memo = held[1]
        hit = memo.get(version)
        if hit is None:
            i = self._index(version)
            hit = () if i is None else tuple(sorted(v for v, r in self.values.items() if contains(r, i)))
            memo[version] = hit
        return list(hit)

    def present_in(self, value: str) -> list[Version]:
        from vlint.argspec.bundle import expand

        return [self.versions[i] for i in expand(self.values.get(value, []))]

    def history_note(self, value: str, version: Version) -> str:
        """``removed in 0.12.0 (last in 0.11.2)`` / ``added in 0.14.0`` / ``no vLLM release vlint knows
        has it``, for a value the release ``version`` lacks."""
        present = self.present_in(value)
        if not present:
            return "no vLLM release vlint knows has it"
        before = [v for v in present if v < version]
        after = [v for v in present if v > version]
        parts = []
        if before:
            last = before[-1]
            gone = next((v for v in self.versions if v > last and v not in present), version)
            parts.append(f"removed in {gone} (last in {last})")
        if after:
            parts.append(f"added in {after[0]}")
        return ", ".join(parts)

    def suggest(self, value: str, version: Version) -> str | None:
        """The closest value of the release (case and ``-``/``_`` insensitive first, then by spelling)."""
        have = self.values_at(version)
        norm = {h.lower().replace("-", "_"): h for h in have}
        key = value.lower().replace("-", "_")
        if key in norm:
            return norm[key]
        import difflib  # only for a value the registry does not hold

        close = difflib.get_close_matches(key, list(norm), n=1, cutoff=0.6)
        return norm[close[0]] if close else None


@cache
def registry(name: str) -> Registry | None:
    """The history of one registry (``quantization_methods``, ``architectures`` …), None when no
    bundled release recorded it."""
    from vlint.argspec.bundle import registries_doc

    doc = registries_doc()
    if name not in doc.get("registries", {}):
        return None
    return Registry(
        name=name,
        versions=tuple(Version.parse(v) for v in doc["versions"]),
        values=doc["registries"][name],
        extracted=doc["extracted"].get(name, []),
    )
