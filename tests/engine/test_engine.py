"""The engine: dealing stored decks, rules, the final round, scoring at failure, the illegal-move guard, replay."""

from __future__ import annotations

import json
import random

import pytest
from hanabi_learning_environment import pyhanabi

from harness.engine.game import Game, IllegalMoveError, deck_for_seed
from harness.engine.replay import replay_to_end
from harness.schema.cards import HAND_SIZE, validate_deck
from harness.schema.moves import EndReason, Move, MoveKind
from harness.schema.paths import seeds_dir
from tests.helpers import random_game


def play(kind: MoveKind, index: int) -> Move:
    return Move(kind=kind, card_index=index)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_deals_the_stored_deck_in_order_with_standard_hand_sizes(players: int, deck: list[str]) -> None:
    game = Game(players, deck)
    size = HAND_SIZE[players]
    assert game.hands() == [deck[p * size : (p + 1) * size] for p in range(players)]
    assert game.deck_size == 50 - players * size
    assert (game.life_tokens, game.info_tokens, game.current_player) == (3, 8, 0)


def test_same_seed_same_deck_and_stored_sets_match_the_engine() -> None:
    assert deck_for_seed(5) == deck_for_seed(5)
    assert deck_for_seed(5) != deck_for_seed(6)
    for path in seeds_dir().glob("*.jsonl"):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            validate_deck(entry["deck"])
            assert entry["deck"] == deck_for_seed(entry["seed"]), f"{path.name} seed {entry['seed']}"


def test_legal_move_descriptions_are_hles_own() -> None:
    game = random_game(4, seed=3, moves=9)
    assert [m.description for m in game.legal_moves()] == [str(m) for m in game._state.legal_moves()]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_legal_moves_are_hles_own_list_in_its_order_in_every_state_of_whole_games(players: int) -> None:
    """The game lists legal moves by asking HLE's legality check of every move uid: in every state of several
    games (token limits, short hands at the end, hints that would touch nothing) that is HLE's own list, in order."""
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(players, deck_for_seed(seed))
        while not game.is_over:
            assert [m.description for m in game.legal_moves()] == [str(m) for m in game._state.legal_moves()]
            legal = game.legal_moves()
            game.apply(rng.choice([m for m in legal if m.kind is not MoveKind.PLAY] or legal))


def test_illegal_moves_are_refused_before_they_reach_the_core(deck: list[str]) -> None:
    game = Game(2, deck)
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        game.apply(play(MoveKind.DISCARD, 0))  # 8 info tokens: discarding is illegal
    with pytest.raises(IllegalMoveError):
        game.apply(play(MoveKind.PLAY, 7))  # no such card
    with pytest.raises(IllegalMoveError):
        game.apply(
            Move(kind=MoveKind.REVEAL_RANK, target_offset=2, rank=1)
        )  # no player +2 in a 2-player game
    # the interpreter is still alive and the game unchanged
    assert game.turn == 1 and game.info_tokens == 8


def test_hint_that_touches_nothing_is_illegal() -> None:
    game = Game(2, deck_for_seed(1))
    colors_in_partner_hand = {c[0] for c in game.hands()[1]}
    missing = next(c for c in "RYGWB" if c not in colors_in_partner_hand)
    with pytest.raises(IllegalMoveError):
        game.apply(Move(kind=MoveKind.REVEAL_COLOR, target_offset=1, color=missing))


def test_three_strikes_end_the_game_scoring_zero_but_keeping_the_fireworks(deck: list[str]) -> None:
    game = Game(2, deck)
    strikes = 0
    rng = random.Random(0)
    while not game.is_over:
        hand = game.hands()[game.current_player]
        playable = [i for i, c in enumerate(hand) if game.fireworks[c[0]] + 1 == int(c[1])]
        unplayable = [i for i, c in enumerate(hand) if i not in playable]
        if game.fireworks_sum < 2 and playable:
            game.apply(play(MoveKind.PLAY, playable[0]))
        elif unplayable:
            game.apply(play(MoveKind.PLAY, rng.choice(unplayable)))
            strikes += 1
        else:
            game.apply(game.legal_moves()[-1])
    assert game.end_reason is EndReason.LIVES_LOST
    assert strikes == 3 and game.life_tokens == 0
    assert game.fireworks_sum >= 2
    assert game.score == 0


