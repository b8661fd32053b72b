"""Shared fixtures: fixed decks, random game states, an isolated environment without provider keys."""

from __future__ import annotations

import random
import signal

import pytest

from harness.engine.game import Game, deck_for_seed
from harness.schema.moves import MoveKind


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
    return deck_for_seed(1)


def random_game(players: int, seed: int, moves: int) -> Game:
    """A game after up to `moves` random legal moves, mostly hints and discards so that it lasts."""
    rng = random.Random(seed)
    game = Game(players, deck_for_seed(seed))
    for _ in range(moves):
        if game.is_over:
            break
        legal = game.legal_moves()
        quiet = [m for m in legal if m.kind is not MoveKind.PLAY]
        game.apply(rng.choice(quiet if quiet and rng.random() < 0.85 else legal))
    return game
