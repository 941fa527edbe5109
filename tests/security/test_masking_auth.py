"""``Authorization`` headers and base64-wrapped tokens never appear in any output.

Only ``Bearer …`` was masked: ``Authorization: Basic dXNlcjpwYXNz`` (a password, base64 is no
encryption), ``token …``, ``Digest …`` and ``AUTHORIZATION: BEARER …`` were printed as written, and so
was a known token shape once base64-encoded. Each case writes one next to a mistake that makes vlint
quote that line, and runs vlint in every format (text, JSON, SARIF, GitHub, GitLab, ``-o``, the
baseline and ``fix --diff``); at most the first four characters may show.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from vlint.security.secrets import redact

from .leaks import leaked, outputs, write_tree

PASSWORD = "Tr0ub4dor-and-3-horses"
BASIC = base64.b64encode(f"ci-bot:{PASSWORD}".encode()).decode()
#: not shaped like any known token: only the header says it is a credential
OPAQUE = "q8ZlM2v0XwT4nB7yK1pR9sD3"
DIGEST_RESPONSE = "6629fae49393a05397450978507c4ef1"
DIGEST = f'username="ci-bot", realm="models", nonce="dcd98b7102dd2f0e", response="{DIGEST_RESPONSE}"'
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
HF_B64 = base64.b64encode(HF.encode()).decode()


def overrides(json_text: str) -> str:
    """A launch with a mistake on its line and ``json_text`` as a flag's JSON value."""
    return f"vllm serve m/x --max-model-lenn 1 --hf-overrides '{json_text}'\n"


#: case → (files, the secret as written, characters of it that may show)
CASES: dict[str, tuple[dict[str, str], str, int]] = {
    "shell-curl-basic": (
        {"serve.sh": f"curl -H 'Authorization: Basic {BASIC}' http://hub/ok && vllm serve m/x --max-model-lenn 1\n"},
        BASIC,
        4,
    ),
    "json-flag-basic": (
        {"serve.sh": overrides(f'{{"headers": {{"Authorization": "Basic {BASIC}"}}}}')},
        BASIC,
        4,
    ),
    "json-flag-token-scheme": (
        {"serve.sh": overrides(f'{{"headers": {{"authorization": "token {OPAQUE}"}}}}')},
        OPAQUE,
        4,
    ),
    "yaml-config-uppercase-bearer": (
        {"serve.yaml": f'model: m/x\nmax-num-seqs: 8\nhttp-headers: "AUTHORIZATION: BEARER {OPAQUE}"\n'},
        OPAQUE,
        4,
    ),
    "env-file-digest": (
        {
            "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            '    command: ["m/x"]\n    env_file: vllm.env\n',
            "vllm.env": f"VLLM_BOGUS_HEADERS=Authorization: Digest {DIGEST}\n",
        },
        DIGEST_RESPONSE,
        0,
    ),
    "compose-env-escaped-json": (
        {
            "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            '    command: ["m/x", "--max-model-lenn", "1", "--hf-overrides",\n'
            f'      "{{\\"Authorization\\": \\"Basic {BASIC}\\"}}"]\n'
        },
        BASIC,
        4,
    ),
    "value-quoted-in-a-message": (  # the invalid value is quoted in the message: every format
        {"serve.sh": f'vllm serve m/x --max-num-seqs "Authorization: Basic {BASIC}"\n'},
        BASIC,
        4,
    ),
    "base64-of-a-token": (
        {"serve.sh": f"HUB_CREDENTIAL_B64={HF_B64} vllm serve m/x --max-model-lenn 1\n"},
        HF_B64,
        4,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_authorization_credentials_never_leak(tmp_path: Path, case: str) -> None:
    files, secret, shown = CASES[case]
    repo = tmp_path / "repo"
    write_tree(repo, files)
    (repo / ".git").mkdir()
    out = outputs(repo, ["--gpu", "L4", "."])
    bad = leaked(out, secret, shown)
    assert bad == [], {k: v for k, v in out.items() if k in bad}
    assert leaked(out, PASSWORD) == [] and leaked(out, HF) == []
    assert any("VL" in text for text in out.values())  # something was reported: masking was exercised


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Basic {BASIC}",  # YAML, HTTP
        f'"authorization": "basic {BASIC}"',  # JSON, any case
        f'{{\\"Authorization\\": \\"Basic {BASIC}\\"}}',  # JSON inside a string
        f"-H 'Proxy-Authorization: Negotiate {OPAQUE}'",  # curl, any scheme
        f"AUTHORIZATION=token {OPAQUE}",  # env
        f"Authorization: Digest {DIGEST}",  # an auth-param list
        f"- name: Authorization\n  value: Basic {BASIC}",  # a header as name/value items
        f"token: {HF_B64}",  # base64 of a known token shape
        f"Authorization: Basic {base64.b64encode(f'u:{HF}'.encode()).decode()}",
    ],
)
def test_every_spelling_is_masked(text: str) -> None:
    for keep_width in (False, True):
        masked = redact(text, [], keep_width=keep_width)
        for secret in (BASIC, OPAQUE, DIGEST_RESPONSE, HF_B64, PASSWORD):
            assert secret[4:10] not in masked, masked
        if keep_width:
            assert len(masked) == len(text)


@pytest.mark.parametrize(
    "text",
    [
        "basic settings are fine",
        "Authorization: Basic ${HUB_CREDENTIALS}",
        "Authorization: Bearer",
        "meta-llama/Llama-3.1-8B-Instruct",
        "QWxhZGRpbjpvcGVuIHNlc2FtZSBhbmQgbW9yZQ==",  # base64, but of no token shape
    ],
)
def test_what_is_not_a_credential_is_left_alone(text: str) -> None:
    assert redact(text, []) == text
