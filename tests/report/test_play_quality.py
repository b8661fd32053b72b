"""Play-quality judgements on a hand-made game whose every move's verdict is known, and the rating-agreement rule."""

from __future__ import annotations

from collections import Counter

from harness.engine.seeds import resolve_seeds
from harness.report.quality import chosen_is_top, judge_moves
from harness.schema.cards import full_deck_counts
from harness.schema.moves import Move, MoveKind


def _hint_rank(rank: int) -> Move:
    return Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=rank)


def test_each_flag_fires_on_exactly_the_move_that_earns_it() -> None:
    (seed,) = [s for s in resolve_seeds("standard") if s.seed == 1]
    deck = list(seed.deck)
    # Player 0 holds B5 B3 R3 B4 Y1, player 1 holds Y5 G1 W1 B2 W5 (oldest first).
    assert deck[:10] == ["B5", "B3", "R3", "B4", "Y1", "Y5", "G1", "W1", "B2", "W5"]
    moves = [
        _hint_rank(5),  # 1: P0 tells P1 about its two 5s: new information
        Move(kind=MoveKind.REVEAL_COLOR, target_offset=1, color="B"),  # 2: P1 tells P0 its blue cards
        _hint_rank(5),  # 3: P0 repeats the same clue: P1 learns nothing
        Move(kind=MoveKind.PLAY, card_index=0),  # 4: P1 plays a card it knows is a 5 on empty fireworks
        Move(kind=MoveKind.PLAY, card_index=4),  # 5: P0 plays a non-blue card that may be a 1 (it is Y1)
        Move(kind=MoveKind.DISCARD, card_index=3),  # 6: P1 discards W5, the only copy
        Move(kind=MoveKind.DISCARD, card_index=2),  # 7: P0 discards R3, whose other copy is still out
        _hint_rank(5),  # 8: P1 tells P0 about B5: new information
    ]
    flags = judge_moves(2, deck, moves)
    assert [f.turn for f in flags] == list(range(1, 9))
    assert [f.uninformative_clue for f in flags] == [False, False, True, False, False, False, False, False]
    assert [f.known_unplayable_play for f in flags] == [False, False, False, True, False, False, False, False]
    assert [f.critical_discard for f in flags] == [False, False, False, False, False, True, False, False]


def test_only_the_last_copy_of_a_card_that_can_still_score_is_critical() -> None:
    hands = ["R4", "R4", "R5", "Y1", "Y1", "G1", "G1", "B1", "B1", "W1"]
    rest = full_deck_counts() - Counter(hands)
    deck = hands + sorted(rest.elements())
    clue = Move(kind=MoveKind.REVEAL_COLOR, target_offset=1, color="Y")  # P1 points at P0's Y1s
    moves = [
        _hint_rank(1),  # 1: P0 hints, so that discards are allowed
        clue,  # 2: P1 hints
        Move(kind=MoveKind.DISCARD, card_index=0),  # 3: P0 discards one R4: the other is still out
        clue,  # 4
        Move(kind=MoveKind.DISCARD, card_index=0),  # 5: P0 discards the other R4: the last copy, still needed
        clue,  # 6
        Move(kind=MoveKind.DISCARD, card_index=0),  # 7: P0 discards R5: the only copy, but dead without an R4
    ]
    flags = judge_moves(2, deck, moves)
    assert [f.critical_discard for f in flags] == [False, False, False, False, True, False, False]


def test_agreement_with_own_ratings() -> None:
    assert chosen_is_top([0.1, 0.9, 0.3], 1) is True
    assert chosen_is_top([0.1, 0.9, 0.9], 2) is True  # a tie at the top is agreement
    assert chosen_is_top([0.1, 0.9, 0.3], 0) is False
    assert chosen_is_top([None, 0.9, 0.3], 0) is False  # the chosen move was left unrated
    assert chosen_is_top([None, None], 1) is None  # no ratings: skipped
