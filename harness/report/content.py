"""Assembles everything the report shows from a loaded Dataset into ReportContent, which the templates and the
CSV/JSON export read."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from harness import __version__
from harness.report import plots
from harness.report.bestofk import KPoint, best_of_k
from harness.report.calibration import DecisionCalibration, GroupCalibration, calibration
from harness.report.costs import Spending, spending
from harness.report.crossplay import CrossPlay, crossplay
from harness.report.judge import JudgeSummary, judge_by_turn, judge_summaries
from harness.report.load import Dataset
from harness.report.paired import PairedSection, compare_groups
from harness.report.quality import GameQuality, QualitySummary, summarize
from harness.report.references import CompactReference, JudgeReference, baselines, compact
from harness.report.reliability import GroupReliability, error_kinds, reliability
from harness.report.rows import GameRow, RunInfo, SkippedLog
from harness.report.stats import BOOTSTRAP, BootstrapSettings
from harness.report.summary import (
    GroupSummary,
    HeatCell,
    PlayersSummary,
    group_summaries,
    heat_cells,
    players_summaries,
)
from harness.report.tracking import (
    TURN_BIN,
    TrackingByTurn,
    TrackingSummary,
    tracking_by_turn,
    tracking_summaries,
)
from harness.report.wide import WideTable, wide_table
from harness.schema.records import REJECTED_TEXT_KEPT_CHARS


class Plots(BaseModel):
    model_config = ConfigDict(frozen=True)

    scores_fireworks: str | None
    scores_engine: str | None
    heatmap: str | None
    distributions: str | None
    tracking: str | None
    cost: str | None
    best_of_k: str | None
    crossplay: str | None


class ReportContent(BaseModel):
    model_config = ConfigDict(frozen=True)

    version: str
    by: list[str]
    runs: list[RunInfo]
    games: list[GameRow]
    complete_games: int
    not_complete: list[GameRow]
    not_started: int  # planned games of the runs that have no log yet (a run or sweep stopped before them)
    skipped: list[SkippedLog]  # logs that could not be read, named and left out
    wide: list[WideTable]  # the main result: fireworks at the end, then 0 after three strikes
    spending: Spending
    reliability: list[GroupReliability]
    error_kinds: list[str]
    rejected_kept_chars: int = REJECTED_TEXT_KEPT_CHARS  # a longer rejected reply is logged as its start only
    crossplay: CrossPlay | None
    best_of_k: list[KPoint]
    judge: list[JudgeSummary]
    judge_references: list[JudgeReference]
    groups: list[GroupSummary]
    by_players: list[PlayersSummary]
    heat: list[HeatCell]
    paired: PairedSection
    quality: list[QualitySummary]
    quality_games: list[GameQuality]
    calibration: list[GroupCalibration]  # every group and player count; valued_games 0 where no values
    calibration_decisions: list[DecisionCalibration]
    tracking: list[TrackingSummary]
    tracking_turns: list[TrackingByTurn]
    turn_bin: int
    references: list[CompactReference]
    bootstrap: BootstrapSettings
    plots: Plots


def _quality(dataset: Dataset) -> list[QualitySummary]:
    """Per group: its judged moves and how many games they came from."""
    group_of = {(row.run_id, row.game_id): row.group for row in dataset.rows}
    games = Counter(group_of[(game.run_id, game.game_id)] for game in dataset.quality_games)
    return [summarize(group, games[group], dataset.quality[group]) for group in sorted(games)]


def build_content(dataset: Dataset, by: list[str]) -> ReportContent:
    rows = dataset.rows
    groups = group_summaries(rows, dataset.latencies)
    by_players = players_summaries(rows)
    heat = heat_cells(rows)
    tracking_turns = tracking_by_turn(dataset.tracked, judge_by_turn(dataset.judged, TURN_BIN))
    colors = plots.colors_for([g.group for g in groups])
    counts = {s.players for s in by_players}
    references = baselines().reference
    drawn = {
        ref
        for ref in references
        if any(ref.applies_to(c, p) for c in ("fireworks", "zero_on_strikeout") for p in counts)
    }
    spent = spending(rows)
    cross = crossplay(rows)
    curve = best_of_k(rows)
    judged = judge_summaries(dataset.judged)
    return ReportContent(
        version=__version__,
        by=by,
        runs=dataset.runs,
        games=rows,
        complete_games=sum(r.status == "complete" for r in rows),
        not_complete=[r for r in rows if r.status != "complete"],
        not_started=sum(
            max(0, run.games_planned - run.games_logged) for run in dataset.runs if run.games_planned is not None
        ),
        skipped=dataset.skipped,
        wide=[wide_table(rows, by, "fireworks"), wide_table(rows, by, "engine")],
        spending=spent,
        reliability=reliability(rows),
        error_kinds=error_kinds(rows),
        crossplay=cross,
        best_of_k=curve,
        judge=judged,
        judge_references=baselines().judge_reference if judged else [],
        groups=groups,
        by_players=by_players,
        heat=heat,
        paired=compare_groups(rows),
        quality=_quality(dataset),
        quality_games=dataset.quality_games,
        calibration=calibration(rows, dataset.valued, dataset.decisions),
        calibration_decisions=dataset.decisions,
        tracking=tracking_summaries(dataset.tracked),
        tracking_turns=tracking_turns,
        turn_bin=TURN_BIN,
        references=compact(references, drawn),
        bootstrap=BOOTSTRAP,
        plots=Plots(
            scores_fireworks=plots.scores_by_players(by_players, "fireworks", references, colors),
            scores_engine=plots.scores_by_players(by_players, "zero_on_strikeout", references, colors),
            heatmap=plots.scaffold_model_heatmap(heat),
            distributions=plots.score_distributions(rows, colors),
            tracking=plots.tracking_over_turns(tracking_turns),
            cost=plots.score_against_cost(spent.groups, colors),
            best_of_k=plots.best_of_k_curve(curve),
            crossplay=plots.crossplay_matrix(cross),
        ),
    )
