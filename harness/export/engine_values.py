"""HanabiRewards' engine-value columns, read from the run's `hanabi-eval values` files (schema.value_records).

Per decided move: each legal move's value and standard error, parallel to the row's candidate moves, and the rollout
count behind them. A decision without values (values never computed for the run, or before its --from-turn) gets
0.0 lists of the same length and rollouts 0, never null, so exports with and without values share one schema. The
settings the values were made with (bot, --rollouts, --seed) are summed up per run for the card and the manifest.
"""

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


def engine_columns(game: ExportGame, record: MoveRecord, values: DecisionValueRecord | None) -> EngineColumns:
    """The row's engine_values, engine_value_se and engine_rollouts; ValuesUnreadable when the values file does not
    describe this decision of the log."""
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
    """Per run and setting (bot, rollouts, base seed): the exported games and rows with values of that setting (the
    values files as the rows read them, each checked against its game then)."""
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
