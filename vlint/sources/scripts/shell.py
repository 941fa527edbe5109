"""Shell scripts and command lines: find the vLLM launches and the argv each one passes.

Recognised launches (after env-assignment prefixes and wrappers such as ``nohup``, ``exec``,
``uv run``, ``conda run -n X``, ``timeout 60``, ``numactl …``, ``bash -c "…"``, a script fed to a shell
on stdin ``bash <<EOF``, programs that run a command they are given — ``docker exec``, ``kubectl exec
--``, ``ssh HOST``, ``su -c``, ``sbatch --wrap``, ``tmux new-session`` —, functions of the script that
run ``"$@"``, and command substitutions ``PID=$(nohup vllm serve … & echo $!)``):

* ``vllm serve MODEL …`` (also ``/path/to/vllm serve`` and ``python -m vllm.entrypoints.cli.main serve``)
* ``python[3] -m vllm.entrypoints.openai.api_server --model MODEL …``
* ``python -m vllm.entrypoints.api_server …`` (the legacy demo server)
* ``python[3] -m dynamo.vllm --model MODEL …`` (NVIDIA Dynamo's vLLM worker: vLLM's engine arguments
  plus Dynamo's own options, which the argument parser sets aside)
* ``docker run … IMAGE [args]`` / ``podman run`` where the image runs vLLM (explicitly, or as its
  default entrypoint for ``vllm/vllm-openai`` images).

A ``--config FILE`` argument is loaded relative to the script (or from a here-document the script
writes), so its settings join the launch.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from vlint.core.invocation import Fact, Invocation, Problem, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record, replace
from vlint.core.span import PositionMap, Span
from vlint.sources import vllm_yaml
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText, refused
from vlint.sources.containers.images import default_entrypoint, image_vllm_version, parse_image
from vlint.sources.scripts.shell_eval import Command, HeredocFile, ShellEvaluator, Var, Word
from vlint.sources.scripts.shell_lexer import Arith, CmdSubst, Lexer, Param, ShellSyntaxError
from vlint.sources.scripts.workdir import created_match
from vlint.sources.sniffing import shell as sniff  # noqa: F401 - re-exported: callers use shell.sniff

NAME = "shell"

_PYTHON = lazy_compile(r"^(?:.*/)?python(?:\d+(?:\.\d+)?)?$")
_MODULES = {
    "vllm.entrypoints.openai.api_server": "api_server",
    "vllm.entrypoints.launchers.api_server.entry": "api_server",
    "vllm.entrypoints.api_server": "legacy-api-server",
    # NVIDIA Dynamo's vLLM worker: vLLM's engine arguments plus Dynamo's own (argspec/dynamo.py)
    "dynamo.vllm": "dynamo-vllm",
}
_PY_OPTS_WITH_VALUE = {"-X", "-W", "-Q"}

# wrapper programs: name -> options that take a value (None: stop at the first non-option word)
_WRAPPERS: dict[str, set[str]] = {
    "nohup": set(),
    # screen -dmS NAME cmd…: a detached session running cmd (the session name is the option's value)
    "screen": {"-S", "-dmS", "-DmS", "-dmLS", "-c", "-t", "-Logfile"},
    "exec": {"-a"},
    "command": set(),
    "builtin": set(),
    "time": set(),
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p", "--class", "--classdata"},
    "chrt": set(),
    "setsid": set(),
    "stdbuf": {"-i", "-o", "-e"},
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-U", "-r", "-t", "-T", "-D"},
    "env": {"-u", "--unset", "-C", "--chdir", "-S"},
    "numactl": {
        "-N",
        "-m",
        "-C",
        "-i",
        "-p",
        "--cpunodebind",
        "--membind",
        "--physcpubind",
        "--interleave",
        "--preferred",
    },
    "taskset": set(),
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "srun": {
        "-N",
        "-n",
        "-c",
        "-p",
        "-t",
        "-J",
        "-G",
        "-w",
        "-A",
        "-q",
        "--gpus",
        "--nodes",
        "--ntasks",
        "--cpus-per-task",
        "--partition",
        "--time",
        "--job-name",
        "--gres",
        "--account",
        "--mem",
    },
    "mpirun": {"-np", "-n", "-H", "--host", "-x"},
    "xvfb-run": set(),
    "catchsegv": set(),
}
# "X run" style runners: name -> options that take a value
_RUNNERS: dict[str, set[str]] = {
    "uv": {
        "--with",
        "--python",
        "-p",
        "--project",
        "--directory",
        "--env-file",
        "--extra",
        "--group",
        "--index",
        "--index-url",
        "--extra-index-url",
        "--with-requirements",
        "--package",
    },
    "poetry": {"-C", "--directory", "-P", "--project"},
    "pipenv": set(),
    "pdm": {"-p", "--project"},
    "rye": {"--pyproject"},
    "hatch": {"-e", "--env"},
    "pixi": {"-e", "--environment", "--manifest-path"},
    "conda": {"-n", "--name", "-p", "--prefix", "--cwd"},
    "micromamba": {"-n", "--name", "-p", "--prefix", "--cwd"},
    "mamba": {"-n", "--name", "-p", "--prefix", "--cwd"},
}
_DOCKER_VALUE_OPTS = {
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--cap-add",
    "--cap-drop",
    "--cgroup-parent",
    "--cgroupns",
    "--cidfile",
    "-c",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--device",
    "--device-cgroup-rule",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "--entrypoint",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-start-period",
    "--health-timeout",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "--kernel-memory",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--memory-swappiness",
    "--mount",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--oom-score-adj",
    "--pid",
    "--pids-limit",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "--userns",
    "--uts",
    "-v",
    "--volume",
    "--volumes-from",
    "-w",
    "--workdir",
    "--device-read-bps",
    "--device-write-bps",
    "--cpu-period",
    "--cpu-quota",
    "--cpu-rt-period",
    "--cpu-rt-runtime",
    "--gpus-per-task",
}


@record(slots=True)
class _Launch:
    program: str
    entry: Word
    args: list[Word]
    #: ``Word``s lie in ``ev``'s text; ``Token``s were placed already (an outer script's words)
    env: dict[str, Word | Token] = field(default_factory=dict)
    facts: dict[str, tuple[object, Word | Token | None, str]] = field(default_factory=dict)
    #: the evaluator whose text the words' offsets refer to (differs for ``bash -c`` bodies)
    ev: ShellEvaluator | None = None
    #: the first word of the command the launch is (``docker`` of ``docker run … IMAGE``), when it
    #: comes before ``entry``: :attr:`Invocation.head`
    head: Word | None = None


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    powershell = src.abspath.suffix.lower() == ".ps1"
    text = src.text.lstrip("\ufeff")
    if not powershell:
        text = drop_final_backslash(text)
    return extract_from_text(
        text,
        PositionMap.for_text(src.path, text),
        base_dir=src.abspath.parent,
        read_file=read_file,
        powershell=powershell,
        script_file=not powershell,
    )


def drop_final_backslash(text: str) -> str:
    """A script file whose very last character is an unescaped ``\\`` (no newline after it): bash
    drops that backslash when it reads the file (``printf %s a \\`` at end of file prints ``a``; dash
    keeps it), so the launch does not get a ``\\`` argument. Same length, so positions stay exact."""
    if not text.endswith("\\"):
        return text
    run = len(text) - len(text.rstrip("\\"))
    return text[:-1] + " " if run % 2 else text


def extract_from_text(
    text: str,
    posmap: PositionMap,
    *,
    base_dir: Path,
    read_file: ReadFile,
    env: dict[str, Var] | None = None,
    powershell: bool = False,
    source: str = NAME,
    entrypoint: list[Word] | None = None,
    script_file: bool = False,
) -> SourceResult:
    """Find launches in shell ``text``. Other sources call this for embedded scripts (``bash -c``
    bodies, Dockerfile shell-form CMD, SkyPilot ``run:``) with their own position map and env.
    ``script_file``: ``text`` is a script file of its own, whose ``$1`` are its command-line arguments
    (a ``${1:-word}`` at its top level is then the word: the script run without arguments)."""
    sourced: list[Path] = []  # the files it sources (a .env its launches read is linked: not checked alone)
    ev = ShellEvaluator(
        text,
        posmap,
        env=env,
        powershell=powershell,
        read_sourced=_sourced_reader(base_dir, read_file, sourced),
        script_file=script_file,
    )
    ev.read_program = _program_reader(base_dir, read_file)
    result = SourceResult()
    nested_errors: list[SourceError] = []
    try:
        for cmd in ev.commands():
            for launch in _launches(cmd, ev, 0, nested_errors):
                inv = _to_invocation(launch, ev, posmap, source, base_dir, read_file)
                if cmd.positional_defaults:  # ${1:-word} taken: say the launch is the script's run without arguments
                    taken = ", ".join(cmd.positional_defaults)
                    its = "its" if len(cmd.positional_defaults) == 1 else "their"
                    inv.label = f"{inv.label or inv.program} (run without arguments: {taken} at {its} default)"
                    inv.facts["positional_defaults"] = Fact(
                        cmd.positional_defaults,
                        None,
                        "the script's ${N:-default} words, taken as when it runs without arguments",
                    )
                result.invocations.append(inv)
                if "config_path" in inv.facts:
                    result.linked.append(Path(str(inv.facts["config_path"].value)))
    except ShellSyntaxError as e:
        line, col = posmap.position(e.offset)
        result.error = SourceError(f"shell syntax error: {e}", line, col)
    if result.error is None and nested_errors:
        result.error = nested_errors[0]
    for a in ev.assignments:
        value = a.value
        result.assignments.append((a.name, Token(value.text, posmap.span(a.name_start, value.end), value.unresolved)))
    if result.invocations:  # its launches read what it sourced (a .env: checked through them)
        result.linked.extend(dict.fromkeys(sourced))
    for manifest in ev.applied:
        # kubectl apply of a here-document: the Kubernetes source reads it at its lines of this file
        line, _ = manifest.posmap.position(0)
        result.embedded.append(("kubernetes", "\n" * (line - 1) + manifest.text))
    return result


def _program_reader(base_dir: Path, read_file: ReadFile) -> Callable[[str], str | None]:
    """The text of a program file a command runs, below the script's folder: a relative path that does
    not climb out of it, or an absolute one inside it (a container's folder is ``/`` or its working
    directory, and its reader maps the path through the mounts). Anything else (``/opt/venv/bin/…``,
    ``../x``, ``~``) is the machine's, not the repository's: not read, and not reported. None when it
    cannot be read."""

    def read(path: str) -> str | None:
        norm = posixpath.normpath(path)
        if norm.startswith("~") or "$" in norm or norm == ".." or norm.startswith("../"):
            return None
        full = base_dir / norm
        if posixpath.isabs(norm) and not full.is_relative_to(base_dir):
            return None
        try:
            return read_file(full).text
        except (SourceError, OSError, ValueError):
            return None

    return read


#: a line of a wrapper script that runs its own arguments as the command (``exec "$@"``, ``"$@"``)
_FORWARDS_ARGS = lazy_compile(r'^[ \t]*(?:exec[ \t]+)?"\$(?:@|\{@\})"[ \t]*(?:#.*)?$', re.MULTILINE)


def _forwarded_at(words: list[Word], i: int, ev: ShellEvaluator) -> int | None:
    """Index of the first argument a wrapper script passes on as the command it runs: ``words[i]`` (or
    ``bash words[i+1]``) is a script vlint can read that runs ``exec "$@"`` / ``"$@"`` on a line of its
    own. None otherwise (an unreadable wrapper is not taken to forward: that would be a guess)."""
    j = i
    if words[j].text.rsplit("/", 1)[-1] in _SHELLS and j + 1 < len(words) and not words[j + 1].text.startswith("-"):
        j += 1
    w = words[j]
    if w.unresolved or ev.read_program is None or j + 1 >= len(words) or ("/" not in w.text and j == i):
        return None
    text = ev.read_program(w.text)
    if text is None or _FORWARDS_ARGS.search(text) is None:
        return None
    return j + 1


#: programs that run their arguments after ``--`` as a command: (words before the program's own
#: options, e.g. ``job submit``)
_DASHDASH_RUNNERS: dict[str, tuple[str, ...]] = {
    "kubectl": ("exec",),
    "oc": ("exec",),
    "ray": ("job", "submit"),
    "runuser": (),
}
#: ``docker exec`` options that take a value (docs.docker.com/reference/cli/docker/container/exec)
_DOCKER_EXEC_VALUE_OPTS = {"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"}
#: apptainer/singularity exec options that take a value (apptainer.org/docs/user/main/cli/apptainer_exec.html)
_APPTAINER_VALUE_OPTS = {
    "-B",
    "--bind",
    "--env",
    "--env-file",
    "-H",
    "--home",
    "-o",
    "--overlay",
    "--pwd",
    "-W",
    "--workdir",
    "-S",
    "--scratch",
    "--mount",
    "--security",
    "--network",
    "--network-args",
    "--app",
}
#: ssh's one-letter options that take a value (man ssh: SYNOPSIS)
_SSH_VALUE_FLAGS = set("BbcDEeFIiJLlmOopQRSWw")
#: tmux commands that start a shell command (the rest of their words) and their options that take a value
#: (man tmux: new-session, new-window, split-window, respawn-pane; send-keys types its words as keys)
_TMUX_STARTS = {"new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp"}
_TMUX_VALUE_OPTS = {"-c", "-e", "-F", "-f", "-l", "-n", "-s", "-t", "-x", "-y", "-L", "-S"}
#: keys send-keys ends a typed command with (man tmux, KEY BINDINGS)
_TMUX_ENTER = {"Enter", "C-m", "KPEnter", "C-j"}


def _handed_over(words: list[Word], i: int, ev: ShellEvaluator) -> int | Word | None:
    """What ``words[i]`` hands a command to: the index of the first word of a command it runs with its
    arguments as they are (``docker exec [OPTS] CONTAINER CMD…``, ``kubectl exec POD -- CMD…``,
    ``ray job submit … -- CMD…``, ``runuser -u USER -- CMD…``, ``docker compose exec SERVICE CMD…``,
    ``apptainer exec IMAGE CMD…``, ``ssh HOST CMD…``, a function of the script that runs ``"$@"``), or the
    one word it runs as a shell command (``su [USER] -c CMD``, ``runuser -c``, ``sbatch --wrap CMD``,
    ``tmux new-session -d -s NAME CMD``, ``tmux send-keys -t T CMD Enter``, ``ssh HOST CMD``); None for
    any other command."""
    w = words[i]
    if w.unresolved:
        return None
    base = w.text.rsplit("/", 1)[-1]
    rest = words[i + 1 :]
    if base in _forwarding_functions(ev.text):
        return i + 1 if rest else None
    if base in ("su", "runuser", "sbatch"):
        flags = ("-c", "--command") if base != "sbatch" else ("--wrap",)
        for k, x in enumerate(rest):
            if x.text in flags and k + 1 < len(rest) and not rest[k + 1].unresolved:
                return rest[k + 1]
            if x.text.startswith(tuple(f + "=" for f in flags if f.startswith("--"))) and not x.unresolved:
                name, _, _ = x.text.partition("=")
                return replace(x, text=x.text[len(name) + 1 :], start=x.start + len(name) + 1)
    if base in ("docker", "podman", "docker-compose") and rest:
        # docker exec [OPTS] CONTAINER CMD…, docker compose exec [OPTS] SERVICE CMD…
        k = 1 if rest[0].text == "exec" else 2 if [x.text for x in rest[:2]] == ["compose", "exec"] else 0
        if base == "docker-compose":
            k = 1 if rest[0].text == "exec" else 0
        if not k:
            return None
        while k < len(rest) and rest[k].text.startswith("-"):
            k += 2 if rest[k].text in _DOCKER_EXEC_VALUE_OPTS else 1
        return i + 1 + k + 1 if k + 1 < len(rest) else None  # past the container
    if base in ("apptainer", "singularity") and rest and rest[0].text == "exec":
        # apptainer exec [OPTS] IMAGE CMD… (apptainer.org/docs/user/main/cli/apptainer_exec.html)
        k = 1
        while k < len(rest) and rest[k].text.startswith("-"):
            opt = rest[k].text
            k += 2 if opt in _APPTAINER_VALUE_OPTS and "=" not in opt else 1
        return i + 1 + k + 1 if k + 1 < len(rest) else None  # past the image
    if base == "ssh" and rest:
        # ssh [OPTS] HOST CMD…: the remote shell runs the words joined (man ssh)
        k = 0
        while k < len(rest) and rest[k].text.startswith("-"):
            opt = rest[k].text
            k += 2 if len(opt) == 2 and opt[1] in _SSH_VALUE_FLAGS else 1
        typed = rest[k + 1 :]
        if len(typed) == 1 and not typed[0].unresolved:
            return typed[0]
        return i + 1 + k + 1 if typed else None
    lead = _DASHDASH_RUNNERS.get(base)
    if lead is not None and tuple(x.text for x in rest[: len(lead)]) == lead:
        for k, x in enumerate(rest):
            if x.text == "--":
                return i + 1 + k + 1 if k + 1 < len(rest) else None
        return None
    if base == "tmux" and rest:
        k = 0
        while k < len(rest) and rest[k].text.startswith("-"):  # tmux's own options (-L socket, -S path…)
            k += 2 if rest[k].text in ("-L", "-S", "-f") else 1
        if k >= len(rest):
            return None
        sub = rest[k].text
        if sub not in _TMUX_STARTS and sub not in ("send-keys", "send"):
            return None
        k += 1
        while k < len(rest) and rest[k].text.startswith("-"):
            k += 2 if rest[k].text in _TMUX_VALUE_OPTS else 1
        typed = rest[k:]
        if sub in ("send-keys", "send"):
            while typed and typed[-1].text in _TMUX_ENTER:
                typed = typed[:-1]
            if len(typed) != 1:
                return None
        if len(typed) == 1 and not typed[0].unresolved:
            return typed[0]
        return i + 1 + k if typed and sub in _TMUX_STARTS else None
    return None


#: a function of the script whose body runs its arguments as a command (``run() { echo "$*"; "$@"; }``):
#: the name, then the body up to its first line that is only ``}`` (or to the ``}`` that ends the line)
_FUNCTION = lazy_compile(
    r"^[ \t]*(?:function[ \t]+)?([A-Za-z_][\w-]*)[ \t]*(?:\([ \t]*\))?[ \t]*\{(.*?)(?:^[ \t]*\}|\}[ \t]*$)",
    re.MULTILINE | re.DOTALL,
)
#: ``"$@"`` as a command of its own in a body: after the start, ``;``, ``&&``/``||``, ``{``, ``exec``, ``then``…
_RUNS_ARGS = lazy_compile(
    r'(?:^|[;&|{(]|\b(?:exec|then|do|else|if|until|while|time|command))[ \t]*"\$(?:@|\{@\})"', re.MULTILINE
)


@lru_cache(maxsize=64)
def _forwarding_functions(text: str) -> frozenset[str]:
    """The functions ``text`` defines whose body runs ``"$@"`` as a command (wrappers that log, time or
    retry the command they are given)."""
    if '"$@"' not in text and '"${@}"' not in text:
        return frozenset()
    return frozenset(m.group(1) for m in _FUNCTION.finditer(text) if _RUNS_ARGS.search(m.group(2)))


def _sourced_reader(base_dir: Path, read_file: ReadFile, done: list[Path]) -> Callable[[str], str | None]:
    """The text of a file ``source FILE`` names below the script's folder, read through the runner's
    reader (inside the lint root, size-checked); None when it cannot be read. An absolute path or one
    that climbs out of the folder (``source /opt/conda/…/conda.sh``, ``. ../env.sh``) is a machine's
    own setup, not the repository's: not read, and not reported. Each file read is added to ``done``."""

    def read(path: str) -> str | None:
        norm = posixpath.normpath(path)
        if posixpath.isabs(norm) or norm == ".." or norm.startswith("../") or norm.startswith("~"):
            return None
        try:  # the path as written: the reader resolves links in the kernel's order (link/.. included)
            src = read_file(base_dir / path)
        except (SourceError, OSError, ValueError):
            return None
        done.append(src.abspath)
        return src.text

    return read


