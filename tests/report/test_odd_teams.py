"""`report` copes with any mix of teams, player counts and empty cells: three different players at one table, 2-2
splits, several player counts, a best-of-k seat, Mycroft, and a model whose every game stopped. Each plot that has
something to draw is a PNG; one that has nothing to draw is left out, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main
from harness.report import plots
from harness.report.bestofk import KPoint
from harness.report.stats import Interval, ScoreStats
from harness.report.summary import PlayersSummary
from tests.fakeserver import FakeModelServer, Reply

PNG = b"\x89PNG\r\n\x1a\n"


def run(out: Path, *args: str) -> None:
    assert main(["run", *args, "--out", str(out), "--no-progress"]) in (0, 1)


@pytest.fixture(scope="module")
def odd_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("odd") / "runs"
    smart, cautious = "local/smart:watson", "local/cautious:watson"
    three = ["--seat", smart, "--seat", cautious, "--seat", "local/smart:sherlock"]  # three different players
    run(out, *three, "--seeds", "1", "--run-name", "three")
    run(out, "--seat", smart, "--seat", smart, "--seat", cautious, "--seat", cautious, "--seeds", "1")  # 2-2
    run(out, "--seat", smart, "--seat", cautious, "--seat", cautious, "--seeds", "1")  # one A, the rest B
    run(out, "--model", "local/smart", "--seeds", "1")
    for k in ("2", "3"):
        run(out, "--model", "local/smart", "--scaffold", "best-of-k-watson", "--k", k, "--seeds", "1",
            "--run-name", f"k{k}")
    run(out, "--model", "local/cautious", "--scaffold", "mycroft", "--players", "3", "--seeds", "1")
    with FakeModelServer(lambda request: Reply(content="no idea")) as server:  # every game of it stops
        broken = ["--max-retries", "0", "--seeds", "1"]
        run(out, "--model", "openai/broken", "--api-base", server.base_url, "--players", "2", "4", *broken)
        run(out, "--seat", f"openai/broken:watson,api_base={server.base_url}", "--seat", smart, *broken)
    return out


def test_a_team_of_three_different_players_is_reported_without_a_cross_play_matrix(
    odd_runs: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report"
    assert main(["report", str(odd_runs / "three"), "--out", str(report)]) == 0
    markdown = (report / "report.md").read_text()
    assert "1 complete mixed game, none with the paper's cross-play line-up" in markdown
    assert not (report / "crossplay.csv").exists() and not (report / "figures" / "crossplay.png").exists()
    assert not (report / "figures" / "heatmap.png").exists()  # one team, one scaffold pair: one cell compares nothing
    assert (report / "figures" / "scores_fireworks.png").read_bytes().startswith(PNG)


def test_two_sample_counts_of_one_best_of_k_scaffold_are_two_rows_not_repeats_of_one(
    odd_runs: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report"
    assert main(["report", str(odd_runs / "k2"), str(odd_runs / "k3"), "--out", str(report)]) == 0
    markdown = (report / "report.md").read_text()
    for k in (2, 3):
        assert f"| local/smart · best-of-k-watson,k={k} |" in markdown
    assert "local/smart · best-of-k-watson |" not in markdown


@pytest.mark.parametrize("by", [["model", "scaffold"], ["seats", "players", "run"]])
def test_every_plot_copes_with_a_mix_of_teams_counts_and_empty_cells(
    odd_runs: Path, tmp_path: Path, by: list[str]
) -> None:
    report = tmp_path / "report"
    assert main(["report", str(odd_runs), "--out", str(report), "--by", *by]) == 0
    drawn = {path.stem for path in (report / "figures").glob("*.png")}
    expected = {"scores_fireworks", "scores_engine", "heatmap", "distributions", "crossplay", "tracking", "best_of_k"}
    assert expected <= drawn
    assert all(path.read_bytes().startswith(PNG) for path in (report / "figures").glob("*.png"))


def test_an_interval_that_misses_its_mean_still_draws() -> None:
    """A percentile bootstrap interval need not hold the sample mean; the error bar is then one-sided."""
    off = ScoreStats(n=3, mean=10.0, se=1.0, mean_ci=Interval(low=10.5, high=12.0))
    summary = PlayersSummary(
        group="g", players=2, games=3, fireworks=off, engine=off, perfect_share=0.0, struck_out_share=0.0
    )
    assert plots.scores_by_players([summary], "fireworks", [], {"g": "#000000"}) is not None
    point = KPoint(curve="c", k=1, scaffolds=["watson"], players=[2], games=3, mean=10.0, se=1.0, ci=off.mean_ci)
    assert plots.best_of_k_curve([point]) is not None
