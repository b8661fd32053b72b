"""Runs for the game viewer's tests, made the way a user makes them: `hanabi-eval run` with the built-in players, and a
cross-play team whose model seat is a scripted OpenAI-compatible server on 127.0.0.1 (tests/fakeserver.py) that
plays the paper's Mycroft with deductions partly wrong, sends a hostile reply (a `<script>` and an `<img onerror>`)
that is re-asked, makes a blind play, and at last answers nothing usable, so the game stops as interrupted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply, careful_player, legal_moves_in

HOSTILE = (
    'Let me think. <script>window.__pwned = "script"</script><img src="x" onerror="window.__pwned = \'img\'">'
    " <b>bold claim</b> & no move here."
)
HOSTILE_REASON = '<script>window.__pwned = "reason"</script>play it'


class ScriptedMycroft:
    """A model seat's script: request n (1-based, re-asks included) is answered as its place in the game asks."""

    hostile_at = 2  # this request gets the hostile reply; the re-ask after it a valid one
    blind_play_at = 4  # this request plays card 0, which its holder knows nothing about
    breaks_from = 9  # from this request on, nothing usable: the game stops as interrupted

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, request: dict[str, Any]) -> Reply:
        self.requests += 1
        if self.requests == self.hostile_at or self.requests >= self.breaks_from:
            return Reply(
                content=HOSTILE if self.requests < self.breaks_from else f"{HOSTILE} {self.requests}"
            )
        reply = careful_player(request)
        payload = json.loads(reply.content or "{}")
        if self.requests == self.blind_play_at:
            payload["action"] = next(i for i, text in legal_moves_in(request) if text == "(Play 0)")
        payload["reason"] = HOSTILE_REASON
        payload["deduction"] = {
            "you": {"card0": "color could be R, Y; rank is 2", "card1": "unknown"},
            "player+1": {"card0": "color cannot be Red; rank cannot be 1"},
        }
        return Reply(content=json.dumps(payload))


def _run(argv: list[str]) -> int:
    return main([*argv, "--no-progress"])


def make_runs(out: Path) -> dict[str, Path]:
    """Three runs under `out`: built-in self-play at 2-5 players (the 2-player game valued at its last decisions),
    a built-in player's repeats, and the cross-play team with the scripted model. Returns each run's folder."""
    selfplay_argv = ["run", "--model", "local/smart", "--players", "2", "3", "4", "5", "--seeds", "1"]
    selfplay_argv += ["--run-name", "selfplay", "--out"]
    assert _run([*selfplay_argv, str(out)]) == 0
    selfplay = out / "selfplay"
    two = read_game_log(selfplay / "games" / "2p-custom-seed1.jsonl")
    last = two.moves[-1].turn
    assert main(["values", str(selfplay), "--rollouts", "2", "--from-turn", str(last - 2)]) == 0
    repeats_argv = ["run", "--model", "local/cautious", "--seeds", "2", "--repeats", "2"]
    repeats_argv += ["--run-name", "repeats", "--out"]
    assert _run([*repeats_argv, str(out)]) == 0
    with FakeModelServer(ScriptedMycroft()) as server:
        team = ["run", "--seat", "openai/fake-model:mycroft", "--seat", "local/smart:watson"]
        team += ["--seeds", "1", "--max-retries", "1"]
        code = _run([*team, "--api-base", server.base_url, "--run-name", "crossplay", "--out", str(out)])
    assert code == 1  # the game stopped as interrupted
    return {"selfplay": selfplay, "repeats": out / "repeats", "crossplay": out / "crossplay"}
