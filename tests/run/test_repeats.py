"""Repeats and named seed sets: a seed played N times is N games of one deal, logged, resumed and paired as such."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.engine.game import deck_for_seed
from harness.engine.seeds import resolve_seeds
from harness.report.load import load
from harness.report.paired import compare_groups
from harness.report.wide import wide_table
from harness.run.store import find_runs
from harness.schema.config import RunConfig
from harness.schema.log_file import read_game_log
from harness.schema.records import SeatConfig
from harness.session.sweep import load_sweep
from tests.fakeserver import FakeModelServer, Reply, answer_in_format, legal_moves_in


def varying_player() -> Any:
    """Legal moves chosen by a running counter, so that two plays of one deal differ."""
    counter = itertools.count()

    def script(request: dict[str, Any]) -> Reply:
        moves = [i for i, _ in legal_moves_in(request)]
        choice = moves[next(counter) * 7 % len(moves)]
        ratings = {i: (0.5 if i == choice else 0.0) for i in moves}
        return Reply(content=answer_in_format(request, choice, ratings, "counter move"))

    return script


def run_dirs(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.is_dir())


def test_repeats_play_each_seed_again_with_its_own_game_id_and_header(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["run", "--seeds", "1,2", "--repeats", "3", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    (run,) = run_dirs(out)
    logs = {p.stem: read_game_log(p) for p in (run / "games").glob("*.jsonl")}
    assert sorted(logs) == sorted(
        f"2p-custom-seed{s}{suffix}" for s in (1, 2) for suffix in ("", "-play1", "-play2")
    )
    for seed in (1, 2):
        plays = [logs[f"2p-custom-seed{seed}{suffix}"] for suffix in ("", "-play1", "-play2")]
        assert [g.header.repeat for g in plays] == [0, 1, 2]
        assert all(g.header.deck == deck_for_seed(seed) and g.complete for g in plays)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["repeats"] == 3
    assert sorted(g["repeat"] for g in manifest["games"]) == [0, 0, 1, 1, 2, 2]
    assert len(manifest["seeds"]) == 2  # the deals, each once


def test_a_rerun_plays_only_the_missing_repeat(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["run", "--seeds", "4", "--repeats", "2", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    (run,) = run_dirs(out)
    first = (run / "games" / "2p-custom-seed4.jsonl").read_bytes()
    (run / "games" / "2p-custom-seed4-play1.jsonl").unlink()
    assert main(argv) == 0
    assert (run / "games" / "2p-custom-seed4.jsonl").read_bytes() == first
    assert read_game_log(run / "games" / "2p-custom-seed4-play1.jsonl").header.repeat == 1
    assert main(["resume", str(run), "--no-progress"]) == 0
    assert run_dirs(out) == [run]


@pytest.mark.parametrize("value", ["0", "-2"])
def test_repeats_below_one_are_refused_before_any_call(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeModelServer(varying_player()) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--out", str(tmp_path / "o")]
        assert main([*argv, "--repeats", value]) == 2
        assert server.exchanges == []
    err = capsys.readouterr().err
    assert f"--repeats {value} must be 1 or more" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_a_listed_seed_twice_points_at_repeats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--seeds", "3,3,3", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--repeats N" in err and len(err.strip().splitlines()) == 1


def test_one_play_per_seed_keeps_the_identity_runs_had_before_repeats() -> None:
    seeds = tuple(resolve_seeds("1,2"))
    once = RunConfig(seats=(SeatConfig(model="local/smart", scaffold="watson"),), players=(2,), seeds=seeds)
    assert "repeats" not in once.identity()
    assert "thinking_budget" not in once.identity()["seats"][0]["params"]
    assert "k" not in once.identity()["seats"][0]
    thrice = once.model_copy(update={"repeats": 3})
    assert thrice.digest() != once.digest()
    assert [p.game_id for p in once.plans()] == ["2p-custom-seed1", "2p-custom-seed2"]


def test_mixed_team_repeats_keep_the_seating_suffix_and_add_their_own() -> None:
    seats = (
        SeatConfig(model="local/smart", scaffold="watson"),
        SeatConfig(model="local/cautious", scaffold="watson"),
    )
    config = RunConfig(seats=seats, players=(2,), seeds=tuple(resolve_seeds("5")), repeats=2)
    ids = [p.game_id for p in config.plans()]
    assert ids == ["2p-custom-seed5-r0", "2p-custom-seed5-r0-play1"]
    assert len(set(ids)) == len(ids)


def test_paired_statistics_take_the_mean_over_repeats_of_a_deal(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeModelServer(varying_player()) as server:
        base = [
            "run", "--model", "openai/m", "--api-base", server.base_url, "--seeds", "1,2", "--out", str(out),
        ]
        assert main([*base, "--repeats", "3", "--no-progress"]) == 0
    assert main(["run", "--model", "local/smart", "--seeds", "1,2", "--out", str(out), "--no-progress"]) == 0
    dataset = load(find_runs([out]), by=["model"])
    rows = dataset.rows
    assert len(rows) == 8
    (comparison,) = compare_groups(rows).comparisons
    assert comparison.fireworks.pairs == 2  # two deals, not six games
    assert comparison.repeated_deals == 2
    repeated = [r for r in rows if r.model == "openai/m"]
    smart = {r.seed: r.fireworks_score for r in rows if r.model == "local/smart"}
    means = {s: sum(r.fireworks_score for r in repeated if r.seed == s) / 3 for s in (1, 2)}
    a_minus_b = comparison.a == "openai/m"
    expected = sum((means[s] - smart[s]) if a_minus_b else (smart[s] - means[s]) for s in (1, 2)) / 2
    assert comparison.fireworks.mean_difference == pytest.approx(expected)
    report = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report)]) == 0
    assert (report / "report.md").exists()
    # the main table counts six games but takes its standard error over the two deals' means
    wide = wide_table(dataset.rows, ["model"], "fireworks")
    (row,) = [r for r in wide.rows if r.row == "openai/m"]
    deal_means = sorted(means.values())
    assert row.games == 6 and row.mean == pytest.approx(sum(deal_means) / 2)
    assert row.se == pytest.approx(abs(deal_means[1] - deal_means[0]) / 2)


def test_named_seed_sets_of_the_paper() -> None:
    env = resolve_seeds("paper-env")
    assert [s.seed for s in env] == list(range(10))
    assert all(list(s.deck) == deck_for_seed(s.seed) for s in env)
    assert [s.seed for s in resolve_seeds("state-tracking")] == [2, 3, 5, 7, 11]
    assert [s.seed for s in resolve_seeds("watson-5p-targets")] == [4, 6, 8, 10, 12]
    standard = {s.seed: s.deck for s in resolve_seeds("standard")}
    assert all(standard[s.seed] == s.deck for s in resolve_seeds("state-tracking") if s.seed in standard)


def test_a_sweep_plays_its_repeats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.toml"
    text = 'name = "s"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\nrepeats = {}\n'
    text += '[[models]]\nmodel = "local/smart"\n'
    path.write_text(text.format(2))
    (run,) = load_sweep(path).runs()
    assert [p.game_id for p in run.plans()] == ["2p-custom-seed1", "2p-custom-seed1-play1"]
    path.write_text(text.format(0))
    assert main(["run", "--config", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "repeats" in capsys.readouterr().err
    assert main(["run", "--config", str(path), "--repeats", "2", "--out", str(tmp_path / "o")]) == 2
    assert "drop --repeats" in capsys.readouterr().err
