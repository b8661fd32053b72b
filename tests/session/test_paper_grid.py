"""The paper's model grid as a sweep file: its models, their reasoning settings, and what one command would call.

Nothing here calls a hosted model: the sweep is loaded and checked, and the calls it would make are listed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.bots import bot_names
from harness.cli.main import main
from harness.models.client import FatalModelError, ModelClient, check_model
from harness.run.runner import expected_calls
from harness.run.store import RunDir
from harness.schema.config import RetryPolicy
from harness.schema.records import GenerationParams, Message, SeatConfig
from harness.session.sweep import load_sweep
from tests.fakeserver import FakeModelServer, Reply
from tests.helpers import ROOT

GRID = ROOT / "sweeps" / "paper-main-grid.toml"

# Appendix B.1's 17 models; B.2: effort "high" where a model takes one, 20k reasoning tokens for Gemini 2.5.
EXPECTED = {
    "openai/o3": ("high", None),
    "openai/o4-mini": ("high", None),
    "openai/gpt-4o": (None, None),
    "openai/gpt-4.1": (None, None),
    "openai/gpt-4.1-mini": (None, None),
    "gemini/gemini-2.5-pro": (None, 20000),
    "gemini/gemini-2.5-flash": (None, 20000),
    "gemini/gemini-2.0-flash": (None, None),
    "deepseek/deepseek-reasoner": (None, None),
    "deepseek/deepseek-chat": (None, None),
    "xai/grok-3": (None, None),
    "xai/grok-3-mini": ("high", None),
    "hosted_vllm/Qwen/Qwen3-32B": (None, None),
    "together_ai/Qwen/Qwen3-235B-A22B-fp8-tput": (None, None),
    "together_ai/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8": (None, None),
    "mistral/mistral-medium-2505": (None, None),
    "anthropic/claude-3-7-sonnet-20250219": (None, None),
}
KEYS = (
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "XAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "ANTHROPIC_API_KEY",
    "MISTRAL_API_KEY",
    "TOGETHERAI_API_KEY",
)


def test_the_grid_holds_every_model_with_the_papers_reasoning_settings() -> None:
    sweep = load_sweep(GRID)
    settings = {m.model: (m.reasoning_effort, m.thinking_budget) for m in sweep.models}
    assert settings == EXPECTED
    assert all(m.temperature is None for m in sweep.models)  # the providers' default temperature
    runs = sweep.runs()
    assert len(runs) == 34 and {run.seats[0].scaffold for run in runs} == {"watson", "sherlock"}
    assert all(run.players == (2, 3, 4, 5) and len(run.seeds) == 10 for run in runs)
    assert sum(len(run.plans()) for run in runs) == 1360
    gemini = next(run.seats[0] for run in runs if run.seats[0].model == "gemini/gemini-2.5-pro")
    assert gemini.params.thinking_budget == 20000


def test_with_keys_set_every_seat_validates_and_the_calls_are_listed_without_calling(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for key in KEYS:
        monkeypatch.setenv(key, "test-key")
    runs = load_sweep(GRID).runs()
    for run in runs:
        for seat in run.seats:
            check_model(seat, bot_names())  # raises on an unknown provider, a malformed string or a missing key
    games, calls = expected_calls([(run, RunDir(tmp_path / run.default_name())) for run in runs])
    assert games == 1360
    assert calls > 1360 * 50  # every game makes one call per move


def test_without_keys_the_grid_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--config", str(GRID), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "_API_KEY" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_the_qwen3_4b_sweep_keeps_to_seeds_disjoint_from_the_grid() -> None:
    grid = {s.seed for s in load_sweep(GRID).runs()[0].seeds}
    (qwen, *_) = load_sweep(ROOT / "sweeps" / "paper-qwen3-4b.toml").runs()
    assert grid.isdisjoint({s.seed for s in qwen.seeds})


def test_a_thinking_budget_reaches_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with FakeModelServer(lambda request: Reply(content="ok")) as server:
        seat = SeatConfig(
            model="gemini/gemini-2.5-pro",
            scaffold="watson",
            api_base=server.base_url,
            params=GenerationParams(thinking_budget=20000),
        )
        client = ModelClient(seat, RetryPolicy(provider_retries=0))
        with pytest.raises(FatalModelError):  # the scripted server answers in OpenAI's format, not Gemini's
            asyncio.run(client.call([Message(role="user", content="hello")], {}, 1))
    (exchange,) = server.exchanges
    assert exchange.request["generationConfig"]["thinkingConfig"]["thinkingBudget"] == 20000


def test_a_thinking_budget_below_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--thinking-budget", "0", "--out", str(tmp_path / "o")]) == 2
    assert "--thinking-budget 0 must be" in capsys.readouterr().err


def test_the_mycroft_and_state_tracking_sweeps_play_the_papers_settings() -> None:
    mycroft = load_sweep(ROOT / "sweeps" / "paper-mycroft.toml").runs()
    selfplay = [r for r in mycroft if not r.mixed]
    assert {r.seats[0].model for r in selfplay} == {
        "openai/o3",
        "openai/o4-mini",
        "xai/grok-3-mini",
        "gemini/gemini-2.5-pro",
    }
    assert all(r.seats[0].scaffold == "mycroft" and r.players == (2, 3, 4, 5) for r in selfplay)
    crossplay = [r for r in mycroft if r.mixed]
    assert [r.players for r in crossplay] == [(2,), (3,), (4,), (5,)]
    assert all([s.model for s in r.seats].count("xai/grok-3-mini") == 1 for r in crossplay)
    tracking = load_sweep(ROOT / "sweeps" / "paper-state-tracking.toml").runs()
    assert {r.seats[0].model for r in tracking} == {"openai/o4-mini", "xai/grok-3-mini"}
    assert all(r.players == (5,) and [s.seed for s in r.seeds] == [2, 3, 5, 7, 11] for r in tracking)
    assert all(r.seats[0].params.reasoning_effort == "high" for r in tracking)
