"""The paper's settings, item by item: `watson`, `sherlock`, SPIN-Bench and its Figure 2 ablations render exactly
the information the paper's prompts hold (app. I.1-I.2 and the released environment), in its order and message
structure, and nothing more: no move history, no turn number, no hint touch lists."""

from __future__ import annotations

import random
import re

import pytest

from harness.cli.main import main
from harness.engine.game import Game, deck_for_seed
from harness.schema.moves import MoveKind
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import figure2_ladder, load_scaffold
from harness.view.builder import build_view
from harness.view.seat_view import SeatView

NAMES = {"R": "Red", "Y": "Yellow", "G": "Green", "W": "White", "B": "Blue"}


def game_until(players: int, seed: int, stop, plays: float = 0.2) -> Game:
    """A game of random moves (plays with chance `plays`, else hints and discards), stopped at the first state where
    `stop(game)` holds."""
    rng = random.Random(seed)
    game = Game(players, deck_for_seed(seed))
    while not stop(game):
        assert not game.is_over, "the game ended before the wanted state"
        legal = game.legal_moves()
        quiet = [m for m in legal if m.kind is not MoveKind.PLAY]
        game.apply(rng.choice(quiet if quiet and rng.random() >= plays else legal))
    return game


def mid_game(players: int) -> SeatView:
    game = game_until(players, 11, lambda g: len(g.history) >= 12 and bool(g.discards()))
    return build_view(game.observe(game.current_player))


def just_after_last_draw(players: int) -> SeatView:
    """The first player to move after the last card was drawn (the paper's intent: this player is told)."""
    game = game_until(players, 5, lambda g: g.deck_size == 0, plays=0.0)
    assert game.last_player == (game.current_player - 1) % players
    return build_view(game.observe(game.current_player))


def could(k) -> str:
    return f"{', '.join(NAMES[x] for x in k.could_be_colors)} with ranks: {', '.join(map(str, k.could_be_ranks))}"


def hint_token(k) -> str:
    return f"{NAMES[k.color] if k.color else 'UnknownColor'} {k.rank if k.rank else 'UnknownRank'}"


def in_order(text: str, parts: list[str]) -> None:
    position = -1
    for part in parts:
        found = text.find(part, position + 1)
        assert found > position, f"{part!r} missing or out of order"
        position = found


def no_history_or_touches(text: str, view: SeatView) -> None:
    assert not re.search(r"\bturn \d+|Turn \d+|\bT\d+ \(", text), "a turn number or a history line"
    assert "touches" not in text and "since your last turn" not in text.lower()
    assert "-> Player" not in text


@pytest.mark.parametrize("players", [2, 3, 5])
def test_watson_is_the_papers_system_and_user_message(players: int) -> None:
    view = mid_game(players)
    system, user = (m.content for m in render_messages(load_scaffold("watson"), view))
    assert [m.role for m in render_messages(load_scaffold("watson"), view)] == ["system", "user"]
    in_order(
        system,
        [
            "expert",
            "at most 25",
            "Safe plays",
            "Useful clues",
            "Safe discards",
            "Reasoning:",
            "Move Ratings:",
            "Chosen Move Number:",
        ],
    )
    others = sorted(view.others, key=lambda h: h.player)
    discards = ", ".join(
        f"{n} {NAMES[c[0]].lower()} card{'s' if n != 1 else ''} rank {c[1]}"
        for c, n in view.discard_counts.items()
    )
    fireworks = " ".join(f"{c}{n}" for c, n in view.fireworks.items())
    hands = ". ".join(
        f"P{h.player} Hand: [{', '.join(NAMES[c.card[0]] + ' ' + c.card[1] for c in h.cards)}]"
        for h in others
    )
    knows = ". ".join(
        f"P{h.player} Knows: [{', '.join(hint_token(c.knowledge) for c in h.cards)}]" for h in others
    )
    own = ", ".join(hint_token(c.knowledge) for c in view.own_hand)
    in_order(
        user,
        [
            f"You are Player {view.seat}.",
            "Game State:",
            f"P{view.seat} ({players}p Game). Lives: {view.life_tokens}, Info: {view.info_tokens}, "
            f"Deck: {view.deck_size}.",
            f"Fireworks: {fireworks}. Discards: {discards}.",
            f"Visible Hands: {hands}\n",
            f"Your Knowledge (Hints): [{own}] (Indices 0-{len(view.own_hand) - 1}).",
            f"Others' Knowledge: {knows}\n",
            "Legal Moves:",
            *(f"  {m.index}. {m.description}\n" for m in view.legal_moves),
            f"Current Info Tokens: {view.info_tokens}",
            "Reasoning:",
            "Move Ratings:",
            "Chosen Move Number:",
        ],
    )
    no_history_or_touches(system + user, view)
    assert "could be" not in user.lower() and "FINAL ROUND" not in user
    assert "Player +" not in user  # the state uses absolute ids; only the engine's move strings are relative


