"""Real HTTP servers that misbehave: every reply is parsed or re-asked with the problem named, provider errors are
retried with backoff, and when retries run out the game stops as interrupted; no move is ever invented."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.formats import parse_reply
from harness.models import retry_events
from harness.run.score_table import summarize
from harness.run.store import RunDir
from harness.schema.log_file import count_moves, read_game_log
from harness.schema.records import PROVIDER_ERROR_KINDS
from tests.fakeserver import FakeModelServer, Reply, careful_player, legal_moves_in
from tests.helpers import the_log

BAD_REPLIES: dict[str, tuple[str, str]] = {
    # name: (reply text, error kind the harness must record)
    "empty": ("", "empty_reply"),
    "prose only": ("I think I should play my oldest card, it feels right.", "unparseable"),
    "illegal index": ("Reasoning: go.\nChosen Move Number: 99", "illegal_move"),
    "no action": ('{"reason": "I forgot to choose", "move_ratings": []}', "unparseable"),
    "action not a number": ('{"action": "the red one", "reason": "x"}', "unparseable"),
    "truncated json": ('{"move_ratings": [{"action": 0, "rating": 0.5', "unparseable"),
    "negative index": ('{"action": -3, "reason": "x"}', "illegal_move"),
}


class Misbehaving:
    """For each new prompt, the first answer misbehaves in the next way from a list; re-asks get good answers.

    Kinds in `once` misbehave the first time their turn comes only, and answer well after that: a slow reply costs
    the client's whole timeout, and one of them shows how a timeout is handled as well as many do."""

    def __init__(self, kinds: list[str], once: frozenset[str] = frozenset()) -> None:
        self.kinds = kinds
        self.once = once
        self.used: set[str] = set()
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        key = hashlib.sha256(json.dumps(request["messages"][:2]).encode()).hexdigest()
        with self.lock:
            count = self.seen.get(key, 0)
            self.seen[key] = count + 1
            fresh = len(self.seen)
            kind = self.kinds[fresh % len(self.kinds)]
            first_ask = count == 0 and all(m["role"] != "assistant" for m in request["messages"])
            if first_ask and kind in self.once:
                if kind in self.used:
                    kind = "ok"
                self.used.add(kind)
        if first_ask:
            if kind in BAD_REPLIES:
                return Reply(content=BAD_REPLIES[kind][0])
            if kind != "ok":
                return _provider_error(kind)
        return careful_player(request)


def _provider_error(kind: str) -> Reply:
    if kind == "429":
        return Reply(status=429, headers={"Retry-After": "0"})
    if kind == "500":
        return Reply(status=500)
    if kind == "503":
        return Reply(status=503)
    if kind == "slow":
        return Reply(content="too late", delay_s=1.5)
    if kind == "drop":
        return Reply(drop_connection=True)
    raise ValueError(kind)


def run(server: FakeModelServer, out: Path, *extra: str) -> int:
    return main(
        [
            "run", "--model", "openai/flaky", "--api-base", server.base_url, "--out", str(out), "--no-progress",
            "--retry-wait", "0.01", "--retry-wait-max", "0.05", "--timeout", "0.8", *extra,
        ]
    )


@pytest.mark.parametrize("scaffold", ["watson", "sherlock"])
def test_bad_replies_are_re_asked_with_the_problem_named_and_never_replaced(
    tmp_path: Path, client: list[str], scaffold: str
) -> None:
    script = Misbehaving(list(BAD_REPLIES))
    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "4", "--scaffold", scaffold) == 0
    contents = the_log(tmp_path)
    assert contents.complete
    kinds_seen = set()
    for record in contents.moves:
        (call,) = record.calls
        for before, after in zip(call.attempts, call.attempts[1:], strict=False):
            assert before.error_kind is not None
            if before.error_kind in PROVIDER_ERROR_KINDS:  # a slow first call on a busy machine: sent again
                assert after.messages == before.messages
                continue
            kinds_seen.add(before.error_kind)
            # the re-ask is the original prompt, the bad reply and a message that names the problem: no transcript
            assert after.messages[:-2] == call.attempts[0].messages
            assert after.messages[-2].role == "assistant" and after.messages[-2].content == before.reply
            assert after.messages[-1].content == before.error
        final = call.attempts[-1]
        assert final.error_kind is None
        # the move played is exactly the one the model's final reply chose
        assert parse_reply(final.reply, len(record.legal_moves)).action == record.move_index
    assert kinds_seen == {"empty_reply", "unparseable", "illegal_move"}
    assert contents.result.invalid_replies == sum(
        1 for m in contents.moves for a in m.calls[0].attempts if a.error_kind not in (None, *PROVIDER_ERROR_KINDS)
    )
    assert contents.result.invalid_replies > 10


