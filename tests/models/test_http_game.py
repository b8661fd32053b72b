"""Whole games through LiteLLM against a real OpenAI-compatible server on 127.0.0.1, logged exactly."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cli.main import main
from harness.engine.replay import replay_to_end
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, careful_player


def run_dir(out: Path) -> Path:
    (only,) = [p for p in out.iterdir() if p.is_dir()]
    return only


def test_a_game_against_a_local_server_logs_exactly_what_was_sent_and_answered(
    tmp_path: Path, client: list[str]
) -> None:
    with FakeModelServer(careful_player) as server:
        code = main(
            [
                "run", "--model", "openai/fake-model", "--api-base", server.base_url, "--players", "2", "--seeds", "1",
                "--out", str(tmp_path), "--concurrency", "1", "--no-progress", "--temperature", "0.3", *client,
            ]
        )
        exchanges = list(server.exchanges)
    assert code == 0
    contents = read_game_log(run_dir(tmp_path) / "games" / "2p-custom-seed1.jsonl")
    assert contents.complete and not contents.torn
    attempts = [a for m in contents.moves for c in m.calls for a in c.attempts]
    assert len(attempts) == len(exchanges) == len(contents.moves)
    for attempt, exchange in zip(attempts, exchanges, strict=True):
        assert [m.model_dump() for m in attempt.messages] == exchange.request["messages"]
        assert attempt.reply == exchange.reply.content
        assert exchange.request["model"] == "fake-model"
        assert exchange.request["temperature"] == 0.3
        assert "prompt_cache_key" not in exchange.request  # a server LiteLLM knows no caching of: sent as before
        assert attempt.cache_marks is None and attempt.usage.cache_write_tokens == 0
        assert attempt.usage.prompt_tokens > 0
    for record in contents.moves:
        assert record.move.description == record.legal_moves[record.move_index]
        assert record.ratings[record.move_index] == 0.8


def test_every_logged_game_replays_through_hle_to_its_logged_result(tmp_path: Path) -> None:
    assert (
        main(["run", "--players", "2", "3", "--seeds", "1,2", "--out", str(tmp_path), "--no-progress"]) == 0
    )
    logs = sorted((run_dir(tmp_path) / "games").glob("*.jsonl"))
    assert len(logs) == 4
    for path in logs:
        contents = read_game_log(path)
        assert contents.header is not None and contents.result is not None
        game = replay_to_end(contents.header.players, contents.header.deck, [m.move for m in contents.moves])
        assert game.is_over
        assert game.fireworks_sum == contents.result.fireworks_score
        assert game.score == contents.result.engine_score
        assert game.end_reason == contents.result.end_reason
        assert game.digest() == contents.moves[-1].digest_after


def test_same_seed_deals_the_same_opening_hands_under_any_model_or_scaffold(tmp_path: Path) -> None:
    with FakeModelServer(careful_player) as server:
        assert (
            main(
                [
                    "run", "--model", "openai/m", "--api-base", server.base_url, "--seeds", "3", "--out",
                    str(tmp_path / "a"), "--no-progress",
                ]
            )
            == 0
        )
    assert (
        main(
            [
                "run", "--model", "local/cautious", "--seeds", "3", "--out", str(tmp_path / "b"), "--no-progress",
            ]
        )
        == 0
    )
    first_prompts = []
    for out in ("a", "b"):
        contents = read_game_log(run_dir(tmp_path / out) / "games" / "2p-custom-seed3.jsonl")
        first_prompts.append(contents.moves[0].calls[0].attempts[0].messages[1].content)
        assert (
            contents.header.deck
            == json.loads((Path("seeds") / "standard.jsonl").read_text().splitlines()[2])["deck"]
        )
    assert first_prompts[0] == first_prompts[1]


def test_rerunning_the_same_command_never_replays_a_finished_game(tmp_path: Path) -> None:
    argv = ["run", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    log = run_dir(tmp_path) / "games" / "2p-custom-seed1.jsonl"
    before = log.read_bytes()
    assert main(argv) == 0
    assert log.read_bytes() == before