@pytest.mark.parametrize("players", [2, 4])
def test_watson_final_round_line_reaches_the_first_player_after_the_last_draw(players: int) -> None:
    view = just_after_last_draw(players)
    user = render_messages(load_scaffold("watson"), view)[1].content
    line = f"FINAL ROUND! {players} turns left (P{view.last_player} is last)."
    assert view.turns_left == players and line in user
    in_order(user, ["Fireworks:", line, "Visible Hands:"])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_sherlock_is_the_papers_single_message(players: int) -> None:
    view = mid_game(players)
    messages = render_messages(load_scaffold("sherlock"), view)
    assert [m.role for m in messages] == ["user"]
    text = messages[0].content
    parts = [
        f"playing a game of Hanabi with {players} players",
        "Key Rules:",
        "Tokens:",
        "Game End:",
        "State Representation:",
        "Your Role:",
        f"There are {view.life_tokens} life tokens and {view.info_tokens} info tokens remaining.",
        "The fireworks progress: "
        + ", ".join(f"{c} stack is at {n}" for c, n in view.fireworks.items())
        + ".",
        "Your hand contains the following cards:",
    ]
    for c in view.own_hand:
        k = c.knowledge
        parts += [
            f"Card {c.index}:\n- Known info: '{k.color or 'X'}{k.rank or 'X'}'.",
            f"- Could be any of these colors: {could(k)}.",
        ]
    parts.append("Here's what you observe:")
    for hand in sorted(view.others, key=lambda h: h.player):  # absolute order, relative labels
        parts.append(f"Player +{hand.offset}'s hand:")
        for c in hand.cards:
            k = c.knowledge
            parts += [f"You can see the card: '{c.card}'", f"it could be any of these colors: {could(k)}."]
    parts += [
        f"There are {view.deck_size} cards remaining in the deck. The discard pile contains: ",
        "# Think step by step",
        "## Evaluate Playable Cards in Hand",
        "## Consider Teammates' Hands",
        "## Assess Discard Options",
        *(f"\n{m.index}: ({m.description})\n" for m in view.legal_moves),
        '{"reason": string, "action": int}',
        "CRITICAL: Also include move ratings",
        '"move_ratings"',
        "Include ALL legal moves",
        "Rank 1: 3 cards per colour",
        "Rank 5: 1 card per colour",
        "50 cards",
        "Try to save the critical cards like rank 5, second card of each color, rank 2,3,4.",
        "1. Take the starting distribution",
        "2. Subtract the cards you can see on the firework",
        "3. Subtract the cards that have been discarded",
        "4. Calculate the probability",
        "if a card could only be green or yellow, we can deduce that it is not red, blue or white",
    ]
    in_order(text, parts)
    no_history_or_touches(text, view)
    assert f"Player {view.seat}" not in text and f"P{view.seat}" not in text  # no absolute id of your own
    assert "FINAL ROUND" not in text


@pytest.mark.parametrize("players", [2, 3, 5])
def test_sherlock_final_round_line_is_relative(players: int) -> None:
    view = just_after_last_draw(players)
    text = render_messages(load_scaffold("sherlock"), view)[0].content
    in_order(
        text,
        [
            "cards remaining in the deck",
            f"FINAL ROUND: {players} turns left (Player +{players - 1} plays last).",
            "# Think step by step",
        ],
    )
    for name in ("spin-bench", "spin-bench-no-deductions", "spin-bench-no-deductions-no-discards"):
        assert "FINAL ROUND" not in render_messages(load_scaffold(name), view)[0].content, name


def test_spin_bench_ladder_drops_exactly_the_papers_parts() -> None:
    view = mid_game(4)
    text = {
        name: render_messages(load_scaffold(name), view)[0].content
        for name in (
            "sherlock",
            "spin-bench",
            "spin-bench-no-deductions",
            "spin-bench-no-deductions-no-discards",
        )
    }
    spin = text["spin-bench"]
    assert spin == text["sherlock"].split("\n\nCRITICAL:")[0] + "\n"  # Sherlock up to the move-ratings block
    assert "move_ratings" not in spin and "Try to save" not in spin and "Could be any" in spin
    no_deductions = text["spin-bench-no-deductions"]
    assert "could be" not in no_deductions.lower() and "The discard pile contains" in no_deductions
    assert no_deductions.count("- A card:") == spin.count("- A card:")
    assert "discard pile contains" not in text["spin-bench-no-deductions-no-discards"]
    assert "cards remaining in the deck" in text["spin-bench-no-deductions-no-discards"]
    assert [(s.name, s.paper_label) for s in figure2_ladder()] == [
        ("watson", "Watson"),
        ("spin-bench", "SPIN-Bench"),
        ("spin-bench-no-deductions", "SPIN-Bench without deductions"),
        ("spin-bench-no-deductions-no-discards", "SPIN-Bench without deductions and discards"),
        ("sherlock", "Sherlock"),
    ]


def test_the_listing_marks_which_scaffolds_are_the_papers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scaffolds"]) == 0
    listing = capsys.readouterr().out
    assert "watson-plus" in listing and "sherlock-plus" in listing and "NOT the paper" in listing
    assert "SPIN-Bench without deductions and discards" in listing
