"""State-tracking judge scores, when a run holds them (`<run>/judge/<game_id>.jsonl`, read through
harness/schema/judge_records.py): a damaged line is named and left out, a judgement of a game the run does not
hold is ignored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped
from harness.report.rows import GameRow
from harness.schema.judge_records import RATINGS, judge_files, read_judgements


class JudgedTurn(BaseModel):
    """A judged turn placed in its group, with the status of its game."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    game_id: str
    group: str
    game_status: str
    turn: int
    seat: int
    judge_model: str
    overall_rating: float
    deduction_accuracy: float
    history_integration: float
    state_tracking_quality: float


def judged_turns(run: Path, games: Mapping[str, GameRow]) -> tuple[list[JudgedTurn], list[tuple[str, str]]]:
    """The judged turns of a run's games, and what of their judge files could not be read (path, problem)."""
    turns: list[JudgedTurn] = []
    unreadable: list[tuple[str, str]] = []
    for path in judge_files(run):
        game = games.get(path.stem)
        if game is None:
            continue
        try:
            judgements, skipped = read_judgements(path)
        except OSError as exc:
            unreadable.append((str(path), f"unreadable ({exc})"))
            continue
        if skipped:
            unreadable.append((str(path), "; ".join(f"line {number}: {problem}" for number, problem in skipped)))
        turns.extend(
            JudgedTurn(
                run_id=game.run_id,
                group=game.group,
                game_status=game.status,
                **record.model_dump(include={"game_id", "turn", "seat", "judge_model", *RATINGS}),
            )
            for record in judgements
        )
    return turns, unreadable


class JudgeSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str
    judge_models: list[str]
    games: int
    turns: int
    overall_rating: float
    deduction_accuracy: float
    history_integration: float
    state_tracking_quality: float


def judge_summaries(turns: Sequence[JudgedTurn]) -> list[JudgeSummary]:
    """Mean judge ratings per group over the judged turns of complete games."""
    by_group = grouped((turn for turn in turns if turn.game_status == "complete"), lambda turn: turn.group)
    return [
        JudgeSummary(
            group=group,
            judge_models=sorted({t.judge_model for t in judged}),
            games=len({(t.run_id, t.game_id) for t in judged}),
            turns=len(judged),
            **{name: float(np.mean([getattr(t, name) for t in judged])) for name in RATINGS},
        )
        for group, judged in sorted(by_group.items())
    ]


def judge_by_turn(turns: Sequence[JudgedTurn], turn_bin: int) -> dict[tuple[str, int], tuple[int, float]]:
    """(group, bin index) -> (judged turns, mean overall rating), complete games only."""
    done = (turn for turn in turns if turn.game_status == "complete")
    bins = grouped(done, lambda turn: (turn.group, (turn.turn - 1) // turn_bin))
    return {key: (len(rated), float(np.mean([t.overall_rating for t in rated]))) for key, rated in bins.items()}
