"""Where a shell script runs and what it writes: the working directory a launch starts in, and the
files and folders the script creates before it.

A script runs in the directory it is started from, which the file does not say: ``bash scripts/start.sh``
from the repository's root resolves ``--chat-template t.jinja`` against the root, not against
``scripts/``. The script knows its working directory only once it moves there itself from its own
path — ``cd "$(dirname "$0")"``, ``cd "$(dirname "${BASH_SOURCE[0]}")"``, ``cd "${0%/*}"``, a
``SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)`` it then enters — or to an absolute folder. Until then a
relative path vLLM opens is relative to a folder vlint can only assume (:func:`script_folder_path` reads
the idioms; the evaluator keeps the result, ``ShellEvaluator.workdir``).

What the script writes (``wget -O f``, ``curl -o f``, ``cp a b``, ``> f``, ``git clone … dir``, ``tar -x``)
may be what vLLM later opens: :func:`created_by` lists it so that a missing file is not called missing.
"""

from __future__ import annotations

import posixpath

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record

#: the script's own path: ``$0``, ``${0}``, ``$BASH_SOURCE``, ``${BASH_SOURCE}``, ``${BASH_SOURCE[0]}``
_SELF = lazy_compile(r"\$(?:0|\{0\}|BASH_SOURCE|\{BASH_SOURCE(?:\[0\])?\})(?![\w\[%#:/-])")
#: a path made absolute or canonical: ``$(readlink -f X)``, ``$(realpath X)`` (X: the script, or its folder)
_CANON = lazy_compile(r"(?:\$\(|`)\s*(?:readlink\s+-[femn]+|realpath(?:\s+-[A-Za-z]+)*)\s+(\x00[SD])\s*(?:\)|`)")
#: the folder of the script: ``$(dirname X)``, `` `dirname X` ``
_DIRNAME = lazy_compile(r"(?:\$\(|`)\s*dirname\s+(?:--\s+)?\x00S\s*(?:\)|`)")
#: ``${0%/*}``, ``${BASH_SOURCE[0]%/*}``: the script's path without its last part
_STRIP_LAST = lazy_compile(r"\$\{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}")
#: ``$(cd X && pwd)``, ``$(cd -P X >/dev/null 2>&1; pwd -P)``: the folder X, absolute
_CD_PWD = lazy_compile(
    r"\$\(\s*(?:builtin\s+)?cd\s+(?:-[LP]\s+)?\x00D(?:\s*\d?>\S+)*\s*(?:&&|;)\s*pwd(?:\s+-[LP])?\s*\)"
)
#: ``$NAME`` / ``${NAME}`` (a variable that may hold the script's folder)
_VAR = lazy_compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def script_folder_path(raw: str, var_raw: dict[str, str] | None = None) -> str | None:
    """The folder a word names relative to the script's own (``""``: that folder; ``"sub"``, ``".."``),
    when the word is built from the script's path (``"$(dirname "$0")"/sub``); None otherwise.
    ``var_raw``: the source text of variables assigned a value vlint cannot compute (``SCRIPT_DIR``
    assigned ``$(cd "$(dirname "$0")" && pwd)``), looked into once."""
    text = raw.replace('"', "").replace("'", "")
    if var_raw:

        def inline(m: object) -> str:
            name = m.group(1) or m.group(2)  # type: ignore[attr-defined]
            inner = var_raw.get(name)
            sub = script_folder_path(inner) if inner is not None else None
            return m.group(0) if sub is None else "\x00D" + ("/" + sub if sub else "")  # type: ignore[attr-defined]

        text = _VAR.sub(inline, text)
    text = _STRIP_LAST.sub("\x00D", _SELF.sub("\x00S", text))
    for _ in range(6):  # each pass reduces one level of nesting
        before = text
        text = _CD_PWD.sub("\x00D", _DIRNAME.sub("\x00D", _CANON.sub(lambda m: m.group(1), text)))
        if text == before:
            break
    if not text.startswith("\x00D"):
        return None
    rest = text[2:]
    if rest and not rest.startswith("/"):
        return None
    if any(c in rest for c in "$`\x00*?"):
        return None
    norm = posixpath.normpath(rest.lstrip("/") or ".")
    return "" if norm == "." else norm


@record(frozen=True, slots=True)
class Created:
    """A path the script writes before the launch (relative to the script's folder, as the script's
    ``cd``s lead, or absolute): a file, or a folder whose contents vlint cannot list."""

    path: str
    folder: bool
    #: the command that writes it (``wget -O``, ``git clone``…)
    how: str
    #: the line of the script it is written on
    line: int


#: options of a command that take a value (skipped when reading its operands)
_VALUED = {
    "cp": {"-t", "--target-directory", "-S", "--suffix"},
    "mv": {"-t", "--target-directory", "-S", "--suffix"},
    "ln": {"-t", "--target-directory", "-S", "--suffix"},
    "install": {"-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"},
    "rsync": {"-e", "--rsh", "--exclude", "--include", "--filter", "-f"},
    "scp": {"-P", "-i", "-o", "-F", "-l", "-c", "-J"},
    "wget": {"-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file", "-a", "-e", "-t", "-T"},
    "curl": {"-o", "--output", "--output-dir", "-H", "--header", "-d", "--data", "-u", "--user", "-X", "-A", "-e"},
    "tar": {"-C", "--directory", "-f", "--file"},
    "unzip": {"-d", "-x"},
}


#: the programs :func:`created_by` reads the operands of (after the cloud copies became ``cp``)
_WRITERS = frozenset({"cp", "mv", "ln", "install", "rsync", "scp", "wget", "curl", "git", "tar", "unzip"})


