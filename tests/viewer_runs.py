"""Runs for the game viewer's tests, made the way a user makes them: `hanabi-eval run` with the built-in players, and a
cross-play team whose model seat is a scripted OpenAI-compatible server on 127.0.0.1 (tests/fakeserver.py) that
plays the paper's Mycroft with deductions partly wrong, sends a hostile reply (a `<script>` and an `<img onerror>`)
that is re-asked, makes a blind play, and at last answers nothing usable, so the game stops as interrupted.
"""

from __future__ import annotations

import gzip
import json
import shutil
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
        self.mended = False  # set after the interruption: the model answers well again (for a resume)

    def __call__(self, request: dict[str, Any]) -> Reply:
        self.requests += 1
        if not self.mended and (self.requests == self.hostile_at or self.requests >= self.breaks_from):
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
    """Five runs under `out`: built-in self-play at 2-5 players, a built-in player's repeats, the scripted model
    beside a built-in best-of-k seat (sampling twice, then choosing) until the game stops as interrupted, the
    scripted model beside a built-in seat resumed after its stop with the model mended, played to the end and valued
    at its last decisions (two rollouts each, so each value has a standard error), and a run the schema's first
    release wrote. Returns each run's folder."""
    selfplay_argv = ["run", "--model", "local/smart", "--players", "2", "3", "4", "5", "--seeds", "1"]
    assert _run([*selfplay_argv, "--run-name", "selfplay", "--out", str(out)]) == 0
    repeats_argv = ["run", "--model", "local/cautious", "--seeds", "2", "--repeats", "2"]
    assert _run([*repeats_argv, "--run-name", "repeats", "--out", str(out)]) == 0
    resumed = out / "resumed"
    partners = {"crossplay": "local/smart:best-of-k-watson,k=2", "resumed": "local/smart:watson"}
    for name, partner in partners.items():
        team = ["run", "--seat", "openai/fake-model:mycroft", "--seat", partner, "--seeds", "1"]
        script = ScriptedMycroft()
        with FakeModelServer(script) as server:
            argv = [*team, "--max-retries", "1", "--api-base", server.base_url, "--run-name", name]
            assert _run([*argv, "--out", str(out)]) == 1  # interrupted
            if name == "resumed":
                script.mended = True
                assert main(["resume", str(resumed), "--no-progress"]) == 0
    last = read_game_log(resumed / "games" / "2p-custom-seed1-r0.jsonl").moves[-1].turn
    assert main(["values", str(resumed), "--rollouts", "2", "--from-turn", str(last - 3)]) == 0
    first_release_run(out / "first-release")
    return {name: out / name for name in ("selfplay", "repeats", "crossplay", "resumed", "first-release")}


FIRST_RELEASE = Path(__file__).parent / "data" / "schema1-first-release"
FIRST_COMMIT = Path(__file__).parent / "data" / "schema1-first-commit"


def first_release_run(out: Path, source: Path = FIRST_RELEASE) -> Path:
    """A run folder of tests/data unpacked into `out` (logs are stored gzipped), as an old version wrote it:
    - schema1-first-release: two games (2 and 3 players, seed 1) that `hanabi-eval run --model local/smart --players
      2 3 --seeds 1` wrote at commit 65ba470 (schema version 1 without the fields added since);
    - schema1-first-commit: the same command at the first commit, ab315d5, whose state digests hash the state as a
      JSON object of its parts (harness.engine.game.Game.first_commit_digest)."""
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("*.gz"))
    for packed in (source / "games").glob("*.jsonl.gz"):
        (out / "games" / packed.stem).write_bytes(gzip.decompress(packed.read_bytes()))
    return out


def make_many(source: Path, out: Path, copies: int) -> Path:
    """A run folder `out` of `copies` games, each a copy of the game log `source` under its own id (as a long run
    of one deal would hold), plus one log damaged on line 3."""
    games = out / "games"
    games.mkdir(parents=True)
    shutil.copy(source.parent.parent / "manifest.json", out / "manifest.json")
    lines = source.read_bytes().splitlines()
    header = json.loads(lines[0])
    for number in range(copies):
        game_id = f"{header['game_id']}-copy{number:03d}"
        copy = [json.dumps({**header, "game_id": game_id}).encode(), *lines[1:]]
        (games / f"{game_id}.jsonl").write_bytes(b"\n".join(copy) + b"\n")
    damaged = [json.dumps({**header, "game_id": "damaged"}).encode(), *lines[1:]]
    damaged[2] = damaged[2][: len(damaged[2]) // 2] + b"}"
    (games / "damaged.jsonl").write_bytes(b"\n".join(damaged) + b"\n")
    return out
