"""Example budgets of the property and fuzz tests (hypothesis profiles).

* ``ci`` (the default): a fixed, small budget per test and no per-example deadline (a busy machine
  makes an example slow, not wrong); the fuzz tests also draw the same examples on every run;
* ``long``: the long budget, for a fuzzing session: ``python -m pytest --hypothesis-profile=long``,
  ``VLINT_HYPOTHESIS_PROFILE=long``, or ``python bench/fuzz.py --hypothesis``.

A test states both budgets with :func:`examples` (``@settings(max_examples=examples(ci=30, long=300))``);
one without a ``max_examples`` of its own gets the profile's.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE_ENV = "VLINT_HYPOTHESIS_PROFILE"
#: max_examples of a test that states none (hypothesis's own default)
CI_EXAMPLES = 100
LONG_EXAMPLES = 1000


def register() -> None:
    """Register ``ci`` and ``long`` and load ``$VLINT_HYPOTHESIS_PROFILE`` (``ci`` when unset);
    pytest's ``--hypothesis-profile=NAME`` loads another one after this."""
    settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None)
    settings.register_profile("long", max_examples=LONG_EXAMPLES, deadline=None)
    settings.load_profile(os.environ.get(PROFILE_ENV) or "ci")


def long_profile() -> bool:
    """Whether the loaded profile is the long one (or another with at least its budget)."""
    return settings.default.max_examples >= LONG_EXAMPLES


def examples(*, ci: int, long: int) -> int:
    """A test's example budget under the loaded profile."""
    return long if long_profile() else ci
