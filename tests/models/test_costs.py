"""Costs: a cost is recorded only where LiteLLM knows the price of every model a seat may call, never a guessed $0;
and an unknown cost is never shown as $0: not in the log, the end-of-run summary, the live display, the report or the
judge's line, even when a free built-in player sat beside a model LiteLLM has no price for."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from harness.analysis.judge import JudgeOutcome
from harness.cli.main import main
from harness.models.client import ModelClient
from harness.run.live_progress import RunProgress
from harness.run.score_table import cost_line
from harness.schema.config import RetryPolicy
from harness.schema.log_file import read_game_log
from harness.schema.records import Attempt, Deployment, SeatConfig, total_cost
from tests.fakeserver import FakeModelServer, Reply, careful_player


def priced(model: str, *deployments: str) -> bool:
    seat = SeatConfig(
        model=model,
        scaffold="watson",
        deployments=tuple(Deployment(model=d, api_base="http://127.0.0.1:1/v1") for d in deployments),
    )
    return ModelClient(seat, RetryPolicy()).priced


def test_unpriced_models_record_no_cost_whatever_was_seen_before() -> None:
    assert priced("openai/gpt-4.1") and priced("local/smart")
    assert not priced("openai/my-finetune-7")
    # the harness listed openai/my-finetune-7 at zero above; that is no price for a longer name ending in it
    assert not priced("openrouter/openai/my-finetune-7")


def test_a_deployment_of_an_unpriced_model_makes_the_seat_unpriced() -> None:
    assert priced("openai/gpt-4.1", "openai/gpt-4.1")
    assert not priced("openai/gpt-4.1", "hosted_vllm/my-llama-3")


def answered(cost: float | None) -> Attempt:
    return Attempt(number=1, messages=[], reply="Chosen Move Number: 0", cost_usd=cost)


def test_a_cost_is_known_only_when_every_answered_attempt_has_one() -> None:
    failed = Attempt(number=1, messages=[], error_kind="rate_limited")  # no answer: adds nothing
    assert total_cost([answered(0.0), answered(0.25), failed]) == 0.25
    assert total_cost([answered(0.0), answered(None)]) is None  # a free bot beside an unpriced model
    assert total_cost([failed]) == 0.0  # nothing was answered: nothing to pay, and no price missing


def test_a_mixed_team_of_an_unpriced_model_and_a_bot_is_unpriced_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeModelServer(careful_player) as server:
        seats = ["--seat", f"openai/unpriced-x:watson,api_base={server.base_url}", "--seat", "local/smart:watson"]
        assert main(["run", *seats, "--seeds", "1,2", "--out", str(tmp_path / "runs"), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "unpriced (2 games of models LiteLLM has no price for)" in printed and "$0.0000" not in printed
    for path in tmp_path.glob("runs/*/games/*.jsonl"):
        contents = read_game_log(path)
        assert contents.result is not None and contents.result.cost_usd is None
        assert any(m.cost_usd is None for m in contents.moves)
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "report")]) == 0
    assert "Total cost: unpriced;" in capsys.readouterr().out
    total = json.loads((tmp_path / "report" / "spending.json").read_text())[-1]
    assert (total["priced_games"], total["unpriced_games"], total["cost_usd"]) == (0, 2, None)
    assert "**Total cost: unpriced**" in (tmp_path / "report" / "report.md").read_text()
    assert main(["view", str(tmp_path / "runs"), "--out", str(tmp_path / "site")]) == 0
    pages = [p.read_text() for p in (tmp_path / "site").rglob("*.html")]
    run_pages = [page for page in pages if '<th data-sort="number">cost</th>' in page]
    assert run_pages and all("unpriced" in page and "$0.0000" not in page for page in run_pages)


def test_an_all_unpriced_run_ends_with_unpriced_not_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeModelServer(careful_player) as server:
        argv = ["run", "--model", "openai/unpriced-y", "--api-base", server.base_url, "--seeds", "1,2"]
        assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "unpriced (2 games of models LiteLLM has no price for)" in printed and "$0.0000" not in printed


def test_a_priced_models_game_that_failed_at_its_first_call_cost_nothing_and_is_not_unpriced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gpt-4o-mini is in LiteLLM's price list; a key the server refuses stops its game before any answer, so the game
    cost a known $0: neither the summary nor the report may call it a game of a model with no price."""
    with FakeModelServer(lambda request: Reply(status=401)) as server:
        argv = ["run", "--model", "openai/gpt-4o-mini", "--api-base", server.base_url, "--seeds", "2"]
        assert main([*argv, "--out", str(tmp_path / "runs"), "--no-progress"]) == 1
    printed = capsys.readouterr().out
    assert "unpriced" not in printed and "$0.0000" in printed
    (path,) = list((tmp_path / "runs").glob("*/games/*.jsonl"))
    result = read_game_log(path).result
    assert result is not None and result.status == "interrupted" and result.cost_usd == 0.0
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "report")]) == 0
    rows = list(csv.DictReader((tmp_path / "report" / "spending.csv").open()))
    assert rows and all(row["pricing"] == "priced" and row["unpriced_games"] == "0" for row in rows)


