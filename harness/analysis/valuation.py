"""Valuing a run's logged decisions into `<run>/values/<game_id>.jsonl`, one DecisionValueRecord line each;
resumable: lines of the same settings are kept, a torn last line redone, other settings refused."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.play.values import move_values, position_view
from harness.run.store import RunDir
from harness.schema.errors import Refused
from harness.schema.log_file import GameLogContents, LogCorrupt
from harness.schema.moves import Move
from harness.schema.value_records import DecisionValueRecord, MoveValueRecord, values_path

# The code a value depends on: the engine, the seat view, the built-in players, the rollouts and the values line.
VALUE_CODE = ("engine", "view", "bots", "play", "schema", "analysis/valuation.py")


@cache
def code_digest() -> str:
    """A digest of the source of VALUE_CODE: two processes with the same digest compute the same values."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in VALUE_CODE:
        for path in sorted((root / name).rglob("*.py")) if (root / name).is_dir() else [root / name]:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def decision_seed(seed: int, game_id: str, turn: int) -> int:
    """The seed of one decision's rollouts: fixed by the base seed, the game and the turn."""
    digest = hashlib.sha256(f"{seed}:{game_id}:{turn}".encode()).hexdigest()
    return int(digest[:12], 16)


@dataclass(frozen=True)
class GamePlan:
    """One complete game of a run: its values file, the turns already valued there, and the decisions to value."""

    game_id: str
    path: Path
    done: int
    tasks: list[DecisionTask]


def plan_run(
    run: RunDir, rollouts: int, base_seed: int, from_turn: int = 1
) -> tuple[list[GamePlan], list[str], list[str]]:
    """Each complete game's plan from `from_turn` on, the other games' ids, and the damaged logs' problems."""
    plans: list[GamePlan] = []
    skipped, corrupt = [], []
    for game in run.games():
        if isinstance(game, LogCorrupt):
            corrupt.append(str(game))
        elif not game.complete:
            skipped.append(game.facts.header.game_id)
        else:
            path = values_path(run.path, game.facts.header.game_id)
            plans.append(GamePlan(path.stem, path, 0, plan_game(game, set(), rollouts, base_seed, from_turn)))
    return plans, skipped, corrupt


def resumed(plan: GamePlan, rollouts: int, base_seed: int) -> GamePlan:
    """The plan without the decisions its values file holds (a torn last line cut off, other settings
    refused)."""
    path, done = plan.path, set[int]()
    data = path.read_bytes() if path.exists() else b""
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        with path.open("r+b") as handle:
            handle.truncate(len(keep))
    for line in keep.splitlines():
        record = DecisionValueRecord.model_validate_json(line)
        if record.rollouts != rollouts or record.base_seed != base_seed:
            raise Refused(
                f"{path} holds values made with --rollouts {record.rollouts} --seed {record.base_seed}; "
                "repeat those options or delete the file"
            )
        done.add(record.turn)
    return GamePlan(plan.game_id, path, len(done), [task for task in plan.tasks if task.turn not in done])


class DecisionTask(BaseModel):
    """One decision to value: everything a worker needs (small, so it travels to a cluster cheaply)."""

    model_config = ConfigDict(frozen=True)

    game_id: str
    players: int
    deck: tuple[str, ...]
    history: tuple[Move, ...]  # the moves before this decision
    turn: int
    seat: int
    player: str
    chosen: str  # the logged move
    legal_moves: tuple[str, ...]  # the logged legal moves, in order
    rollouts: int
    base_seed: int


def plan_game(
    log: GameLogContents, done: set[int], rollouts: int, base_seed: int, from_turn: int = 1
) -> list[DecisionTask]:
    """The game's decisions from `from_turn` on that are not in `done`, in turn order."""
    header = log.header
    assert header is not None  # complete games have headers
    history = tuple(record.move for record in log.moves)
    return [
        DecisionTask(
            game_id=header.game_id,
            players=header.players,
            deck=tuple(header.deck),
            history=history[: record.turn - 1],
            turn=record.turn,
            seat=record.seat,
            player=record.player,
            chosen=record.move.description,
            legal_moves=tuple(record.legal_moves),
            rollouts=rollouts,
            base_seed=base_seed,
        )
        for record in log.moves
        if record.turn >= from_turn and record.turn not in done
    ]


def value_decision(task: DecisionTask) -> str:
    """The values file line of one decision (a pure function of the task: the same line on any machine)."""
    view = position_view(task.players, list(task.deck), list(task.history))
    seed = decision_seed(task.base_seed, task.game_id, task.turn)
    values = move_values(view, task.rollouts, seed)
    listed = {text: i for i, text in enumerate(task.legal_moves)}
    line = DecisionValueRecord(
        game_id=task.game_id,
        turn=task.turn,
        seat=task.seat,
        player=task.player,
        rollouts=task.rollouts,
        base_seed=task.base_seed,
        seed=seed,
        bot=values.bot,
        chosen=task.chosen,
        best=view.legal_moves[values.best].description,
        moves=[
            MoveValueRecord(
                move=m.description, logged_index=listed.get(m.description), value=m.value, se=m.se
            )
            for m in values.moves
        ],
    )
    return line.model_dump_json() + "\n"


SYNC_INTERVAL_S = 1.0  # the files written to are fsynced together about this often


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class ValuesWriter:
    """Appends each game's lines to its values file in turn order, whatever order they are valued in;
    fsyncs the files every SYNC_INTERVAL_S, a game's file once complete, and all on `sync()`. Batching is
    safe: a line a crash loses is valued again on resume, to the same bytes (rollouts are deterministic),
    and one fsync per line would make the disk a cluster driver's limit (BENCHMARKS.md section 6)."""

    def __init__(self, paths: dict[str, Path], plans: list[DecisionTask]) -> None:
        self._paths = paths
        self._order: dict[str, list[int]] = {}
        for task in plans:
            self._order.setdefault(task.game_id, []).append(task.turn)
        self._next = dict.fromkeys(self._order, 0)
        self._waiting: dict[tuple[str, int], str] = {}
        self._unsynced: set[Path] = set()
        self._synced_at = time.monotonic()
        self.written = 0

    def add(self, task: DecisionTask, line: str) -> int:
        """Keep a valued decision; write what is now in order. Returns the number of lines written."""
        self._waiting[(task.game_id, task.turn)] = line
        order, at = self._order[task.game_id], self._next[task.game_id]
        ready = []
        while at < len(order) and (task.game_id, order[at]) in self._waiting:
            ready.append(self._waiting.pop((task.game_id, order[at])))
            at += 1
        if ready:
            path = self._paths[task.game_id]
            with path.open("a", encoding="utf-8") as handle:
                handle.write("".join(ready))
            self._next[task.game_id] = at
            self.written += len(ready)
            if at == len(order):  # the game's file is complete: on disk before anyone is told so
                _fsync(path)
                self._unsynced.discard(path)
            else:
                self._unsynced.add(path)
        if self._unsynced and time.monotonic() - self._synced_at >= SYNC_INTERVAL_S:
            self.sync()
        return len(ready)

    def sync(self) -> None:
        """fsync every file written to since the last sync."""
        for path in sorted(self._unsynced):
            _fsync(path)
        self._unsynced.clear()
        self._synced_at = time.monotonic()

    def written_in(self, game_id: str) -> int:
        """Lines written to this game's file so far (0 for a game with nothing planned)."""
        return self._next.get(game_id, 0)

    @property
    def held(self) -> int:
        """Decisions valued but not written yet (an earlier one of their game is still missing)."""
        return len(self._waiting)

