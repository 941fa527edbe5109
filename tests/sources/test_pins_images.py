"""Where deployments state their vLLM release: image tags (mirrors, suffixes, digests, vendor images)
and pins beside the launch (pip/uv install lines, requirements*.txt, pyproject.toml, lock files)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.core.version import V
from vlint.sources.containers.images import (
    VENDOR_RELEASES,
    image_vllm_version,
    parse_image,
    suffix_note,
    unknown_version_reason,
    vendor_release,
)
from vlint.sources.pins import pin_in_file, pin_in_script, project_root, unpinned_in_script


@pytest.mark.parametrize(
    ("ref", "version"),
    [
        ("vllm/vllm-openai:v0.10.2", "0.10.2"),
        ("docker.io/vllm/vllm-openai:v0.10.2", "0.10.2"),
        ("registry.corp/mirror/vllm/vllm-openai:v0.10.2", "0.10.2"),
        ("mirror.local:5000/vllm/vllm-openai:0.9.2", "0.9.2"),
        ("vllm/vllm-openai:v0.10.2-cu124", "0.10.2"),
        ("vllm/vllm-openai:v0.10.2-rocm", "0.10.2"),
        ("public.ecr.aws/q9t5s3a7/vllm-ci-postmerge-repo:v0.8.5", "0.8.5"),
        ("vllm/vllm-openai:v0.6.6.post1", "0.6.6.post1"),
        ("vllm/vllm-openai:v0.10.1.1", "0.10.1.1"),
        ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "0.8.5"),
        ("nvcr.io/nvidia/vllm:25.10-py3", "0.10.2"),
        ("nvcr.io/nvidia/vllm:26.01-py3", "0.11.1"),
        ("registry.corp/nvidia/vllm:26.03-py3", "0.17.1"),
        ("nvcr.io/nvidia/vllm:25.11-py3", None),
        ("lmcache/vllm-openai:v0.3.1", None),
        ("vllm/vllm-openai:latest", None),
        ("vllm/vllm-openai@sha256:0123abcd", None),
        ("ghcr.io/llm-d/llm-d:v0.2.0", None),
        ("kserve/huggingfaceserver:v0.15.2", None),
        # custom builds named after vLLM: a bundled release, a dash, a build suffix (issue 27 follow-up)
        ("vllm/vllm-openai:v0.10.2-nixl-xxx", "0.10.2"),
        ("myorg/vllm-nixl:v0.10.2-nixl-xxx", "0.10.2"),
        ("aibrix/vllm-openai-aibrix-kvcache-nixl:v0.10.2-nixl-0.7.1-ucx-1.19.0", "0.10.2"),
        ("ghcr.io/acme/vllm-custom:0.9.2-cu121", "0.9.2"),
        # must not: no vLLM in the image's name, not a vLLM release, vendors with their own numbers, floating
        ("nvcr.io/nvidia/pytorch:24.05-py3", None),
        ("python:3.11-slim", None),
        ("opea/vllm-gaudi:1.22.0-ubuntu", None),
        ("lmcache/vllm-openai:v0.3.1-cu128", None),
        ("ghcr.io/vllm-project/router:v0.10.2-amd64", None),
        ("acme/vllm-nixl:v0.10.2", None),
        ("acme/vllm-nixl:v0.10.2nixl", None),
        ("vllm-openai:latest", None),
        ("acme/vllm-nixl:latest-v0.10.2", None),
    ],
)
def test_image_tags(ref: str, version: str | None) -> None:
    image = parse_image(ref)
    assert image is not None
    got = image_vllm_version(image)
    assert (str(got) if got else None) == version


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("vllm/vllm-openai@sha256:0123abcd", "a digest"),
        ("vllm/vllm-openai:latest", "floating tag"),
        ("nvcr.io/nvidia/vllm:25.11-py3", "NGC vLLM container"),
        ("ghcr.io/llm-d/llm-d:v0.2.0", "llm-d image"),
        ("anyscale/ray-llm:2.44.0-py311-cu124", "Ray Serve LLM"),
        ("kserve/huggingfaceserver:v0.15.2", "KServe"),
    ],
)
def test_images_that_ship_vllm_without_naming_it(ref: str, why: str) -> None:
    reason = unknown_version_reason(parse_image(ref))
    assert reason is not None and why in reason


def test_a_custom_suffix_is_named_in_the_note() -> None:
    note = suffix_note(parse_image("myorg/vllm-nixl:v0.10.2-nixl-xxx"))
    assert "read as vLLM 0.10.2" in note and "'nixl-xxx'" in note and "--vllm-version" in note
    assert suffix_note(parse_image("vllm/vllm-openai:v0.10.2-cu124")) == ""  # vLLM's own variant tags
    assert suffix_note(parse_image("nvcr.io/nvidia/pytorch:24.05-py3")) == ""
    assert unknown_version_reason(parse_image("myorg/vllm-nixl:v0.10.2-nixl-xxx")) is None
    assert "floating tag" in (unknown_version_reason(parse_image("vllm-openai:latest")) or "")


def test_images_without_vllm_are_not_version_unknown() -> None:
    assert unknown_version_reason(parse_image("python:3.11-slim")) is None
    assert unknown_version_reason(parse_image("vllm/vllm-openai:v0.10.2")) is None


def test_every_vendor_mapping_names_a_bundled_release_and_its_evidence() -> None:
    from vlint.argspec.spec import bundled_versions

    for (repo, tag), (version, evidence) in VENDOR_RELEASES.items():
        assert V(version) in bundled_versions()
        assert "http" in evidence and version in evidence
        found = vendor_release(parse_image(f"nvcr.io/{repo}:{tag}"))
        assert found is not None and str(found[0]) == version


# -- pins --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("pip install vllm==0.9.2\n", "0.9.2"),
        ("pip3 install -U 'vllm[audio]==0.10.2' transformers\n", "0.10.2"),
        ('uv pip install --system "vllm==0.8.5.post1"\n', "0.8.5.post1"),
        ("RUN python3 -m pip install --no-cache-dir vllm==0.6.6.post1\n", "0.6.6.post1"),
        ("pip install vllm>=0.9\n", None),
        ("pip install vllm\n", None),
        ("pip install my-vllm==1.0\n", None),
        ("echo vllm==0.9.2\n", None),
    ],
)
def test_install_lines(text: str, version: str | None) -> None:
    pin = pin_in_script(text, Path("start.sh"))
    assert (pin.version if pin else None) == version


@pytest.mark.parametrize(
    ("text", "where"),
    [
        # an unpinned install: the newest release when it runs
        ("pip install vllm\n", (1, 1)),
        ("RUN pip3 install --no-cache-dir -U 'vllm[audio]' transformers\n", (1, 5)),
        ("uv pip install --system vllm>=0.9 openai\n", (1, 1)),
        ("apt-get update && pip install vllm && vllm serve x\n", (1, 19)),
        ('python3 -m pip install "vllm"\n', (1, 1)),
        # must not: a pin, a version variable, an upper bound, a nightly/wheel/checkout, another package,
        # a comment, an echo, uninstall
        ("pip install vllm==0.9.2\n", None),
        ("pip install vllm==$VLLM_VERSION\n", None),
        ("pip install 'vllm<0.10'\n", None),
        ("pip install 'vllm>=0.9,<0.10'\n", None),
        ("pip install vllm --pre --extra-index-url https://wheels.vllm.ai/nightly\n", None),
        ("pip install git+https://github.com/vllm-project/vllm\n", None),
        ("pip install -e ./vllm\n", None),
        ("pip install vllm-flash-attn\n", None),
        ("# pip install vllm\n", None),
        ("echo pip install vllm\n", None),
        ("pip uninstall -y vllm\n", None),
    ],
)
def test_unpinned_install_lines(text: str, where: tuple[int, int] | None) -> None:
    pin = unpinned_in_script(text, Path("start.sh"))
    assert ((pin.line, pin.column) if pin else None) == where
    assert pin is None or (pin.unpinned and pin.version == "")


@pytest.mark.parametrize(
    ("name", "text", "version"),
    [
        ("requirements.txt", "torch\nvllm==0.9.2  # pinned\n", "0.9.2"),
        ("requirements-gpu.txt", "vllm[audio] == 0.10.2 ; python_version >= '3.9'\n", "0.10.2"),
        ("requirements.txt", "vllm>=0.9.2\n", None),
        ("requirements.txt", "vllm-tools==1.0\n", None),
        ("pyproject.toml", '[project]\ndependencies = [\n  "vllm==0.11.0",\n]\n', "0.11.0"),
        ("pyproject.toml", '[tool.poetry.dependencies]\nvllm = "0.9.0"\n', "0.9.0"),
        ("pyproject.toml", '[tool.poetry.dependencies]\nvllm = { version = "0.9.2", optional = true }\n', "0.9.2"),
        ("pyproject.toml", '[tool.poetry.dependencies]\nvllm = "^0.6.1.post2"\n', None),
        ("uv.lock", '[[package]]\nname = "vllm"\nversion = "0.10.1.1"\nsource = { registry = "x" }\n', "0.10.1.1"),
        ("poetry.lock", '[[package]]\nname = "vllm"\nversion = "0.8.5"\ndescription = "x"\n', "0.8.5"),
        ("uv.lock", '[[package]]\nname = "vllm-x"\nversion = "1.0"\n', None),
        ("Dockerfile", "FROM python:3.11\nRUN pip install --no-cache-dir vllm==0.10.2\n", "0.10.2"),
        ("Dockerfile.gpu", "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN uv pip install vllm==0.9.2\n", "0.9.2"),
        ("serve.Dockerfile", "RUN pip3 install vllm==0.8.5 transformers\n", "0.8.5"),
        ("Containerfile", "RUN pip install 'vllm>=0.9'\n", None),
        ("Dockerfile", "FROM vllm/vllm-openai:v0.9.0\n", None),
        ("README.md", "RUN pip install vllm==0.9.2\n", None),
    ],
)
def test_dependency_files(name: str, text: str, version: str | None) -> None:
    pin = pin_in_file(name, text, Path(name))
    assert (pin.version if pin else None) == version


def test_project_root_stops_at_the_lint_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "app" / "deploy").mkdir(parents=True)
    assert project_root(tmp_path / "app" / "deploy", tmp_path) == tmp_path
    assert project_root(tmp_path / "app" / "deploy", tmp_path / "app") is None
    assert project_root(Path("/elsewhere"), tmp_path) is None


def _lint_root(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``folder`` the lint root: a git work tree, and the working folder."""
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    monkeypatch.chdir(folder)


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def run(*paths: str) -> str:
        _lint_root(tmp_path, monkeypatch)
        r = CliRunner().invoke(main, ["check", *paths])
        return r.output.strip().splitlines()[-1]

    return run


