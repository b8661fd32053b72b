"""The paper's Mycroft (sec. 5, app. I.6): terse engine moves made absolute with no card named, the seat's own hand
as direct clues only, the other hands as cards only, a free-text deduction block keyed by relative player and card
that is optional, and the previous turn's state and full reply kept for one turn. Exact tracking reads the free-text
block and scores it against the engine's could-be sets."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from harness.strategies.offline_reply import paper_deduction_of
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import load_scaffold
from harness.view.builder import build_view
from harness.view.tracking_score import score_deductions
from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.helpers import random_game


def test_the_state_is_terse_and_holds_only_direct_clues() -> None:
    game = random_game(4, seed=9, moves=14)
    view = build_view(game.observe(game.current_player))
    (message,) = render_messages(load_scaffold("mycroft"), view)
    assert message.role == "user"
    text = message.content
    state = text[text.index(f"You are Player P{view.seat}, Turn {view.turn}") :]
    state = state[: state.index("Please write down every deduction")]
    events = [line for line in state.splitlines() if line.startswith("- P")]
    assert len(events) == len(view.recent) > 0
    for line, event in zip(events, view.recent_events, strict=True):
        assert line == (
            f"- P{event.player} {event.absolute_move} | Fireworks: {event.fireworks_after} | Info: {event.info_after}"
        )
        assert "+" not in line and not re.search(r"\b[RYGWB][1-5]\b", line)  # absolute ids, no card named
    for c in view.own_hand:
        k = c.knowledge
        said = {
            (True, True): f"{k.color}, rank {k.rank}",
            (True, False): f"{k.color}, unknown rank",
            (False, True): f"unknown color, rank {k.rank}",
            (False, False): "unknown",
        }[(k.color is not None, k.rank is not None)]
        assert f"  Card {c.index}: {said}\n" in state
    for hand in view.others:
        block = state.split(f"Player +{hand.offset}'s hand:\n")[1]
        assert block.splitlines()[: len(hand.cards)] == [f"- {c.card}" for c in hand.cards]
    assert "could be" not in state.lower() and "knows" not in state.lower()
    for part in ("WHAT TO RETURN", "MANDATORY", "Player+1 plays card 1", 'a "rank 2" hint', "(Play X)",
                 "Try to save the critical cards like rank 5", "Except on your first turn"):  # fmt: skip
        assert part in text, part
    assert "PREVIOUS GAME STATE" not in text


def test_a_first_mover_is_told_it_started_and_later_turns_get_the_previous_state_and_reply() -> None:
    game = random_game(2, seed=3, moves=0)
    view = build_view(game.observe(0))
    first = render_messages(load_scaffold("mycroft"), view)[0].content
    assert "Player P0 started the game. This is your first turn." in first
    notes = {"state": "the-old-state-marker", "reply": '{"action": 3, "reason": "old-reply-marker"}'}
    later = render_messages(load_scaffold("mycroft"), view, notes)[0].content
    assert later.index("Legal moves this turn:") < later.index("PREVIOUS GAME STATE:\nthe-old-state-marker")
    assert 'PREVIOUS TURN RESPONSE:\n{"action": 3, "reason": "old-reply-marker"}' in later


def test_tracking_reads_the_papers_free_text_block_against_the_engine() -> None:
    game = random_game(3, seed=4, moves=25)
    view = build_view(game.observe(game.current_player))
    exact = score_deductions(view, paper_deduction_of(view))
    assert exact.own.exact == exact.others.exact == 1.0 and exact.own.missing == 0
    wrong = paper_deduction_of(view)
    wrong["you"]["card0"] = "color is Red; rank is 5"  # at most one identity, seldom the engine's set
    wrong["player+1"].pop("card1")
    scored = score_deductions(view, wrong)
    assert scored.others.missing == 1 and scored.others.exact < 1.0
    truth = view.own_hand[0].knowledge
    assert (scored.own.exact == 1.0) == (
        set(truth.could_be_colors) == {"R"} and set(truth.could_be_ranks) == {5}
    )
    negated = {"you": {f"card{c.index}": "I have not worked this card out yet" for c in view.own_hand}}
    assert score_deductions(view, negated).own.missing == len(
        view.own_hand
    )  # nothing readable: counted wrong


def without_deduction(request: dict[str, Any]) -> Reply:
    reply = careful_player(request)
    payload = json.loads(reply.content)
    payload.pop("deductions", None)
    payload.pop("deduction", None)
    return Reply(content=json.dumps(payload))


def test_a_reply_without_the_deduction_block_is_still_played(tmp_path: Path) -> None:
    with FakeModelServer(without_deduction) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--scaffold", "mycroft"]
        assert main([*argv, "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    (path,) = tmp_path.glob("*/games/*.jsonl")
    game = read_game_log(path)
    assert game.complete and len(game.moves) > 10
    assert all(len(m.calls[0].attempts) == 1 for m in game.moves)  # never re-asked for it
    assert all(m.tracking["own"]["missing"] == m.tracking["own"]["cards"] for m in game.moves)


def test_the_previous_turn_is_kept_for_one_turn_only(tmp_path: Path) -> None:
    argv = ["run", "--model", "local/smart", "--scaffold", "mycroft", "--players", "3", "--seeds", "2"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    (path,) = tmp_path.glob("*/games/*.jsonl")
    game = read_game_log(path)
    mine = [m for m in game.moves if m.seat == 1]
    for before, previous, now in zip(mine, mine[1:], mine[2:], strict=False):
        prompt = now.calls[0].attempts[0].messages[0].content
        kept = prompt[prompt.index("PREVIOUS GAME STATE:") :]
        assert previous.calls[0].final.reply in kept and f"Turn {previous.turn}\n" in kept
        assert f"Turn {before.turn}\n" not in kept  # one turn kept
        assert previous.tracking["own"]["exact"] == 1.0  # the bot's free-text block, scored exactly


def test_the_events_fireworks_and_info_tokens_follow_the_engine() -> None:
    for players, seed in ((2, 1), (3, 6), (5, 8)):
        game = random_game(players, seed=seed, moves=70)
        if game.is_over:
            continue
        view = build_view(game.observe(game.current_player))
        last = view.events[-1]
        assert last.info_after == view.info_tokens
        assert last.fireworks_after == " ".join(f"{c}{n}" for c, n in view.fireworks.items())
        for before, after in zip(view.events, view.events[1:], strict=False):
            assert (after.fireworks_before, after.info_before) == (before.fireworks_after, before.info_after)
