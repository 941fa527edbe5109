"""A secret never appears in any output, however the file writes it.

Each case writes a credential the way real configs do — split by shell quoting, joined by a line
continuation, folded in a YAML scalar, concatenated by Python, base64-encoded in a Kubernetes
Secret, inside a URL or a Bearer header, or reaching a flag through ``${VAR}`` — next to a mistake
that makes vlint quote that line. vlint runs in every format (and ``fix --diff``); at most the first
four characters of the secret may show.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from .leaks import invoke_in, leaked, outputs, write_tree

SECRET = "sk-proj-qz60abcdEFGH1234ijkl5678mnopQRST"
HEAD, TAIL = SECRET[:12], SECRET[12:]  # "sk-proj-qz60", "abcd…"

CASES = {
    "shell-quoting": {"serve.sh": f"vllm serve m/x --max-model 4096 --api-key \"{HEAD}\"'{TAIL}' --max-model-lenn 1\n"},
    "shell-continuation": {
        "serve.sh": f"vllm serve m/x --max-model 4096 --api-key {HEAD}\\\n{TAIL} --max-model-lenn 1\n"
    },
    "yaml-double-quoted-fold": {
        "serve.yaml": f'model: m/x\nmax-model-lenn: 1\napi-key: "{HEAD}\\\n  {TAIL}"\nmax-num-seqs: 8\n'
    },
    "yaml-plain-multiline": {"serve.yaml": f"model: m/x\nmax-model-lenn: 1\napi-key: {HEAD}\n  {TAIL}\n"},
    "python-implicit-concatenation": {
        "app.py": f'from openai import OpenAI\nfrom vllm import LLM\nclient = OpenAI(api_key="{HEAD}" "{TAIL}")\n'
        'llm = LLM(model="m/x", max_model_lenn=1)\n'
    },
    "k8s-secret-base64": {
        "k8s.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n"
        f"  key: {base64.b64encode(SECRET.encode()).decode()}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.10.2\n"
        f'          args: ["--model", "m/x", "--api-key", "{SECRET}", "--max-model-lenn", "1"]\n'
    },
    "url-credentials": {"serve.sh": f"HF_ENDPOINT=https://mirror:{SECRET}@hf.corp vllm serve m/x --max-model-lenn 1\n"},
    "bearer-header": {
        "serve.sh": "vllm serve m/x --max-model-lenn 1 --hf-overrides "
        f'\'{{"headers": {{"Authorization": "Bearer {SECRET}"}}}}\'\n'
    },
    "dotenv-interpolation": {
        "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
        '    command: ["m/x", "--max-num-seqs", "${aws_secret_access_key}"]\n',
        ".env": f"aws_secret_access_key={SECRET}\n",
    },
    "lowercase-env-file": {"vllm.env": f"hf_token={SECRET}\nVLLM_BOGUS_VAR=1\n"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_nothing_leaks(tmp_path: Path, case: str) -> None:
    repo = tmp_path / "repo"
    write_tree(repo, CASES[case])
    (repo / ".git").mkdir()
    out = outputs(repo, ["--gpu", "L4", "."])
    assert leaked(out, SECRET) == [], {k: v for k, v in out.items() if k in leaked(out, SECRET)}
    if case == "k8s-secret-base64":  # the encoded text is the secret as written
        assert leaked(out, base64.b64encode(SECRET.encode()).decode()) == []
    # something was reported (the masking was exercised on a quoted line)
    assert any("VL" in text for text in out.values())


def test_interpolated_secret_is_quoted_by_its_variable(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write_tree(repo, CASES["dotenv-interpolation"])
    (repo / ".git").mkdir()
    r = invoke_in(repo, "check", "--isolated", "--format", "json", ".")
    messages = [f["message"] for f in json.loads(r.output)["findings"] if f["code"] == "VL004"]
    assert messages and all("${aws_secret_access_key}" in m for m in messages), messages


def test_fix_diff_masks_the_edited_line(tmp_path: Path) -> None:
    """The abbreviation fix rewrites the very line that holds the split secret."""
    repo = tmp_path / "repo"
    write_tree(repo, CASES["shell-quoting"])
    (repo / ".git").mkdir()
    r = invoke_in(repo, "fix", "--isolated", "--diff", "serve.sh")
    assert "+vllm serve m/x --max-model-len 4096" in r.output
    assert leaked({"diff": r.output}, SECRET) == []
