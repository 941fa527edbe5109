"""Which vLLM releases know an option or an environment variable: the cross-version index.

``schemas/vllm/index.json`` lists, for every option string and every ``VLLM_*`` variable ever seen
in a bundled release, the releases that have it (as ranges). ``tools/pack_schemas.py`` writes it
from the release records (a test fails when it is stale), so a lint run reads one small file
instead of every release.
"""

from __future__ import annotations

from functools import cache

from vlint.core.record import record
from vlint.core.version import Version


@record(frozen=True, slots=True)
class History:
    versions: tuple[Version, ...]
    #: option string → ranges of indices into ``versions`` where it exists (``[[first, last], …]``)
    options: dict[str, list[list[int]]]
    #: dest → ranges
    dests: dict[str, list[list[int]]]
    env_vars: dict[str, list[list[int]]]

    def present_in(self, option: str) -> list[Version]:
        return self._at(self.options.get(option))

    def env_present_in(self, name: str) -> list[Version]:
        return self._at(self.env_vars.get(name))

    def dest_present_in(self, dest: str) -> list[Version]:
        return self._at(self.dests.get(dest))

    def _at(self, ranges: list[list[int]] | None) -> list[Version]:
        from vlint.argspec.bundle import expand

        return [self.versions[i] for i in expand(ranges or [])]


@cache
def history() -> History:
    from vlint.argspec.bundle import index

    doc = index()
    return History(
        versions=tuple(Version.parse(v) for v in doc["versions"]),
        options=doc["options"],
        dests=doc["dests"],
        env_vars=doc["env_vars"],
    )


def is_known_option(name: str) -> bool:
    """Is ``name`` (a config key without dashes, dashes or underscores) a vLLM option in any
    bundled release? Used to recognise vLLM config files."""
    h = history()
    key = name.strip().lstrip("-").replace("_", "-")
    return ("--" + key) in h.options or key.replace("-", "_") in h.dests
