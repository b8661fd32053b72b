"""The seat's view: built from that seat's observation only, with correct derived facts."""

from __future__ import annotations

import random

import pytest

from harness.engine.game import Game
from harness.engine.replay import replay_to_end
from harness.schema.cards import HAND_SIZE
from harness.schema.moves import MoveKind
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import load_scaffold, scaffold_names
from harness.view.builder import build_view
from harness.view.seat_view import SeatView
from tests.helpers import random_game


def deck_positions(game: Game) -> list[list[int]]:
    """For every player, the deck index of each card now in their hand (oldest first)."""
    size = HAND_SIZE[game.players]
    hands = [list(range(p * size, (p + 1) * size)) for p in range(game.players)]
    next_card = game.players * size
    for entry in game.history:
        if entry.move.kind in (MoveKind.PLAY, MoveKind.DISCARD):
            hands[entry.player].pop(entry.move.card_index)
            if next_card < len(game.deck):
                hands[entry.player].append(next_card)
                next_card += 1
    return hands


def counterfactual(game: Game, seat: int, rng: random.Random) -> Game | None:
    """The same game, except that `seat` holds other cards consistent with everything it was told."""
    deck = list(game.deck)
    dealt = len(deck) - game.deck_size
    knowledge = game.knowledge(seat)
    changed = False
    for slot, position in enumerate(deck_positions(game)[seat]):
        k = knowledge[slot]
        options = [
            j
            for j in range(dealt, len(deck))
            if deck[j] != deck[position]
            and deck[j][0] in k.could_be_colors
            and int(deck[j][1]) in k.could_be_ranks
        ]
        if options:
            j = rng.choice(options)
            deck[position], deck[j] = deck[j], deck[position]
            changed = True
    if not changed:
        return None
    return replay_to_end(game.players, deck, [e.move for e in game.history])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_seats_own_hidden_cards_never_reach_its_view_or_prompts(players: int) -> None:
    """Property: over many random states, changing only the seat's hidden cards changes nothing it is shown."""
    rng = random.Random(players)
    checked = 0
    scaffolds = [load_scaffold(n) for n in scaffold_names()]
    for trial in range(40):
        game = random_game(players, seed=100 * players + trial, moves=rng.randrange(0, 60))
        if game.is_over:
            continue
        seat = game.current_player
        other = counterfactual(game, seat, rng)
        if other is None:
            continue
        assert other.hands()[seat] != game.hands()[seat]
        assert other.hands()[(seat + 1) % players] == game.hands()[(seat + 1) % players]
        view, other_view = build_view(game.observe(seat)), build_view(other.observe(seat))
        assert view == other_view
        for scaffold in scaffolds:
            assert render_messages(scaffold, view) == render_messages(scaffold, other_view)
        # a teammate's view does show the difference: the test really changed the hidden cards
        teammate = (seat + 1) % players
        assert build_view(game.observe(teammate)) != build_view(other.observe(teammate))
        checked += 1
    assert checked >= 20


def test_unseen_counts_cover_exactly_the_deck_and_own_hand() -> None:
    game = random_game(3, seed=4, moves=25)
    view = build_view(game.observe(game.current_player))
    assert sum(view.unseen.values()) == game.deck_size + len(view.own_hand)
    truly_unseen = list(game.hands()[game.current_player]) + list(
        game.deck[len(game.deck) - game.deck_size :]
    )
    for card in set(truly_unseen):
        assert view.unseen[card] == truly_unseen.count(card)


def test_visible_cards_are_flagged_playable_and_others_knowledge_is_theirs() -> None:
    game = random_game(4, seed=8, moves=15)
    seat = game.current_player
    view = build_view(game.observe(seat))
    for hand in view.others:
        assert [c.card for c in hand.cards] == game.hands()[hand.player]
        assert [c.knowledge for c in hand.cards] == game.knowledge(hand.player)
        for c in hand.cards:
            assert c.playable == (game.fireworks[c.card[0]] + 1 == int(c.card[1]))
    assert [c.knowledge for c in view.own_hand] == game.knowledge(seat)


def test_recent_moves_are_the_others_moves_since_the_seats_last_turn() -> None:
    game = random_game(3, seed=2, moves=7)
    seat = game.current_player
    view = build_view(game.observe(seat))
    assert [e.turn for e in view.recent] == [game.turn - 2, game.turn - 1]
    assert all(e.player != seat for e in view.recent)


def test_a_seats_events_follow_the_history_and_its_hints_touch_the_targets_cards() -> None:
    """Every view of a game numbers its events turn by turn, its hints touch exactly the target's cards of the hinted
    colour or rank, and its models, built without validation (schema/trusted.py), equal themselves validated."""
    game, rng = random_game(3, seed=5, moves=0), random.Random(5)
    while not game.is_over:
        for seat in range(3):
            view = build_view(game.observe(seat))
            assert [e.turn for e in view.events] == list(range(1, len(game.history) + 1))
            assert SeatView.model_validate(view.model_dump(exclude_unset=True)) == view
            hands = game.hands()
            for legal in view.legal_moves:
                if legal.target_player is not None:
                    move, hand = legal.move, hands[legal.target_player]
                    assert legal.touches == tuple(
                        i for i, c in enumerate(hand) if c[0] == move.color or c[1] == str(move.rank)
                    )
        moves = game.legal_moves()
        game.apply(rng.choice([m for m in moves if m.kind is not MoveKind.PLAY] or moves))


def test_final_round_notice_names_the_last_player(deck: list[str]) -> None:
    game = Game(2, deck)
    while game.deck_size > 0:
        discards = [m for m in game.legal_moves() if m.kind is MoveKind.DISCARD]
        game.apply(discards[0] if discards else next(m for m in game.legal_moves() if m.is_hint))
    drawer = game.history[-1].player
    view = build_view(game.observe(game.current_player))
    assert view.final_round and view.last_player == drawer
    assert view.turns_left == 2
    prompt = render_messages(load_scaffold("watson-plus"), view)[1].content
    assert f"Player {drawer} is the last player to act; 2 moves remain" in prompt
    before = build_view(Game(2, deck).observe(0))
    assert not before.final_round
    assert "FINAL ROUND" not in render_messages(load_scaffold("watson-plus"), before)[1].content
