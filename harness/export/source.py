"""The complete games of run directories that match an export's filters (of seats and of games), one log at a
time; interrupted games are counted and skipped, damaged logs left out and named."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.export.rows import ExportedGame, Filters, SourceRunInfo
from harness.run.store import RunDir
from harness.schema.errors import Refused
from harness.schema.log_file import LogCorrupt
from harness.schema.manifest import GitState, RunManifest
from harness.schema.records import GameHeader, GameResult, MoveRecord


class ExportGame(BaseModel):
    """One complete game the export takes, and the seats whose moves it takes (the moves are never kept)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    run_path: Path  # the run directory the game's log is in (its values/ folder holds the game's move values)
    header: GameHeader
    result: GameResult
    seats: frozenset[int]
    turns: tuple[int, ...]  # the turns of the moves the export takes

    def selected(self, moves: list[MoveRecord]) -> Iterator[MoveRecord]:
        """The moves of the selected seats, of this game's logged `moves`."""
        return (m for m in moves if m.seat in self.seats)

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


@dataclass
class Selection:
    """What the export read, filled by `select`: the runs, the games taken, and those left out."""

    runs: list[SourceRunInfo] = field(default_factory=list)
    games: list[ExportGame] = field(default_factory=list)
    skipped_incomplete: int = 0  # interrupted or unfinished games the filters would have taken
    corrupt: list[str] = field(default_factory=list)  # "path:line: problem" of every game log left out as damaged

    @property
    def moves(self) -> int:
        return sum(len(g.turns) for g in self.games)


def _run_info(run: RunDir, manifest: RunManifest | None, run_id: str, headers: list[GameHeader]) -> SourceRunInfo:
    git = manifest.git if manifest is not None else GitState()
    commits = sorted({h.git_commit for h in headers} or {git.commit}, key=lambda c: c or "")
    return SourceRunInfo(
        run_id=run_id,
        path=str(run.path),
        git_commits=commits,
        git_dirty=git.dirty,
        harness_version=(manifest.versions if manifest is not None else {}).get("hanabi-eval"),
    )


def select(
    runs: list[Path], filters: Filters, selection: Selection
) -> Iterator[tuple[ExportGame, list[MoveRecord]]]:
    """The complete games of the runs that match the filters, each with its moves, one log at a time, taken
    into `selection`; Refused, once every log is read, if none matched."""
    complete: list[tuple[GameHeader, GameResult]] = []
    incomplete = 0
    for path in runs:
        run = RunDir(path)
        manifest = run.read_manifest()
        run_id = manifest.run_id if manifest is not None else None
        headers: list[GameHeader] = []
        for game in run.games():
            if isinstance(game, LogCorrupt):
                selection.corrupt.append(str(game))
                continue
            header, result = game.facts.header, game.facts.result
            seats = frozenset(
                i
                for i, seat in enumerate(header.seats)
                if (not filters.models or seat.model in filters.models)
                and (not filters.scaffolds or seat.scaffold in filters.scaffolds)
            )
            wanted = bool(seats) and not (
                (filters.players and header.players not in filters.players)
                or (filters.seed_sets and header.seed_set not in filters.seed_sets)
            )
            if result is None or result.status != "complete":
                incomplete += 1
                if wanted:  # a game the filters leave out is not one the export skipped
                    selection.skipped_incomplete += 1
                continue
            run_id = run_id or header.run_id
            complete.append((header, result))
            if not wanted or (filters.min_score is not None and result.fireworks_score < filters.min_score):
                continue
            moves = game.moves
            taken = ExportGame(
                run_id=run_id,
                run_path=path,
                header=header,
                result=result,
                seats=seats,
                turns=tuple(m.turn for m in moves if m.seat in seats),
            )
            yield taken, moves
            selection.games.append(taken)
            headers.append(header)
        if headers:
            selection.runs.append(_run_info(run, manifest, run_id or run.path.name, headers))
    if not complete:
        damaged = f", {len(selection.corrupt)} damaged ({selection.corrupt[0]})" if selection.corrupt else ""
        raise Refused(
            f"the runs hold no complete game ({incomplete} interrupted or unfinished{damaged}); "
            "finish them first: `hanabi-eval resume RUN` (a run imported from Inspect plays on in Inspect)"
        )
    if not selection.games:
        raise Refused(_nothing_matches(filters, complete))


def _nothing_matches(filters: Filters, complete: list[tuple[GameHeader, GameResult]]) -> str:
    def values(items: set[object]) -> str:
        return ", ".join(str(v) for v in sorted(items, key=str))

    seats = [s for h, _ in complete for s in h.seats]
    asked: list[tuple[str, tuple[object, ...], str]] = [  # (flag, values asked, what the runs hold)
        ("--model", filters.models, "models " + values({s.model for s in seats})),
        ("--scaffold", filters.scaffolds, "scaffolds " + values({s.scaffold for s in seats})),
        ("--players", filters.players, "player counts " + values({h.players for h, _ in complete})),
        ("--seed-set", filters.seed_sets, "seed sets " + values({h.seed_set for h, _ in complete})),
        (
            "--min-score",
            () if filters.min_score is None else (filters.min_score,),
            f"best final score {max(r.fireworks_score for _, r in complete)}",
        ),
    ]
    given = " ".join(f"{flag} {' '.join(str(v) for v in wanted)}" for flag, wanted, _ in asked if wanted)
    known = "; ".join(held for _, wanted, held in asked if wanted)
    return f"no complete game matches {given} (the runs hold {known})"
