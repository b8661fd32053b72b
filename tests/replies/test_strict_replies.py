"""Replies that do not name exactly one move without doubt are re-asked, never played, over real HTTP: ambiguous,
cut off by the token limit, stopped by a content filter, oversized, nested too deep, slow to read, echoing the key.
Each case is sent once as the first answer to a fresh prompt; the re-ask gets a good answer."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.formats import ReplyProblem, get_format
from harness.schema.records import PROVIDER_ERROR_KINDS
from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.helpers import only_run, the_log

KEY = "sk-test-ECHOkey-0123456789abcdefXYZ"

# name: (reply, error kind the first attempt must get)
CORPUS: dict[str, tuple[Reply, str]] = {
    "two chosen lines": (Reply("Reasoning: hm.\nChosen Move Number: 1\nChosen Move Number: 2"), "ambiguous"),
    "text quoting JSON": (Reply('Chosen Move Number: 1\nAs JSON: {"action": 2, "reason": "x"}'), "ambiguous"),
    "decimal": (Reply("Reasoning: go.\nChosen Move Number: 2.5"), "ambiguous"),
    "zero-width split": (Reply("Reasoning: go.\nChosen Move Number: 1\u200b2"), "ambiguous"),
    "nested only": (Reply('{"reason": {"id": 1}, "move_ratings": []}'), "ambiguous"),
    "alternatives": (Reply("Chosen Move Number: 1 or 2"), "ambiguous"),
    "correction": (Reply("Reasoning: hm.\nChosen Move Number: 0, no wait, 1"), "ambiguous"),
    "repeated action key": (Reply('{"action": 0, "reason": "a", "action": 1}'), "ambiguous"),
    # move 0 is always Discard 0 or Play 0, never a clue
    "described as another move": (Reply("Chosen Move Number: 0 (Reveal player +1 color R)"), "ambiguous"),
    "two JSON objects": (
        Reply('{"action": 0, "reason": "a"} then {"action": 1, "reason": "b"}'),
        "ambiguous",
    ),
    "truncated but readable": (
        Reply("Reasoning: go.\nChosen Move Number: 0", finish_reason="length"),
        "truncated",
    ),
    "content filter": (Reply("Chosen Move Number: 0", finish_reason="content_filter"), "content_filter"),
    "one megabyte": (Reply("Chosen Move Number: 0\n" + "x" * 1_000_000), "oversized"),
    "deep brackets": (Reply('{"a": ' * 100_000 + "1" + "}" * 100_000), "oversized"),
    "backtracking bait": (Reply("move 1 (" * 25_000), "unparseable"),
    "key echo": (Reply(f"Chosen Move Number: 0 (your key: {KEY})", reasoning=f"key {KEY}"), "echoed_secret"),
    "key in reasoning": (
        Reply("Chosen Move Number: 0", reasoning=f"Authorization: Bearer {KEY}"),
        "echoed_secret",
    ),
    "header echo": (
        Reply('{"action": 0, "headers": {"Authorization": "Bearer ' + KEY + '"}}'),
        "echoed_secret",
    ),
}


class FirstAnswerFromCorpus:
    """The first answer to each of the first len(CORPUS) fresh prompts is the next corpus reply; others are good."""

    def __init__(self) -> None:
        self.fresh: dict[str, str] = {}
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        key = json.dumps(request["messages"][:2])
        with self.lock:
            if (
                key not in self.fresh
                and all(m["role"] != "assistant" for m in request["messages"])
                and len(self.fresh) < len(CORPUS)
            ):
                name = list(CORPUS)[len(self.fresh)]
                self.fresh[key] = name
                return CORPUS[name][0]
        return careful_player(request)


def run(server: FakeModelServer, out: Path, *extra: str) -> int:
    argv = [
        "run",
        "--model",
        "openai/strict",
        "--api-base",
        server.base_url,
        "--out",
        str(out),
        "--no-progress",
    ]
    return main([*argv, "--retry-wait", "0.01", "--retry-wait-max", "0.05", *extra])


def leaks(folder: Path, secret: str) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("scaffold", ["watson", "sherlock"])
def test_every_doubtful_reply_is_re_asked_never_played_and_no_key_reaches_disk(
    tmp_path: Path, client: list[str], monkeypatch: pytest.MonkeyPatch, scaffold: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    script = FirstAnswerFromCorpus()
    runs = tmp_path / "runs"
    started = time.perf_counter()
    with FakeModelServer(script) as server:
        assert run(server, runs, *client, "--seeds", "4", "--scaffold", scaffold, "--timeout", "30") == 0
    assert time.perf_counter() - started < 120  # no stall (a full game, 1 MB replies included)
    contents = the_log(runs)
    assert contents.complete
    seen: dict[str, str] = {}
    for record in contents.moves:
        (call,) = record.calls
        attempts = [a for a in call.attempts if a.error_kind not in PROVIDER_ERROR_KINDS]
        first = attempts[0]
        assert all(
            a.finish_reason is not None for a in call.attempts if a.error_kind not in PROVIDER_ERROR_KINDS
        )
        if first.error_kind is None:
            continue
        seen[first.error_kind] = seen.get(first.error_kind, "") + "x"
        # re-asked: one more attempt, holding the original prompt, the failed reply (cut) and the feedback
        second = attempts[1]
        assert second.error_kind is None and len(second.messages) == len(first.messages) + 2
        assert second.messages[:-2] == first.messages
        assert len(second.messages[-2].content) <= 2_100
        assert second.messages[-1].content == first.error
        # the move played is the re-asked answer's, never one read from the bad reply
        fmt = get_format("text-move" if scaffold == "watson" else "json-move")
        reply = fmt.read(second.reply or "", len(record.legal_moves))
        assert not isinstance(reply, str) and reply.action == record.move_index
    expected: dict[str, int] = {}
    for _, kind in CORPUS.values():
        expected[kind] = expected.get(kind, 0) + 1
    assert {k: len(v) for k, v in seen.items()} == expected
    # the key reached the server (as a real provider would get it) and was echoed back, but no file holds it
    exports = tmp_path / "exports"
    assert main(["export", str(only_run(runs)), "--format", "hanabilogs", "--out", str(exports)]) == 0
    assert leaks(tmp_path, KEY) == []
    assert "[REDACTED]" in (next((only_run(runs) / "games").glob("*.jsonl"))).read_text()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[" * 100_000 + "]" * 100_000, "unparseable"),  # no object at all: not even scanned
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "oversized"),
        ("move 1 (" * 25_000, "unparseable"),  # 200 KB on one line
        ("Move 1 (Play 0): 0.5, " * 9_000 + "Chosen Move Number: 1", None),  # long but readable
        ("Chosen Move Number: 0\n" + "y" * 1_000_000, "oversized"),
        ('{"reason": "' + '\\"' * 90_000 + '", "action": 1', "unparseable"),  # an unterminated string
        ("{" * 30 + '"' * 50_000, "unparseable"),
    ],
)
def test_hostile_replies_are_read_or_rejected_quickly_and_without_recursion(
    text: str, kind: str | None
) -> None:
    for fmt in (get_format("text-move"), get_format("json-move")):
        started = time.perf_counter()
        if kind is None:
            reply = fmt.read(text, 20)
            assert not isinstance(reply, str) and reply.action == 1
        else:
            with pytest.raises(ReplyProblem) as caught:
                fmt.read(text, 20)
            assert caught.value.kind == kind
        # the old reader took ~29 s of CPU on the bait line; a linear one takes milliseconds (a bound a loaded
        # machine cannot reach)
        assert time.perf_counter() - started < 10.0


def test_a_truncated_reply_is_re_asked_shorter_with_the_raised_limit_the_user_allowed(
    tmp_path: Path, client: list[str]
) -> None:
    answered: set[str] = set()

    def script(request: dict[str, Any]) -> Reply:
        key = json.dumps(request["messages"][:2])
        if key not in answered:
            answered.add(key)
            return Reply(careful_player(request).content, finish_reason="length")
        return careful_player(request)

    with FakeModelServer(script) as server:
        extra = ("--seeds", "5", "--max-tokens", "300", "--max-tokens-on-truncation", "900")
        assert run(server, tmp_path, *client, *extra) == 0
        bodies = [e.request for e in server.exchanges]
    contents = the_log(tmp_path)
    assert contents.complete and contents.result.invalid_replies == len(contents.moves)
    for record in contents.moves:
        first, second = record.calls[0].attempts[-2:]
        assert first.error_kind == "truncated" and first.finish_reason == "length"
        assert "more briefly" in second.messages[-1].content
        assert second.finish_reason == "stop"
    assert {b["max_tokens"] for b in bodies if len(b["messages"]) == 2} == {300}
    assert {b["max_tokens"] for b in bodies if len(b["messages"]) == 4} == {900}
    # what was sent is what the run records, in the manifest and the game header
    manifest = json.loads((only_run(tmp_path) / "manifest.json").read_text())
    (sent,) = manifest["sent_params"]
    assert sent["max_tokens"] == 300 and sent["max_tokens_on_truncation"] == 900
    assert contents.header.sent_params == [sent, sent]  # one per seat of the 2-player game


def test_re_asks_stay_bounded_and_the_same_bad_reply_stops_them(tmp_path: Path, client: list[str]) -> None:
    long_bad = "I keep thinking. " * 2_000  # 34 KB without a move

    def script(request: dict[str, Any]) -> Reply:
        n = len(script.seen)
        script.seen.append(len(json.dumps(request["messages"])))
        return Reply(f"{long_bad} (take {n})" if n < 4 else long_bad)

    script.seen = []
    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5", "--max-retries", "9") == 1
    sizes = script.seen
    assert len(sizes) == 6  # four different bad replies, then the same one twice: stopped before the limit
    assert max(sizes[1:]) - min(sizes[1:]) < 100  # every re-ask is the same size: no growing transcript
    (failed,) = the_log(tmp_path).result.failed_calls
    assert [a.error_kind for a in failed.attempts] == ["unparseable"] * 5 + ["repeated_reply"]


def test_the_timeout_is_a_deadline_for_the_whole_request(tmp_path: Path, client: list[str]) -> None:
    """A server that trickles its answer a byte at a time is cut off at --timeout, and the call is retried."""
    first: list[bool] = []

    def script(request: dict[str, Any]) -> Reply:
        if not first:
            first.append(True)
            return Reply(careful_player(request).content, trickle_s=0.05)  # ~30 s for the whole body
        return careful_player(request)

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5", "--timeout", "1.5") == 0
    attempts = the_log(tmp_path).moves[0].calls[0].attempts
    assert attempts[0].error_kind == "timeout" and "deadline" in (attempts[0].error or "")
    assert 1.4 < attempts[0].latency_s < 15.0  # cut at the deadline, long before the ~30 s the body would take
    assert attempts[-1].error_kind is None


def test_an_answer_without_choices_is_re_asked_not_a_crash(tmp_path: Path, client: list[str]) -> None:
    empty = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
    first: list[bool] = []

    def script(request: dict[str, Any]) -> Reply:
        if not first:
            first.append(True)
            return Reply(raw_body=json.dumps(empty).encode())
        return careful_player(request)

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5") == 0
    contents = the_log(tmp_path)
    assert contents.complete
    attempts = contents.moves[0].calls[0].attempts
    assert attempts[0].error_kind == "empty_reply" and attempts[0].finish_reason == "no_choices"
    assert attempts[1].error_kind is None


def completion_body(content: str) -> bytes:
    """A chat completion whose content is given as JSON text, escapes and all (as a server writes it)."""
    return (
        '{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": "' + content + '"}, "finish_reason": "stop"}], '
        '"usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}'
    ).encode()


def test_a_lone_surrogate_in_a_reply_is_kept_as_a_replacement_character_and_the_game_goes_on(
    tmp_path: Path, client: list[str]
) -> None:
    """JSON may escape half of a surrogate pair, which no UTF-8 log can hold: a good move with one is played, a bad
    reply with one is re-asked, and both are in the log with U+FFFD in its place."""
    sent: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        sent.append(1)
        if len(sent) == 1:  # a reply naming no move: re-asked, the re-ask quoting it
            return Reply(raw_body=completion_body("oops \\ud800 no move here"))
        if len(sent) == 3:  # a good move, then a lone low surrogate
            good = json.dumps(careful_player(request).content)[1:-1]
            return Reply(raw_body=completion_body(good + " \\udc80"))
        return careful_player(request)

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5") == 0
        asked = [exchange.request for exchange in server.exchanges]
    contents = the_log(tmp_path)
    assert contents.complete
    attempts = [a for m in contents.moves for c in m.calls for a in c.attempts]
    assert len(attempts) == len(sent)  # every request is in the log, none lost
    first, reasked, second_move = attempts[0], attempts[1], contents.moves[1].calls[0].attempts[0]
    assert first.error_kind == "unparseable" and first.reply == "oops \ufffd no move here"
    assert reasked.error_kind is None and "oops \ufffd no move here" in reasked.messages[-2].content
    assert second_move.error_kind is None and second_move.reply is not None and second_move.reply.endswith(" \ufffd")
    assert "\ufffd" in json.dumps(asked[1], ensure_ascii=False)  # the re-ask went out with the replacement character


def test_a_lone_surrogate_escaped_inside_a_replys_json_is_kept_as_a_replacement_character(
    tmp_path: Path, client: list[str]
) -> None:
    """A model's own JSON may escape half a surrogate pair ("\\ud800") in its reason: the move is played, and the
    reason and the seat's working memory keep U+FFFD."""
    sent: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        sent.append(1)
        reply = careful_player(request)
        if len(sent) == 2:
            return Reply(content=reply.content.replace("looks best.", "looks best \\ud800."))
        return reply

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5", "--scaffold", "mycroft") == 0
    contents = the_log(tmp_path)
    assert contents.complete
    record = contents.moves[1]
    assert record.calls[0].attempts[0].error_kind is None
    assert record.reason.endswith("looks best \ufffd.")
    assert record.memory is not None and record.memory["reason"] == record.reason


