"""Shared fixtures: a fixed deck, both clients, an isolated environment without provider keys (the shared plain
helpers are in helpers.py)."""

from __future__ import annotations

import os
import signal
import sys

import pytest

# The suite starts some hundred Python processes that import the same modules: they share Python's bytecode caches
# (__pycache__, ignored by git) even where the environment turns the caches off, instead of each compiling them again.
# Set before anything of the harness is imported (this module imports it only in fixtures).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


# The files that take longest, longest first, handed out before all others: with `--dist loadfile` a long file
# started last keeps one worker busy while the other waits. (pyproject.toml turns off xdist's own order, by number of
# tests, which started these last.) The rest keep their order. Times from `pytest --durations=0`, summed per file.
LONG_FILES = [
    "tests/inspect/test_inspect.py",
    "tests/run/test_resume.py",
    "tests/run/test_interrupt.py",
    "tests/report/test_paper_tables.py",
    "tests/rl/test_rl.py",
    "tests/report/test_out_folder.py",
    "tests/web/test_table_browser.py",
    "tests/report/test_odd_teams.py",
    "tests/analysis/test_values.py",
    "tests/report/test_figures.py",
    "tests/session/test_mixed_teams.py",
]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """For `-n auto`: one worker more than the cores this process may use. A share of many tests is spent waiting on
    the commands and servers they start, time a third worker fills on two cores (a full run: 245 s against 256 s)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


# Files whose tests start LiteLLM's native runtime in the test process (a Router's calls): a process that has it
# spawns run workers, each importing everything anew, instead of forking them. They run last.
LAST_FILES = [
    "tests/session/test_sweeps.py",
    "tests/session/test_options_reach_the_games.py",
    "tests/run/test_workers.py",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long files first and LAST_FILES last (the same order in every worker: xdist checks that they collected
    alike)."""
    rank = {path: place for place, path in enumerate(LONG_FILES)}
    rank.update({path: len(LONG_FILES) + 1 + place for place, path in enumerate(LAST_FILES)})
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(LONG_FILES)))


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the commands the tests start, as at a terminal, even when pytest itself was started in the
    background of a shell without job control (which starts it with SIGINT ignored, a setting children inherit)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "XAI_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture(params=["litellm", "openai"])
def client(request: pytest.FixtureRequest) -> list[str]:
    """The run options that pick a client: LiteLLM (the default), or the direct OpenAI-compatible client. Tests of
    what a client does with a server's replies and errors take this, so that both clients must pass them."""
    return [] if request.param == "litellm" else ["--client", "openai"]


@pytest.fixture
def deck() -> list[str]:
    from harness.engine.game import deck_for_seed

    return deck_for_seed(1)
