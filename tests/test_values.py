"""Move values by rollouts: sampled worlds agree with everything the seat knows, and the values match simple,
independently computed answers on fixed positions."""

from __future__ import annotations

import gc
import itertools
import math
import random
from collections import Counter

import pytest

from harness.bots import get_bot
from harness.engine.game import Game, deck_for_seed
from harness.engine.replay import replay_to_end
from harness.play.values import (
    MAX_ROLLOUTS,
    check_rollouts,
    move_values,
    position_view,
    rollout_scores,
    sample_own_hand,
    sample_world,
)
from harness.schema.moves import Move, MoveKind
from harness.view.builder import build_view, is_playable
from harness.view.seat_view import SeatView
from tests.conftest import random_game
from tests.test_view import counterfactual


def view_of(game: Game) -> SeatView:
    return build_view(game.observe(game.current_player))


def bot_game(players: int, seed: int, moves: int) -> Game:
    """A game after `moves` moves of the built-in player (fewer if it ends first)."""
    bot = get_bot("smart")
    game = Game(players, deck_for_seed(seed))
    for _ in range(moves):
        if game.is_over:
            break
        view = view_of(game)
        game.apply(view.legal_moves[bot.decide(view).move_index].move)
    return game


def exact_play_chance(view: SeatView, index: int) -> float:
    """P(own card `index` is playable), by enumerating every assignment of unseen copies to the own hand that the
    hint knowledge allows, each weighted by how many distinct physical copies realise it."""
    slots = [
        [
            f"{c}{r}"
            for c in own.knowledge.could_be_colors
            for r in own.knowledge.could_be_ranks
            if view.unseen.get(f"{c}{r}", 0) > 0
        ]
        for own in view.own_hand
    ]
    total = hit = 0
    for hand in itertools.product(*slots):
        used = Counter(hand)
        weight = math.prod(math.perm(view.unseen.get(name, 0), n) for name, n in used.items())
        total += weight
        if is_playable(hand[index], view.fireworks):
            hit += weight
    return hit / total


# ---- the sampler -------------------------------------------------------------------------------------------------


def test_sampled_own_hands_are_exactly_uniform_over_consistent_assignments() -> None:
    # Slot 0 may be A or B, slot 1 only A; copies: A x2, B x1. The four assignments of physical copies are
    # (A', A''), (A'', A'), (B, A'), (B, A''): slot 0 is B half the time. Drawing slot by slot without the
    # rejection step would give B only a third of the time.
    rng = random.Random(3)
    draws = Counter(tuple(sample_own_hand([["A", "B"], ["A"]], {"A": 2, "B": 1}, rng)) for _ in range(6000))
    assert set(draws) == {("A", "A"), ("B", "A")}
    assert abs(draws[("B", "A")] / 6000 - 0.5) < 0.03


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_sampled_world_looks_exactly_like_the_real_one_to_the_seat(players: int) -> None:
    """Replaying the history on a sampled deck gives the seat the very same view, for many states and samples:
    the own cards fit the hints, the other hands are as seen, and the unseen cards are the ones left over."""
    rng = random.Random(players)
    checked = differed = 0
    for trial in range(12):
        game = random_game(players, seed=500 + 10 * players + trial, moves=rng.randrange(0, 70))
        if game.is_over:
            continue
        view = view_of(game)
        history = [e.move for e in game.history]
        for _ in range(3):
            world = sample_world(view, rng)
            assert sorted(world) == sorted(game.deck)
            twin = replay_to_end(players, world, history)
            assert view_of(twin) == view
            differed += twin.hands()[view.seat] != game.hands()[view.seat] or world != list(game.deck)
            checked += 1
    assert checked >= 20 and differed >= checked // 2


def test_values_never_depend_on_the_true_hidden_cards() -> None:
    """Counterfactual: the same position with other own cards that fit the same hints (and so another deck) gets
    exactly the same values for the same seed."""
    rng = random.Random(11)
    compared = 0
    for seed in range(40, 60):
        game = bot_game(2, seed, moves=rng.randrange(45, 60))
        if game.is_over:
            continue
        other = counterfactual(game, game.current_player, rng)
        if other is None:
            continue
        assert other.hands()[game.current_player] != game.hands()[game.current_player]
        first = move_values(view_of(game), rollouts=2, seed=5, only=[0, 1, 2])
        assert move_values(view_of(other), rollouts=2, seed=5, only=[0, 1, 2]) == first
        compared += 1
        if compared == 2:
            break
    assert compared == 2


# ---- values on fixed positions -----------------------------------------------------------------------------------


