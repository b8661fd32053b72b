"""Valuing a run's logged decisions into `<run>/values/<game_id>.jsonl`, resumably (`hanabi-eval values`).

For each decision of a complete game, every legal move's value by rollouts of the built-in player
(harness.play.values), written as one DecisionValueRecord line (harness.schema.value_records), flushed and fsynced.
Decisions already written with the same settings are kept and skipped; a torn last line is cut off and redone;
values made with other settings are refused, never mixed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from harness.play.values import move_values, position_view
from harness.schema.log_file import GameLogContents, LogCorrupt, read_game_log
from harness.schema.value_records import VALUES_DIR, DecisionValueRecord, MoveValueRecord


class ValuesSettingsMismatch(ValueError):
    """A values file made with other --rollouts/--seed than asked for."""


def decision_seed(seed: int, game_id: str, turn: int) -> int:
    """The seed of one decision's rollouts: fixed by the base seed, the game and the turn."""
    digest = hashlib.sha256(f"{seed}:{game_id}:{turn}".encode()).hexdigest()
    return int(digest[:12], 16)


def complete_games(paths: list[Path]) -> tuple[list[GameLogContents], list[str], list[str]]:
    """The complete games among `paths`, the ids of the others (skipped), and the corrupt logs' problems."""
    complete, skipped, corrupt = [], [], []
    for path in paths:
        try:
            log = read_game_log(path)
        except LogCorrupt as exc:
            corrupt.append(str(exc))
            continue
        if log.complete and log.header is not None:
            complete.append(log)
        else:
            skipped.append(path.stem)
    return complete, skipped, corrupt


def values_file(run: Path, log: GameLogContents) -> Path:
    assert log.header is not None  # complete games have headers
    return run / VALUES_DIR / f"{log.header.game_id}.jsonl"


def done_turns(path: Path, rollouts: int, base_seed: int) -> set[int]:
    """Turns already valued in this file with the same settings; a torn last line is cut off."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        with path.open("r+b") as handle:
            handle.truncate(len(keep))
    turns = set()
    for line in keep.splitlines():
        record = DecisionValueRecord.model_validate_json(line)
        if record.rollouts != rollouts or record.base_seed != base_seed:
            raise ValuesSettingsMismatch(
                f"{path} holds values made with --rollouts {record.rollouts} --seed {record.base_seed}; "
                "repeat those options or delete the file"
            )
        turns.add(record.turn)
    return turns


def value_game(
    log: GameLogContents, path: Path, done: set[int], rollouts: int, base_seed: int, from_turn: int = 1
) -> int:
    """Value the game's decisions from `from_turn` on that are not in `done`, one line each; the number added."""
    header = log.header
    assert header is not None  # complete games have headers
    added = 0
    history = [record.move for record in log.moves]
    with path.open("a", encoding="utf-8") as handle:
        for record in log.moves:
            if record.turn < from_turn or record.turn in done:
                continue
            view = position_view(header.players, header.deck, history[: record.turn - 1])
            seed = decision_seed(base_seed, header.game_id, record.turn)
            values = move_values(view, rollouts, seed)
            listed = {text: i for i, text in enumerate(record.legal_moves)}
            line = DecisionValueRecord(
                game_id=header.game_id,
                turn=record.turn,
                seat=record.seat,
                player=record.player,
                rollouts=rollouts,
                base_seed=base_seed,
                seed=seed,
                bot=values.bot,
                chosen=record.move.description,
                best=view.legal_moves[values.best].description,
                moves=[
                    MoveValueRecord(
                        move=m.description, logged_index=listed.get(m.description), value=m.value, se=m.se
                    )
                    for m in values.moves
                ],
            )
            handle.write(line.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
            added += 1
    return added