def test_provider_errors_are_retried_with_backoff_and_counted(tmp_path: Path, client: list[str]) -> None:
    script = Misbehaving(["429", "500", "503", "slow", "drop", "ok"], once=frozenset({"slow"}))
    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5", "--max-retries", "0") == 0
    contents = the_log(tmp_path)
    assert contents.complete
    kinds = [a.error_kind for m in contents.moves for a in m.calls[0].attempts if a.error_kind]
    assert {"rate_limited", "server_error", "timeout", "connection"} <= set(kinds)
    assert contents.result.provider_errors == len(kinds)
    assert contents.result.invalid_replies == 0
    for record in contents.moves:
        assert record.calls[0].attempts[-1].error_kind is None


@pytest.mark.parametrize("repeats", [False, True])
def test_a_model_that_never_answers_properly_interrupts_the_game_with_its_log_intact(
    tmp_path: Path, client: list[str], capsys: pytest.CaptureFixture[str], repeats: bool
) -> None:
    """Different bad replies use up --max-retries; the same bad reply twice stops the re-asks at once."""
    good_moves = 3
    fresh: set[str] = set()
    bad: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        key = json.dumps(request["messages"][:2])
        if key not in fresh and len(fresh) < good_moves:
            fresh.add(key)
        if key in fresh:
            return careful_player(request)
        bad.append(1)
        suffix = "" if repeats else f" (attempt {len(bad)})"
        return Reply(content=f"Let me think about this very carefully... I am not sure.{suffix}")

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "6", "--max-retries", "2") == 1
    contents = the_log(tmp_path)
    assert len(contents.moves) == good_moves
    result = contents.result
    assert result.status == "interrupted"
    (failed,) = result.failed_calls
    kinds = [a.error_kind for a in failed.attempts if a.error_kind not in PROVIDER_ERROR_KINDS]
    status = json.loads((next(tmp_path.iterdir()) / "status.json").read_text())
    if repeats:
        assert kinds == ["unparseable", "repeated_reply"]
        assert "same invalid reply" in result.interrupted_reason and "unparseable" in result.interrupted_reason
        assert "same invalid reply" in status["reason"]
    else:
        assert kinds == ["unparseable"] * 3
        assert "invalid replies" in result.interrupted_reason and "unparseable" in result.interrupted_reason
        assert "invalid replies" in status["reason"]
    assert status["status"] == "interrupted"
    assert "interrupted" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("errors", "retries", "kinds"),
    [
        ([Reply(status=500)] * 9, 2, ["server_error"] * 3),  # retries used up: 1 + 2 attempts
        ([Reply(status=429, headers={"Retry-After": "0"})], 0, ["rate_limited"]),  # no retries at all
        ([Reply(status=503), Reply(status=401)], 4, ["server_error", "authentication"]),  # fatal after retryable
    ],
)
def test_provider_errors_stop_the_game_after_exactly_the_attempts_allowed(
    tmp_path: Path, client: list[str], errors: list[Reply], retries: int, kinds: list[str]
) -> None:
    """Once a move is under way the provider fails: each attempt is sent, numbered and logged with its error kind,
    up to 1 + --provider-retries attempts (fewer if an error cannot be fixed by retrying), each retry is announced to
    the live display, and then the game stops as interrupted with every earlier move intact."""
    good_moves = 2
    fresh: list[str] = []
    failing: list[Reply] = list(errors)

    def script(request: dict[str, Any]) -> Reply:
        key = json.dumps(request["messages"][:2])
        if key not in fresh:
            fresh.append(key)
        if fresh.index(key) < good_moves:
            return careful_player(request)
        return failing.pop(0) if failing else careful_player(request)

    announced: list[str | None] = []  # the back-offs the live display counts down
    with FakeModelServer(script) as server, retry_events.listening(lambda _m, kind, _w: announced.append(kind)):
        code = run(server, tmp_path, *client, "--seeds", "9", "--provider-retries", str(retries))
        assert code == 1
        assert len(server.exchanges) == good_moves + len(kinds)
    assert announced == kinds[:-1]  # a wait is announced only when a retry follows it
    contents = the_log(tmp_path)
    assert len(contents.moves) == good_moves
    result = contents.result
    assert result.status == "interrupted" and result.turns == good_moves
    (failed,) = result.failed_calls
    assert [a.error_kind for a in failed.attempts] == kinds
    assert [a.number for a in failed.attempts] == list(range(1, len(kinds) + 1))
    assert result.provider_errors == len(kinds)


def play_mycroft_with_a_third_deduction(out: Path, deduction: dict[str, Any]) -> None:
    """A paper Mycroft game (seed 3) whose third reply is well formed but carries this deduction block."""
    asked: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        asked.append(1)
        reply = careful_player(request)
        if len(asked) == 3:
            data = json.loads(reply.content or "")
            data["deduction"] = deduction
            reply = Reply(content=json.dumps(data))
        return reply

    with FakeModelServer(script) as server:
        assert run(server, out, "--scaffold", "mycroft", "--seeds", "3") == 0


