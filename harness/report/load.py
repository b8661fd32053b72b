"""Reads run directories into typed tables for the report: the runs, one row per game, one row per move.

Reads manifest.json, status.json and the game logs only; never calls a model and never writes into a run
directory. A folder that is not itself a run is searched for runs below it; a game in two run folders (a copied
run) is refused, as `export` refuses it. A game counts as complete only when its log ends in a complete result line;
interrupted games and logs without a result line are kept, marked as such.
A game log that cannot be read (a corrupted line) is skipped and named in `Dataset.skipped`; the rest is read.
Move values (`<run>/values/`, written by `hanabi-eval values`) are attached to the complete games they belong to; a
values file that is damaged or does not match its game's log is named in `Dataset.skipped` and left out.
Calls, attempts, error kinds, tokens and cost are counted over every attempt of a game: its moves' calls and the
failed calls of every interruption, so a game that stopped counts what it spent and what went wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.report.grouping import group_label, lineup_of, models_of, scaffolds_of
from harness.report.judge import JudgedTurn, judged_turns
from harness.run import store
from harness.run.store import RunDir
from harness.schema.cards import deck_digest
from harness.schema.errors import Refused
from harness.schema.log_file import GameStatus, LogCorrupt
from harness.schema.manifest import GitState
from harness.schema.moves import EndReason
from harness.schema.records import (
    PROVIDER_ERROR_KINDS,
    Call,
    GameHeader,
    MoveRecord,
    SeatConfig,
    total_cost,
    total_saving,
)
from harness.schema.value_records import (
    DecisionValueRecord,
    ValuesUnreadable,
    check_game,
    read_values,
    values_path,
)
from harness.strategies.scaffold import load_scaffold
from harness.view.tracking_score import Tracking


class RunInfo(BaseModel):
    """One run directory as recorded: configuration, provenance and how many of its games finished."""

    model_config = ConfigDict(frozen=True)

    name: str  # the folder's name, led by its parents where another run of the report has the same (run_labels)
    path: str
    run_id: str | None
    created_at: str | None
    models: list[str]
    scaffolds: list[str]
    params: list[str]  # generation parameters that were set, e.g. "temperature=0.3"
    players: list[int]
    seed_sets: list[str]
    seeds: list[int]
    git_commit: str | None
    git_dirty: bool | None
    harness_version: str | None
    header_commits: list[str]  # commits recorded by the game logs (a continued run can span several)
    status: str | None
    status_reason: str | None
    games_planned: int | None
    games_logged: int
    games_complete: int
    games_interrupted: int
    games_unfinished: int
    games_skipped: int  # logs that could not be read (named in the report's "Logs skipped")


class SkippedLog(BaseModel):
    """A game log (or a judge file's damaged lines) the report could not read; it is named in a warning and left out."""

    model_config = ConfigDict(frozen=True)

    run: str
    path: str
    problem: str


class GameRow(BaseModel):
    """One game: where it ran, who played, its result. Scores of games that are not complete are not counted."""

    model_config = ConfigDict(frozen=True)

    run: str
    run_id: str
    game_id: str
    group: str
    model: str
    scaffold: str
    seats: str
    players: int
    seed_set: str
    seed: int
    deal: str  # the deck's digest (schema/cards.py deck_digest): games of one deal share it whatever set named the seed
    repeat: int  # which play of this seed; repeats of one deal count as one deal when pairing
    k: int | None  # best-of-k samples per move, when every seat uses the same k (1 for single-call scaffolds)
    seat_players: list[str]  # each seat's model:scaffold (and k, when the seat sets it), in position order
    status: GameStatus
    interrupted_reason: str | None
    end_reason: str | None
    fireworks_score: int | None  # at the end of a complete game, or at the interruption
    engine_score: int | None
    perfect: bool | None
    struck_out: bool | None
    moves: int
    lives_lost: int | None
    hints_given: int | None
    # Counted over every attempt of the game (its moves' calls and the failed calls of its interruptions):
    calls: int
    attempts: int
    retries: int
    invalid_replies: int
    provider_errors: int
    error_kinds: dict[str, int]  # attempts per error kind (an open set: whatever kinds the log holds)
    replies_cut: int = 0  # rejected replies (or reasoning) the log keeps only the start of (Attempt.cut)
    failed_moves: int  # moves that could not be made (one per interruption)
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost_usd: float | None  # None: not known (an attempt of an unpriced model, see total_cost), never a guessed $0
    latency_s: float  # summed over the logged moves' attempts
    cached_tokens: int = 0  # prompt tokens read from a provider's prompt cache (counted in prompt_tokens)
    cache_write_tokens: int = 0  # prompt tokens written to it
    cache_saving_usd: float | None = None  # what prompt caching saved (total_saving); None: nothing recorded


class MoveRow(BaseModel):
    """One logged move with its cost in time and retries and, for Mycroft, its measured state tracking."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    game_id: str
    group: str
    game_status: GameStatus
    turn: int
    seat: int
    kind: str
    latency_s: float
    retries: int
    tracking: Tracking | None


class LoadedGame(BaseModel):
    """A game's row together with what a replay needs: the deck and the logged moves."""

    model_config = ConfigDict(frozen=True)

    row: GameRow
    header: GameHeader
    moves: list[MoveRecord]
    values: dict[int, DecisionValueRecord] = {}  # move values by turn (complete games whose run has them)


class Dataset(BaseModel):
    model_config = ConfigDict(frozen=True)

    runs: list[RunInfo]
    games: list[LoadedGame]
    moves: list[MoveRow]
    skipped: list[SkippedLog] = []
    judged: list[JudgedTurn] = []

    @property
    def rows(self) -> list[GameRow]:
        return [g.row for g in self.games]


def find_runs(paths: Sequence[Path]) -> list[Path]:
    """The run folders `paths` name (harness.run.store.find_runs), each game in only one of them
    (store.check_each_game_once: a copied run would count twice); bad paths as Refused."""
    runs = store.find_runs(paths)
    store.check_each_game_once(runs)
    return runs


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


def load(paths: Sequence[Path], by: Sequence[str]) -> Dataset:
    runs: list[RunInfo] = []
    games: list[LoadedGame] = []
    moves: list[MoveRow] = []
    skipped: list[SkippedLog] = []
    judged: list[JudgedTurn] = []
    found = find_runs(paths)
    for path, label in zip(found, run_labels(found), strict=True):
        run_games, run_skipped = _load_games(RunDir(path), label, by)
        values_skipped: list[SkippedLog] = []
        run_games = _with_values(path, label, run_games, values_skipped)
        runs.append(_run_info(RunDir(path), label, run_games, len(run_skipped)))
        games.extend(run_games)
        skipped.extend(run_skipped + values_skipped)
        for game in run_games:
            moves.extend(_move_row(game.row, record) for record in game.moves)
        turns, unreadable = judged_turns(path, {g.row.game_id: g.row for g in run_games})
        judged.extend(turns)
        skipped.extend(SkippedLog(run=label, path=p, problem=problem) for p, problem in unreadable)
    return Dataset(runs=runs, games=games, moves=moves, skipped=skipped, judged=judged)


def _best_of(seat: SeatConfig) -> int | None:
    """Samples per move of a seat: its own k, else its scaffold's (1 for single-call scaffolds)."""
    if seat.k is not None:
        return seat.k
    try:
        scaffold = load_scaffold(seat.scaffold)
    except Refused:
        return None  # a scaffold this checkout does not have
    return scaffold.k if scaffold.strategy in ("single", "memory", "best_of_k") else None


def _player(seat: SeatConfig) -> str:
    """Who sits in a seat, for cross-play: model:scaffold, with the seat's own k when it sets one."""
    if seat.k is None or f"k={seat.k}" in seat.label:
        return seat.label
    return f"{seat.label} (k={seat.k})"


def _common_k(seats: Sequence[SeatConfig]) -> int | None:
    ks = {_best_of(s) for s in seats}
    return ks.pop() if len(ks) == 1 else None


def _load_games(run: RunDir, label: str, by: Sequence[str]) -> tuple[list[LoadedGame], list[SkippedLog]]:
    games = []
    skipped = []
    for path in run.game_paths():
        try:
            contents = run.read_game(path)
        except LogCorrupt as exc:
            problem = f"line {exc.line}: {exc.problem}"
            skipped.append(SkippedLog(run=label, path=str(path), problem=problem))
            continue
        except (OSError, UnicodeError) as exc:
            skipped.append(SkippedLog(run=label, path=str(path), problem=f"unreadable ({exc})"))
            continue
        if contents.header is None:
            continue  # nothing was written yet: not a game
        header = contents.header
        result = contents.result
        status = contents.status
        calls: list[Call] = [c for m in contents.moves for c in m.calls] + contents.failed_calls
        attempts = [a for c in calls for a in c.attempts]
        kinds: dict[str, int] = {}
        for attempt in attempts:
            if attempt.error_kind:
                kinds[str(attempt.error_kind)] = kinds.get(str(attempt.error_kind), 0) + 1
        prompt = sum(a.usage.prompt_tokens for a in attempts)
        completion = sum(a.usage.completion_tokens for a in attempts)
        values = {
            "model": models_of(header.seats),
            "scaffold": scaffolds_of(header.seats),
            "players": f"{header.players}p",
            "seats": lineup_of(header.seats),
            "run": label,
        }
        row = GameRow(
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
            k=_common_k(header.seats),
            seat_players=[_player(s) for s in header.seats],
            status=status,
            interrupted_reason=result.interrupted_reason if result else None,
            end_reason=str(result.end_reason) if result and result.end_reason else None,
            fireworks_score=result.fireworks_score if result else None,
            engine_score=result.engine_score if result else None,
            perfect=result.fireworks_score == 25 if result else None,
            struck_out=result.end_reason == EndReason.LIVES_LOST if result else None,
            moves=len(contents.moves),
            lives_lost=result.lives_lost if result else None,
            hints_given=result.hints_given if result else None,
            calls=len(calls),
            attempts=len(attempts),
            retries=len(attempts) - len(calls),
            invalid_replies=sum(n for kind, n in kinds.items() if kind not in PROVIDER_ERROR_KINDS),
            provider_errors=sum(n for kind, n in kinds.items() if kind in PROVIDER_ERROR_KINDS),
            error_kinds=dict(sorted(kinds.items())),
            replies_cut=sum(a.cut for a in attempts),
            failed_moves=sum(r.status == "interrupted" for r in contents.results),
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            cost_usd=total_cost(attempts),
            latency_s=sum(m.latency_s for m in contents.moves),
            cached_tokens=sum(a.usage.cached_tokens for a in attempts),
            cache_write_tokens=sum(a.usage.cache_write_tokens for a in attempts),
            cache_saving_usd=total_saving(attempts),
        )
        games.append(LoadedGame(row=row, header=header, moves=contents.moves))
    return games, skipped


def _with_values(run: Path, label: str, games: list[LoadedGame], skipped: list[SkippedLog]) -> list[LoadedGame]:
    """The games with their move values attached (complete games only: the values command skips the others). A
    values file that cannot be read or does not match the log is added to `skipped` and its game gets none."""
    out = []
    for game in games:
        path = values_path(run, game.header.game_id)
        if game.row.status != "complete" or not path.is_file():
            out.append(game)
            continue
        try:
            values = read_values(path)
            check_game(values, game.moves, str(path))
        except ValuesUnreadable as exc:
            problem = str(exc).removeprefix(f"{path}:").strip()
            where = "line " if problem[:1].isdigit() else ""
            skipped.append(SkippedLog(run=label, path=str(path), problem=f"move values, {where}{problem}"))
            out.append(game)
            continue
        out.append(game.model_copy(update={"values": values}))
    return out


def _move_row(game: GameRow, record: MoveRecord) -> MoveRow:
    tracking = None
    if record.tracking is not None:
        try:
            tracking = Tracking.model_validate(record.tracking)
        except ValidationError:
            tracking = None
    return MoveRow(
        run_id=game.run_id,
        game_id=game.game_id,
        group=game.group,
        game_status=game.status,
        turn=record.turn,
        seat=record.seat,
        kind=str(record.move.kind),
        latency_s=record.latency_s,
        retries=record.retries,
        tracking=tracking,
    )


def _run_info(run: RunDir, label: str, games: list[LoadedGame], skipped: int) -> RunInfo:
    manifest = run.read_manifest()
    status = run.read_status()
    config = manifest.config if manifest is not None else None
    seats = list(config.seats) if config is not None else []
    params = []
    for seat in seats:
        for name, value in seat.params.model_dump(exclude={"timeout_s"}).items():
            if value is not None and f"{name}={value}" not in params:
                params.append(f"{name}={value}")
    git = manifest.git if manifest is not None else GitState()
    versions = manifest.versions if manifest is not None else {}
    statuses = [g.row.status for g in games]
    return RunInfo(
        name=label,
        path=str(run.path),
        run_id=manifest.run_id if manifest is not None else None,
        created_at=manifest.created_at if manifest is not None else None,
        models=list(dict.fromkeys(s.model for s in seats)),
        scaffolds=list(dict.fromkeys(s.scaffold for s in seats)),
        params=params,
        players=list(config.players) if config is not None else [],
        seed_sets=list(dict.fromkeys(s.seed_set for s in config.seeds)) if config is not None else [],
        seeds=[s.seed for s in config.seeds] if config is not None else [],
        git_commit=git.commit,
        git_dirty=git.dirty,
        harness_version=versions.get("hanabi-eval"),
        header_commits=list(dict.fromkeys(g.header.git_commit for g in games if g.header.git_commit)),
        status=status.status if status is not None else None,
        status_reason=status.reason if status is not None else None,
        games_planned=len(manifest.games)
        if manifest is not None and "games" in manifest.model_fields_set
        else None,
        games_logged=len(games),
        games_complete=statuses.count("complete"),
        games_interrupted=statuses.count("interrupted"),
        games_unfinished=statuses.count("unfinished"),
        games_skipped=skipped,
    )
