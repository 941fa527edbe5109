"""``vllm serve``'s own checks (VL030-VL035, VL038): tool-call parser, log outputs, LoRA modules,
chat template, mutually exclusive spellings."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import V
from vlint.sources.scripts.workdir import created_match

if TYPE_CHECKING:
    pass
from vlint.checks.startup.common import _json, _refuse, _since, _user

# -- vllm serve's own checks (VL030-VL034) -------------------------------------------------------------


@check("startup.auto_tool_choice_without_parser")
def auto_tool_choice_without_parser(ctx: CheckContext) -> Iterator[Hit]:
    """``validate_parsed_serve_args``: every release ([0.6.6.post1] vllm/entrypoints/openai/cli_args.py:266,
    [0.33.0] vllm/entrypoints/common/cli_args.py:554)."""
    dep = ctx.dep
    assert dep is not None
    if dep.invocation.program != "vllm serve" or _user(dep, "enable_auto_tool_choice") is not True:
        return
    parser = dep.setting("tool_call_parser")
    if parser is not None and (parser.value is UNRESOLVED or parser.value):
        return
    yield Hit(dep.span_of("enable_auto_tool_choice"), {}, message=_refuse(AUTO_TOOL_MESSAGE))


AUTO_TOOL_MESSAGE = (
    "Error: --enable-auto-tool-choice requires --tool-call-parser (name the parser of the model's tool-call format, "
    "e.g. --tool-call-parser hermes)"
)

#: ``--enable-log-outputs`` needs request logging from 0.11.0 ([0.11.0] vllm/entrypoints/openai/cli_args.py:280-282)
LOG_OUTPUTS_CHECKED_SINCE = "0.11.0"


@check("startup.log_outputs_without_requests")
def log_outputs_without_requests(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, LOG_OUTPUTS_CHECKED_SINCE) or _user(dep, "enable_log_outputs") is not True:
        return
    if dep.setting("enable_log_requests") is not None and _user(dep, "enable_log_requests") is not False:
        return  # set (or unresolved)
    if dep.value("enable_log_requests") is True:
        return
    yield Hit(
        dep.span_of("enable_log_outputs"),
        {},
        message=_refuse("Error: --enable-log-outputs requires --enable-log-requests"),
    )


@check("startup.lora_modules_malformed")
def lora_modules_malformed(ctx: CheckContext) -> Iterator[Hit]:
    """``LoRAParserAction``: ``name=path`` or a JSON object with ``name`` and ``path`` (and optionally
    ``base_model_name``); anything else stops the parser ([0.33.0] vllm/entrypoints/common/cli_args.py:52-68)."""
    import json

    dep = ctx.dep
    assert dep is not None
    s = dep.setting("lora_modules")
    if s is None or s.value is UNRESOLVED:
        return
    items = s.value if isinstance(s.value, list | tuple) else [s.value]
    for item in items:
        if not isinstance(item, str) or item == "" or ("=" in item and "," not in item):
            continue
        try:
            obj = json.loads(item)
        except (json.JSONDecodeError, RecursionError):
            yield Hit(s.full_span, {"item": item}, message=_refuse(f"Invalid JSON format for --lora-modules: {item}"))
            continue
        problem = None
        if not isinstance(obj, dict):
            problem = "LoRAModulePath() argument after ** must be a mapping"
        else:
            missing = [k for k in ("name", "path") if k not in obj]
            unknown = sorted(set(obj) - {"name", "path", "base_model_name"})
            if unknown:
                problem = f"LoRAModulePath.__init__() got an unexpected keyword argument '{unknown[0]}'"
            elif missing:
                problem = (
                    f"LoRAModulePath.__init__() missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) > 1 else ''}: " + " and ".join(f"'{m}'" for m in missing)
                )
        if problem:
            yield Hit(
                s.full_span,
                {"item": item},
                message=_refuse(f"Invalid fields for --lora-modules: {item} - {problem}"),
            )


@check("startup.chat_template_missing")
def chat_template_missing(ctx: CheckContext) -> Iterator[Hit]:
    """``validate_chat_template``: a value without Jinja characters (``{``, ``}``, newline) is a path, and
    it must exist ([0.6.6.post1] vllm/entrypoints/chat_utils.py:608-627; [0.33.0]
    vllm/entrypoints/common/cli_args.py:539 calls it, vllm/entrypoints/chat_utils.py has the test). A
    relative path is opened from the folder vLLM runs in: an error only where the script moves there
    itself (the ``workdir`` fact: ``cd "$(dirname "$0")"``) and writes no such file; where that folder is
    only assumed (``workdir_assumed``: the folder the script is started from) or the script fills a folder
    that may hold it, a warning that says so. A path with ``..``, an absolute path or ``~`` is not checked."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("chat_template")
    base = dep.base_dir
    if s is None or not isinstance(s.value, str) or base is None or dep.invocation.source != "shell":
        return
    tpl = s.value
    if any(c in tpl for c in "{}\n") or not ("/" in tpl or tpl.endswith((".jinja", ".j2", ".jinja2"))):
        return  # a template string, or a name vLLM may resolve among its bundled templates
    rel = PurePosixPath(tpl)
    if rel.is_absolute() or tpl.startswith("~") or ".." in rel.parts or "$" in tpl:
        return
    facts = dep.invocation.facts
    if "image" in facts:
        return  # `docker run IMAGE …` in the script: the path is the container's, not the repository's
    known = facts.get("workdir")
    folder = known or facts.get("workdir_assumed")
    wd = str(folder.value) if folder is not None else ""
    if posixpath.isabs(wd) or wd.split("/", 1)[0] == "..":
        return  # a folder outside the repository: what it holds at run time is not known
    where = posixpath.normpath(posixpath.join(wd, tpl))
    if (Path(base) / where).exists():
        return
    created = facts.get("created_paths")
    made = created_match(created.value, where) if created is not None else None
    if made is not None and not made.folder:
        return  # the script writes that very file before the launch (wget -O, cp, > …)
    at = posixpath.normpath(posixpath.join(posixpath.dirname(dep.path), where))  # where the repository would have it
    elsewhere = _found_elsewhere(Path(base), dep.path, rel)
    data = {"chat_template": tpl, "working_dir": wd, "working_dir_known": known is not None}
    if made is not None:
        yield Hit(
            s.full_span,
            {**data, "created_by": made.how, "created_line": made.line},
            message=f"--chat-template {tpl} is not in the repository (no {at}), but the script fills {made.path}/"
            f" before the launch ({made.how}, line {made.line}), which may hold it (assumed: vLLM refuses to"
            " start if it does not)",
            severity="warning",
        )
        return
    if known is None:
        # the folder the script is started from is not written anywhere: the file may be there at run time
        # (a template the user keeps beside the script's caller), and vLLM refuses only if it is not
        found = f"; the repository has {elsewhere}" if elsewhere is not None else ""
        yield Hit(
            s.full_span,
            {**data, "found_at": elsewhere},
            message=f"--chat-template {tpl} is not in the repository (no {at}){found}: vLLM opens it relative"
            " to the folder it is started from, which the script does not set (assumed: its own folder; it never"
            ' moves there with cd "$(dirname "$0")"), and refuses to start if it is not there',
            severity="warning",
        )
        return
    line = known.span.line if known.span is not None else None
    moved = f"the folder the script moves to with cd{f' at line {line}' if line else ''}"
    found = f"; the repository has it at {elsewhere}" if elsewhere is not None else ""
    yield Hit(
        s.full_span,
        {**data, "found_at": elsewhere},
        message=_refuse(
            f"The supplied chat template string ({tpl}) appears path-like, but doesn't exist! "
            f"(looked for {at}: {moved}{found})"
        ),
    )


