"""HanabiLogs rows (one per model call) and HanabiRewards rows (one per decided move, with ratings and engine
values), copied from the logs and values files, never recomputed."""

from __future__ import annotations

import json
from collections.abc import Iterator

from harness.export.engine_values import engine_columns
from harness.export.rows import ChatMessage, LogRow, RewardRow, TrainMessage
from harness.export.source import ExportGame
from harness.schema.errors import Refused
from harness.schema.records import Attempt, Call, Message, MoveRecord
from harness.schema.value_records import DecisionValueRecord, ValuesUnreadable, game_values


def meta(game: ExportGame, record: MoveRecord, model: str, role: str) -> dict[str, object]:
    """The metadata columns of a row about `record`."""
    return {
        "run_id": game.run_id,
        "game_id": game.header.game_id,
        "seed": game.header.seed,
        "seed_set": game.header.seed_set,
        "repeat": game.header.repeat,
        "players": game.header.players,
        "seat": record.seat,
        "turn": record.turn,
        "model": model,
        "scaffold": record.scaffold,
        "role": role,
        "final_score": game.result.fireworks_score,
        "engine_score": game.result.engine_score,
    }


def chat(messages: list[Message]) -> list[ChatMessage]:
    return [ChatMessage(role=m.role, content=m.content) for m in messages]


def accepted(game: ExportGame, record: MoveRecord, call: Call) -> Attempt:
    """The call's final attempt, which a decided move's log guarantees to be a valid reply."""
    final = call.final
    if final.error_kind is not None or final.reply is None:
        raise Refused(
            f"{game.run_id}/{game.header.game_id} turn {record.turn}: the last attempt of the "
            f"{call.role!r} call is not an accepted reply ({final.error_kind}); the log is damaged"
        )
    return final


def rejected_replies(call: Call) -> int:
    """Replies of the call that came back and were not accepted (provider errors, which bring no reply, excluded)."""
    return sum(1 for a in call.attempts[:-1] if a.reply is not None)


def decision_columns(game: ExportGame, record: MoveRecord) -> tuple[Call, dict[str, object]]:
    """The move's deciding call (its last: a multi-call scaffold's decider) and the columns of its rows."""
    call = record.calls[-1]
    return call, {
        **meta(game, record, game.header.seats[record.seat].model, call.role),
        "prompt": chat(call.attempts[0].messages),
        "rejected_replies": rejected_replies(call),
    }


def train_messages(call: Call, final: Attempt, repair_dialogue: bool) -> list[TrainMessage]:
    """The first request (with repair_dialogue, the accepted one's) and the reply, alone of weight 1."""
    sent = final.messages if repair_dialogue else call.attempts[0].messages
    return [
        *(TrainMessage(role=m.role, content=m.content, weight=0) for m in sent),
        TrainMessage(role="assistant", content=final.reply or "", weight=1),
    ]


def log_rows(game: ExportGame, moves: list[MoveRecord], repair_dialogue: bool = False) -> Iterator[LogRow]:
    """A row per call of the selected seats' moves; a person's moves are left out (no prompt was sent)."""
    for record in game.selected(moves):
        if game.header.seats[record.seat].human:
            continue
        for call in record.calls:
            final = accepted(game, record, call)
            rejected = rejected_replies(call)
            yield LogRow(
                **meta(game, record, call.model, call.role),
                messages=train_messages(call, final, repair_dialogue),
                reasoning=final.reasoning or "",
                attempts=len(call.attempts),
                rejected_replies=rejected,
                repair_dialogue=repair_dialogue and len(final.messages) > len(call.attempts[0].messages),
            )


def reward_row(game: ExportGame, record: MoveRecord, values: DecisionValueRecord | None = None) -> RewardRow:
    call, columns = decision_columns(game, record)
    final = accepted(game, record, call)
    if len(record.ratings) != len(record.legal_moves):
        raise Refused(
            f"{game.run_id}/{game.header.game_id} turn {record.turn}: {len(record.ratings)} ratings for "
            f"{len(record.legal_moves)} legal moves; the log is damaged"
        )
    extra = {
        "invalid_ratings": record.invalid_ratings,
        "tracking": record.tracking,
        "memory": record.memory,
        "move": record.move.model_dump(mode="json"),
    }
    return RewardRow(
        **columns,
        completion=[ChatMessage(role="assistant", content=final.reply or "")],
        candidate_moves=list(record.legal_moves),
        candidate_ratings=[0.0 if r is None else r for r in record.ratings],
        candidate_rated=[r is not None for r in record.ratings],
        ratings_complete=all(r is not None for r in record.ratings),
        **engine_columns(game, record, values),
        chosen_move_index=record.move_index,
        chosen_move=record.legal_moves[record.move_index],
        reason=record.reason,
        attempts=len(call.attempts),
        extra=json.dumps(extra, sort_keys=True),
    )


def reward_rows(game: ExportGame, moves: list[MoveRecord]) -> Iterator[RewardRow]:
    try:
        values = game_values(game.run_path, game.header.game_id, moves)
        rows = [reward_row(game, record, values.get(record.turn)) for record in game.selected(moves)]
    except ValuesUnreadable as exc:
        raise Refused(f"{exc}; delete that file and run `hanabi-eval values` on the run again") from None
    yield from rows
