"""Reads run directories into what the report shows: the runs, one row per game, and what each complete game's
moves give (latencies, state tracking, play quality per group, calibration), derived as each log is read and
its moves let go.

A game log that cannot be read, or a values or judge file that is damaged or does not match its game, is named
in `Dataset.skipped` and left out; the rest is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from harness.report.calibration import DecisionCalibration, decision
from harness.report.grouping import group_label, lineup_of, models_of, scaffolds_of
from harness.report.judge import JudgedTurn, judged_turns
from harness.report.quality import GameQuality, QualityCounts, assess_game, game_quality
from harness.report.rows import GameRow, RunInfo, SkippedLog, TrackedMove
from harness.run.store import RunDir
from harness.schema.cards import deck_digest
from harness.schema.errors import Refused
from harness.schema.log_file import GameFacts, LogCorrupt
from harness.schema.manifest import GitState, RunManifest
from harness.schema.moves import EndReason
from harness.schema.records import GameHeader, MoveRecord, RunStatus, SeatConfig
from harness.schema.value_records import DecisionValueRecord, ValuesUnreadable, game_values, values_path
from harness.strategies.scaffold import load_scaffold
from harness.view.tracking_score import Tracking


@dataclass
class Dataset:
    """What the report keeps of the runs it read, filled one game log at a time: a row per game and what the
    sections need of its moves (counts, a latency each, the Mycroft moves' tracking), never a game's logged moves."""

    runs: list[RunInfo] = field(default_factory=list)
    rows: list[GameRow] = field(default_factory=list)
    latencies: dict[str, list[float]] = field(default_factory=dict)  # per group: each move's of its complete games
    tracked: list[TrackedMove] = field(default_factory=list)  # the complete games' moves with measured tracking
    quality: dict[str, QualityCounts] = field(default_factory=dict)  # per group: its complete games' moves judged
    quality_games: list[GameQuality] = field(default_factory=list)
    valued: list[GameRow] = field(default_factory=list)  # the complete games with move values
    decisions: list[DecisionCalibration] = field(default_factory=list)  # their valued decisions, in turn order
    skipped: list[SkippedLog] = field(default_factory=list)
    judged: list[JudgedTurn] = field(default_factory=list)


def run_labels(runs: Sequence[Path]) -> list[str]:
    """A name for each run folder that no other of `runs` shares: its folder name, led by as many of its parent
    folders as tell it apart from a run of the same name elsewhere (`A/same` beside `B/same`), so that two runs are
    never one row of the report unless the user groups them."""
    parts = [run.parts for run in runs]
    depth = [1] * len(runs)
    while True:
        labels = ["/".join(part[-n:]) for part, n in zip(parts, depth, strict=True)]
        clashing = [i for i, label in enumerate(labels) if labels.count(label) > 1 and depth[i] < len(parts[i])]
        if not clashing:
            return labels
        for i in clashing:
            depth[i] += 1


def load(runs: Sequence[Path], by: Sequence[str]) -> Dataset:
    """Read the run folders `runs` (each once: harness.run.store.find_runs), one game log at a time."""
    data = Dataset()
    for path, label in zip(runs, run_labels(runs), strict=True):
        run = RunDir(path)
        manifest, status = run.read_manifest(), run.read_status()
        rows: list[GameRow] = []
        commits: list[str] = []
        values_skipped: list[SkippedLog] = []
        damaged = 0
        for game in run.games():
            if isinstance(game, LogCorrupt):
                data.skipped.append(SkippedLog(run=label, path=str(game.path), problem=game.at))
                damaged += 1
                continue
            row = game_row(game.facts, label, by)
            rows.append(row)
            commits.append(game.facts.header.git_commit or "")
            if row.status == "complete":
                values = _values(path, label, game.facts.header, game.moves, values_skipped)
                _derive(data, row, game.facts.header, game.moves, values)
        data.skipped.extend(values_skipped)
        data.runs.append(_run_info(run, manifest, status, label, rows, commits, damaged))
        data.rows.extend(rows)
        turns, unreadable = judged_turns(path, {row.game_id: row for row in rows})
        data.judged.extend(turns)
        data.skipped.extend(SkippedLog(run=label, path=p, problem=problem) for p, problem in unreadable)
    return data


def _derive(
    into: Dataset, row: GameRow, header: GameHeader, moves: list[MoveRecord], values: dict[int, DecisionValueRecord]
) -> None:
    """Add what a complete game's moves give: their latencies and tracking, its valued decisions, and its moves
    judged by replaying them."""
    into.latencies.setdefault(row.group, []).extend(record.latency_s for record in moves)
    into.tracked.extend(move for move in (_tracked(row, record) for record in moves) if move is not None)
    if values:
        into.valued.append(row)
        into.decisions.extend(decision(row, record, values[record.turn]) for record in moves if record.turn in values)
    judged = assess_game(header, moves)
    counts = QualityCounts()
    counts.add(judged)
    into.quality.setdefault(row.group, QualityCounts()).add(judged)
    into.quality_games.append(game_quality(row.run_id, row.game_id, counts))


def _best_of(seat: SeatConfig) -> int | None:
    """Samples per move of a seat: its own k, else its scaffold's (1 for single-call scaffolds)."""
    if seat.k is not None:
        return seat.k
    try:
        scaffold = load_scaffold(seat.scaffold)
    except Refused:
        return None  # a scaffold this checkout does not have
    return scaffold.k if scaffold.strategy in ("single", "memory", "best_of_k") else None


def game_row(facts: GameFacts, label: str, by: Sequence[str]) -> GameRow:
    """A game's row: its facts, placed in its group."""
    header, result = facts.header, facts.result
    ks = {_best_of(s) for s in header.seats}  # one k when every seat has the same
    values = {
        "model": models_of(header.seats),
        "scaffold": scaffolds_of(header.seats),
        "players": f"{header.players}p",
        "seats": lineup_of(header.seats),
        "run": label,
    }
    return GameRow(
        run=label,
        run_id=header.run_id,
        game_id=header.game_id,
        group=group_label(values, by),
        model=values["model"],
        scaffold=values["scaffold"],
        seats=values["seats"],
        players=header.players,
        seed_set=header.seed_set,
        seed=header.seed,
        deal=deck_digest(header.deck),
        repeat=header.repeat,
        k=ks.pop() if len(ks) == 1 else None,
        seat_players=[s.label for s in header.seats],  # model:scaffold, with its own k
        interrupted_reason=facts.reason,
        end_reason=str(result.end_reason) if result and result.end_reason else None,
        fireworks_score=result.fireworks_score if result else None,
        engine_score=result.engine_score if result else None,
        perfect=result.fireworks_score == 25 if result else None,
        struck_out=result.end_reason == EndReason.LIVES_LOST if result else None,
        lives_lost=result.lives_lost if result else None,
        hints_given=result.hints_given if result else None,
        status=facts.status,
        moves=facts.moves,
        calls=facts.calls,
        attempts=facts.attempts,
        retries=facts.retries,
        invalid_replies=facts.invalid_replies,
        provider_errors=facts.provider_errors,
        error_kinds=facts.error_kinds,
        replies_cut=facts.replies_cut,
        failed_moves=facts.interruptions,
        prompt_tokens=facts.prompt_tokens,
        completion_tokens=facts.completion_tokens,
        total_tokens=facts.prompt_tokens + facts.completion_tokens,
        cost_usd=facts.cost_usd,
        latency_s=facts.latency_s,
        cached_tokens=facts.cached_tokens,
        cache_write_tokens=facts.cache_write_tokens,
        cache_saving_usd=facts.cache_saving_usd,
    )


def _values(
    run: Path, label: str, header: GameHeader, moves: list[MoveRecord], skipped: list[SkippedLog]
) -> dict[int, DecisionValueRecord]:
    """A complete game's move values by turn ({} when its run has none). A values file that cannot be read or does
    not match the log is added to `skipped`, and the game gets none."""
    path = values_path(run, header.game_id)
    if not path.is_file():
        return {}
    try:
        values = game_values(run, header.game_id, moves)
    except ValuesUnreadable as exc:
        problem = str(exc).removeprefix(f"{path}:").strip()
        where = "line " if problem[:1].isdigit() else ""
        skipped.append(SkippedLog(run=label, path=str(path), problem=f"move values, {where}{problem}"))
        return {}
    return values


def _tracked(game: GameRow, record: MoveRecord) -> TrackedMove | None:
    """The move with its measured tracking, None for a move without one (or with one that is not a Tracking)."""
    if record.tracking is None:
        return None
    try:
        tracking = Tracking.model_validate(record.tracking)
    except ValidationError:
        return None
    return TrackedMove(run_id=game.run_id, game_id=game.game_id, group=game.group, turn=record.turn, tracking=tracking)


def _run_info(
    run: RunDir,
    manifest: RunManifest | None,
    status: RunStatus | None,
    label: str,
    games: list[GameRow],
    commits: list[str],
    skipped: int,
) -> RunInfo:
    config = manifest.config if manifest is not None else None
    seats = list(config.seats) if config is not None else []
    seeds = list(config.seeds) if config is not None else []
    settings = [item for seat in seats for item in seat.params.model_dump(exclude={"timeout_s"}).items()]
    planned = len(manifest.games) if manifest is not None and "games" in manifest.model_fields_set else None
    git = manifest.git if manifest is not None else GitState()
    versions = manifest.versions if manifest is not None else {}
    statuses = [g.status for g in games]
    return RunInfo(
        name=label,
        path=str(run.path),
        run_id=manifest.run_id if manifest is not None else None,
        created_at=manifest.created_at if manifest is not None else None,
        models=list(dict.fromkeys(s.model for s in seats)),
        scaffolds=list(dict.fromkeys(s.scaffold for s in seats)),
        params=list(dict.fromkeys(f"{name}={value}" for name, value in settings if value is not None)),
        players=list(config.players) if config is not None else [],
        seed_sets=list(dict.fromkeys(s.seed_set for s in seeds)),
        seeds=[s.seed for s in seeds],
        git_commit=git.commit,
        git_dirty=git.dirty,
        harness_version=versions.get("hanabi-eval"),
        header_commits=list(dict.fromkeys(c for c in commits if c)),
        status=status.status if status is not None else None,
        status_reason=status.reason if status is not None else None,
        games_planned=planned,
        games_logged=len(games),
        games_complete=statuses.count("complete"),
        games_interrupted=statuses.count("interrupted"),
        games_unfinished=statuses.count("unfinished"),
        games_skipped=skipped,
    )
