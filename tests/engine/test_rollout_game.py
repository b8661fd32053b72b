"""The rollouts' pure-Python game against HLE: whole games played in lockstep with `Game`, every state compared."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from harness.bots import get_bot
from harness.engine.game import MAX_INFO_TOKENS, Game, HistoryEntry, deck_for_seed
from harness.engine.replay import ReplayMismatch, replay_to_end
from harness.engine.rollout_game import RolloutGame
from harness.schema.moves import EndReason, Move, MoveKind
from harness.view.builder import build_view, play_view, play_view_of
from harness.view.play_view import PlayView
from harness.view.seat_view import SeatView

# (players, deck seed, chooser): random play ends these games on lives, the smart bot ends them on the deck, and
# on 2-player deck 3 with all 25 points before the final round is over (the test checks every end reason occurs).
GAMES = [(p, seed, "random") for p in (2, 3, 4, 5) for seed in (0, 1)] + [
    (p, seed, "smart") for p in (2, 3, 4, 5) for seed in ((1, 3) if p == 2 else (0, 1))
]


def assert_same_state(game: Game, twin: RolloutGame, entries: list[HistoryEntry]) -> None:
    """Everything a caller can read of the two games is equal, and the rollout game's objects are the interned
    ones the view's caches key on: the engine's Move and Knowledge objects, its own history entries."""
    legal = game.legal_moves()
    assert [m.description for m in twin.legal_moves()] == [m.description for m in legal]
    assert list(map(id, twin.legal_moves())) == list(map(id, legal))
    assert (twin.is_over, twin.current_player, twin.fireworks_sum, twin.turn) == (
        game.is_over,
        game.current_player,
        game.fireworks_sum,
        game.turn,
    )
    for seat in range(game.players):
        expected, seen = game.observe(seat), twin.observe(seat)
        assert seen == expected and seen.model_dump() == expected.model_dump()
        assert seen.model_fields_set == expected.model_fields_set
        assert [list(map(id, hand)) for hand in seen.knowledge] == [list(map(id, hand)) for hand in expected.knowledge]
        assert list(map(id, seen.history)) == list(map(id, entries))
        view = build_view(seen, events=False)
        built = SeatView.model_validate(build_view(expected, events=False).model_dump(exclude_unset=True))  # validated
        assert view == built and view.model_dump() == built.model_dump()
        assert view.model_dump(exclude_unset=True) == built.model_dump(exclude_unset=True)
        assert list(map(id, view.history)) == list(map(id, entries))
        # What the smart bot reads in play-outs is what it reads of the validated view in a single decision.
        assert play_view_facts(play_view(seen)) == play_view_facts(play_view_of(built))


def play_view_facts(view: PlayView) -> tuple[object, ...]:
    """Every field of a PlayView, nested ones included (the moves and history entries as the engine's objects)."""
    return (
        view.seat,
        view.num_players,
        view.hand_size,
        view.life_tokens,
        view.info_tokens,
        view.max_info_tokens,
        view.deck_size,
        view.turns_left,
        view.fireworks,
        view.unseen,
        view.history,
        view.own_candidates,
        (view.table.discard_counts, view.table.dead, view.table.playable, view.table.unseen, view.table.status),
        [
            (hand.player, [(c.index, c.card, c.playable, c.useless, c.critical) for c in hand.cards])
            for hand in view.others
        ],
        [
            (m.move, m.kind, m.card_index, m.target_offset, m.color, m.rank, m.target_player, m.touches)
            for m in view.legal_moves
        ],
    )


def assert_copy_is_independent(twin: RolloutGame, rng: random.Random) -> None:
    """A copy played to its end leaves the original as it was."""
    before = [twin.observe(seat) for seat in range(twin.players)]
    copy = twin.copy()
    while not copy.is_over:
        copy.apply(rng.choice(copy.legal_moves()))
    assert [twin.observe(seat) for seat in range(twin.players)] == before
    assert twin.legal_moves() == before[twin.current_player].legal_moves or twin.is_over


def play_in_lockstep(players: int, deck: list[str], chooser: str, opening: tuple[Move, ...] = ()) -> Game:
    """Play one game with both engines, moves chosen uniformly at random or by the smart bot after `opening`;
    compare every step. Returns the engine's game at its end."""
    game, twin = Game(players, deck), RolloutGame(players, deck)
    rng = random.Random(" ".join(deck))
    policy = get_bot("smart").policy()
    entries: list[HistoryEntry] = []
    while True:
        assert_same_state(game, twin, entries)
        if game.is_over:
            return game
        if game.turn % 9 == 1:
            assert_copy_is_independent(twin, random.Random(game.turn))
        if game.turn <= len(opening):
            move = opening[game.turn - 1]
        elif chooser == "random":
            move = rng.choice(game.legal_moves())
        else:
            observation = twin.observe(twin.current_player)
            move = observation.legal_moves[policy.choose(observation)]
        entry = twin.apply(move)
        assert entry == game.apply(move)
        entries.append(entry)


def test_both_engines_agree_in_every_state_of_random_and_bot_games() -> None:
    ends = Counter(play_in_lockstep(p, deck_for_seed(seed), chooser).end_reason for p, seed, chooser in GAMES)
    assert set(ends) == set(EndReason), ends


def test_a_firework_completed_with_every_information_token_left_returns_none() -> None:
    """Player 0 plays R1 to R5 while player 1 plays the other 1s: the 5 scores at 8 tokens, which stay 8."""
    hands = ["R1", "R2", "R3", "R4", "R5", "Y1", "G1", "W1", "B1", "Y1"]
    rest = Counter(deck_for_seed(0))
    rest.subtract(hands)
    deck = hands + sorted(rest.elements())
    opening = (Move(kind=MoveKind.PLAY, card_index=0),) * 9
    after = replay_to_end(2, deck, opening)
    assert after.fireworks["R"] == 5 and after.info_tokens == MAX_INFO_TOKENS
    play_in_lockstep(2, deck, "random", opening)


def test_a_replay_gives_the_same_game_as_the_engines_replay() -> None:
    game = Game(3, deck_for_seed(4))
    rng = random.Random(4)
    while game.turn < 30:
        legal = game.legal_moves()
        game.apply(rng.choice([m for m in legal if m.kind is not MoveKind.PLAY] or legal))
    moves = [entry.move.model_copy() for entry in game.history]  # equal to the engine's moves, not the same objects
    twin = RolloutGame.replay(3, deck_for_seed(4), moves)
    rebuilt = replay_to_end(3, deck_for_seed(4), moves)
    for seat in range(3):
        assert twin.observe(seat) == rebuilt.observe(seat) == game.observe(seat)
    assert [id(entry.move) for entry in twin.observe(0).history] == list(map(id, moves))  # as Game keeps them


@pytest.mark.parametrize(
    "moves",
    [
        [Move(kind=MoveKind.DISCARD, card_index=0)],  # all 8 information tokens left
        [Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=1), Move(kind=MoveKind.PLAY, card_index=5)],
        [Move(kind=MoveKind.REVEAL_COLOR, target_offset=2, color="R")],  # two players: no seat two ahead
        [Move(kind=MoveKind.REVEAL_COLOR, target_offset=1, color="G")],  # player 1 holds no green card
    ],
)
def test_an_illegal_move_in_a_replay_is_refused_naming_its_turn_as_the_engines_replay_does(moves: list[Move]) -> None:
    deck = deck_for_seed(3)
    assert "G" not in "".join(deck[5:10])
    with pytest.raises(ReplayMismatch) as ours:
        RolloutGame.replay(2, deck, moves)
    with pytest.raises(ReplayMismatch) as engines:
        replay_to_end(2, deck, moves)
    assert str(ours.value) == str(engines.value) and str(ours.value).startswith(f"turn {len(moves)}: ")


def test_a_move_after_the_end_and_impossible_games_are_refused() -> None:
    twin = RolloutGame(2, deck_for_seed(0))
    rng = random.Random(0)
    while not twin.is_over:
        twin.apply(rng.choice(twin.legal_moves()))
    with pytest.raises(ValueError, match="the game is over"):
        twin.apply(Move(kind=MoveKind.PLAY, card_index=0))
    with pytest.raises(ValueError, match="2 to 5 players"):
        RolloutGame(6, deck_for_seed(0))
    with pytest.raises(ValueError, match="a deck has 50 cards"):
        RolloutGame(2, deck_for_seed(0)[:-1])