#: one unquoted parameter expansion, maybe after literal text (``$KEY``, ``${KEY}``, ``${KEY:-x}``,
#: ``--api-key=$KEY``): not ``$@``/``$*``/arrays/``${X:+words}``/command substitutions, not a default with blanks
_ONE_EXPANSION = lazy_compile(r"^[^$\s\"'`\\]*\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*(?::?[-=?][^}\s$`]*)?\})$")


def _option_value(w: Word, before: Word | None) -> bool:
    """An unquoted ``$NAME`` right after an option (``--api-key $KEY``), or an option's ``=`` value
    (``--api-key=$KEY``): bash splits it at blanks, so it may be several words, or one. As an option's value
    it is that value (more words would be positionals vLLM refuses), so it alone does not make the whole
    launch opaque; whether the option takes a value is for vLLM's parser to judge, word by word
    (:func:`vlint.argspec.parse._argparse`: after a flag without a value it may be any flags, and the
    parsed launch is opaque there)."""
    if _ONE_EXPANSION.match(w.text) is None:
        return False
    if w.text.startswith("--") and "=" in w.text.split("$", 1)[0]:
        return True
    return w.text.startswith("$") and before is not None and before.text.startswith("-") and "=" not in before.text


def _token(w: Word, posmap: PositionMap) -> Token:
    defined = posmap.span(*w.origin) if w.origin is not None else w.defined_span
    written_in = posmap.span(*w.written_in) if w.written_in is not None else w.written_span
    return Token(w.text, posmap.span(w.start, w.end), unresolved=w.unresolved, defined=defined, written_in=written_in)


