"""Scaffold prompts: Watson shows no deductions, Sherlock shows exactly HLE's could-be sets, Mycroft shows no engine
deductions and carries each seat's own notes; ablations are definitions that switch context off."""

from __future__ import annotations

import random
import re

import pytest

from harness.schema.cards import COLOR_NAMES, COLORS
from harness.schema.errors import Refused
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import load_scaffold, scaffold_names
from harness.view.builder import build_view
from tests.helpers import random_game


def hle_could_be(game, observer: int, player_offset: int, index: int) -> str:
    """The could-be text for a card, read straight from pyhanabi, independently of the harness's view."""
    observation = game._state.observation(observer)  # must outlive the knowledge read from it
    knowledge = observation.card_knowledge()[player_offset][index]
    colors = [COLOR_NAMES[c] for i, c in enumerate(COLORS) if knowledge.color_plausible(i)]
    ranks = [str(r + 1) for r in range(5) if knowledge.rank_plausible(r)]
    return f"could be {', '.join(colors)} with rank {', '.join(ranks)}"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sherlock_prompt_holds_hles_could_be_sets_for_every_card(players: int) -> None:
    rng = random.Random(players)
    for trial in range(8):
        game = random_game(players, seed=50 + trial, moves=rng.randrange(5, 40))
        if game.is_over:
            continue
        seat = game.current_player
        prompt = render_messages(load_scaffold("sherlock-plus"), build_view(game.observe(seat)))[1].content
        own_lines = [line for line in prompt.splitlines() if line.startswith("- Card")][: game.hand_size]
        for index, line in enumerate(own_lines):
            assert hle_could_be(game, seat, 0, index) in line
        for offset in range(1, players):
            section = prompt.split(f"(+{offset} from you):")[1]
            lines = [line for line in section.splitlines() if line.startswith("- Card")]
            for index in range(len(game.hands()[(seat + offset) % players])):
                assert hle_could_be(game, seat, offset, index) in lines[index]


def test_watson_and_mycroft_prompts_hold_no_engine_deductions() -> None:
    game = random_game(4, seed=12, moves=20)
    view = build_view(game.observe(game.current_player))
    for name in (
        "watson",
        "watson-plus",
        "mycroft",
        "spin-bench-no-deductions",
        "spin-bench-no-deductions-no-discards",
    ):
        text = "\n".join(m.content for m in render_messages(load_scaffold(name), view))
        assert not re.search(r"could be (any of these colors: )?(Red|Yellow|Green|White|Blue)", text), name
    mycroft = render_messages(load_scaffold("mycroft-plus"), view)[1].content
    assert "They know" not in mycroft and "they know" not in mycroft  # no other players' perspective
    assert "first turn" in mycroft


def test_discard_pile_ablation_hides_the_discards() -> None:
    game = random_game(3, seed=3, moves=30)
    view = build_view(game.observe(game.current_player))
    assert view.discards
    assert (
        "discard pile contains" in render_messages(load_scaffold("spin-bench-no-deductions"), view)[0].content
    )
    pile = render_messages(load_scaffold("spin-bench-no-deductions-no-discards"), view)[0].content
    assert "discard pile" not in pile.lower()


def test_mycroft_prompt_carries_the_seats_previous_notes() -> None:
    game = random_game(3, seed=21, moves=9)
    view = build_view(game.observe(game.current_player))
    notes = {
        "turn": 4,
        "state": "Turn 4, you are Player 0 of 3. (the state as it was)",
        "deductions": {"player_0": [{"card": 0, "colors": ["R"], "ranks": [1]}]},
        "move_ratings": [{"move": "(Play 0)", "rating": 0.9}, {"move": "(Discard 0)", "rating": None}],
        "action": "(Play 0)",
        "reason": "unique-reason-marker",
    }
    prompt = render_messages(load_scaffold("mycroft-plus"), view, notes)[1].content
    assert "previous turn (turn 4)" in prompt
    assert "(the state as it was)" in prompt and "unique-reason-marker" in prompt
    assert '"colors": ["R"]' in prompt and "(Play 0): 0.9" in prompt and "(Discard 0): none" in prompt
    assert "card 0 is the oldest card" in render_messages(load_scaffold("mycroft-plus"), view)[0].content


def test_every_shipped_scaffold_loads_and_unknown_names_are_refused() -> None:
    assert {"watson", "sherlock", "spin-bench", "spin-bench-no-deductions", "watson-plus", "mycroft"} <= set(
        scaffold_names()
    )
    for name in scaffold_names():
        assert load_scaffold(name).name == name
    with pytest.raises(Refused, match="choose one of"):
        load_scaffold("holmes")
