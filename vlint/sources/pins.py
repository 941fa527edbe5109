"""The vLLM release a deployment pins beside its launch: ``vllm==X`` in the launch's own file, its
folder's ``requirements*.txt`` / ``pyproject.toml`` / ``uv.lock`` / ``poetry.lock`` / a Dockerfile's
``pip install vllm==X``, or its project root's.

Only exact pins count (``vllm==0.9.2``, ``vllm[audio]==0.10.2``, poetry ``vllm = "0.9.2"``, a lock
file's resolved ``version``); a range (``vllm>=0.9``) in a dependency file states no release (an
environment that has an older vLLM keeps it). An *unpinned install* is a fact of its own: ``pip install
vllm`` (no version, or only a lower bound) in the launch's script or a Dockerfile beside it installs
the newest release on PyPI when it runs (:func:`unpinned_in_script`; a nightly, a wheel URL, a git
checkout or an upper bound are not the newest release and do not count); it is used only where no
exact pin is found. Files are read through the
lint run's reader (the one sources get), so nothing outside the lint root is read; nothing is
executed or evaluated. The first pin found wins, in this order: the launch's file, its folder, its
project root (the nearest folder above with a ``pyproject.toml``, ``uv.lock``, ``poetry.lock`` or
``.git``, never above the lint root).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from vlint.core.invocation import UNPINNED_FACT, Fact
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record
from vlint.core.span import Span
from vlint.sources.sniffing import is_dockerfile_name

#: ``pip install … vllm==0.9.2`` / ``uv pip install "vllm[audio]==0.10.2"`` / ``pip3 install -U vllm==0.6.6.post1``
_INSTALL = lazy_compile(
    r"\b(?:uv\s+pip|pip3?|python3?\s+-m\s+pip)\s+install\b[^\n;&|]*?"
    r"(?<![\w.-])[\"']?vllm(?:\[[^\]]*\])?\s*==\s*v?(?P<v>\d+(?:\.\d+)+(?:\.post\d+)?)\b",
    re.IGNORECASE,
)
#: ``pip install vllm`` / ``uv pip install -U "vllm[audio]"`` / ``pip install 'vllm>=0.9'``: the newest release
#: at install time (a version variable ``vllm==$V``, an upper bound or another package are not matched)
_UNPINNED = lazy_compile(
    r"^(?P<head>[^#\n]*?)\b(?:uv\s+pip|pip3?|python3?\s+-m\s+pip)\s+install\b[^\n;&|#]*?"
    r"(?<![\w./=-])[\"']?vllm(?:\[[^\]\s]*\])?(?:\s*>=\s*v?\d+(?:\.\d+)*(?:\.post\d+)?)?[\"']?"
    r"(?=[ \t]|$|[;&|\\\n])",
    re.IGNORECASE | re.MULTILINE,
)
#: an install line that takes vLLM from elsewhere than PyPI's newest release (a nightly, wheels, a checkout)
_NOT_RELEASE = lazy_compile(r"--pre\b|nightly|wheels\.vllm\.ai|git\+|\.whl\b|--editable\b|\s-e\s", re.IGNORECASE)
#: ``pip install -r requirements.txt`` / ``--requirement=reqs/serve.txt``: the file it installs
_INSTALL_R = lazy_compile(
    r"^[^#\n]*?\b(?:uv\s+pip|pip3?|python3?\s+-m\s+pip)\s+install\b[^\n;&|#]*?"
    r"\s(?:-r\s*|--requirement[=\s]\s*)[\"']?(?P<f>[^\s\"';&|$]+)",
    re.IGNORECASE | re.MULTILINE,
)
#: a requirements line that takes the newest vLLM: ``vllm``, ``vllm[audio]``, ``vllm>=0.9`` (no upper bound)
_UNPINNED_REQUIREMENT = lazy_compile(
    r"^\s*vllm(?:\[[^\]]*\])?\s*(?:>=\s*v?\d+(?:\.\d+)*(?:\.post\d+)?\s*)?(?:[;#].*)?$", re.IGNORECASE
)
#: a requirements line: ``vllm==0.9.2``, ``vllm[audio] == 0.9.2 ; python_version >= "3.9"``
_REQUIREMENT = lazy_compile(
    r"^\s*vllm(?:\[[^\]]*\])?\s*===?\s*v?(?P<v>\d+(?:\.\d+)+(?:\.post\d+)?)\s*(?:[;#].*)?$", re.IGNORECASE
)
#: a PEP 508 string in pyproject.toml: ``"vllm==0.9.2"``
_PEP508 = lazy_compile(
    r"[\"']vllm(?:\[[^\]]*\])?\s*===?\s*v?(?P<v>\d+(?:\.\d+)+(?:\.post\d+)?)\s*(?:;[^\"']*)?[\"']", re.IGNORECASE
)
#: poetry: ``vllm = "0.9.2"`` / ``vllm = "==0.9.2"`` / ``vllm = { version = "0.9.2", … }``
_POETRY = lazy_compile(
    r"^\s*vllm\s*=\s*(?:\{[^}\n]*?\bversion\s*=\s*)?[\"'](?:==)?v?(?P<v>\d+(?:\.\d+)+(?:\.post\d+)?)[\"']",
    re.IGNORECASE | re.MULTILINE,
)
#: a lock file's package entry: ``name = "vllm"`` followed by ``version = "0.9.2"``
_LOCK = lazy_compile(r'^name\s*=\s*"vllm"\s*\n(?:[^\[\n][^\n]*\n)*?version\s*=\s*"(?P<v>[^"]+)"', re.MULTILINE)

PROJECT_MARKERS = ("pyproject.toml", "uv.lock", "poetry.lock", ".git")


@record(frozen=True, slots=True)
class Pin:
    version: str
    path: Path
    line: int
    column: int
    end_column: int
    how: str
    #: an unpinned install (``version`` is ""): the newest release when it runs
    unpinned: bool = False

    def fact(self, shown: str) -> Fact:
        span = Span(shown, self.line, self.column, self.line, self.end_column)
        return Fact(self.version, span, f"{self.how} in {shown}" + (f":{self.line}" if self.unpinned else ""))


def _at(text: str, m: re.Match[str], path: Path, how: str) -> Pin:
    line = text.count("\n", 0, m.start()) + 1
    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return Pin(m.group("v"), path, line, col, col + (m.end() - m.start()), how)


def _mentions_pip(text: str) -> bool:
    """Whether ``text`` can hold an install line at all: each pattern of one (:data:`_INSTALL`,
    :data:`_UNPINNED`, :data:`_INSTALL_R`) needs the word ``pip``; a file without it (most launch files)
    is answered without compiling or running them."""
    return "pip" in text or "pip" in text.lower()


def pin_in_script(text: str, path: Path) -> Pin | None:
    """``pip install vllm==X`` / ``uv pip install vllm==X`` in a script, Dockerfile or CI file."""
    if not _mentions_pip(text):
        return None
    m = _INSTALL.search(text)
    if m is None:
        return None
    return _at(text, m, path, f"pip install vllm=={m.group('v')}")


def unpinned_in_script(text: str, path: Path) -> Pin | None:
    """``pip install vllm`` with no version (or only ``>=``) in a script, Dockerfile or CI file: whatever
    release is newest when it runs. Not on a commented line, not for a nightly/wheel/git install."""
    if not _mentions_pip(text):
        return None
    for m in _UNPINNED.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line_text = text[start : end if end >= 0 else len(text)]
        if _NOT_RELEASE.search(line_text) or "echo" in m.group("head").split():
            continue
        at = m.start() + len(m.group("head"))
        line = text.count("\n", 0, at) + 1
        col = at - start + 1
        return Pin("", path, line, col, col + (m.end() - at), "pip install vllm (no version)", unpinned=True)
    return None


def pin_in_file(name: str, text: str, path: Path) -> Pin | None:
    """The exact vLLM pin of one dependency file (by its name), else None."""
    if name.startswith("requirements") and name.endswith(".txt"):
        offset = 0
        for raw in text.splitlines(keepends=True):
            m = _REQUIREMENT.match(raw.rstrip("\r\n"))
            if m is not None:
                col = len(raw) - len(raw.lstrip()) + 1
                line = text.count("\n", 0, offset) + 1
                return Pin(m.group("v"), path, line, col, col + len(raw.strip()), f"vllm=={m.group('v')}")
            offset += len(raw)
        return None
    if name == "pyproject.toml":
        m = _PEP508.search(text) or _POETRY.search(text)
        return _at(text, m, path, f"vllm=={m.group('v')}") if m is not None else None
    if name in ("uv.lock", "poetry.lock"):
        m = _LOCK.search(text)
        return _at(text, m, path, f"vllm {m.group('v')} locked") if m is not None else None
    if is_dockerfile_name(name):
        return pin_in_script(text, path)
    return None


def _dependency_files(folder: Path) -> list[Path]:
    try:  # scandir: the entry types come with the listing (no stat per file, but for links)
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.is_file())
    except OSError:
        return []
    reqs = [n for n in names if n.startswith("requirements") and n.endswith(".txt")]
    # an image built beside the launch that pip-installs vLLM (the launch's script is usually copied in):
    # after the dependency files, which state the environment more directly
    images = [n for n in names if is_dockerfile_name(n)]
    return [folder / n for n in (*reqs, "pyproject.toml", "uv.lock", "poetry.lock", *images) if n in names]


def project_root(folder: Path, root: Path) -> Path | None:
    """The nearest folder at or above ``folder`` (never above the lint ``root``) with a project marker."""
    try:
        folder.relative_to(root)
    except ValueError:
        return None
    for d in (folder, *folder.parents):
        if any((d / m).exists() for m in PROJECT_MARKERS):
            return d
        if d == root:
            break
    return None


def find_pin(
    launch_file: Path, launch_text: str, read_file: Callable[[Path], object], root: Path
) -> tuple[Pin, object] | None:
    """(pin, the SourceText it was read from) for a launch in ``launch_file``, or None. ``read_file`` is
    the lint run's reader (raises on a file it cannot or may not read)."""
    own = pin_in_script(launch_text, launch_file)
    if own is not None:
        return own, None
    folder = launch_file.parent
    folders = [folder]
    top = project_root(folder, root)
    if top is not None and top != folder:
        folders.append(top)
    read: list[tuple[Path, object]] = []
    for d in folders:
        for path in _dependency_files(d):
            try:
                src = read_file(path)
            except Exception:  # unreadable, too large, outside the root: not a pin
                continue
            pin = pin_in_file(path.name, getattr(src, "text", ""), path)
            if pin is not None:
                return pin, src
            read.append((path, src))
    # no exact pin anywhere: an install in the launch's own file, else in a Dockerfile beside it — of a
    # requirements file it names (``pip install -r requirements.txt``), or of vllm with no version
    scripts = [(launch_file, launch_text, None)]
    scripts += [(path, getattr(src, "text", ""), src) for path, src in read if is_dockerfile_name(path.name)]
    for path, text, src in scripts:
        found = _installed_requirements(text, path, read_file)
        if found is not None:
            return found
        pin = unpinned_in_script(text, path)
        if pin is not None:
            return pin, src
    return None