def _placed(w: Word | Token, posmap: PositionMap) -> Token:
    return w if isinstance(w, Token) else _token(w, posmap)


def _var_token(name: str, var: Var, posmap: PositionMap, default: Span) -> Token:
    """An exported shell variable as an environment token (spanning its assignment)."""
    text = var.value if isinstance(var.value, str) else (" ".join(var.value) if var.value else "")
    span = posmap.span(var.start, var.end) if var.start >= 0 else default
    return Token(text if var.value is not None else "$" + name, span, unresolved=var.value is None)


def _launches(cmd: Command, ev: ShellEvaluator, depth: int, errors: list[SourceError]) -> list[_Launch]:
    inner = _substituted_launches(cmd, ev, depth, errors) if depth < 3 else []
    words = cmd.words
    if not words:
        return inner
    return inner + _command_launches(cmd, ev, depth, errors)


def _substituted_launches(cmd: Command, ev: ShellEvaluator, depth: int, errors: list[SourceError]) -> list[_Launch]:
    """Launches that run inside a command substitution of the command (``PID=$(nohup vllm serve … &
    echo $!)``): bash runs the substituted command to take its output, so it starts the server."""
    out: list[_Launch] = []
    for w in cmd.raw.words:
        for part in w.parts:
            if not isinstance(part, CmdSubst) or not part.raw.startswith("$(") or "vllm" not in part.raw:
                continue
            at = ev.text.find(part.raw, w.start, w.end + 1)
            if at < 0:
                continue
            body = part.raw[2:-1]
            sub_map = PositionMap(ev.posmap.path, [(k, *ev.posmap.position(at + 2 + k)) for k in range(len(body) + 1)])
            here = ev.posmap.span(at, at + len(part.raw))
            out.extend(_launches_in_script(body, sub_map, dict(ev.vars), here, ev, {}, depth, errors))
    return out