def test_the_live_display_and_the_judge_line_say_unpriced() -> None:
    progress = RunProgress(total_games=2, enabled=False)
    progress.moves_done(3, 300, 0.0, unpriced=3)
    assert "cost unpriced" in progress.stats()
    progress.moves_done(1, 100, 0.5)
    assert "cost $0.5000 + unpriced" in progress.stats()
    assert "cost $" in RunProgress(total_games=1, enabled=False).stats()  # nothing played yet: $0 is known
    assert JudgeOutcome(unpriced_requests=2).cost_text().startswith("cost unpriced")
    assert JudgeOutcome(cost_usd=0.01).cost_text() == "$0.0100 as reported by the provider"


def test_the_cost_line_counts_one_game_in_the_singular() -> None:
    assert cost_line(None, 1) == "unpriced (1 game of models LiteLLM has no price for)"
    assert cost_line(0.5, 1) == "$0.5000 (without 1 game of models LiteLLM has no price for)"
    assert cost_line(0.5, 3) == "$0.5000 (without 3 games of models LiteLLM has no price for)"


def test_a_budget_counts_what_earlier_sessions_spent_on_a_model_unpriced_then(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answered: list[int] = []

    def stops_making_sense(request: dict[str, object]) -> Reply:
        answered.append(1)
        return careful_player(request) if len(answered) <= 12 else Reply(content="I cannot decide.")

    with FakeModelServer(stops_making_sense, model_name="my-model") as server:
        assert main(["run", "--model", "openai/my-model", "--api-base", server.base_url, "--seeds", "1",
                     "--max-tokens", "200", "--max-retries", "0", "--out", str(tmp_path), "--no-progress"]) == 1
        (run,) = tmp_path.iterdir()
        contents = read_game_log(next((run / "games").iterdir()))
        attempts = [a for m in contents.moves for c in m.calls for a in c.attempts]
        attempts += [a for c in contents.failed_calls for a in c.attempts]
        assert all(a.cost_usd is None for a in attempts)  # no price was known
        # at $1,000 per million tokens either way, what the first session spent is more than the budget given now
        spent = sum(a.usage.prompt_tokens + a.usage.completion_tokens for a in attempts) / 1000
        sent = len(server.exchanges)
        capsys.readouterr()
        budget = f"{spent / 2:.4f}"
        resumed = ["resume", str(run), "--price", "openai/my-model=1000,1000", "--max-cost", budget, "--no-progress"]
        assert main(resumed) == 3
        assert len(server.exchanges) == sent  # nothing more was sent
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"Stopped at the budget: ${spent:,.4f} spent of --max-cost {float(budget):g}"), line


def test_the_run_command_again_keeps_the_runs_budget_as_resume_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeModelServer(careful_player, model_name="gpt-4o-mini") as server:  # priced by LiteLLM's price list
        command = ["run", "--model", "openai/gpt-4o-mini", "--api-base", server.base_url, "--seeds", "1,2",
                   "--max-tokens", "200", "--out", str(tmp_path), "--no-progress"]  # fmt: skip
        assert main([*command, "--max-cost", "0.002"]) == 3
        (run,) = tmp_path.iterdir()
        capsys.readouterr()
        assert main([*command, "--dry-run"]) == 0  # what is left, against what was spent
        assert f"${spent(run):.4f} spent already; the run stops before it passes --max-cost 0.002" in (
            capsys.readouterr().out
        )
        assert main(command) == 3  # the same command without --max-cost: the budget the run recorded holds
        assert "of --max-cost 0.002" in capsys.readouterr().err
        assert spent(run) <= 0.002
        assert main([*command, "--max-cost", "1"]) == 0  # a new budget is given as resume takes one
    sessions = json.loads((run / "manifest.json").read_text())["sessions"]
    assert [s.get("max_cost_usd") for s in sessions] == [0.002, 0.002, 1]