def test_token_counts_that_are_no_counts_are_recorded_as_zero_never_a_crash(tmp_path: Path, client: list[str]) -> None:
    """A good reply whose usage holds a negative, huge, fractional or textual count: the move is played and the count
    is 0, so no total is lowered or blown up. (LiteLLM itself refuses a body with a non-integer count, as a server
    error that is retried; the direct client reads the body as it is.)"""
    odd: list[Any] = [-5] if "openai" not in client else [-5, 1e30, 10.5, "abc"]
    sent: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        sent.append(1)
        good = careful_player(request)
        if len(sent) > len(odd):
            return good
        body = json.loads(completion_body(json.dumps(good.content)[1:-1]))
        body["usage"] = {"prompt_tokens": odd[len(sent) - 1], "completion_tokens": 3, "total_tokens": 3}
        return Reply(raw_body=json.dumps(body).encode())

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5") == 0
    contents = the_log(tmp_path)
    assert contents.complete
    first = [m.calls[0].attempts[0] for m in contents.moves[: len(odd)]]
    read = [(a.error_kind, a.usage.prompt_tokens, a.usage.completion_tokens) for a in first]
    assert read == [(None, 0, 3)] * len(odd)
    assert contents.result is not None and contents.result.usage.prompt_tokens > 0


def test_a_context_overflow_has_its_own_kind_and_is_counted(tmp_path: Path, client: list[str]) -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 2048 tokens.",
            "code": "context_length_exceeded",
            "type": "invalid_request_error",
        }
    }
    with FakeModelServer(lambda r: Reply(status=400, raw_body=json.dumps(body).encode())) as server:
        assert run(server, tmp_path, *client, "--seeds", "5") == 1
    result = the_log(tmp_path).result
    (failed,) = result.failed_calls
    assert [a.error_kind for a in failed.attempts] == ["context_overflow"]
    assert result.provider_errors == 1


