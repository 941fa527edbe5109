"""Which source applies to a file: the cheap tests, kept apart from the sources themselves.

Sniffing runs on every file of a tree, so it only looks at names and a few regular expressions; the
source modules (and what they import) are loaded only for the files they apply to. Each source module
re-exports its ``sniff`` from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePath

from vlint.core.lazy_re import lazy_compile
from vlint.sources.base import SourceText

# -- shared helpers ------------------------------------------------------------------------------
# Scanners for file content are linear: a regular expression such as ``\{\{.*?\}\}`` rescans the
# rest of the text from every ``{{`` when no ``}}`` follows (quadratic: 20,000 ``{{`` took 16 s).


def find_template(text: str, start: int = 0) -> tuple[int, int] | None:
    """The first ``{{ … }}`` of Go/Helm/KServe template syntax at or after ``start`` (a ``{{`` right
    after ``$`` is GitHub's ``${{ }}``, not a template): (start, end) offsets, or None."""
    i = text.find("{{", start)
    while i >= 0 and i > 0 and text[i - 1] == "$":
        i = text.find("{{", i + 1)
    if i < 0:
        return None
    j = text.find("}}", i + 2)  # no `}}` after the first `{{`: none after any later one either
    return None if j < 0 else (i, j + 2)


def iter_expressions(text: str, opener: str = "${{") -> Iterator[tuple[int, int]]:
    """Every ``${{ … }}`` (GitHub Actions expressions) as (start, end) offsets, in one pass."""
    pos = 0
    while True:
        i = text.find(opener, pos)
        if i < 0:
            return
        j = text.find("}}", i + len(opener))
        if j < 0:
            return
        yield i, j + 2
        pos = j + 2


_YAML_SUFFIXES = (".yaml", ".yml", ".tpl")


def is_yamlish(src: SourceText) -> bool:
    return src.abspath.name.lower().endswith(_YAML_SUFFIXES)


def has_template(text: str) -> bool:
    return find_template(text) is not None


#: a line that opens a YAML block scalar (``key: |``, ``- >-``, ``run: |2``), trailing comment allowed
_BLOCK_OPENER = lazy_compile(r"(?:^|[:-][ \t])[|>][+-]?[0-9]?[+-]?[ \t]*(?:#.*)?$")


def is_template_file(text: str) -> bool:
    """Template syntax where YAML structure is: a ``{{`` that starts a line's content (``{{- if … }}``,
    ``- {{ … }}``) or a mapping value (``image: {{ .Values.image }}``), outside block scalars. Such a file
    is not YAML until it is rendered. A ``{{`` inside a string (``run: docker inspect -f
    '{{.State.Running}}'``, ``args: ["--name={{.Name}}"]``) or a block scalar leaves the file YAML: it is
    a value some tool fills in, not a template of the file. One pass over the lines."""
    if "{{" not in text:
        return False
    block_indent = -1  # indentation of the line that opened the block scalar we are in
    for line in text.split("\n"):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if block_indent >= 0:
            if not body.strip() or indent > block_indent:
                continue
            block_indent = -1
        i = line.find("{{")
        while i >= 0:
            if i == 0 or line[i - 1] != "$":
                # the last character before the `{{` that is not a blank (a backward scan over the blanks
                # just before this `{{`: each blank is passed by one scan, so the line stays linear)
                j = i - 1
                while j >= 0 and line[j] in " \t":
                    j -= 1
                value_start = j < i - 1 and line[j] in ":-" and (line[j] == ":" or j == 0 or line[j - 1] in " \t")
                if j < 0 or value_start:
                    return True
            i = line.find("{{", i + 2)
        if _BLOCK_OPENER.search(line) is not None:
            block_indent = indent
    return False


def is_vllm_template(text: str) -> bool:
    """Template syntax in a file that mentions vLLM (other charts' templates are not vLLM's business)."""
    return has_template(text) and "vllm" in text.lower()


def plain_yaml(src: SourceText) -> bool:
    """A ``.yaml``/``.yml`` file that is YAML as it stands (Go templates are the template source's;
    a ``{{ … }}`` inside a string value does not make a file a template: :func:`is_template_file`)."""
    return src.abspath.suffix.lower() in (".yaml", ".yml") and not is_template_file(src.text)


def _top_keys(pattern: re.Pattern[str], text: str) -> set[str]:
    return set(pattern.findall(text))


# -- shell ---------------------------------------------------------------------------------------
SHELL_EXTS = {".sh", ".bash", ".zsh", ".ksh", ".ps1", ".command", ".run"}
_SHEBANG = lazy_compile(r"^#!.*\b(ba|z|k|da)?sh\b")


def shell(src: SourceText) -> bool:
    if PurePath(src.abspath.name.lower()).suffix in SHELL_EXTS:
        return True
    first = src.text[:200].lstrip("\ufeff").lstrip().split("\n", 1)[0]
    return bool(_SHEBANG.match(first))


_COMMAND_LINE = lazy_compile(r"^[ \t]*(vllm[ \t]+serve|python3?[ \t]+-m[ \t]+(vllm\.|dynamo\.vllm\b))", re.MULTILINE)


def command_file(src: SourceText) -> bool:
    """A file without an extension that holds a vLLM command line (``vllm serve …``): read as shell when
    it is named on the command line (a folder walk reads only the names it knows)."""
    return not PurePath(src.abspath.name).suffix and _COMMAND_LINE.search(src.text) is not None


# -- Kubernetes and Helm -------------------------------------------------------------------------
_API_VERSION = lazy_compile(r"^apiVersion\s*:", re.MULTILINE)
_KIND = lazy_compile(r"^kind\s*:", re.MULTILINE)
_HELM_TOP = lazy_compile(r"^(servingEngineSpec|catalog|modelArtifacts|decode|prefill|image)\s*:", re.MULTILINE)


def kubernetes(src: SourceText) -> bool:
    return is_yamlish(src) and bool(_API_VERSION.search(src.text)) and bool(_KIND.search(src.text))


#: the same keys one level down: a parent chart's values for a known chart it depends on, under the
#: dependency's name or alias (``vllm-stack:\n  servingEngineSpec:``;
#: https://helm.sh/docs/chart_template_guide/subcharts_and_globals/)
_HELM_SUB = lazy_compile(r"^[ ]{2}(servingEngineSpec|modelArtifacts)[ \t]*:", re.MULTILINE)


def helm(src: SourceText) -> bool:
    if not is_yamlish(src):
        return False
    keys = _top_keys(_HELM_TOP, src.text)
    if "servingEngineSpec" in keys or (_HELM_SUB.search(src.text) and not _API_VERSION.search(src.text)):
        return True
    if "catalog" in keys and re.search(r"^[ \t]+engine[ \t]*:[ \t]*['\"]?vllm", src.text, re.IGNORECASE | re.MULTILINE):
        return True
    if "modelArtifacts" in keys and keys & {"decode", "prefill"}:
        return True
    if "image" not in keys or "vllm" not in src.text.lower():
        return False
    return _image_command(src.text)


def _image_command(text: str) -> bool:
    """``command:`` a direct child of the top-level ``image:`` mapping (vLLM's example chart,
    examples/online_serving/chart-helm/values.yaml), not any nested ``command:`` of another chart
    (a probe's ``exec.command``, a sidecar's): those charts are rendered or noted as charts of their own."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not re.match(r"image[ \t]*:[ \t]*(#.*)?$", line):
            continue
        child = None
        for nxt in lines[i + 1 :]:
            body = nxt.lstrip(" ")
            if not body.strip() or body.startswith("#"):
                continue
            indent = len(nxt) - len(body)
            if indent == 0:
                break
            if child is None:
                child = indent
            if indent == child and re.match(r"command[ \t]*:", body):
                return True
    return False


_VALUES_NAME = lazy_compile(r"^(?:.*[-_.])?values(?:[-_.].*)?\.ya?ml$")
_LLM_D_DEPLOYER = lazy_compile(r"^sampleApplication[ \t]*:", re.MULTILINE)
_VLLM_WORD = lazy_compile(r"vllm", re.IGNORECASE)


#: top-level keys of the values file ``helm create`` writes (helm/helm ``pkg/chart/v2/util/create.go``,
#: ``defaultValues``): values files of charts made from it keep most of them, whatever the file's name
_HELM_CREATE_KEYS = lazy_compile(
    r"^(replicaCount|imagePullSecrets|nameOverride|fullnameOverride|serviceAccount|podAnnotations|podLabels"
    r"|podSecurityContext|securityContext|service|ingress|resources|livenessProbe|readinessProbe|autoscaling"
    r"|volumes|volumeMounts|nodeSelector|tolerations|affinity)[ \t]*:",
    re.MULTILINE,
)
_TOP_IMAGE = lazy_compile(r"^image[ \t]*:", re.MULTILINE)


def helm_values(src: SourceText) -> bool:
    """A Helm values file of a vLLM chart that renders nothing here (:mod:`vlint.sources.kube.helm_values`):
    no ``Chart.yaml`` in its folder (or one without ``templates/`` and ``charts/``), and either an llm-d
    deployer overlay (a top-level ``sampleApplication:`` with a ``modelArtifactURI``) or a file that
    names vLLM outside comments and is named like a values file (``values*.yaml``) or reads like one
    whatever its name (a top-level ``image:`` and three or more of the other top-level keys ``helm
    create`` writes: ``-f prod.yaml``)."""
    if not is_yamlish(src):
        return False
    text = src.text
    if not (_LLM_D_DEPLOYER.search(text) and "modelArtifactURI" in text):
        if not _VALUES_NAME.match(src.abspath.name.lower()) and not (
            _TOP_IMAGE.search(text) and len(_top_keys(_HELM_CREATE_KEYS, text)) >= 3
        ):
            return False
        if not any(_VLLM_WORD.search(line.split("#", 1)[0]) for line in text.splitlines()):
            return False
    folder = src.abspath.parent  # the file system last: only for the files that read as such values
    if not ((folder / "Chart.yaml").is_file() or (folder / "Chart.yml").is_file()):
        return True
    # a chart here renders its templates (and the dependencies vendored in charts/) from these values; one
    # with neither (a wrapper of remote dependencies, a chart whose templates are elsewhere) renders nothing
    # here: its values are read as those of a chart that is not here
    return not any(_has_files(folder / sub) for sub in ("templates", "charts"))


def _has_files(folder: Path) -> bool:
    """Whether ``folder`` (beside a file being linted) holds anything; a symbolic link is not followed
    (it may point out of the lint root, whose contents vlint never lists) and counts as holding files."""
    try:
        if folder.is_symlink():
            return True
        return folder.is_dir() and any(folder.iterdir())
    except OSError:
        return False


def template(src: SourceText) -> bool:
    """A YAML-like file with ``{{ … }}`` that mentions vLLM and no other source claims — or a Kubernetes
    manifest that is a template where its YAML structure is (the Kubernetes reader cannot read it: the
    template source reads what is plain, after the Kubernetes source has said it is a template)."""
    return (
        is_yamlish(src)
        and is_vllm_template(src.text)
        and (is_template_file(src.text) or src.abspath.suffix.lower() == ".tpl")
        and (not kubernetes(src) or is_template_file(src.text))
        and not helm(src)
    )


# -- compose, CI and cluster launchers ---------------------------------------------------------------
_COMPOSE_NAME = lazy_compile(r"^(docker-)?compose([.-].*)?\.ya?ml$", re.IGNORECASE)
_TOP_SERVICES = lazy_compile(r"^services\s*:", re.MULTILINE)
_SERVICE_KEYS = lazy_compile(r"^[ \t]+(image|command|build|entrypoint)[ \t]*:", re.MULTILINE)
_K8S = lazy_compile(r"^(apiVersion|kind)\s*:", re.MULTILINE)


def compose(src: SourceText) -> bool:
    if not plain_yaml(src):
        return False
    if _COMPOSE_NAME.match(src.abspath.name):
        return True
    text = src.text
    return bool(_TOP_SERVICES.search(text) and _SERVICE_KEYS.search(text) and not _K8S.search(text))


_WORKFLOW_PATH = lazy_compile(r"(^|/)\.github/workflows/[^/]+\.ya?ml$")
_GHA_TOP = lazy_compile(r"^(jobs|on|\"on\"|'on'|true|runs|name|inputs)\s*:", re.MULTILINE)
_USING = lazy_compile(r"^[ \t]+using[ \t]*:[ \t]*['\"]?composite", re.MULTILINE)


def github_actions(src: SourceText) -> bool:
    if not plain_yaml(src):
        return False
    if _WORKFLOW_PATH.search(src.abspath.as_posix()):
        return True
    keys = _top_keys(_GHA_TOP, src.text)
    if "jobs" in keys and keys & {"on", '"on"', "'on'", "true"}:
        return True
    return "runs" in keys and bool(_USING.search(src.text))


_SKY_TOP = lazy_compile(r"^(run|setup|resources|envs|num_nodes|secrets|file_mounts|workdir|service)\s*:", re.MULTILINE)


def skypilot(src: SourceText) -> bool:
    if not plain_yaml(src):
        return False
    keys = _top_keys(_SKY_TOP, src.text)
    return bool(keys & {"run", "setup"}) and bool(keys & {"resources", "envs", "num_nodes", "secrets"})


_RAY_HINTS = lazy_compile(r"^[ \t]*(llm_configs|engine_kwargs|serveConfigV2|model_loading_config)[ \t]*:", re.MULTILINE)


def ray_serve(src: SourceText) -> bool:
    if not plain_yaml(src):
        return False
    text = src.text
    return bool(_RAY_HINTS.search(text)) or (
        "import_path" in text and re.search(r"^applications\s*:", text, re.MULTILINE) is not None
    )


# -- files an outside tool renders --------------------------------------------------------------
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def kustomization(src: SourceText) -> bool:
    return src.abspath.name in KUSTOMIZATION_NAMES


def chart_of(path: Path) -> Path | None:
    """The Helm chart folder whose ``templates/`` holds ``path`` (``chart/templates/x/y.yaml``), or None."""
    for parent in list(path.parents)[:4]:
        if parent.name == "templates" and (parent.parent / "Chart.yaml").is_file():
            return parent.parent
    return None


def helm_chart(src: SourceText) -> bool:
    """A chart's ``Chart.yaml`` (rendered with its templates and values: :mod:`vlint.sources.render.helm`)."""
    return src.abspath.name in ("Chart.yaml", "Chart.yml")


# -- task runners and service managers --------------------------------------------------------------
_MAKEFILE_NAMES = {"makefile", "gnumakefile"}


def makefile(src: SourceText) -> bool:
    name = src.abspath.name.lower()
    return name in _MAKEFILE_NAMES or name.endswith((".mk", ".make"))


def justfile(src: SourceText) -> bool:
    name = src.abspath.name.lower()
    return name in ("justfile", ".justfile") or name.endswith(".just")


def systemd(src: SourceText) -> bool:
    return src.abspath.suffix.lower() == ".service"


def procfile(src: SourceText) -> bool:
    name = src.abspath.name
    return name == "Procfile" or name.startswith("Procfile.")


def supervisord(src: SourceText) -> bool:
    suffix = src.abspath.suffix.lower()
    return suffix in (".conf", ".ini") and "[program:" in src.text


_TASKFILE_NAME = lazy_compile(r"^taskfile(\.dist)?\.ya?ml$", re.IGNORECASE)


def taskfile(src: SourceText) -> bool:
    """go-task's ``Taskfile.yml``: its ``{{.VAR}}`` are task's own templating, not a Helm template."""
    if src.abspath.suffix.lower() not in (".yaml", ".yml"):
        return False
    if _TASKFILE_NAME.match(src.abspath.name):
        return True
    text = src.text
    has_tasks = text.startswith("tasks:") or "\ntasks:" in text
    return has_tasks and (text.startswith("version:") or "\nversion:" in text)


# -- Dockerfile, .env, Python --------------------------------------------------------------------
_DOCKERFILE_NAMES = (lazy_compile(r"^(docker|container)file$"), lazy_compile(r"^(docker|container)file[.-]"))
_FROM_LINE = lazy_compile(r"^FROM\s+(?:--\S+\s+)*\S+(?:\s+AS\s+\S+)?\s*$", re.IGNORECASE)
_NOT_DOCKERFILE_EXTS = {
    ".sh",
    ".bash",
    ".py",
    ".yaml",
    ".yml",
    ".json",
    ".toml",
    ".md",
    ".txt",
    ".env",
    ".cfg",
    ".ini",
}


def is_dockerfile_name(name: str) -> bool:
    n = name.lower()
    return any(p.match(n) for p in _DOCKERFILE_NAMES) or n.endswith((".dockerfile", ".containerfile"))


def dockerfile(src: SourceText) -> bool:
    if is_dockerfile_name(src.abspath.name):
        return True
    if src.abspath.suffix.lower() in _NOT_DOCKERFILE_EXTS:
        return False
    # content: the first instruction is FROM (or ARG before FROM)
    for line in src.text[:4000].split("\n"):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        word = s.split(None, 1)[0].upper()
        if word == "FROM":
            return _FROM_LINE.match(s) is not None
        if word != "ARG":
            return False
    return False


def is_dotenv_name(name: str) -> bool:
    n = name.lower()
    return n == ".env" or n.startswith(".env.") or n.endswith(".env")


def dotenv(src: SourceText) -> bool:
    return is_dotenv_name(src.abspath.name)


_PYTHON_VLLM = lazy_compile(
    r"^\s*(from\s+vllm\b|import\s+vllm\b)|ray\.serve\.llm|[\"']vllm[\"']|vllm serve|vllm\.entrypoints", re.MULTILINE
)


def python_mentions_vllm(text: str) -> bool:
    """Python that imports vLLM, names it as a string, or runs ``vllm serve`` / its entry points."""
    return _PYTHON_VLLM.search(text) is not None


def python(src: SourceText) -> bool:
    return src.abspath.suffix.lower() == ".py" and python_mentions_vllm(src.text)


def notebook(src: SourceText) -> bool:
    """A Jupyter notebook that mentions vLLM (``vlint.sources.notebook`` reads its code cells)."""
    return src.abspath.suffix.lower() == ".ipynb" and "vllm" in src.text.lower()
