"""Shared fixtures: a fixed deck, both clients, an isolated environment without provider keys (the shared plain
helpers are in helpers.py)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from harness.engine.game import deck_for_seed


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the commands the tests start, as at a terminal, even when pytest itself was started in the
    background of a shell without job control (which starts it with SIGINT ignored, a setting children inherit)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The files that take longest (real processes, browsers, slow scripted servers), handed out first: pytest-xdist hands
# whole files to its workers in this order, and a long file handed out last keeps one core busy after the other has
# finished.
LONGEST_FIRST = (
    "run/test_resume.py",
    "run/test_interrupt.py",
    "inspect/test_inspect.py",
    "web/test_table_browser.py",
    "web/test_viewer_browser.py",
    "report/test_paper_tables.py",
    "analysis/test_judge.py",
    "session/test_mixed_teams.py",
    "replies/test_misbehaving_servers.py",
    "run/test_workers.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent

    def rank(item: pytest.Item) -> int:
        path = item.path.relative_to(here).as_posix() if item.path.is_relative_to(here) else ""
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # a stable sort: every other file keeps its place


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
    return deck_for_seed(1)
