"""No noise that hides what matters: the test run prints no third-party warnings we have judged harmless (that the RL
environment prints nothing of LiteLLM's is checked with its offline probe, tests/rl/test_rl.py)."""

from __future__ import annotations

import builtins
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
