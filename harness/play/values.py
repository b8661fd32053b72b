"""Engine-grounded move values: every legal move's expected final score when the team continues with a built-in
player, estimated by rollouts.

A decision is given as the acting seat's SeatView, so nothing hidden from that seat can reach the estimate. Each
rollout deals one world consistent with what the seat can know: its own cards are drawn uniformly from the unseen
copies that its hint knowledge (HLE's could-be sets) allows, exactly (rejection sampling, see `sample_own_hand`), and
the cards left in the deck are the remaining unseen copies in a random order. The public history is replayed on that
world, the move is made, and the built-in player plays every seat to the end (on engine/rollout_game.py's copy of
HLE's rules, which gives the same states as the engine without its calls). All moves of a decision share the same
worlds (common random numbers), so differences between moves are less noisy than the values themselves. A value is
the mean final fireworks score (the paper's score, kept after a third strike) with its standard error; rollouts are
deterministic by seed.
"""

from __future__ import annotations

import gc
import math
import random
import statistics
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from pydantic import BaseModel, ConfigDict, field_validator

from harness.bots import DEFAULT_BOT, get_bot
from harness.bots.base import Bot
from harness.bots.conventions import Dealt
from harness.engine.game import Game
from harness.engine.replay import replay_to_end
from harness.engine.rollout_game import RolloutGame
from harness.schema.cards import DECK_SIZE
from harness.schema.moves import Move
from harness.view.builder import build_view
from harness.view.seat_view import SeatView

# Rollouts per move of one decision, at most: each costs a replay and a played-out game.
MAX_ROLLOUTS = 1000
SAMPLER_TRIES = 100_000  # rejection-sampling attempts for one hand before giving up


class MoveValue(BaseModel):
    """One legal move's estimated value."""

    model_config = ConfigDict(frozen=True)

    index: int  # index into the seat's legal moves
    description: str
    value: float  # mean final fireworks score over the rollouts
    se: float | None  # standard error of that mean (None with a single rollout)


class DecisionValues(BaseModel):
    """The values of every legal move of one decision."""

    model_config = ConfigDict(frozen=True)

    turn: int
    seat: int
    bot: str
    rollouts: int
    seed: int
    moves: list[MoveValue]

    @property
    def best(self) -> int:
        """Legal-move index of the highest-valued move (the first listed on ties)."""
        top = max(range(len(self.moves)), key=lambda i: (self.moves[i].value, -i))
        return self.moves[top].index


def check_rollouts(rollouts: int) -> int:
    """The rollout count, unless it lies outside 1-MAX_ROLLOUTS (ValueError)."""
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise ValueError(f"is outside 1-{MAX_ROLLOUTS}; pick a count in that range")
    return rollouts