#: the most directory entries :func:`_found_elsewhere` reads (a huge checkout is not walked whole)
ELSEWHERE_WALK_LIMIT = 20000


def _found_elsewhere(base: Path, script: str, rel: PurePosixPath) -> str | None:
    """Where else in the repository (the lint root: ``base`` less the folders of ``script``, the launch's
    path relative to it) a file ending in ``rel`` is, relative to the root; None when nowhere, or when the
    root cannot be told from the paths. ``.git`` and hidden folders are not walked."""
    sp = PurePosixPath(script)
    ups = len(sp.parts) - 1
    if sp.is_absolute() or ups < 0 or (ups and tuple(base.parts[-ups:]) != sp.parts[:-1]):
        return None
    root = base.parents[ups - 1] if ups else base
    seen = 0
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        seen += len(dirs) + len(files)
        if seen > ELSEWHERE_WALK_LIMIT:
            return None
        if rel.name in files:
            cand = Path(here) / rel.name
            found = PurePosixPath(cand.relative_to(root).as_posix())
            if found.parts[-len(rel.parts) :] == rel.parts and cand.parent != base:
                return found.as_posix()
    return None


# -- mutually exclusive spellings (VL035) ------------------------------------------------------------

#: (shorthand dest, config dest, key inside it, since, until, vLLM's message)
EXCLUSIVE: tuple[tuple[str, str, str, str, str | None, str], ...] = (
    # [0.13.0] vllm/engine/arg_utils.py: attention_backend vs attention_config.backend
    (
        "attention_backend",
        "attention_config",
        "backend",
        "0.13.0",
        None,
        "attention_backend and attention_config.backend are mutually exclusive",
    ),
    # [0.11.1] vllm/engine/arg_utils.py:1751 cuda_graph_sizes vs compilation_config.cudagraph_capture_sizes
    (
        "cuda_graph_sizes",
        "compilation_config",
        "cudagraph_capture_sizes",
        "0.11.1",
        "0.13.0",
        "cuda_graph_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive",
    ),
    (
        "max_cudagraph_capture_size",
        "compilation_config",
        "max_cudagraph_capture_size",
        "0.11.1",
        None,
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive",
    ),
    (
        "cudagraph_capture_sizes",
        "compilation_config",
        "cudagraph_capture_sizes",
        "0.11.1",
        None,
        "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive",
    ),
)


@check("startup.mutually_exclusive_spellings")
def mutually_exclusive_spellings(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    for short, cfg, key, since, until, msg in EXCLUSIVE:
        if not _since(dep, since) or (until is not None and dep.version >= V(until)):
            continue
        if dep.setting(short) is None or _user(dep, short) is None:
            continue
        conf = _json(dep, cfg)
        if conf is None or conf.get(key) is None:
            continue
        yield Hit(dep.span_of(short), {"option": short, "config": f"{cfg}.{key}"}, message=_refuse(msg))
