"""Reading the move values `hanabi-eval values` writes (`<run>/values/<game_id>.jsonl`, one
DecisionValueRecord a line), for the export and the report.

A torn last line (the values command redoes that decision on its next run) is left out; any other line that is
not a valid record makes the file unreadable (ValuesUnreadable, "path:line: problem").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.schema.records import MoveRecord

VALUES_DIR = "values"  # the folder of a run that `hanabi-eval values` writes


class ValuesUnreadable(ValueError):
    """A values file with a line that is not a valid record, or values that do not match the game's log."""


class MoveValueRecord(BaseModel):
    """One legal move's value as written: its text, its index in the logged legal moves, mean and standard error."""

    model_config = ConfigDict(frozen=True)

    move: str
    logged_index: int | None
    value: float
    se: float | None  # None with a single rollout


class DecisionValueRecord(BaseModel):
    """One decision's values: the rollout settings that made them and every legal move's value."""

    model_config = ConfigDict(frozen=True)

    game_id: str
    turn: int
    seat: int
    player: str
    rollouts: int
    base_seed: int  # the command's --seed
    seed: int  # this decision's rollout seed, derived from base_seed, the game and the turn
    bot: str  # the built-in player that played the rollouts
    chosen: str
    best: str
    moves: list[MoveValueRecord]


def values_path(run: Path, game_id: str) -> Path:
    return run / VALUES_DIR / f"{game_id}.jsonl"


def read_values(path: Path) -> dict[int, DecisionValueRecord]:
    """The decisions of one values file by turn; {} when the file does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValuesUnreadable(f"{path}: unreadable ({exc.strerror or exc})") from None
    lines = data.split(b"\n")
    lines.pop()  # what follows the last newline: nothing, or a torn line the values command redoes on its next run
    found: dict[int, DecisionValueRecord] = {}
    for number, line in enumerate(lines, start=1):
        try:
            record = DecisionValueRecord.model_validate(json.loads(line))
        except (ValueError, ValidationError, UnicodeError):
            raise ValuesUnreadable(f"{path}:{number}: not a valid values record") from None
        if record.turn in found:
            raise ValuesUnreadable(f"{path}:{number}: turn {record.turn} is valued twice")
        found[record.turn] = record
    return found


def aligned(
    record: DecisionValueRecord, legal_moves: Sequence[str], chosen: int, where: str
) -> list[MoveValueRecord]:
    """The decision's move values in the order of the logged legal moves; ValuesUnreadable (naming `where`) unless
    they value exactly those moves and name the logged choice."""
    if record.chosen != legal_moves[chosen]:
        raise ValuesUnreadable(
            f"{where}: turn {record.turn} values a decision that chose {record.chosen}, but the game log chose "
            f"{legal_moves[chosen]}"
        )
    by_index: dict[int, MoveValueRecord] = {}
    for move in record.moves:
        index = move.logged_index
        if index is None or not 0 <= index < len(legal_moves) or legal_moves[index] != move.move:
            raise ValuesUnreadable(f"{where}: turn {record.turn} values {move.move}, not a logged legal move")
        by_index[index] = move
    if len(by_index) != len(legal_moves) or len(record.moves) != len(legal_moves):
        raise ValuesUnreadable(
            f"{where}: turn {record.turn} values {len(record.moves)} moves, not the {len(legal_moves)} legal ones"
        )
    return [by_index[i] for i in range(len(legal_moves))]


def game_values(run: Path, game_id: str, moves: Sequence[MoveRecord]) -> dict[int, DecisionValueRecord]:
    """A game's move values by turn ({} when its run has none); ValuesUnreadable for a damaged file, or unless each
    valued turn is a logged move of `moves` whose decision the values describe."""
    path = values_path(run, game_id)
    values = read_values(path)
    logged = {record.turn: record for record in moves}
    for turn, record in values.items():
        move = logged.get(turn)
        if move is None:
            raise ValuesUnreadable(f"{path}: turn {turn} is not a logged move of the game")
        aligned(record, move.legal_moves, move.move_index, str(path))
    return values
