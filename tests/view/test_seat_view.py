"""The seat's view: built from that seat's observation only, with correct derived facts."""

from __future__ import annotations

import gc
import random
import threading

import pytest

from harness.engine.game import Game, Observation
from harness.engine.replay import replay_to_end
from harness.schema.cards import HAND_SIZE
from harness.schema.moves import MoveKind
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import load_scaffold, scaffold_names
from harness.view import builder
from harness.view.builder import _TOLD, build_view
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


def test_each_view_extends_the_seats_events_and_says_what_a_fresh_replay_says() -> None:
    """A seat's events are extended move by move (not replayed from turn 1 for every view); whatever order views are
    asked in (every seat each move, a later turn, an earlier one, a copy of the game played on), each says exactly
    what replaying its whole history alone says."""
    game = random_game(3, seed=5, moves=0)
    views: list[tuple[Game, int, tuple[object, ...]]] = []
    rng = random.Random(5)
    while not game.is_over:
        for seat in range(3):
            views.append((game.copy(), seat, build_view(game.observe(seat)).events))
        if game.turn == 20:
            fork = game.copy()
            fork.apply(fork.legal_moves()[0])
            views.append((fork, 0, build_view(fork.observe(0)).events))  # a copy played on, then the game again
        legal = game.legal_moves()
        game.apply(rng.choice([m for m in legal if m.kind is not MoveKind.PLAY] or legal))
    assert len(views) > 100
    for past, seat, events in [*views, *reversed(views[::7])]:  # and again, some in reverse order
        assert build_view(past.observe(seat)).events == events
        _TOLD.clear()
        assert build_view(past.observe(seat)).events == events  # the same from nothing cached
    assert [e.turn for e in views[-1][2]] == list(range(1, len(views[-1][0].history) + 1))


@pytest.mark.parametrize("players", [2, 5])
def test_a_views_remembered_legal_moves_and_cards_are_the_ones_it_would_build(players: int) -> None:
    """Legal moves and visible cards recur from turn to turn and game to game, so a view takes them from what it
    built before: every view of several games (the caches warm, then emptied, then nearly full and emptied on the
    way) equals the same view built from nothing, field by field, and its hints touch the target's cards. Its models
    are built without validation (schema/trusted.py), so each view also equals itself validated field by field."""
    builder._LEGAL_MOVES.clear()
    views = []
    for seed in (1, 2, 3):
        game = random_game(players, seed=seed, moves=0)
        rng = random.Random(seed)
        while not game.is_over:
            views.append((game.copy(), game.current_player, build_view(game.observe(game.current_player))))
            game.apply(rng.choice(game.legal_moves()))
    assert len(builder._LEGAL_MOVES) < sum(len(v.legal_moves) for _, _, v in views)  # some were reused
    for past, seat, view in views:
        builder._LEGAL_MOVES.clear()
        builder._VISIBLE_CARDS.clear()
        assert build_view(past.observe(seat)) == view
        assert SeatView.model_validate(view.model_dump(exclude_unset=True)) == view
        hands = past.hands()
        for legal in view.legal_moves:
            if legal.target_player is not None:
                hand = hands[legal.target_player]
                move = legal.move
                assert legal.touches == tuple(
                    i for i, c in enumerate(hand) if c[0] == move.color or c[1] == str(move.rank)
                )
    builder._LEGAL_MOVES.clear()
    full = dict.fromkeys(range(builder._REMEMBERED_MAX), views[0][2].legal_moves[0])
    builder._LEGAL_MOVES.update(full)  # type: ignore[arg-type]  # a cache at its bound is emptied, not grown
    past, seat, view = views[len(views) // 2]
    assert build_view(past.observe(seat)) == view
    assert len(builder._LEGAL_MOVES) <= len(view.legal_moves)


def test_views_of_one_game_built_in_several_threads_agree_with_a_fresh_replay() -> None:
    """The viewer's server builds views in threads: a seat's event list is extended by one of them at a time."""
    game, states, rng = random_game(3, seed=6, moves=0), [], random.Random(6)
    while not game.is_over:
        states.append(game.copy())
        legal = game.legal_moves()
        game.apply(rng.choice([m for m in legal if m.kind is not MoveKind.PLAY] or legal))
    expected = {}
    for number, state in enumerate(states):
        for seat in range(3):
            _TOLD.clear()
            expected[number, seat] = build_view(state.observe(seat)).events
    wrong: list[tuple[int, int]] = []

    def look(thread: int) -> None:
        pick = random.Random(thread)
        for _ in range(300):
            number, seat = pick.randrange(len(states)), pick.randrange(3)
            if build_view(states[number].observe(seat)).events != expected[number, seat]:
                wrong.append((number, seat))

    threads = [threading.Thread(target=look, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


@pytest.mark.parametrize("moves", [1, 12])
def test_a_games_events_are_let_go_with_the_game(moves: int) -> None:
    kept = len(_TOLD)
    game = random_game(2, seed=9, moves=moves)
    assert len(build_view(game.observe(1)).events) == moves and len(_TOLD) == kept + 1
    del game
    gc.collect()
    assert len(_TOLD) == kept  # a long sweep holds the events of the games in play only


def test_a_history_that_is_not_the_cached_one_is_replayed_whole() -> None:
    """Views of a history made by hand, sharing a game's first and last moves but not the moves between, and of one
    whose replay fails after a firework grew: each later view says what a fresh replay says."""
    games = (random_game(2, seed=seed, moves=10) for seed in range(60))
    game = next(g for g in games if any(e.scored for e in g.history[2:]))
    seen = game.observe(0)
    history = seen.history
    swapped = seen.model_copy(update={"history": (history[0], history[2], history[1], *history[3:])})
    assert build_view(seen).events and build_view(swapped).events == _fresh(swapped)
    build_view(seen.model_copy(update={"history": history[:2]}))  # told up to move 2
    with pytest.raises(AttributeError):  # moves 3-10 told, a firework grown, then a move that is none
        build_view(seen.model_copy(update={"history": (*history, "not a move")}))
    assert build_view(seen).events == _fresh(seen)


def _fresh(seen: Observation) -> tuple[object, ...]:
    """The events of an observation replayed from nothing cached."""
    _TOLD.clear()
    return build_view(seen).events



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