LAUNCH = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
CMD = 'CMD ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]\n'


def test_pin_in_the_same_script(tmp_path: Path, target) -> None:
    (tmp_path / "start.sh").write_text("pip install vllm==0.9.2\n" + LAUNCH)
    assert "Target vLLM 0.9.2 (pip install vllm==0.9.2 in start.sh)" in target("start.sh")


def test_requirements_beside_the_launch(tmp_path: Path, target) -> None:
    (tmp_path / "start.sh").write_text(LAUNCH)
    (tmp_path / "requirements.txt").write_text("vllm==0.8.5\n")
    assert "Target vLLM 0.8.5 (vllm==0.8.5 in requirements.txt)" in target("start.sh")


def test_a_dockerfile_beside_the_launch_that_installs_vllm(tmp_path: Path, target) -> None:
    """A script copied into an image built beside it runs the vLLM that image pip-installs."""
    (tmp_path / "start.sh").write_text(LAUNCH)
    (tmp_path / "Dockerfile").write_text(
        'FROM python:3.11\nRUN pip install vllm==0.10.2\nENTRYPOINT ["bash", "/start.sh"]\n'
    )
    assert "Target vLLM 0.10.2 (pip install vllm==0.10.2 in Dockerfile)" in target("start.sh")


def test_requirements_win_over_a_dockerfile_and_other_folders_do_not_count(tmp_path: Path, target) -> None:
    (tmp_path / "start.sh").write_text(LAUNCH)
    (tmp_path / "requirements.txt").write_text("vllm==0.8.5\n")
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\nRUN pip install vllm==0.10.2\n")
    assert "Target vLLM 0.8.5 (vllm==0.8.5 in requirements.txt)" in target("start.sh")
    (tmp_path / "requirements.txt").unlink()
    (tmp_path / "Dockerfile").unlink()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "Dockerfile").write_text("FROM python:3.11\nRUN pip install vllm==0.10.2\n")
    assert "the newest bundled release" in target("start.sh")


