"""No noise that hides what matters: the test run prints no third-party warnings we have judged harmless, and the RL
environment prints nothing of LiteLLM's on stderr."""

from __future__ import annotations

import builtins
import subprocess
import sys
import tomllib
import warnings

from pydantic import TypeAdapter
from typing_extensions import ReadOnly, TypedDict

from tests.helpers import ROOT


class OneReadOnly(TypedDict):
    a: ReadOnly[int]


class TwoReadOnly(TypedDict):
    a: ReadOnly[int]
    b: ReadOnly[str]


def test_the_suite_filters_pydantic_readonly_warnings_in_singular_and_plural() -> None:
    """LiteLLM's TypedDicts make pydantic warn "Item 'x' ... is using" and "Items 'x', 'y' ... are using"; the filter
    in pyproject.toml must silence both, or every test run prints them."""
    filters = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["filterwarnings"]
    with warnings.catch_warnings(record=True) as unfiltered:
        warnings.simplefilter("always")
        TypeAdapter(OneReadOnly)
        TypeAdapter(TwoReadOnly)
    assert len(unfiltered) == 2  # both forms of the message are real
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for spec in filters:
            action, message, category = spec.split(":")[:3]
            warnings.filterwarnings(action, message, getattr(builtins, category))  # type: ignore[arg-type]
        TypeAdapter(OneReadOnly)
        TypeAdapter(TwoReadOnly)
    assert [str(w.message) for w in caught] == []


def test_the_rl_environment_prints_nothing_of_litellms() -> None:
    script = (
        "from harness.rl.gym_env import HanabiSeatEnv\n"
        "env = HanabiSeatEnv(scaffold='watson', players=2, seat=0, seeds='1')\n"
        "env.reset(seed=0)\n"
        "print(env.step('Chosen Move Number: 0')[1])\n"
        "env.close()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