def _command_launches(cmd: Command, ev: ShellEvaluator, depth: int, errors: list[SourceError]) -> list[_Launch]:
    words = cmd.words
    env: dict[str, Word] = dict(cmd.prefix_env)
    i = _skip_wrappers(words, 0, env)
    if i >= len(words):
        return []
    found = _entry(words, i)
    if found is not None:
        program, entry, args_at = found
        return [_Launch(program, entry, words[args_at:], env, head=words[0])]
    handed = _handed_over(words, i, ev) if depth < 3 else None
    if isinstance(handed, int):
        # a program or function that runs its arguments as a command (docker exec CONTAINER …, run() { "$@"; })
        j = _skip_wrappers(words, handed, env)
        inner = _entry(words, j) if j < len(words) else None
        if inner is not None:
            program, entry, args_at = inner
            return [_Launch(program, entry, words[args_at:], env, head=words[0])]
        return _command_launches(replace(cmd, words=words[handed:], prefix_env=env), ev, depth + 1, errors)
    if handed is not None:  # a program that runs a string as a shell command (tmux new -d "…", su -c "…")
        return _launches_in_string(handed, ev, env, depth, errors)
    forwarded = _forwarded_at(words, i, ev) if depth < 3 else None
    if forwarded is not None:
        # ./wrap.sh vllm serve …, an entrypoint script ending in exec "$@": its arguments are the command
        j = _skip_wrappers(words, forwarded, env)
        inner = _entry(words, j) if j < len(words) else None
        if inner is not None:
            program, entry, args_at = inner
            return [_Launch(program, entry, words[args_at:], env, head=words[0])]
    written = _written_script(words, i, ev) or _stdin_script(words, i, cmd, ev)
    if written is not None and depth < 3:
        # runs a script this one wrote from a here-document (cat > run.sh << 'EOF' … ; bash run.sh)
        sub_env = dict(ev.vars)
        for k, w in env.items():
            sub_env[k] = Var(None if w.unresolved else w.text, exported=True)
        here = _token(words[i], ev.posmap).span
        return _launches_in_script(written.text, written.posmap, sub_env, here, ev, env, depth, errors)
    # bash -c "…": parse the string as a script of its own
    script = _shell_c_script(words, i)
    if script is None and words[i].text == "eval" and i + 1 < len(words):
        rest = words[i + 1 :]
        kept = _eval_words(rest) if all(w.written_in is not None for w in rest) and depth < 3 else None
        if kept is not None:
            # eval $CMD of a command kept in a variable, plain words: run as that command, its words keeping
            # where the variable is written
            return _command_launches(replace(cmd, words=kept), ev, depth + 1, errors)
        if not any(w.unresolved for w in rest):
            # eval joins its arguments with blanks and runs the result as a script (one argument: itself,
            # with where its value was assigned when it is one variable's)
            one = rest[0] if len(rest) == 1 else None
            script = (
                replace(one, quoted=True)
                if one is not None
                else Word(" ".join(w.text for w in rest), rest[0].start, rest[-1].end, quoted=True)
            )
        elif depth < 3:
            # known in part ($CMD built up with an `if` or an unknown $EXTRA): when its known words are
            # plain words, eval runs them as one command, the unknown ones left unknown
            split = _eval_words(rest)
            if split is not None:
                return _command_launches(replace(cmd, words=split), ev, depth + 1, errors)
    if script is not None and depth < 3:
        return _launches_in_string(script, ev, env, depth, errors)
    base = words[i].text.rsplit("/", 1)[-1]
    if base in ("docker", "podman", "nvidia-docker", "nerdctl"):  # nerdctl: containerd's docker-compatible CLI
        out = _docker_run(words, i + 1, env, ev, depth, errors)
        for launch in out:
            if launch.ev is None and launch.head is None:
                launch.head = words[0]
        return out
    return []


#: what makes eval's string more than one plain command (a list, a pipe, a redirect, quotes, a subshell,
#: braces: a brace expansion, or a template action of a file not rendered yet)
_SHELL_SYNTAX = lazy_compile(r"[;&|<>()'\"\\`${}]")