def test_lock_file_at_the_project_root(tmp_path: Path, target) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "start.sh").write_text(LAUNCH)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["vllm"]\n')
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "vllm"\nversion = "0.10.2"\n')
    assert "Target vLLM 0.10.2 (vllm 0.10.2 locked in uv.lock)" in target("deploy/start.sh")


def test_nothing_is_read_outside_the_lint_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["vllm==0.9.2"]\n')
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "start.sh").write_text(LAUNCH)
    _lint_root(tmp_path / "inner", monkeypatch)
    r = CliRunner().invoke(main, ["check", "start.sh"])
    assert "0.9.2" not in r.output


def test_the_image_wins_over_a_requirements_file(tmp_path: Path, target) -> None:
    (tmp_path / "requirements.txt").write_text("vllm==0.8.5\n")
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.10.2\n" + CMD)
    assert "Target vLLM 0.10.2 (image tag vllm/vllm-openai:v0.10.2)" in target("Dockerfile")


def test_digest_says_version_unknown_and_what_was_assumed(tmp_path: Path, target) -> None:
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai@sha256:0123abcd\n" + CMD)
    line = target("Dockerfile")
    assert "a digest, not a release tag" in line and "version unknown, assumed the newest bundled release" in line


def test_mirror_tag_is_read(tmp_path: Path, target) -> None:
    (tmp_path / "Dockerfile").write_text(
        "FROM registry.corp/mirror/vllm/vllm-openai:v0.10.2-cu124\n"
        'CMD ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]\n'
    )
    assert "Target vLLM 0.10.2" in target("Dockerfile")