def created_by(words: list[tuple[str, bool]], redirects: list[str], cwd: str, line: int) -> list[Created]:
    """What one command writes: its output redirections, and the files or folders of the copying and
    downloading commands vlint knows (cp, mv, ln, install, rsync, scp, gsutil/aws s3 cp, wget, curl,
    git clone, huggingface-cli/hf download, tar -x, unzip). ``words``: the expanded words (text, known);
    an unknown word is never taken as a path. ``cwd``: the script's working folder; ``line``: the
    command's line."""
    out: list[Created] = []

    def add(path: str, folder: bool, how: str) -> None:
        if path and not path.startswith("/dev/"):
            full = path if posixpath.isabs(path) else posixpath.join(cwd, path)
            out.append(Created(posixpath.normpath(full), folder, how, line))

    for target in redirects:
        add(target, False, "an output redirection")
    while words and words[0][0] in ("sudo", "command", "exec", "nohup", "time"):
        words = words[1:]
        while words and words[0][0].startswith("-"):
            words = words[1:]
    if not words:
        return out
    prog = words[0][0].rsplit("/", 1)[-1]
    rest = words[1:]
    if prog in ("gsutil", "gcloud", "aws", "rclone", "azcopy"):
        verbs = {"cp", "rsync", "sync", "copy", "mv", "copyto"}
        k = next((i for i, w in enumerate(rest) if w[0] in verbs), None)
        if k is None:
            return out
        prog, rest = "cp", rest[k + 1 :]
    if prog in ("hf", "huggingface-cli"):
        if not rest or rest[0][0] != "download":
            return out
        for i, (t, known) in enumerate(rest):
            if t == "--local-dir" and i + 1 < len(rest) and rest[i + 1][1]:
                add(rest[i + 1][0], True, f"{prog} download --local-dir")
            elif t.startswith("--local-dir=") and known:
                add(t.split("=", 1)[1], True, f"{prog} download --local-dir")
        return out
    if prog not in _WRITERS:
        return out
    operands, options = _operands(prog, rest)
    if prog in ("cp", "mv", "ln", "install", "rsync", "scp"):
        target_dir = options.get("-t") or options.get("--target-directory")
        if target_dir is not None:
            for src in operands:
                add(posixpath.join(target_dir, posixpath.basename(src.rstrip("/"))), False, prog)
            add(target_dir, True, prog)
        elif len(operands) >= 2:
            dest = operands[-1]
            for src in operands[:-1]:
                add(posixpath.join(dest, posixpath.basename(src.rstrip("/"))), False, prog)
            add(dest, len(operands) > 2 or dest.endswith("/") or "-r" in options or "-R" in options, prog)
    elif prog == "wget":
        named = options.get("-O") or options.get("--output-document")
        if named is not None and named != "-":
            add(named, False, "wget -O")
        elif named is None:
            prefix = options.get("-P") or options.get("--directory-prefix") or ""
            for url in operands:
                if "://" in url and (name := posixpath.basename(url.split("?", 1)[0].rstrip("/"))):
                    add(posixpath.join(prefix, name), False, "wget")
    elif prog == "curl":
        named = options.get("-o") or options.get("--output")
        folder = options.get("--output-dir") or ""
        if named is not None and named != "-":
            add(posixpath.join(folder, named), False, "curl -o")
        elif any(o in ("--remote-name", "--remote-name-all") or (o[1:2] != "-" and "O" in o) for o in options):
            for url in operands:
                if "://" in url and (name := posixpath.basename(url.split("?", 1)[0].rstrip("/"))):
                    add(posixpath.join(folder, name), False, "curl -O")
    elif prog == "git" and operands[:1] == ["clone"] and len(operands) >= 2:
        dest = operands[2] if len(operands) >= 3 else posixpath.basename(operands[1].rstrip("/")).removesuffix(".git")
        add(dest, True, "git clone")
    elif prog == "tar" and (any("x" in o for o in options if not o.startswith("--")) or "--extract" in options):
        add(options.get("-C") or options.get("--directory") or ".", True, "tar -x")
    elif prog == "unzip":
        add(options.get("-d") or ".", True, "unzip")
    return out


def _operands(prog: str, words: list[tuple[str, bool]]) -> tuple[list[str], dict[str, str]]:
    """The known operands of a command, and its options (``-O`` → its value, or "" for a flag). An
    unknown word is skipped (it is never a path vlint can compare)."""
    valued = _VALUED.get(prog, set())
    operands: list[str] = []
    options: dict[str, str] = {}
    i = 0
    while i < len(words):
        t, known = words[i]
        if t.startswith("--") and "=" in t:
            name, value = t.split("=", 1)
            options[name] = value
        elif t in valued and i + 1 < len(words):
            options[t] = words[i + 1][0] if words[i + 1][1] else ""
            i += 1
        elif len(t) > 1 and t.startswith("-"):
            if len(t) > 2 and t[:2] in valued and not t.startswith("--"):
                options[t[:2]] = t[2:]  # -Ofile
            else:
                options[t] = ""
        elif known:
            operands.append(t)
        i += 1
    return operands, options


def created_match(created: tuple[Created, ...] | list[Created], path: str) -> Created | None:
    """The last write of ``path`` (normalised, relative to the script's folder or absolute) among
    ``created``: the file itself, or a folder that holds it; None when the script writes neither."""
    path = posixpath.normpath(path)
    for c in reversed(created):
        if c.path == path or (c.folder and (c.path == "." or path.startswith(c.path.rstrip("/") + "/"))):
            return c
    return None