def _eval_words(rest: list[Word]) -> list[Word] | None:
    """``eval``'s arguments as the words of the one command it runs, when that can be told: each
    argument split at blanks (an unresolved one by its known and unknown words), None when a known
    word holds shell syntax (eval would parse it) — unknown words stay unknown and opaque."""
    out: list[Word] = []
    for w in rest:
        parts = w.words if w.unresolved and w.words is not None else None
        if parts is None:
            if w.unresolved:
                out.append(replace(w, opaque=True))
                continue
            parts = tuple((t, True) for t in w.text.split())
        for text, known in parts:
            if known:
                text = _dequoted(text)
            if known and _SHELL_SYNTAX.search(text):
                return None
            out.append(
                Word(
                    text,
                    w.start,
                    w.end,
                    unresolved=not known,
                    opaque=not known,
                    partial="" if known else text,
                    written_in=w.written_in or w.origin,
                )
            )
    return out


#: one word that is a whole quoted string of plain text (``'0.0.0.0'``, ``"8000"``): eval removes the quotes
_PLAIN_QUOTED = lazy_compile(r"""^(?:'[^']*'|"[^"$`\\]*")$""")


def _dequoted(text: str) -> str:
    """``text`` without its quotes when it is one plain quoted string (what eval's parse makes of it)."""
    return text[1:-1] if _PLAIN_QUOTED.match(text) else text


_SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}


def _written_script(words: list[Word], i: int, ev: ShellEvaluator) -> HeredocFile | None:
    """The here-document file this command runs: ``./run.sh``, ``/root/run.sh``, ``bash run.sh``
    (a path the script wrote with ``cat > PATH << EOF`` before), else None."""
    w = words[i]
    if w.text.rsplit("/", 1)[-1] in _SHELLS and i + 1 < len(words) and not words[i + 1].text.startswith("-"):
        w = words[i + 1]
    if w.unresolved or not ev.heredoc_files:
        return None
    return ev.heredoc_files.get(posixpath.normpath(posixpath.join(ev.cwd, w.text)))


def _stdin_script(words: list[Word], i: int, cmd: Command, ev: ShellEvaluator) -> HeredocFile | None:
    """The here-document a shell reads its script from: ``bash <<EOF``, ``bash -s -- ARGS <<'EOF'``,
    ``sh -ex <<EOF`` (no ``-c``, no script file before ``-s``), also handed over (``ssh host bash -s <<EOF``,
    ``docker exec -i c bash <<EOF``); None otherwise."""
    if not cmd.heredocs or words[i].unresolved or words[i].text.rsplit("/", 1)[-1] not in _SHELLS:
        return None
    for w in words[i + 1 :]:
        if w.text == "-s" or w.text == "--":
            break
        if not w.text.startswith(("-", "+")) or w.unresolved or ("c" in w.text[1:] and not w.text.startswith("--")):
            return None  # a script file, or -c: not stdin
    return ev.heredoc_file(cmd.heredocs[0])


def _shell_c_script(words: list[Word], i: int) -> Word | None:
    """The script of ``bash -c SCRIPT`` (also ``-lc``, ``-ec``, ``-o pipefail -c``, ``-c -e``)."""
    if i >= len(words) or words[i].text.rsplit("/", 1)[-1] not in _SHELLS:
        return None
    j = i + 1
    has_c = False
    while j < len(words):
        t = words[j].text
        if t == "--":
            j += 1
            break
        if t in ("-o", "+o", "-O", "+O"):
            j += 2  # set -o NAME / shopt -O NAME
            continue
        if t.startswith("--") and len(t) > 2:
            j += 1  # --norc, --login…
            continue
        if len(t) > 1 and t[0] in "-+" and not words[j].unresolved:
            has_c = has_c or (t[0] == "-" and "c" in t[1:])
            j += 1
            continue
        break
    if has_c and j < len(words) and not words[j].unresolved:
        return words[j]
    return None


def _launches_in_string(
    inner: Word, ev: ShellEvaluator, env: dict[str, Word], depth: int, errors: list[SourceError]
) -> list[_Launch]:
    offsets = None
    if inner.origin is not None:
        # bash -c "$CMD" / eval "$CMD": the script is a variable's value; its characters are where the
        # variable was assigned (CMD="vllm serve …" above), so the launch and its flags are placed there
        offsets = _char_offsets(replace(inner, start=inner.origin[0], end=inner.origin[1], origin=None), ev)
    if offsets is None:
        offsets = _char_offsets(inner, ev)
    if offsets is not None:
        sub_map = PositionMap(ev.posmap.path, [(k, *ev.posmap.position(o)) for k, o in enumerate(offsets)])
    else:
        line, col = ev.posmap.position(inner.start)
        quote = ev.text[inner.start : inner.start + 1] in ("'", '"')
        sub_map = PositionMap.at(ev.posmap.path, line, col + (1 if quote else 0))
    sub_env = dict(ev.vars)
    for k, w in env.items():
        sub_env[k] = Var(None if w.unresolved else w.text, exported=True)
    # the outer script's variables and assignments keep their places in the outer text
    here = _token(inner, ev.posmap).span
    return _launches_in_script(inner.text, sub_map, sub_env, here, ev, env, depth, errors)


def _launches_in_script(
    text: str,
    sub_map: PositionMap,
    sub_env: dict[str, Var],
    here: Span,
    ev: ShellEvaluator,
    env: dict[str, Word],
    depth: int,
    errors: list[SourceError],
) -> list[_Launch]:
    """The launches of ``text``, a script the outer one runs (``bash -c TEXT``, a file it wrote from a
    here-document), with the outer script's exported variables and ``env``."""
    # variables ev itself inherited are placed by the script that set them (the caller merges those)
    outer: dict[str, Word | Token] = {
        name: _var_token(name, var, ev.posmap, here)
        for name, var in ev.vars.items()
        if var.exported and id(var) not in ev.inherited
    }
    outer.update({k: _placed(w, ev.posmap) for k, w in env.items()})
    sub = ShellEvaluator(text, sub_map, env=sub_env, budget=ev.budget)
    sub.heredoc_files = ev.heredoc_files  # files the outer script wrote are there for the inner one
    sub.cwd, sub.workdir, sub.workdir_span = ev.cwd, ev.workdir, ev.workdir_span  # it starts where the outer is
    sub.created = list(ev.created)
    sub.read_program = ev.read_program
    sub.inherited = frozenset(id(v) for v in sub.vars.values())
    out: list[_Launch] = []
    try:
        for cmd in sub.commands():
            for launch in _launches(cmd, sub, depth + 1, errors):
                launch.env = {**outer, **launch.env}
                launch.ev = launch.ev or sub
                out.append(launch)
    except ShellSyntaxError as e:
        # the inner shell fails; the outer script goes on (as bash does)
        line, col = sub_map.position(e.offset)
        errors.append(SourceError(f"shell syntax error: {e}", line, col))
    return out