@pytest.mark.parametrize(
    "deduction",
    [
        {"player+\u00b2": "colour could be red"},  # a superscript two: str.isdigit() says yes, int() says no
        {"you": {"\u00b2": "rank is 2"}},
        {"you": [{"card": float("inf"), "colors": ["R"], "ranks": [1]}]},
        {"you": [{"card": 0, "colors": ["R"], "ranks": [float("inf")]}]},
        {"player+" + "9" * 5000: {"card0": "rank is 1"}},  # more digits than Python reads as a number
    ],
)
def test_a_mycroft_deduction_block_no_reader_can_take_in_scores_as_missing_and_the_game_goes_on(
    tmp_path: Path, deduction: dict[str, Any]
) -> None:
    """The paper Mycroft's deduction block is free-form JSON and only measured, never played: a block with odd keys
    or numbers is an unreadable deduction (its cards score 0), not an error that stops the session."""
    play_mycroft_with_a_third_deduction(tmp_path, deduction)
    contents = the_log(tmp_path)
    assert contents.complete and contents.result.invalid_replies == 0
    third = contents.moves[2]
    assert third.tracking is not None and third.tracking["own"]["missing"] == third.tracking["own"]["cards"]


def test_a_models_own_json_kept_in_the_log_is_never_counted_as_an_error_or_a_move(tmp_path: Path) -> None:
    """The paper Mycroft's deduction block is kept in the log as the model wrote it: keys there that look like the
    log's own ("error_kind", "type") must not show as provider errors, invalid replies or moves in the summary."""
    mimic = {"player_0": {"error_kind": "server_error", "note": {"error_kind": "illegal_move"}, "x": {"type": "move"}}}
    play_mycroft_with_a_third_deduction(tmp_path, mimic)
    (run_dir,) = list(tmp_path.iterdir())
    (path,) = list((run_dir / "games").glob("*.jsonl"))
    assert b'"error_kind":"server_error"' in path.read_bytes()  # the model's block is in the log as it came
    contents = read_game_log(path)
    summary = summarize([(contents.result, RunDir(run_dir).facts(path.stem))], 0.0)
    assert summary.provider_errors == {} and summary.invalid_replies == {}
    assert count_moves(path) == len(contents.moves)


@pytest.mark.parametrize(
    ("reply", "named"),
    [
        (Reply(status=401), "AuthenticationError"),
        (Reply(status=404), "NotFoundError"),
        (
            Reply(
                status=400,
                raw_body=json.dumps(
                    {
                        "error": {
                            "message": "This model's maximum context length is 8192 tokens.",
                            "code": "context_length_exceeded",
                            "type": "invalid_request_error",
                        }
                    }
                ).encode(),
            ),
            "ContextWindowExceeded",
        ),
    ],
)
def test_errors_that_retrying_cannot_fix_stop_at_once(
    tmp_path: Path, client: list[str], reply: Reply, named: str
) -> None:
    with FakeModelServer(lambda request: reply) as server:
        assert run(server, tmp_path, *client, "--seeds", "7") == 1
        assert len(server.exchanges) == 1
    result = the_log(tmp_path).result
    assert result.status == "interrupted" and named in result.interrupted_reason
    assert result.turns == 0


def test_retry_after_is_honoured(tmp_path: Path, client: list[str]) -> None:
    import time

    calls: list[float] = []

    def script(request: dict[str, Any]) -> Reply:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return Reply(status=429, headers={"Retry-After": "1"})
        return careful_player(request)

    with FakeModelServer(script) as server:
        # a huge base wait would make a backoff of its own obvious; Retry-After (1 s) must win
        main(
            [
                "run", "--model", "openai/m", "--api-base", server.base_url, "--out", str(tmp_path), "--no-progress",
                "--seeds", "8", "--retry-wait", "30", "--retry-wait-max", "60", *client,
            ]
        )
    assert 0.9 <= calls[1] - calls[0] < 5


def test_legal_moves_are_listed_for_the_model(tmp_path: Path) -> None:
    with FakeModelServer(careful_player) as server:
        assert run(server, tmp_path, "--seeds", "9") == 0
        first = server.exchanges[0].request
    assert [i for i, _ in legal_moves_in(first)] == list(range(len(legal_moves_in(first))))


def test_every_failed_call_is_counted_once_across_interruptions(tmp_path: Path, client: list[str]) -> None:
    state = {"mode": "ok", "fresh": 0}

    def script(request: dict[str, Any]) -> Reply:
        if state["mode"] == "down":
            return Reply(status=401)
        if len(request["messages"]) == 2:
            state["fresh"] += 1
            if state["fresh"] == 4:  # the fourth move's prompt: the key is revoked from here on
                state["mode"] = "down"
                return Reply(status=401)
        return careful_player(request)

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "2") == 1  # interrupted at move 4
        assert main(["resume", str(next(tmp_path.iterdir())), "--no-progress"]) == 1  # still down
        state["mode"] = "ok"
        assert main(["resume", str(next(tmp_path.iterdir())), "--no-progress"]) == 0
    contents = the_log(tmp_path)
    first, second = contents.results[0], contents.results[1]
    assert first.status == second.status == "interrupted"
    assert len(first.failed_calls) == len(second.failed_calls) == 1  # each line holds only its own failure
    final = contents.result
    assert final.status == "complete"
    assert final.calls == len(contents.moves) + 2  # every call made, each failed call counted once