def test_custom_image_tag_with_a_suffix_is_read_and_said(tmp_path: Path, target) -> None:
    (tmp_path / "Dockerfile").write_text("FROM myorg/vllm-nixl:v0.10.2-nixl-xxx\n" + CMD)
    line = target("Dockerfile")
    assert "Target vLLM 0.10.2" in line and "suffix 'nixl-xxx'" in line, line


def test_unrelated_image_with_a_suffix_stays_assumed(tmp_path: Path, target) -> None:
    (tmp_path / "start.sh").write_text("docker run --gpus all nvcr.io/nvidia/pytorch:24.05-py3 " + LAUNCH)
    assert "the newest bundled release" in target("start.sh")


def test_errors_resting_on_a_release_read_past_a_suffix_are_warnings(tmp_path: Path) -> None:
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths

    def lint(image: str) -> dict[str, str]:
        (tmp_path / "start.sh").write_text(
            f"docker run --gpus all {image} vllm serve --model Qwen/Qwen2.5-7B-Instruct --no-such-flag 1\n"
        )
        report = lint_paths([tmp_path / "start.sh"], Engine(load_catalog()), LintOptions(root=tmp_path))
        return {f.code: f.severity for f in report.findings if f.code in ("VL001", "VL008")}

    # vllm serve --model is refused by 0.8.3-0.11.0 only: an error at a certain 0.10.2, a warning at a guessed one;
    # the unknown flag is refused by every release and stays an error
    assert lint("vllm/vllm-openai:v0.10.2-cu124") == {"VL001": "error", "VL008": "error"}
    assert lint("myorg/vllm-nixl:v0.10.2-nixl-xxx") == {"VL001": "error", "VL008": "warning"}


