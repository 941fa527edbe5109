"""Security (VL5xx): remote code, secrets written in files."""

from __future__ import annotations

import re
from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.checks.changes import remove_setting
from vlint.core.finding import Fix
from vlint.launch.credentials import find_secrets


@check("security.trust_remote_code")
def trust_remote_code(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("trust_remote_code")
    if s is None or s.value is not True:
        return
    revision = dep.user_value("code_revision") or dep.user_value("revision")
    pinned = isinstance(revision, str) and bool(re.fullmatch(r"[0-9a-f]{40}", revision))
    yield Hit(
        s.full_span,
        {
            "model": dep.model or "not resolved",
            "pinned": pinned,
            "pin": "pinned to a commit" if pinned else "not pinned to a commit (--revision)",
        },
        fix=Fix(
            "remove --trust-remote-code unless the model needs its own code; if it does, pin "
            "--revision to a reviewed commit",
            unsafe=True,
            changes=remove_setting(dep, "trust_remote_code"),
        ),
    )


@check("security.plaintext_secret")
def plaintext_secret(ctx: CheckContext) -> Iterator[Hit]:
    file = ctx.file
    assert file is not None
    for s in find_secrets(file):
        yield Hit(
            s.span,
            {"name": s.name, "masked": s.masked, "where": s.where},
            fix=Fix(
                f"read {s.name} from a secret store or the environment at run time "
                "(a Kubernetes Secret, an --env-file outside the repository, CI secrets)"
            ),
        )
