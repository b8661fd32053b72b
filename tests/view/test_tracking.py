"""Mycroft state tracking is measured exactly against HLE's could-be sets; omissions count as wrong."""

from __future__ import annotations

from harness.strategies.offline_reply import deductions_of
from harness.view.builder import build_view
from harness.view.tracking_score import score_deductions
from tests.helpers import random_game


def view_after_clues():
    game = random_game(3, seed=31, moves=14)
    return build_view(game.observe(game.current_player))


def test_the_engines_own_sets_score_perfectly() -> None:
    view = view_after_clues()
    tracking = score_deductions(view, deductions_of(view))
    assert tracking.own.exact == tracking.own.precision == tracking.own.recall == 1.0
    assert tracking.others.exact == 1.0 and tracking.others.cards == sum(len(h.cards) for h in view.others)


def test_missing_deductions_count_as_wrong_not_skipped() -> None:
    view = view_after_clues()
    block = deductions_of(view)
    del block[f"player_{view.others[0].player}"]
    tracking = score_deductions(view, block)
    assert tracking.own.exact == 1.0
    missing = len(view.others[0].cards)
    assert tracking.others.missing == missing
    assert tracking.others.exact == 1 - missing / tracking.others.cards
    assert score_deductions(view, None).own.exact == 0.0


def test_precision_and_recall_of_a_too_wide_and_a_too_narrow_set() -> None:
    view = view_after_clues()
    block = deductions_of(view)
    card = view.own_hand[0].knowledge
    truth = len(card.could_be_colors) * len(card.could_be_ranks)
    block[f"player_{view.seat}"][0] = {"card": 0, "colors": list("RYGWB"), "ranks": [1, 2, 3, 4, 5]}
    wide = score_deductions(view, block).own
    n = len(view.own_hand)
    assert wide.recall == 1.0
    assert abs(wide.precision - ((n - 1) + truth / 25) / n) < 1e-9
    assert wide.exact == (n - 1) / n if truth != 25 else 1.0
    narrow_card = {"card": 0, "colors": [card.could_be_colors[0]], "ranks": [card.could_be_ranks[0]]}
    block[f"player_{view.seat}"][0] = narrow_card
    narrow = score_deductions(view, block).own
    assert narrow.precision == 1.0
    assert abs(narrow.recall - ((n - 1) + 1 / truth) / n) < 1e-9