def at_least_one(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise ValueError("must be at least 1")
    return value


class ValuesSettings(BaseModel):
    """How decisions are valued (`hanabi-eval values`): sampled worlds per decision, their base seed, the first turn
    valued, and the processes (or Ray tasks at once) they are spread over; every default and check is here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rollouts: int = 16
    seed: int = 0
    from_turn: int = 1
    workers: int | None = None  # None: this process (or, with Ray, the local instance's CPUs)

    _rollouts = field_validator("rollouts")(check_rollouts)
    _at_least_one = field_validator("from_turn", "workers")(at_least_one)


def position_view(players: int, deck: list[str], moves: Sequence[Move]) -> SeatView:
    """The view of the seat to move after `moves`, rebuilt from a game log's deck and moves."""
    game = replay_to_end(players, list(deck), list(moves))
    if game.is_over:
        raise ValueError("the game is over after these moves: there is no decision to value")
    return build_view(game.observe(game.current_player))


def sample_own_hand(
    allowed: Sequence[Sequence[str]], unseen: dict[str, int], rng: random.Random
) -> list[str]:
    """Draw the seat's own cards uniformly among the assignments of unseen copies that the hint knowledge allows.

    Proposal: slot by slot, a copy drawn uniformly from the allowed copies still left (avail_i of them). The target
    gives every assignment of distinct physical copies the same weight, so a proposed hand is accepted with
    probability prod(avail_i / total_i), where total_i counts slot i's allowed copies before any is taken: the
    accepted hands are then exactly uniform.
    """
    names = [sorted(x for x in slot if unseen.get(x, 0) > 0) for slot in allowed]
    totals = [sum(unseen[x] for x in slot) for slot in names]
    if any(total == 0 for total in totals):
        raise ValueError("no unseen card fits a slot's hint knowledge: the view is inconsistent")
    for _ in range(SAMPLER_TRIES):
        left = dict(unseen)
        hand: list[str] = []
        accept = 1.0
        for slot, total in zip(names, totals, strict=True):
            avail = sum(left[x] for x in slot)
            if avail == 0:
                break
            accept *= avail / total
            pick = rng.randrange(avail)
            for x in slot:
                if pick < left[x]:
                    break
                pick -= left[x]
            left[x] -= 1
            hand.append(x)
        else:
            if accept >= 1.0 or rng.random() < accept:
                return hand
    raise RuntimeError(f"no hand consistent with the hints was drawn in {SAMPLER_TRIES} attempts")


def sample_world(view: SeatView, rng: random.Random) -> list[str]:
    """A whole 50-card deck that matches everything the seat knows: the public history, the other hands as seen,
    its own cards drawn from the hint knowledge and unseen counts, and the rest of the deck in a random order."""
    dealt = Dealt(view.num_players, view.hand_size)  # a card's uid is its position in the deck
    dealt.advance(view.history)
    hands = dealt.hands
    deck: list[str | None] = [None] * DECK_SIZE
    for position, name in dealt.gone.items():
        deck[position] = name
    for hand in view.others:
        for position, visible in zip(hands[hand.player], hand.cards, strict=True):
            deck[position] = visible.card
    allowed = [
        [f"{c}{r}" for c in own.knowledge.could_be_colors for r in own.knowledge.could_be_ranks]
        for own in view.own_hand
    ]
    own = sample_own_hand(allowed, view.unseen, rng)
    for position, name in zip(hands[view.seat], own, strict=True):
        deck[position] = name
    rest = Counter(view.unseen)
    rest.subtract(own)
    pool = sorted(rest.elements())
    rng.shuffle(pool)
    empty = [i for i, name in enumerate(deck) if name is None]
    if len(empty) != len(pool):
        raise RuntimeError(f"{len(empty)} deck positions to fill but {len(pool)} unseen cards left")
    for position, name in zip(empty, pool, strict=True):
        deck[position] = name
    return [name for name in deck if name is not None]


def play_out(game: Game | RolloutGame, bot: Bot) -> int:
    """Let `bot` play every seat until the game ends; the final fireworks score."""
    policy = bot.policy()
    while not game.is_over:
        observation = game.observe(game.current_player)
        game.apply(observation.legal_moves[policy.choose(observation)])
    return game.fireworks_sum


def rollout_scores(
    view: SeatView, moves: Sequence[Move], rollouts: int, seed: int, bot: str
) -> list[list[int]]:
    """For each move, the final fireworks score of rollouts 0..rollouts-1 (rollout r deals the same world for every
    move, and for every rollout count: the first k rollouts of a longer run are exactly a run of k)."""
    player = get_bot(bot)
    history = [entry.move for entry in view.history]
    scores: list[list[int]] = [[] for _ in moves]
    with cycle_collector_paused():
        for r in range(rollouts):
            world = sample_world(view, random.Random(f"hanabi-eval values {seed} {r}"))
            # Once per world, in plain Python (engine/rollout_game.py): every move starts from a copy.
            start = RolloutGame.replay(view.num_players, world, history)
            for move, got in zip(moves, scores, strict=True):
                game = start.copy()
                game.apply(move)
                got.append(play_out(game, player))
    return scores


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a while (as it was after): play-outs allocate millions of short-lived
    objects and leave no reference cycles (tests/analysis/test_values.py checks)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            # What the play-outs left alive (the caches) goes straight to the oldest generation rather than
            # being scanned by the next young collection. Not when the process has frozen objects of its own:
            # unfreezing would hand them back to the collector.
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def move_values(
    view: SeatView,
    rollouts: int,
    seed: int,
    bot: str = DEFAULT_BOT,
    only: Sequence[int] | None = None,
) -> DecisionValues:
    """Each legal move's expected final score when the team continues with `bot`, from `rollouts` sampled worlds
    (`only`: just these legal move indices, in this order).

    Deterministic for a given view, rollout count, seed and bot: rollout r of seed s always deals the same world.
    """
    check_rollouts(rollouts)
    if not view.legal_moves:
        raise ValueError("the view is not of the seat to move, or the game is over")
    chosen = [view.legal_moves[i] for i in (range(len(view.legal_moves)) if only is None else only)]
    scores = rollout_scores(view, [legal.move for legal in chosen], rollouts, seed, bot)
    return DecisionValues(
        turn=view.turn,
        seat=view.seat,
        bot=bot,
        rollouts=rollouts,
        seed=seed,
        moves=[
            MoveValue(
                index=legal.index,
                description=legal.description,
                value=statistics.fmean(got),
                se=statistics.stdev(got) / math.sqrt(len(got)) if len(got) > 1 else None,
            )
            for legal, got in zip(chosen, scores, strict=True)
        ],
    )