def test_a_re_ask_that_overflows_the_context_is_sent_again_without_the_quoted_reply(
    tmp_path: Path, client: list[str]
) -> None:
    overflow = {"error": {"message": "maximum context length exceeded", "code": "context_length_exceeded"}}
    answered: set[str] = set()

    def script(request: dict[str, Any]) -> Reply:
        key = json.dumps(request["messages"][:2])
        if key not in answered:
            answered.add(key)
            return Reply("I am not sure yet.")
        if len(request["messages"]) == 4:
            return Reply(status=400, raw_body=json.dumps(overflow).encode())
        return careful_player(request)

    with FakeModelServer(script) as server:
        assert run(server, tmp_path, *client, "--seeds", "5") == 0
    contents = the_log(tmp_path)
    assert contents.complete
    for record in contents.moves:
        attempts = record.calls[0].attempts
        assert [a.error_kind for a in attempts] == ["unparseable", "context_overflow", None]
        assert attempts[2].messages == [*attempts[0].messages, attempts[1].messages[-1]]
    assert contents.result.provider_errors == len(contents.moves)


def test_credentials_in_the_api_base_are_sent_as_basic_auth_and_never_written(
    tmp_path: Path, client: list[str]
) -> None:
    password = "s3cret-PASSWORD-4711"
    with FakeModelServer(careful_player) as server:
        base = server.base_url.replace("http://", f"http://alice:{password}@")
        argv = ["run", "--model", "openai/x", "--api-base", base, "--seeds", "1", "--out", str(tmp_path)]
        assert main([*argv, *client, "--no-progress"]) == 0
        sent = {e.headers.get("authorization") for e in server.exchanges}
    import base64

    assert sent == {"Basic " + base64.b64encode(f"alice:{password}".encode()).decode()}
    assert leaks(tmp_path, password) == []
    manifest = (only_run(tmp_path) / "manifest.json").read_text()
    assert server.base_url in manifest and "alice" not in manifest