def _installed_requirements(text: str, path: Path, read_file: Callable[[Path], object]) -> tuple[Pin, object] | None:
    """The vLLM of a requirements file that ``pip install -r FILE`` in ``text`` installs: an exact pin, or
    ``vllm`` with no version (the newest release when it runs). ``FILE`` is looked up from ``path``'s
    folder (a Dockerfile's build context), as written, then by its name (``COPY requirements.txt /app/``
    + ``RUN pip install -r /app/requirements.txt``)."""
    if not _mentions_pip(text):
        return None
    for m in _INSTALL_R.finditer(text):
        ref = m.group("f")
        for candidate in dict.fromkeys((path.parent / ref.lstrip("/"), path.parent / Path(ref).name)):
            try:
                req = read_file(candidate)
            except Exception:  # unreadable, absent, outside the root
                continue
            req_text = getattr(req, "text", "")
            exact = pin_in_file("requirements.txt", req_text, candidate)
            if exact is not None:
                return exact, req
            offset = 0
            for raw in req_text.splitlines(keepends=True):
                line = raw.rstrip("\r\n")
                if _UNPINNED_REQUIREMENT.match(line):
                    col = len(line) - len(line.lstrip()) + 1
                    at = req_text.count("\n", 0, offset) + 1
                    how = f"vllm (no version, installed by pip install -r {ref})"
                    return Pin("", candidate, at, col, col + len(line.strip()), how, unpinned=True), req
                offset += len(raw)
            break
    return None


def attach_pins(invocations: list, src: object, read_file: Callable[[Path], object], root: Path) -> None:
    """Give each launch without a stated release the pin beside it (``facts["vllm_version"]``).

    A launch inside an image that ships vLLM runs that image's vLLM, whatever a requirements file
    beside it says: only launches without such an image get a pin (a script, a Python launch, a
    ``python:3.11`` image that pip-installs vLLM)."""
    from vlint.sources.containers.images import parse_image, unknown_version_reason

    todo = []
    for inv in invocations:
        if "vllm_version" in inv.facts:
            continue
        image = inv.facts.get("image")
        ref = parse_image(str(image.value)) if image is not None else None
        if ref is not None and (ref.is_vllm or unknown_version_reason(ref)):
            continue
        todo.append(inv)
    if not todo:
        return
    path: Path = src.abspath
    found = find_pin(path, getattr(src, "text", ""), read_file, root)
    if found is None:
        return
    pin, pin_src = found
    shown = getattr(pin_src, "path", None) or getattr(src, "path", str(path))
    fact = pin.fact(shown)
    key = UNPINNED_FACT if pin.unpinned else "vllm_version"
    for inv in todo:
        inv.facts[key] = fact