def _char_offsets(w: Word, ev: ShellEvaluator) -> list[int] | None:
    """For each character of the (resolved) word ``w``: its offset in ``ev.text``.

    Quotes and escapes are walked like the lexer does; an expansion's value is laid over the
    expansion's source text (first character on its start, last on its end). None when the
    word cannot be re-read into exactly ``w.text`` (then only its start is known)."""
    s = ev.text
    i, end = w.start, w.end
    out: list[int] = []
    quote = ""  # "" or '"'

    def expansion(quoted: bool) -> bool:
        nonlocal i
        lx = Lexer(s[:end])
        lx.i = i
        try:
            part = lx._dollar(quoted=quoted) if s[i] == "$" else lx._backtick(quoted=quoted)
        except ShellSyntaxError:
            return False
        if part is None:
            return False
        if isinstance(part, Param):
            kind, val = ev._lookup(part)
            value = (" ".join(val) if isinstance(val, list) else val) if kind == "value" else None
        elif isinstance(part, Arith):
            v = ev._arith(part.expr)
            value = None if v is None else str(v)
        else:
            value = None
        if value is None:
            return False
        span = max(lx.i - i, 1)
        out.extend(i + min(k, span - 1) for k in range(len(value) - 1))
        if value:
            out.append(lx.i - 1)
        i = lx.i
        return True

    while i < end:
        c = s[i]
        dq = quote == '"'
        if c == '"':
            quote = "" if dq else '"'
            i += 1
        elif c == "'" and not dq:
            k = s.find("'", i + 1, end)
            if k < 0:
                return None
            out.extend(range(i + 1, k))
            i = k + 1
        elif c == "\\" and i + 1 < end and (not dq or s[i + 1] in '$`"\\\n'):
            if s[i + 1] != "\n":
                out.append(i + 1)
            i += 2
        elif c == "$" and not dq and s.startswith("$'", i):
            lx = Lexer(s[:end])
            lx.i = i
            try:
                text = lx._ansi_c().text
            except ShellSyntaxError:
                return None
            span = lx.i - i
            out.extend(i + min(k + 2, span - 2) for k in range(len(text)))
            i = lx.i
        elif c in "$`" and expansion(dq):
            continue
        elif c == "`":
            return None
        else:
            out.append(i)
            i += 1
    return out if len(out) == len(w.text) else None


def _is_assignment(text: str) -> bool:
    name, eq, _ = text.partition("=")
    return bool(eq) and bool(re.fullmatch(r"[A-Za-z_]\w*", name))


def _skip_wrappers(words: list[Word], i: int, env: dict[str, Word]) -> int:
    """Index of the first word after wrappers (``nohup``, ``uv run``…); env assignments collected."""
    guard = 0
    while i < len(words) and guard < 20:
        guard += 1
        w = words[i]
        if _is_assignment(w.expanded):  # env A=1 B="$T" vllm serve …: $T is unknown, B is still set
            name, _, value = w.expanded.partition("=")
            env[name] = Word(value, w.start, w.end, w.unresolved)  # spans the whole NAME=value
            i += 1
            continue
        if w.unresolved:
            # an unknown prefix ("${ENV_PREFIX[@]}" vllm serve …) in front of a vLLM entry point
            if i + 1 < len(words) and _entry(words, i + 1) is not None:
                i += 1
                continue
            return i
        text = w.text
        base = text.rsplit("/", 1)[-1]
        if base in _WRAPPERS:
            value_opts = _WRAPPERS[base]
            i += 1
            if base == "timeout" or base == "taskset":
                # options, then one positional (duration / cpu mask or list: `taskset -c 0-7 cmd`)
                while i < len(words) and words[i].text.startswith("-"):
                    i += 2 if words[i].text in value_opts else 1
                i += 1
                continue
            while i < len(words) and words[i].text.startswith("-") and words[i].text != "--":
                opt = words[i].text
                i += 2 if opt in value_opts and "=" not in opt else 1
            if i < len(words) and words[i].text == "--":
                i += 1
            continue
        if base in _RUNNERS and i + 1 < len(words) and words[i + 1].text in ("run", "exec"):
            value_opts = _RUNNERS[base]
            i += 2
            while i < len(words) and words[i].text.startswith("-") and words[i].text != "--":
                opt = words[i].text
                i += 2 if opt in value_opts and "=" not in opt else 1
            if i < len(words) and words[i].text == "--":
                i += 1
            if base == "hatch" and i < len(words) and words[i].text.endswith(":"):
                i += 1
            continue
        if base == "uvx":  # uvx [--from PKG] [--with PKG] … COMMAND (docs.astral.sh/uv/reference/cli/#uvx)
            i += 1
            while i < len(words) and words[i].text.startswith("-") and words[i].text != "--":
                opt = words[i].text
                i += 2 if (opt in _RUNNERS["uv"] or opt == "--from") and "=" not in opt else 1
            continue
        return i
    return i


#: a command substitution that looks a program up on PATH (``$(which vllm)``, ``"$(command -v python3)"``,
#: ```which vllm```): it prints that program's path, so it runs that program
_LOOKED_UP = lazy_compile(r"""^"?(?:\$\(|`)\s*(?:which|command\s+-v|type\s+-[pP])\s+([\w.+-]+)\s*(?:\)|`)"?$""")


def _program_name(w: Word) -> str:
    """The program ``w`` runs, without its folder: ``vllm`` for ``/opt/venv/bin/vllm`` and for
    ``$(which vllm)`` (a look-up on PATH, the one substitution whose output is known to be that program)."""
    if w.unresolved:
        m = _LOOKED_UP.match(w.text)
        if m is not None:
            return m.group(1)
    return w.text.rsplit("/", 1)[-1]


def _entry(words: list[Word], i: int) -> tuple[str, Word, int] | None:
    """(program, entry word, index of the first argument) when words[i:] start a vLLM server."""
    w = words[i]
    base = _program_name(w)
    if base == "vllm":
        if i + 1 < len(words) and words[i + 1].text == "serve":
            return "vllm serve", w, i + 2
        return None
    # `$PYTHON -m vllm…`: an interpreter vlint cannot resolve, running a vLLM module
    unknown_python = w.unresolved and i + 2 < len(words) and words[i + 1].text == "-m"
    if _PYTHON.match(w.text) or _PYTHON.match(base) or unknown_python:
        j = i + 1
        while j < len(words):
            t = words[j].text
            if t == "-m" and j + 1 < len(words):
                module = words[j + 1].text
                if module in _MODULES:
                    return _MODULES[module], w, j + 2
                if module == "vllm.entrypoints.cli.main" and j + 2 < len(words) and words[j + 2].text == "serve":
                    return "vllm serve", w, j + 3
                return None
            if t in _PY_OPTS_WITH_VALUE:
                j += 2
                continue
            if t.startswith("-") and not t.startswith("--"):
                j += 1
                continue
            return None
    return None