def test_a_key_in_the_api_base_is_sent_as_the_api_key(tmp_path: Path, client: list[str]) -> None:
    with FakeModelServer(careful_player) as server:
        base = server.base_url.replace("http://", f"http://{KEY}@")
        argv = ["run", "--model", "openai/x", "--api-base", base, "--seeds", "1", "--out", str(tmp_path)]
        assert main([*argv, *client, "--no-progress"]) == 0
        sent = {e.headers.get("authorization") for e in server.exchanges}
    assert sent == {f"Bearer {KEY}"}
    assert leaks(tmp_path, KEY) == []


def test_the_sampling_parameters_sent_are_recorded(tmp_path: Path, client: list[str]) -> None:
    with FakeModelServer(careful_player) as server:
        extra = ("--seeds", "5", "--temperature", "0.3", "--max-tokens", "512", "--timeout", "40")
        assert run(server, tmp_path, *client, *extra) == 0
        received = server.exchanges[0].request
    header = the_log(tmp_path).header
    sent, other_seat = header.sent_params
    assert sent == other_seat
    assert received["temperature"] == sent["temperature"] == 0.3
    assert received["max_tokens"] == sent["max_tokens"] == 512
    assert sent["timeout"] == 40 and sent["model"] == "openai/strict"
    manifest = json.loads((only_run(tmp_path) / "manifest.json").read_text())
    assert manifest["sent_params"] == [sent]