def certain_play_and_certain_strike() -> tuple[SeatView, int, int]:
    """Seed 0, two players, one life left: player 0 knows cards 1 and 2 are 1s (playable on empty fireworks) and
    card 0 is a 5 (a certain strike, which ends the game)."""
    deck = deck_for_seed(0)
    assert Game(2, deck).hands() == [["G5", "B1", "B2", "B1", "G4"], ["Y4", "Y2", "R1", "Y1", "G2"]]
    moves = [
        Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=1),
        Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=1),  # player 0 learns B1, B1 are 1s
        Move(kind=MoveKind.PLAY, card_index=2),  # B2: strike
        Move(kind=MoveKind.PLAY, card_index=0),  # Y4: strike, one life left
        Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=1),
        Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=5),  # player 0 learns G5 is a 5
    ]
    view = position_view(2, deck, moves)
    assert view.seat == 0 and view.life_tokens == 1
    assert view.own_hand[0].playable_probability == 0.0
    assert view.own_hand[1].playable_probability == view.own_hand[2].playable_probability == 1.0
    play = {m.move.card_index: m.index for m in view.legal_moves if m.move.kind is MoveKind.PLAY}
    return view, play[1], play[0]


def test_a_certain_strike_on_the_last_life_is_worth_the_current_score_exactly() -> None:
    view, good, strike = certain_play_and_certain_strike()
    values = move_values(view, rollouts=6, seed=0, only=[good, strike])
    by_index = {m.index: m for m in values.moves}
    assert by_index[strike].value == view.score == 0 and by_index[strike].se == 0.0
    assert by_index[good].value >= view.score + 1
    assert values.best == good


def last_turn_view() -> tuple[SeatView, int]:
    """A position where the move about to be made is the last of the game, and an own card whose chance of being
    playable, by full enumeration of the worlds the seat can know, is strictly between 0 and 1."""
    for seed in range(30):
        game = bot_game(2, seed, moves=200)
        history = [e.move for e in game.history]
        view = position_view(2, list(game.deck), history[:-1])
        if view.turns_left != 1:
            continue
        uncertain = [i for i in range(len(view.own_hand)) if 0 < exact_play_chance(view, i) < 1]
        if uncertain:
            return view, uncertain[0]
    raise AssertionError("no last-turn position with an uncertain card in 30 games")


def test_last_turn_values_are_exact() -> None:
    """On the last turn nothing follows: a hint or discard is worth the current score exactly (no noise), and a
    play is worth the score plus the chance the card is playable, computed here by full enumeration."""
    view, card = last_turn_view()
    quiet = next(m.index for m in view.legal_moves if m.move.kind is not MoveKind.PLAY)
    play = next(
        m.index for m in view.legal_moves if m.move.kind is MoveKind.PLAY and m.move.card_index == card
    )
    values = move_values(view, rollouts=100, seed=2, only=[quiet, play])
    still, gamble = values.moves
    assert still.value == view.score and still.se == 0.0
    expected = view.score + exact_play_chance(view, card)
    assert gamble.se is not None and gamble.se > 0
    assert abs(gamble.value - expected) <= 4 * gamble.se


def test_values_are_deterministic_by_seed_and_the_rollout_count_is_checked() -> None:
    view = view_of(bot_game(3, 9, moves=40))
    first = move_values(view, rollouts=2, seed=7, only=[0, 1])
    assert move_values(view, rollouts=2, seed=7, only=[0, 1]) == first
    assert [m.index for m in first.moves] == [0, 1]
    assert first.rollouts == 2 and first.seed == 7 and first.turn == view.turn
    for bad in (0, -1, MAX_ROLLOUTS + 1):
        with pytest.raises(ValueError, match=f"outside 1-{MAX_ROLLOUTS}"):
            check_rollouts(bad)
    single = move_values(view, rollouts=1, seed=7, only=[0])
    assert single.moves[0].se is None


def test_rollouts_make_no_reference_cycles_so_pausing_the_collector_keeps_no_memory() -> None:
    """rollout_scores pauses the cycle collector (its passes took about a seventh of the time and found nothing):
    that is sound only while play-outs leave no reference cycles, which would otherwise pile up for a whole
    decision. It leaves the collector as it found it, on or off."""
    view = view_of(bot_game(4, 3, moves=12))
    moves = [legal.move for legal in view.legal_moves]
    rollout_scores(view, moves, 1, 0, "smart")  # anything built once on first use is built now
    assert gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        rollout_scores(view, moves, 2, 1, "smart")
        assert not gc.isenabled()
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_what_rollouts_leave_alive_is_not_scanned_at_once_and_frozen_objects_stay_frozen() -> None:
    """The bot's and the view's caches grow by some 160,000 objects over a decision; scanned by the first young
    collection after it, they cost 0.1 s (5% of a decision). rollout_scores hands them to the oldest generation
    instead, which full collections still scan: no collection is due right after. A process that froze objects of
    its own (the run's workers do, harness/run/games.py) keeps them frozen."""
    view = view_of(bot_game(2, 5, moves=10))
    moves = [legal.move for legal in view.legal_moves]
    rollout_scores(view, moves, 2, 3, "smart")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    # nothing was scanned and promoted by a young collection: the young generations hold only what came after
    assert len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1)) < 1000
    kept: list[list[int]] = [[1], [2]]  # tracked containers, frozen with everything else
    gc.freeze()
    try:
        rollout_scores(view, moves, 2, 4, "smart")
        assert gc.isenabled() and gc.get_freeze_count() > 0
        assert not any(any(found is k for k in kept) for found in gc.get_objects())  # still in the permanent generation
    finally:
        gc.unfreeze()
    assert any(any(found is k for k in kept) for found in gc.get_objects())
