"""The runs and games the viewer shows: the run folders below the paths it was given, one summary per game log.

Reads run folders through the one reader every command uses (harness.run.store), so a log the report would refuse is
refused here too: named with its problem and skipped. Never writes anything. Each run gets a key safe in a URL and a
file name (its folder's name, made unique); each game a page name (its id, likewise). A Catalog re-reads a log only
when its size or modification time changed, so a run still being played shows each new move on the next reload.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path

from harness.report.rows import SkippedLog
from harness.run.store import RunDir, RunFolderDamaged, find_runs
from harness.schema.log_file import GameStatus, LogCorrupt
from harness.schema.value_records import ValuesUnreadable, game_values, values_path
from harness.web.board import Frozen
from harness.web.marks import reasked_turns, regrets, strike_turns

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


class GameSummary(Frozen):
    """One game as the run page lists it."""

    game_id: str
    page: str  # the page's file name, without folder
    log: str  # the game log's path
    seed: int
    seed_set: str
    repeat: int
    players: int
    seats: list[str]  # each seat's model:scaffold, in position order
    status: GameStatus
    interrupted_reason: str | None
    end_reason: str | None
    fireworks_score: int | None  # at the end, or at the interruption
    engine_score: int | None
    strikes: int  # lives lost so far
    moves: int
    calls: int
    attempts: int
    strike_turns: list[int]
    reasked_turns: list[int]
    worst_regret: float | None  # the largest regret of a valued decision
    worst_regret_turn: int | None  # its turn (the first of equals), when it is above 0: a choice worth a look
    values_problem: str | None  # a values file that cannot be used for this game
    cost_usd: float | None

    @property
    def lineup(self) -> str:
        """The seats as the run page shows them: one label for self-play, else each seat's in order."""
        return self.seats[0] if len(set(self.seats)) == 1 else " | ".join(self.seats)

    @property
    def search_text(self) -> str:
        """What the run page's filter matches: id, seats, status, reason and seed set, in lower case."""
        parts = [self.game_id, *self.seats, self.status, self.interrupted_reason or "", self.seed_set]
        return " ".join(parts).lower()


class RunEntry(Frozen):
    """One run folder: what its manifest and status say, its games and the logs that could not be read."""

    key: str
    name: str
    path: str
    models: list[str]
    scaffolds: list[str]
    players: list[int]
    planned: int | None  # games in the manifest's plan
    status: str | None
    status_reason: str | None
    problem: str | None  # a manifest or status file that cannot be read (the games are still shown)
    games: list[GameSummary]
    skipped: list[SkippedLog]

    def game(self, page: str) -> GameSummary | None:
        return next((g for g in self.games if g.page == page), None)


def safe_name(text: str) -> str:
    """`text` with anything but letters, digits and `._+-` replaced, never starting with a dot."""
    return _UNSAFE.sub("-", text).lstrip(".") or "x"


def unique_names(texts: Sequence[str]) -> list[str]:
    """A safe, distinct name per text, in order (a repeated one gets -2, -3, ...)."""
    taken: set[str] = set()
    names = []
    for text in texts:
        base = name = safe_name(text)
        number = 1
        while name.lower() in taken:
            number += 1
            name = f"{base}-{number}"
        taken.add(name.lower())
        names.append(name)
    return names


Stamp = tuple[int, int, tuple[int, int] | None]


def stamp_of(log: Path, values: Path) -> Stamp:
    """What says a game's files changed: its log's size and modification time, and its values file's (None: no
    such file). Raises OSError when the log cannot be read."""
    stat = log.stat()
    try:
        seen = values.stat()
    except OSError:
        return stat.st_size, stat.st_mtime_ns, None
    return stat.st_size, stat.st_mtime_ns, (seen.st_size, seen.st_mtime_ns)


