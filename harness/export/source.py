"""Reading run directories for an export: the complete games, filtered, with the seats whose moves are exported.

Only complete games are exported; interrupted and unfinished games are counted and skipped. Filters on model and
scaffold select seats (a mixed game contributes only the moves of its matching seats); filters on player count,
seed set and final score select games. A path may be a run directory or a folder holding runs below it (as
`report` accepts); a game in two of the folders (a copied run) is refused, as `report` refuses it. A game log with
a line that is not a valid record is left out and named in `Selection.corrupt` (the command warns); the other games
go on. Bad input raises Refused with a one-line message naming the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.export.rows import ExportedGame, Filters, SourceRunInfo
from harness.run import store
from harness.run.store import RunDir
from harness.schema.errors import Refused
from harness.schema.log_file import LogCorrupt
from harness.schema.manifest import GitState
from harness.schema.records import GameHeader, GameResult, MoveRecord, SeatConfig


class ExportGame(BaseModel):
    """One complete game and the seats whose moves the export takes."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    run_path: Path  # the run directory the game's log is in (its values/ folder holds the game's move values)
    header: GameHeader
    moves: list[MoveRecord]
    result: GameResult
    seats: frozenset[int]

    def selected_moves(self) -> Iterator[MoveRecord]:
        return (m for m in self.moves if m.seat in self.seats)

    def summary(self) -> ExportedGame:
        return ExportedGame(
            run_id=self.run_id,
            game_id=self.header.game_id,
            seed_set=self.header.seed_set,
            seed=self.header.seed,
            repeat=self.header.repeat,
            players=self.header.players,
            fireworks_score=self.result.fireworks_score,
            engine_score=self.result.engine_score,
        )


class Selection(BaseModel):
    """What the export reads: the runs, the selected games, and how many games were left out and why."""

    model_config = ConfigDict(frozen=True)

    runs: list[SourceRunInfo]
    games: list[ExportGame]
    skipped_incomplete: int
    corrupt: list[str] = []  # "path:line: problem" of every game log left out as damaged

    @property
    def moves(self) -> int:
        return sum(1 for g in self.games for _ in g.selected_moves())


def _seat_selected(seat: SeatConfig, filters: Filters) -> bool:
    return (not filters.models or seat.model in filters.models) and (
        not filters.scaffolds or seat.scaffold in filters.scaffolds
    )


def _game_selected(header: GameHeader, result: GameResult, filters: Filters) -> bool:
    return (
        (not filters.players or header.players in filters.players)
        and (not filters.seed_sets or header.seed_set in filters.seed_sets)
        and (filters.min_score is None or result.fireworks_score >= filters.min_score)
    )


def find_runs(paths: list[Path]) -> list[Path]:
    """The run folders `paths` name (harness.run.store.find_runs), bad paths as Refused."""
    return store.find_runs(paths)


def _complete_games(
    run: RunDir, corrupt: list[str]
) -> tuple[str, list[tuple[GameHeader, list[MoveRecord], GameResult]], int]:
    manifest = run.read_manifest()
    games = []
    skipped = 0
    for path in run.game_paths():
        try:
            contents = run.read_game(path)
        except LogCorrupt as exc:
            corrupt.append(str(exc))
            continue
        if not contents.complete or contents.header is None or contents.result is None:
            skipped += 1
            continue
        games.append((contents.header, contents.moves, contents.result))
    run_id = (manifest.run_id if manifest is not None else None) or (
        games[0][0].run_id if games else run.path.name
    )
    return run_id, games, skipped


def _run_info(run: RunDir, run_id: str, headers: list[GameHeader]) -> SourceRunInfo:
    manifest = run.read_manifest()
    git = manifest.git if manifest is not None else GitState()
    commits = sorted({h.git_commit for h in headers} or {git.commit}, key=lambda c: c or "")
    return SourceRunInfo(
        run_id=run_id,
        path=str(run.path),
        git_commits=commits,
        git_dirty=git.dirty,
        harness_version=(manifest.versions if manifest is not None else {}).get("hanabi-eval"),
    )


def select(paths: list[Path], filters: Filters) -> Selection:
    """Read every run, keep the complete games that match the filters; raise Refused if none does."""
    runs: list[SourceRunInfo] = []
    selected: list[ExportGame] = []
    skipped = 0
    complete: list[tuple[GameHeader, GameResult]] = []
    corrupt: list[str] = []
    found = find_runs(paths)
    store.check_each_game_once(found)
    for path in found:
        run = RunDir(path)
        run_id, games, incomplete = _complete_games(run, corrupt)
        skipped += incomplete
        chosen = []
        for header, moves, result in games:
            complete.append((header, result))
            seats = frozenset(i for i, seat in enumerate(header.seats) if _seat_selected(seat, filters))
            if seats and _game_selected(header, result, filters):
                chosen.append(
                    ExportGame(
                        run_id=run_id, run_path=path, header=header, moves=moves, result=result, seats=seats
                    )
                )
        if chosen:
            runs.append(_run_info(run, run_id, [g.header for g in chosen]))
            selected.extend(chosen)
    if not complete:
        damaged = f", {len(corrupt)} damaged ({corrupt[0]})" if corrupt else ""
        raise Refused(
            f"the runs hold no complete game ({skipped} interrupted or unfinished{damaged}); finish them with the "
            "same `hanabi-eval run` command first"
        )
    if not selected:
        raise Refused(_nothing_matches(filters, complete))
    return Selection(runs=runs, games=selected, skipped_incomplete=skipped, corrupt=corrupt)


def _nothing_matches(filters: Filters, complete: list[tuple[GameHeader, GameResult]]) -> str:
    def values(items: set[object]) -> str:
        return ", ".join(str(v) for v in sorted(items, key=str))

    held = {
        "--model": "models " + values({s.model for h, _ in complete for s in h.seats}),
        "--scaffold": "scaffolds " + values({s.scaffold for h, _ in complete for s in h.seats}),
        "--players": "player counts " + values({h.players for h, _ in complete}),
        "--seed-set": "seed sets " + values({h.seed_set for h, _ in complete}),
        "--min-score": f"best final score {max(r.fireworks_score for _, r in complete)}",
    }
    asked = {
        "--model": filters.models,
        "--scaffold": filters.scaffolds,
        "--players": filters.players,
        "--seed-set": filters.seed_sets,
        "--min-score": () if filters.min_score is None else (filters.min_score,),
    }
    given = [f"{flag} {' '.join(str(v) for v in asked[flag])}" for flag in asked if asked[flag]]
    known = "; ".join(held[flag] for flag in asked if asked[flag])
    return f"no complete game matches {' '.join(given)} (the runs hold {known})"