def spent(run: Path) -> float:
    """What every attempt in the run's logs cost."""
    total = 0.0
    for path in (run / "games").iterdir():
        contents = read_game_log(path)
        calls = [c for m in contents.moves for c in m.calls] + contents.failed_calls
        total += sum(a.cost_usd or 0.0 for c in calls for a in c.attempts)
    return total


def test_a_dry_run_says_what_a_run_or_sweep_would_play_and_cost_and_does_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with FakeModelServer(careful_player, model_name="gpt-4o-mini") as server:
        argv = ["run", "--model", "openai/gpt-4o-mini", "--api-base", server.base_url, "--seeds", "1,2,3",
                "--out", str(out), "--max-cost", "1", "--dry-run"]  # fmt: skip
        assert main(argv) == 0
        said = capsys.readouterr().out
        assert server.exchanges == []
    assert not out.exists()  # nothing written
    assert "· 3 games · openai/gpt-4o-mini:watson" in said and "Expected model calls: about " in said
    assert "Expected cost: about $" in said and "stops before it passes --max-cost 1" in said
    assert "Dry run: nothing written, no model called." in said
    # a grid too large to start without --yes (and no terminal to ask at) is sized, not refused
    grid = tmp_path / "grid.toml"
    seeds = ",".join(map(str, range(1, 301)))
    grid.write_text(f'name = "grid"\nplayers = [2, 3, 4, 5]\nseeds = ["{seeds}"]\nscaffolds = ["watson", "sherlock"]\n'
                    '[[models]]\nmodel = "local/smart"\n')  # fmt: skip
    assert main(["run", "--config", str(grid), "--out", str(out), "--dry-run"]) == 0
    said = capsys.readouterr().out
    assert f"Sweep {out / 'grid'} · 2 runs · 2,400 games" in said and not out.exists()
    # a run name that holds another run is refused, as the run itself refuses it, before its options are read
    played = ["run", "--model", "local/smart", "--out", str(out), "--run-name", "mine", "--no-progress"]
    assert main([*played, "--seeds", "1"]) == 0
    capsys.readouterr()
    assert main([*played, "--seeds", "2", "--dry-run"]) == 2
    assert "holds a run of a different configuration" in capsys.readouterr().err


def test_a_sweep_run_again_keeps_its_budget_as_resume_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeModelServer(careful_player, model_name="gpt-4o-mini") as server:
        grid = tmp_path / "grid.toml"
        grid.write_text('name = "grid"\nplayers = [2, 3]\nseeds = ["1,2"]\nscaffolds = ["watson"]\n[[models]]\n'
                        f'model = "openai/gpt-4o-mini"\napi_base = "{server.base_url}"\nmax_tokens = 200\n')
        command = ["run", "--config", str(grid), "--out", str(tmp_path / "out"), "--no-progress"]
        assert main([*command, "--max-cost", "0.002"]) == 3
        capsys.readouterr()
        assert main(command) == 3  # the same command without --max-cost: the budget the sweep recorded holds
        assert "of --max-cost 0.002" in capsys.readouterr().err
        (run,) = (tmp_path / "out" / "grid").glob("openai-*")
        assert spent(run) <= 0.002


def test_a_budget_stop_beside_calls_in_flight_says_what_they_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeModelServer(careful_player, model_name="gpt-4o-mini") as server:
        assert main(["run", "--model", "openai/gpt-4o-mini", "--api-base", server.base_url, "--seeds", "1,2,3,4",
                     "--max-tokens", "300", "--max-cost", "0.003", "--concurrency", "4", "--out", str(tmp_path),
                     "--no-progress"]) == 3  # fmt: skip
    line = capsys.readouterr().err
    could, held = (float(line.split(marker)[1].split(" ")[0]) for marker in ("up to $", "beside $"))
    assert could > 0 and held > 0  # four games' calls at once: the one refused did not fit beside the others
    (run,) = tmp_path.iterdir()
    assert spent(run) <= 0.003


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_a_damaged_log_read_for_a_budgets_spend_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dry_run: list[str]
) -> None:
    command = ["run", "--model", "local/smart", "--seeds", "1", "--max-tokens", "100", "--out", str(tmp_path),
               "--no-progress"]  # fmt: skip
    assert main(command) == 0
    (log,) = tmp_path.glob("*/games/*.jsonl")
    lines = log.read_text().splitlines()
    log.write_text("\n".join([*lines[:2], '{"garbage": 1}', *lines[3:]]) + "\n")
    capsys.readouterr()
    assert main([*command, "--price", "local/smart=1,1", "--max-cost", "5", *dry_run]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{log}:3: not a valid log record" in err