def test_a_release_guessed_past_a_suffix_survives_the_trip_back_from_a_worker(tmp_path: Path) -> None:
    """A parallel run sends each checked file back pickled (vlint.run.lint._slim). The way to re-resolve a
    launch whose release was read past a custom suffix is a closure: it must not travel, or the worker
    pool fails and every file is linted a second time in one process (the corpus ran 1.5× slower)."""
    import pickle

    from vlint.config.discover import Discovered
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, Reader, _extract_and_check, _slim

    (tmp_path / "start.sh").write_text("docker run --gpus all myorg/vllm-nixl:v0.10.2-nixl-xxx " + LAUNCH)
    opts = LintOptions(root=tmp_path)
    done = _extract_and_check(Discovered(tmp_path / "start.sh", True), Reader(opts), Engine(load_catalog()), opts)
    assert done[0][0].deployments[0].release_guess_alternative is not None
    back = pickle.loads(pickle.dumps(_slim(done)))
    assert back[0][0].deployments[0].release_guess == "myorg/vllm-nixl:v0.10.2-nixl-xxx"


def test_errors_resting_on_an_assumed_release_are_warnings(tmp_path: Path) -> None:
    """No release in the files: vlint checks the newest bundled one, which is an assumption. A refusal that
    the first release with every option of the launch does not make (a flag removed since) is a warning
    that says so; a flag no release has stays an error; vllm/vllm-openai:latest runs the newest release,
    so there the removal stays an error."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths

    def lint(text: str) -> dict[str, tuple[str, str]]:
        (tmp_path / "start.sh").write_text(text)
        report = lint_paths([tmp_path / "start.sh"], Engine(load_catalog()), LintOptions(root=tmp_path))
        return {f.code: (f.severity, f.message) for f in report.findings if f.code in ("VL001", "VL002")}

    found = lint("vllm serve Qwen/Qwen2.5-7B-Instruct --worker-use-ray --no-such-flag 1\n")
    assert found["VL001"][0] == "error"
    assert found["VL002"][0] == "warning" and "assumed: the files name no release" in found["VL002"][1]
    latest = lint("docker run --gpus all vllm/vllm-openai:latest --model Qwen/Qwen2.5-7B-Instruct --worker-use-ray\n")
    assert latest["VL002"][0] == "error"
    pinned = lint("pip install vllm==0.10.2\nvllm serve Qwen/Qwen2.5-7B-Instruct --worker-use-ray\n")
    assert pinned["VL002"][0] == "error"


def test_the_first_release_with_every_option_goes_by_the_flags_as_written(tmp_path: Path) -> None:
    """``--disable-log-requests`` sets ``enable_log_requests`` from 0.10.1: reading the assumed release's
    dests made 0.10.1 "the first release with every option", where the JSON option's KEY=VALUE form is
    already refused; by the flags as written it is an older one, which takes it (a warning, not an error)."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths

    (tmp_path / "start.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --limit-mm-per-prompt audio=1 --disable-log-requests\n"
    )
    report = lint_paths([tmp_path / "start.sh"], Engine(load_catalog()), LintOptions(root=tmp_path))
    (f,) = [f for f in report.findings if f.code == "VL004"]
    assert f.severity == "warning" and "assumed: the files name no release" in f.message