def test_final_round_gives_every_player_one_more_turn_ending_with_the_last_drawer(deck: list[str]) -> None:
    game = Game(3, deck)
    while game.deck_size > 0:
        discards = [m for m in game.legal_moves() if m.kind is MoveKind.DISCARD]
        hints = [m for m in game.legal_moves() if m.is_hint]
        game.apply(discards[0] if discards else hints[0])
        if game.deck_size == 0:
            drawer = game.history[-1].player
    assert game.last_player == drawer
    remaining = []
    while not game.is_over:
        remaining.append(game.current_player)
        hints = [m for m in game.legal_moves() if m.is_hint]
        game.apply(hints[0] if hints else game.legal_moves()[0])
    assert remaining == [(drawer + i) % 3 for i in range(1, 4)]
    assert remaining[-1] == drawer
    assert game.end_reason is EndReason.DECK_EXHAUSTED


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rebuilding_from_deck_and_moves_reproduces_the_game(players: int) -> None:
    game = random_game(players, seed=players * 11, moves=200)
    rebuilt = replay_to_end(players, list(game.deck), [e.move for e in game.history])
    assert rebuilt.digest() == game.digest()
    assert rebuilt.history == game.history
    assert (rebuilt.end_reason, rebuilt.fireworks_sum, rebuilt.score) == (
        game.end_reason,
        game.fireworks_sum,
        game.score,
    )


def test_rejects_bad_decks_and_player_counts(deck: list[str]) -> None:
    with pytest.raises(ValueError, match="2 to 5 players"):
        Game(6, deck)
    with pytest.raises(ValueError, match="50 cards"):
        Game(2, deck[:-1])
    with pytest.raises(ValueError, match="wrong number of copies"):
        Game(2, ["R5", *deck[1:]] if deck[0] != "R5" else ["R1", *deck[1:]])


def test_chance_nodes_never_surface(deck: list[str]) -> None:
    game = random_game(5, seed=9, moves=100)
    assert game.current_player != pyhanabi.CHANCE_PLAYER_ID or game.is_over


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_knowledge_read_from_hles_text_matches_its_accessors(players: int) -> None:
    game = random_game(players, seed=70 + players, moves=40)
    for player in range(players):
        observation = game._state.observation(player)  # keeps the knowledge objects valid while read
        for known, read in zip(observation.card_knowledge()[0], game.knowledge(player), strict=True):
            color, rank = known.color(), known.rank()
            assert read.color == (None if color is None else "RYGWB"[color])
            assert read.rank == (None if rank is None else rank + 1)
            assert read.could_be_colors == tuple(c for i, c in enumerate("RYGWB") if known.color_plausible(i))
            assert read.could_be_ranks == tuple(r for r in range(1, 6) if known.rank_plausible(r - 1))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_observations_read_from_hles_text_match_its_accessors(players: int) -> None:
    """observe() reads HLE's observation text in one call; every field must equal pyhanabi's own accessors, in
    every state of whole games (hints, strikes, discards, the final round with hands running short)."""
    rng = random.Random(players)
    game = Game(players, deck_for_seed(300 + players))
    while True:
        for seat in range(players):
            seen = game.observe(seat)
            raw = game._state.observation(seat)
            assert seen.life_tokens == raw.life_tokens() and seen.info_tokens == raw.information_tokens()
            assert list(seen.fireworks.values()) == raw.fireworks() and seen.deck_size == raw.deck_size()
            assert seen.discards == tuple(str(c) for c in raw.discard_pile())
            for relative, hand in enumerate(raw.observed_hands()):
                absolute = (seat + relative) % players
                expected = [None if relative == 0 else str(c) for c in hand]
                assert list(seen.hands[absolute]) == expected
                assert len(seen.knowledge[absolute]) == len(hand)
            assert seen.knowledge[seat] == tuple(game.knowledge(seat))
        if game.is_over:
            break
        legal = game.legal_moves()
        quiet = [
            m for m in legal if m.kind is not MoveKind.PLAY
        ]  # mostly hints and discards: the deck runs out
        game.apply(rng.choice(quiet if quiet and rng.random() < 0.97 else legal))
    assert game.end_reason is EndReason.DECK_EXHAUSTED  # through the final round, hands running short