def _docker_run(
    words: list[Word], i: int, env: dict[str, Word], ev: ShellEvaluator, depth: int, errors: list[SourceError]
) -> list[_Launch]:
    if i < len(words) and words[i].text == "container":
        i += 1
    if i >= len(words) or words[i].text != "run":
        return []
    i += 1
    facts: dict[str, tuple[object, Word | None, str]] = {}
    entrypoint: Word | None = None
    while i < len(words):
        w = words[i]
        t = w.expanded  # quotes removed even when a part is unknown: --env="A=$B"
        if not t.startswith("-") or t == "-":
            break
        if t == "--":
            i += 1
            break
        name, eq, val = t.partition("=")
        value_word: Word | None = None
        if not t.startswith("--") and len(t) > 2 and t[:2] in _DOCKER_VALUE_OPTS:
            # -eKEY=VALUE, -p8000:8000, -e=KEY=VALUE
            name, val = t[:2], t[3:] if t[2] == "=" else t[2:]
            value_word = Word(val, w.start, w.end, w.unresolved, partial=val if w.unresolved else "")
            i += 1
        elif eq and name == "--privileged":
            if val.strip().lower() in ("true", "1"):
                facts["privileged"] = (True, w, "docker run --privileged")
            i += 1
            continue
        elif eq:
            value_word = Word(val, w.start, w.end, w.unresolved, partial=val if w.unresolved else "")
            i += 1
        elif name in _DOCKER_VALUE_OPTS:
            value_word = words[i + 1] if i + 1 < len(words) else None
            i += 2
        else:
            if name == "--privileged":
                facts["privileged"] = (True, w, "docker run --privileged")
            i += 1
            continue
        if value_word is None:
            continue
        if name in ("-e", "--env"):
            # "KEY=$VALUE" is unresolved: split what it expands to, not its quoted source spelling
            k, has_eq, v = value_word.expanded.partition("=")
            if has_eq:
                value = value_word.text.partition("=")[2] if not value_word.unresolved else v
                env[k] = Word(value, value_word.start, value_word.end, value_word.unresolved)
            else:
                env[k] = Word("$" + k, value_word.start, value_word.end, unresolved=True)
        elif name == "--gpus":
            facts["gpus"] = (value_word.text, value_word, "docker run --gpus")
        elif name == "--shm-size":
            facts["shm_size"] = (value_word.text, value_word, "docker run --shm-size")
        elif name == "--ipc":
            facts["ipc"] = (value_word.text, value_word, "docker run --ipc")
        elif name == "--entrypoint":
            entrypoint = value_word
    if i >= len(words):
        return []
    image_word = words[i]
    image = parse_image(image_word.text) if not image_word.unresolved else None
    rest = words[i + 1 :]
    if image is not None:
        facts["image"] = (image.raw, image_word, "docker run image")
        version = image_vllm_version(image)
        if version is not None:
            facts["vllm_version"] = (str(version), image_word, f"image tag {image.raw}")
    image_program = default_entrypoint(image) if image is not None else None
    argv = [entrypoint, *rest] if entrypoint is not None else rest
    if argv:
        j = _skip_wrappers(argv, 0, env)
        found = _entry(argv, j) if j < len(argv) else None
        if found is not None:
            program, entry, at = found
            if entrypoint is None and image_program is not None:
                # the image already runs vLLM: `vllm serve …` here is appended to its ENTRYPOINT
                repeated = " ".join(w.text for w in argv[j:at])
                facts["duplicate_serve"] = (repeated, argv[j], _runs(image_program))
            return [_Launch(program, entry, argv[at:], env, facts)]
        script = _shell_c_script(argv, j) if entrypoint is not None or image_program is None else None
        if script is not None and depth < 3:
            # --entrypoint bash IMAGE -c "vllm serve …", or IMAGE bash -c "…" on an image without one
            launches = _launches_in_string(script, ev, env, depth, errors)
            placed = {k: (v, None if w is None else _placed(w, ev.posmap), d) for k, (v, w, d) in facts.items()}
            for launch in launches:
                launch.facts = {**placed, **launch.facts}
            return launches
        if entrypoint is not None:
            return []
    if image is None:
        return []
    program = image_program
    if program is None and image.is_vllm and rest and rest[0].text.startswith("--"):
        program = "image"  # an image named like vLLM, given vLLM flags: its entrypoint runs the server
    if program is None:
        return []
    if rest and rest[0].text == "serve":
        facts["duplicate_serve"] = ("serve", rest[0], _runs(program))
    facts["image_entrypoint"] = (program, image_word, "the image's own entry point runs the arguments")
    return [_Launch(program, image_word, rest, env, facts)]


def _runs(program: str) -> str:
    """The ``duplicate_serve`` fact's detail: what the image's entry point already runs."""
    argv = {"api_server": "python3 -m vllm.entrypoints.openai.api_server"}.get(program, "vllm serve")
    return f"the image already runs {argv}"


def _to_invocation(
    launch: _Launch, ev: ShellEvaluator, posmap: PositionMap, source: str, base_dir: Path, read_file: ReadFile
) -> Invocation:
    if launch.ev is not None:
        ev = launch.ev
        posmap = ev.posmap
    args = [_token(w, posmap) for w in launch.args]
    span = posmap.span(launch.entry.start, launch.entry.end)
    inv = Invocation(source=source, program=launch.program, span=span, args=args)
    if launch.head is not None and launch.head is not launch.entry:
        inv.head = posmap.span(launch.head.start, launch.head.end)
    inv.opaque_args = any(
        w.opaque and not _option_value(w, launch.args[k - 1] if k else None) for k, w in enumerate(launch.args)
    )
    # environment: exported shell variables, then the command's own assignments
    for name, var in ev.vars.items():
        if var.exported:
            inv.env[name] = _var_token(name, var, posmap, span)
    for name, w in launch.env.items():
        inv.env[name] = _placed(w, posmap)
    if ev.unset:  # `unset NAME` before the launch: a variable the container's environment had is gone (VL611)
        inv.facts["shell_unset"] = Fact(tuple(sorted(ev.unset)), span, "unset by the script before the launch")
    for key, (value, word, detail) in launch.facts.items():
        inv.facts[key] = Fact(value, _placed(word, posmap).span if word is not None else None, detail)
    _working_dir_facts(inv, ev)
    _attach_config(inv, ev, base_dir, read_file)
    return inv


def _working_dir_facts(inv: Invocation, ev: ShellEvaluator) -> None:
    """Where the launch runs, for the relative paths vLLM opens (``--chat-template``, ``--config``):
    ``workdir`` when the script sets it (relative to its folder, or absolute), else ``workdir_assumed``
    (its folder, as the ``cd``s lead: the folder the script is started from is not written anywhere; none
    for the folder itself);
    ``created_paths``: the files and folders it wrote before (:mod:`vlint.sources.scripts.workdir`)."""
    if "image" in inv.facts:
        return  # `docker run IMAGE …`: vLLM runs in the container, from the image's folder, not the script's
    if ev.workdir is not None:
        inv.facts["workdir"] = Fact(ev.workdir, ev.workdir_span, "the folder the script moves to")
    elif ev.cwd:  # none: the script's own folder, assumed
        inv.facts["workdir_assumed"] = Fact(ev.cwd, None, "the folder the script is started from is not known")
    if ev.created:
        inv.facts["created_paths"] = Fact(tuple(ev.created), None, "written by the script before the launch")


