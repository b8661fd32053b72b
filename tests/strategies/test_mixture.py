"""Mixture of agents as in the paper (app. E.2, I.4-I.5): each setting has its own roles and rubrics, the final
agent reads every role's full reply, and there is no history agent with 2 players."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.formats import parse_reply
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply, careful_player

REPORT_ROLES = {  # the words each analysis role's prompt starts its task with -> a reply that names its role
    "You are the Analyst Agent": "analyst",
    "You are the Discard Pile Analyst": "discard",
    "You are Agent 5 (History Analyst)": "history",
    "Analyse EVERY candidate move": "analyst",
    "give a detailed discard analysis": "discard",
    "Your identity for this turn is Player": "history",
}


def advisers(request: dict[str, Any]) -> Reply:
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    for marker, role in REPORT_ROLES.items():
        if marker in user:
            digest = abs(hash(user)) % 10_000
            return Reply(content=f"{role} report #{digest}: card 1 looks safest to discard.")
    return careful_player(request)


def play(tmp_path: Path, scaffold: str, players: int) -> Any:
    with FakeModelServer(advisers) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--scaffold", scaffold]
        argv += ["--players", str(players), "--seeds", "2", "--out", str(tmp_path), "--no-progress"]
        assert main(argv) == 0
    (path,) = tmp_path.glob("*/games/*.jsonl")
    return read_game_log(path)


def user_of(call: Any) -> str:
    return next(m.content for m in call.attempts[0].messages if m.role == "user")


def system_of(call: Any) -> str:
    return next(m.content for m in call.attempts[0].messages if m.role == "system")


def test_watson_mixture_has_the_papers_roles_history_and_finalizer(tmp_path: Path) -> None:
    game = play(tmp_path, "moa-watson", 3)
    roles = ["baseline", "rank_preferring", "analyst", "discard_strategist", "history_analyst", "aggregator"]
    for record in game.moves:
        calls = {c.role: c for c in record.calls}
        assert [c.role for c in record.calls] == roles
        for call in record.calls:  # every agent: a system and a user message, the last 10 turns in the state
            assert [m.role for m in call.attempts[0].messages] == ["system", "user"]
            shown = re.findall(
                r"^- T(\d+) \(P\d, Info:\d, FW:(?:[RYGWB]\d ?){5}\): \[\(", user_of(call), re.M
            )
            assert [int(t) for t in shown] == list(range(max(1, record.turn - 10), record.turn))
        assert "Additional preference" in system_of(calls["rank_preferring"])
        assert "Additional preference" not in system_of(calls["baseline"])
        assert "Move Analysis:" in system_of(calls["analyst"]) and "Critical Cards Lost" in system_of(
            calls["discard_strategist"]
        )
        assert "Do NOT propose a move" in user_of(calls["history_analyst"])
        final = user_of(calls["aggregator"])
        assert "you MUST choose it" in final and "Chosen Move Number" in system_of(calls["aggregator"])
        for call in record.calls[:-1]:  # the finalizer reads every agent's full reply
            assert call.final.reply in final
        assert (
            parse_reply(calls["aggregator"].final.reply, len(record.legal_moves)).action == record.move_index
        )


def test_sherlock_mixture_has_the_papers_rubrics_and_full_history(tmp_path: Path) -> None:
    game = play(tmp_path, "moa-sherlock", 3)
    for number, record in enumerate(game.moves):
        calls = {c.role: c for c in record.calls}
        assert list(calls) == [
            "baseline",
            "rank_preferring",
            "analyst",
            "discard_strategist",
            "history_analyst",
            "aggregator",
        ]
        assert all([m.role for m in c.attempts[0].messages] == ["user"] for c in record.calls)
        for role in ("analyst", "discard_strategist", "history_analyst", "aggregator"):  # the common context
            assert "Key Rules:" in user_of(
                calls[role]
            ) and "Your hand contains the following cards:" in user_of(calls[role])
        analyst = user_of(calls["analyst"])
        assert all(
            f in analyst for f in ("Probability_of_success", "Discard_risk_level", "Info_token_cost_or_gain")
        )
        assert "Try to save the critical cards like rank 5" in analyst
        discard = user_of(calls["discard_strategist"])
        assert all(
            f in discard
            for f in ("Safety_probability", "Criticality", "Visible_duplicates", "Recommendation")
        )
        history = user_of(calls["history_analyst"])
        assert "IMPORTANT" in history and "counts from the player who GAVE the clue" in history
        assert len(re.findall(r"^Turn \d+: ", history, re.M)) == number  # the whole game so far
        assert "Speculations" in history and "Yellow 4 and ready to play" in history
        final = user_of(calls["aggregator"])
        for call in record.calls[:-1]:  # the ratings JSON of agents 1-2 and the texts of agents 3-5, in full
            assert call.final.reply in final
        assert '"move_ratings"' in calls["baseline"].final.reply
        assert "Report from Agent 5 (Historian)" in final and '"action": <index of the chosen move>' in final


@pytest.mark.parametrize("scaffold", ["moa-watson", "moa-sherlock"])
def test_no_history_agent_with_two_players(tmp_path: Path, scaffold: str) -> None:
    game = play(tmp_path, scaffold, 2)
    for record in game.moves:
        assert "history_analyst" not in [c.role for c in record.calls]
        assert "History Analysis" not in user_of(record.calls[-1]) and "Historian" not in user_of(
            record.calls[-1]
        )
        final = record.calls[-1].attempts[0].messages  # nor is the missing agent named to the final agent
        assert not any("Agent 5" in m.content for m in final)