class Catalog:
    """The runs below `paths` (run folders, or folders holding runs), as they are on disk now."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        find_runs(self.paths)  # raises Refused now for a path that holds no run
        self._lock = threading.Lock()
        self._logs: dict[Path, tuple[Stamp, GameSummary | SkippedLog]] = {}

    def runs(self) -> list[RunEntry]:
        """Every run, read again where its files changed."""
        with self._lock:
            folders = find_runs(self.paths)
            keys = unique_names([folder.name for folder in folders])
            return [self._run(folder, key) for folder, key in zip(folders, keys, strict=True)]

    def run(self, key: str) -> RunEntry | None:
        return next((run for run in self.runs() if run.key == key), None)

    def _run(self, folder: Path, key: str) -> RunEntry:
        run = RunDir(folder)
        problem = manifest = None
        try:
            manifest = run.read_manifest()
        except RunFolderDamaged as exc:  # one line naming the file
            problem = str(exc)
        seats = manifest.config.seats if manifest is not None else ()
        status = reason = None
        try:
            recorded = run.read_status()
            if recorded is not None:
                status, reason = recorded.status, recorded.reason
        except RunFolderDamaged as exc:
            problem = problem or str(exc)
        paths = run.game_paths()
        pages = unique_names([p.stem for p in paths])
        read = [self._game(run, path, page) for path, page in zip(paths, pages, strict=True)]
        return RunEntry(
            key=key,
            name=folder.name,
            path=str(folder),
            models=list(dict.fromkeys(s.model for s in seats)),
            scaffolds=list(dict.fromkeys(s.scaffold for s in seats)),
            players=list(manifest.config.players) if manifest is not None else [],
            planned=len(manifest.games) if manifest and "games" in manifest.model_fields_set else None,
            status=status,
            status_reason=reason,
            problem=problem,
            games=[game for game in read if isinstance(game, GameSummary)],
            skipped=[log for log in read if isinstance(log, SkippedLog)],
        )

    def _game(self, run: RunDir, path: Path, page: str) -> GameSummary | SkippedLog | None:
        values = values_path(run.path, path.stem)
        try:
            stamp = stamp_of(path, values)
        except OSError as exc:
            return SkippedLog(run=run.path.name, path=str(path), problem=f"unreadable ({exc.strerror or exc})")
        stamped, cached = self._logs.get(path, (None, None))
        if stamped == stamp and (not isinstance(cached, GameSummary) or cached.page == f"{page}.html"):
            return cached
        read = summarize(run, path, page)
        if read is not None:
            self._logs[path] = (stamp, read)
        return read


def summarize(run: RunDir, path: Path, page: str) -> GameSummary | SkippedLog | None:
    """One game log as the run page lists it, from the run's reader; SkippedLog for a log that cannot be read; None
    before its header."""
    game = run.read(path)
    if game is None:
        return None  # nothing written yet: not a game
    if isinstance(game, LogCorrupt):
        return SkippedLog(run=run.path.name, path=str(path), problem=game.at)
    facts, moves = game.facts, game.moves
    header, result = facts.header, facts.result
    values_problem = None
    game_regrets: dict[int, float] = {}
    if facts.status == "complete":
        try:
            game_regrets = regrets(moves, game_values(run.path, header.game_id, moves))
        except ValuesUnreadable as exc:
            values_problem = str(exc)
    worst = max(game_regrets.items(), key=lambda item: (item[1], -item[0]), default=None)
    strikes = strike_turns(moves)
    return GameSummary(
        game_id=header.game_id,
        page=f"{page}.html",
        log=str(path),
        seed=header.seed,
        seed_set=header.seed_set,
        repeat=header.repeat,
        players=header.players,
        seats=[seat.label for seat in header.seats],
        status=facts.status,
        interrupted_reason=facts.reason,
        end_reason=str(result.end_reason) if result and result.end_reason else None,
        fireworks_score=result.fireworks_score if result else None,
        engine_score=result.engine_score if result else None,
        strikes=len(strikes),
        moves=facts.moves,
        calls=facts.calls,
        attempts=facts.attempts,
        strike_turns=strikes,
        reasked_turns=reasked_turns(moves),
        worst_regret=worst[1] if worst else None,
        worst_regret_turn=worst[0] if worst and worst[1] > 0 else None,
        values_problem=values_problem,
        cost_usd=facts.cost_usd,  # unknown beside an unpriced model, never $0
    )