def test_errors_resting_on_the_release_an_unpinned_install_takes_stay_errors(tmp_path: Path) -> None:
    """``pip install vllm`` with no version takes the newest release when it runs: vLLM's refusal there is
    real, so an error that rests on it stays an error and says where the release comes from. An exact pin
    anywhere beside the launch wins over it, and an image that ships vLLM runs its own release."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths

    def lint(name: str) -> dict[str, tuple[str, str]]:
        report = lint_paths([tmp_path / name], Engine(load_catalog()), LintOptions(root=tmp_path))
        return {f.code: (f.severity, f.message) for f in report.findings if f.code in ("VL001", "VL002")}

    launch = "vllm serve Qwen/Qwen2.5-7B-Instruct --worker-use-ray --no-such-flag 1\n"
    (tmp_path / "start.sh").write_text("pip install -U vllm\n" + launch)
    found = lint("start.sh")
    assert found["VL002"][0] == "error"
    assert "the newest release: pip install vllm (no version) in start.sh:1 takes the newest" in found["VL002"][1]
    assert found["VL001"] == ("error", "unrecognized arguments: --no-such-flag")  # every release refuses it
    # a Dockerfile beside the script that installs vLLM unpinned: the same
    (tmp_path / "start.sh").write_text(launch)
    (tmp_path / "Dockerfile").write_text('FROM python:3.11\nRUN pip install vllm\nCMD ["bash", "/start.sh"]\n')
    assert "in Dockerfile:2" in lint("start.sh")["VL002"][1]
    # must not: an exact pin beside it wins; a commented install is no install (the release is assumed)
    (tmp_path / "requirements.txt").write_text("vllm==0.6.6.post1\n")
    assert "VL002" not in lint("start.sh")
    (tmp_path / "requirements.txt").unlink()
    (tmp_path / "Dockerfile").write_text('FROM python:3.11\n# RUN pip install vllm\nCMD ["bash", "/start.sh"]\n')
    found = lint("start.sh")
    assert found["VL002"][0] == "warning" and "assumed: the files name no release" in found["VL002"][1]


def test_an_image_that_ships_vllm_wins_over_an_unpinned_install(tmp_path: Path, target) -> None:
    """``FROM vllm/vllm-openai:v0.10.2`` + ``pip install vllm``: pip finds vLLM installed and keeps it."""
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.10.2\nRUN pip install vllm\n" + CMD)
    assert "Target vLLM 0.10.2 (image tag vllm/vllm-openai:v0.10.2)" in target("Dockerfile")
    serve = CMD.replace("CMD [", 'CMD ["vllm", "serve", ')
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\nRUN pip install vllm\n" + serve)
    assert "the newest release: pip install vllm (no version) in Dockerfile:2" in target("Dockerfile")


def test_the_requirements_file_an_install_names(tmp_path: Path, target) -> None:
    """``pip install -r FILE`` installs what FILE says: its exact pin (also in a folder of its own), or the
    newest release for a bare ``vllm``. Must not: a bare ``vllm`` in a requirements file no install names,
    or one only a commented line installs, states nothing (the release stays assumed)."""
    serve = CMD.replace("CMD [", 'CMD ["vllm", "serve", ')
    (tmp_path / "reqs").mkdir()
    (tmp_path / "reqs" / "serve.txt").write_text("torch\nvllm==0.8.5\n")
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\nRUN pip install -r reqs/serve.txt\n" + serve)
    assert "Target vLLM 0.8.5 (vllm==0.8.5 in reqs/serve.txt)" in target("Dockerfile")
    (tmp_path / "requirements.txt").write_text("torch\nvllm[audio]\n")
    (tmp_path / "Dockerfile").write_text(
        "FROM python:3.11\nCOPY requirements.txt /app/\nRUN pip install --no-cache-dir -r /app/requirements.txt\n"
        + serve
    )
    line = target("Dockerfile")
    assert "the newest release: vllm (no version, installed by pip install -r /app/requirements.txt)" in line
    assert "in requirements.txt:2" in line
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\n# RUN pip install -r requirements.txt\n" + serve)
    assert "the newest bundled release; pass --vllm-version" in target("Dockerfile")
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\n" + serve)
    assert "the newest bundled release; pass --vllm-version" in target("Dockerfile")
