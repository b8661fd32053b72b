"""HanabiRewards' engine-value columns from the `hanabi-eval values` files (zeros where none), and their
settings per run for the card and manifest."""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from harness.export.rows import EngineValuesSource
from harness.export.source import ExportGame, Selection
from harness.schema.records import MoveRecord
from harness.schema.value_records import DecisionValueRecord, aligned, read_values, values_path


class EngineColumns(TypedDict):
    engine_values: list[float]
    engine_value_se: list[float]
    engine_rollouts: int


def engine_columns(
    game: ExportGame, record: MoveRecord, values: DecisionValueRecord | None
) -> EngineColumns:
    """The row's engine value columns; ValuesUnreadable when the values file does not match the log."""
    if values is None:
        zeros = [0.0] * len(record.legal_moves)
        return EngineColumns(engine_values=zeros, engine_value_se=list(zeros), engine_rollouts=0)
    where = str(values_path(game.run_path, game.header.game_id))
    moves = aligned(values, record.legal_moves, record.move_index, where)
    return EngineColumns(
        engine_values=[m.value for m in moves],
        engine_value_se=[0.0 if m.se is None else m.se for m in moves],
        engine_rollouts=values.rollouts,
    )


def values_sources(selection: Selection) -> list[EngineValuesSource]:
    """Per run and values setting (bot, rollouts, base seed): the exported games and rows valued with it."""
    games: dict[tuple[str, str, int, int], set[str]] = defaultdict(set)
    decisions: dict[tuple[str, str, int, int], int] = defaultdict(int)
    for game in selection.games:
        values = read_values(values_path(game.run_path, game.header.game_id))
        for turn in game.turns:
            found = values.get(turn)
            if found is None:
                continue
            key = (game.run_id, found.bot, found.rollouts, found.base_seed)
            games[key].add(game.header.game_id)
            decisions[key] += 1
    return [
        EngineValuesSource(
            run_id=run_id, bot=bot, rollouts=rollouts, base_seed=seed, games=len(games[key]), decisions=decisions[key]
        )
        for key in sorted(games)
        for run_id, bot, rollouts, seed in [key]
    ]