def _config_name_ok(inv: Invocation, ref: Token) -> bool:
    """vLLM refuses a name that does not end in .yaml/.yml before opening the file (load_config_file,
    [0.6.6.post1] vllm/utils.py:1191; [0.33.0] vllm/utils/argparse_utils.py:631-636): VL036."""
    ext = ref.text.split(".")[-1]
    if ext in ("yaml", "yml"):
        return True
    inv.problems.append(
        Problem(
            "VL036",
            ref.span,
            f"vLLM will not start: Config file must be of a yaml/yml type. {ext} supplied (--config {ref.text})",
            {"config": ref.text, "extension": ext},
        )
    )
    inv.opaque_args = True
    return False


def _config_document_ok(inv: Invocation, ref: Token, text: str) -> bool:
    """vLLM calls ``.items()`` on what ``yaml.safe_load`` returns (load_config_file, [0.33.0]
    vllm/utils/argparse_utils.py:629-640): an empty or comments-only file (None), a list or a scalar
    crashes it (VL037). False when the document is one of those."""
    body = [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    body = [ln for ln in body if ln.strip() not in ("---", "...")]
    if not body or (len(body) == 1 and body[0].strip() in ("null", "~", "Null", "NULL")):
        kind = "NoneType"
        what = "empty" if not text.strip() else "only comments" if not body else "null"
    else:
        first = body[0].lstrip()
        if first.startswith("- ") or first == "-" or first.startswith("["):
            kind, what = "list", "a list"
        elif ":" in first.split("#", 1)[0] or first.startswith(("{", "?", "&", "!")):
            return True
        else:
            kind, what = "str", "a single value"
    inv.problems.append(
        Problem(
            "VL037",
            ref.span,
            f"vLLM crashes reading --config {ref.text}: AttributeError: '{kind}' object has no attribute 'items' "
            f"(the file is {what}; it must be a mapping of option names to values)",
            {"config": ref.text, "document": kind},
        )
    )
    inv.opaque_args = True
    return False


def _attach_config(inv: Invocation, ev: ShellEvaluator, base_dir: Path, read_file: ReadFile) -> None:
    """Load the ``--config FILE`` the launch names (from disk or from a here-document)."""
    ref: Token | None = None
    for k, tok in enumerate(inv.args):
        if tok.text == "--config" and k + 1 < len(inv.args):
            ref = inv.args[k + 1]
        elif tok.text.startswith("--config=") and not tok.unresolved:
            # vLLM expands only the exact word `--config` (`"--config" in args`,
            # vllm/utils/argparse_utils.py:516-557, 0.33.0): `--config=FILE` parses, and is never read
            inv.problems.append(
                Problem(
                    "VL015",
                    tok.span,
                    f"{tok.text} is accepted by vLLM's parser but the file is never read: vLLM only expands "
                    f"`--config FILE` written as two words, so none of its settings apply",
                    {"config": tok.text.split("=", 1)[1]},
                )
            )
    if ref is None:
        return
    if ref.unresolved:
        inv.problems.append(
            Problem(
                "VL010",
                ref.span,
                f"config file {ref.text} cannot be resolved; its settings are not checked",
                {"config": ref.text},
            )
        )
        inv.opaque_args = True
        return
    heredoc = ev.heredoc_files.get(posixpath.normpath(posixpath.join(ev.cwd, ref.text)))
    base_dir = base_dir / ev.cwd  # after `cd deploy`, --config c.yaml is deploy/c.yaml
    try:
        if heredoc is not None:
            if not _config_name_ok(inv, ref) or not _config_document_ok(inv, ref, heredoc.text):
                return
            inv.config = vllm_yaml.load_config(
                heredoc.text, heredoc.posmap.path, posmap=heredoc.posmap, unresolved=heredoc.unresolved
            )
            return
        linked = read_file(vllm_yaml.resolve_config_path(ref.text, base_dir))
    except SourceError as e:
        if refused(e, ref.span, inv.problems, f"--config {ref.text}"):
            inv.opaque_args = True
            return
        if not _config_name_ok(inv, ref):
            return
        made = created_match(ev.created, posixpath.join(ev.cwd, ref.text))
        if made is not None and e.message == "no such file":
            inv.problems.append(
                Problem(
                    "VL010",
                    ref.span,
                    f"config file {ref.text} is written by the script ({made.how}, line {made.line}), not in the "
                    "repository; its settings are not checked",
                    {"config": ref.text},
                )
            )
        elif e.message == "no such file" and not Path(ref.text).is_absolute():
            # inside the repository and not there: vLLM's open() fails and it stops (VL038); an absolute
            # path may be mounted at run time (VL010 below). open() resolves a relative path against the
            # folder vLLM runs in: certain only where the script moves there itself (``workdir``)
            assumed = "workdir" not in inv.facts
            inv.problems.append(
                Problem(
                    "VL038",
                    ref.span,
                    f"--config {ref.text} is not in the repository where the script's folder would have it"
                    + (f" ({ev.cwd}/)" if ev.cwd else "")
                    + ": vLLM stops (FileNotFoundError) unless the folder the script is started from holds it"
                    ' (assumed: the script\'s own folder; it never moves there with cd "$(dirname "$0")")'
                    if assumed
                    else f"vLLM will not start: FileNotFoundError: [Errno 2] No such file or directory: '{ref.text}' "
                    "(vLLM logs 'Unable to read the config file' and stops)",
                    {"config": ref.text, "working_dir": ev.cwd, "working_dir_known": not assumed},
                    severity="warning" if assumed else None,
                )
            )
        elif e.line is None:
            inv.problems.append(
                Problem(
                    "VL010",
                    ref.span,
                    f"config file {ref.text} not found or unreadable: {e.message}; its settings are not checked",
                    {"config": ref.text},
                )
            )
        else:
            inv.problems.append(
                Problem(
                    "VL010",
                    ref.span,
                    f"config file {ref.text} is not valid: {e.message} (line {e.line})",
                    {"config": ref.text},
                )
            )
        inv.opaque_args = True
        return
    if not _config_name_ok(inv, ref) or not _config_document_ok(inv, ref, linked.text):
        return
    try:
        inv.config = vllm_yaml.load_config(linked.text, linked.path)
        inv.facts["config_path"] = Fact(str(linked.abspath), ref.span, "--config")
    except SourceError as e:
        where = f" (line {e.line})" if e.line else ""
        inv.problems.append(
            Problem("VL010", ref.span, f"config file {ref.text} is not valid: {e.message}{where}", {"config": ref.text})
        )
        inv.opaque_args = True
