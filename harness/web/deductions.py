"""A working-memory (Mycroft) reply's deductions beside the engine's truth, card by card.

The truth is what HLE says each player could know about each card of their own hand at that moment (the could-be
colours and ranks), the same truth the move's `tracking` score was measured against; the stated side is the reply's
deduction block read by the same reader (harness/view/tracking_score.py). A cell is wrong where the stated colours
or ranks differ from the truth, and missing where the block says nothing readable about the card.
"""

from __future__ import annotations

import json
from typing import Any

from harness.engine.game import Game
from harness.view.tracking_score import Tracking, stated_deductions
from harness.web.board import Frozen, color_letters, rank_digits


class DeductionCell(Frozen):
    index: int
    true_colors: str
    true_ranks: str
    stated_colors: str | None  # None: the block states nothing readable about this card
    stated_ranks: str | None
    colors_right: bool
    ranks_right: bool


class DeductionRow(Frozen):
    player: int
    offset: int  # seats after the deducing seat (0: its own hand)
    cells: list[DeductionCell]


class Deductions(Frozen):
    rows: list[DeductionRow]
    block: str  # the deduction block as the reply gave it, as JSON text
    tracking: Tracking | None  # the move's measured scores, when the log holds them


def deductions_of(game: Game, seat: int, memory: dict[str, Any] | None, tracking: Any) -> Deductions | None:
    """The deductions of `seat`'s move in the state `game` is in (before the move), or None when the move's
    notes hold no deduction block."""
    if not memory or memory.get("deductions") is None:
        return None
    block = memory["deductions"]
    stated = stated_deductions(seat, game.players, block)
    rows = []
    for offset in range(game.players):
        player = (seat + offset) % game.players
        cells = []
        for index, known in enumerate(game.knowledge(player)):
            said = stated[player].get(index)
            true_colors, true_ranks = color_letters(known.could_be_colors), rank_digits(known.could_be_ranks)
            colors = color_letters(said[0]) if said else None
            ranks = rank_digits(said[1]) if said else None
            cells.append(
                DeductionCell(
                    index=index,
                    true_colors=true_colors,
                    true_ranks=true_ranks,
                    stated_colors=colors,
                    stated_ranks=ranks,
                    colors_right=colors == true_colors,
                    ranks_right=ranks == true_ranks,
                )
            )
        rows.append(DeductionRow(player=player, offset=offset, cells=cells))
    try:
        scores = Tracking.model_validate(tracking) if tracking is not None else None
    except ValueError:
        scores = None
    return Deductions(rows=rows, block=json.dumps(block, indent=1, ensure_ascii=False), tracking=scores)
