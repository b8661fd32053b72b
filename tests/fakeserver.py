"""A small, real OpenAI-compatible HTTP server on 127.0.0.1 that tests start and script.

Each request to /v1/chat/completions is recorded (body and headers) and answered by a script: a callable that
gets the parsed request and returns a Reply (status, content or raw body, finish_reason, headers, delay, or a body
trickled out byte by byte). Helpers build scripts that play legal moves, misbehave in chosen ways, or fail with
provider errors.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    reasoning: str | None = None
    raw_body: bytes | None = None  # sent as is, instead of a chat completion
    drop_connection: bool = False
    finish_reason: str | None = "stop"  # as a provider reports it: "stop", "length", "content_filter", ...
    trickle_s: float = 0.0  # when set, the body is sent one byte at a time with this pause between bytes


Script = Callable[[dict[str, Any]], Reply]


@dataclass
class Exchange:
    request: dict[str, Any]
    headers: dict[str, str]
    reply: Reply


class FakeModelServer:
    """Start with `with FakeModelServer(script) as server:`; `server.base_url` goes to --api-base."""

    def __init__(self, script: Script, model_name: str = "fake-model") -> None:
        self.script = script
        self.model_name = model_name
        self.exchanges: list[Exchange] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests this server was handling at the same moment
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes: with Nagle's algorithm on, the body waits for the
            # client's delayed ACK (about 40 ms on Linux), a pause no real provider adds to every request.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer()
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = server.script(body)
                with server._lock:
                    server.exchanges.append(
                        Exchange(body, {k.lower(): v for k, v in self.headers.items()}, reply)
                    )
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.drop_connection:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if reply.raw_body is not None:
                    payload = reply.raw_body
                elif reply.status == 200:
                    payload = json.dumps(server._completion(body, reply)).encode()
                else:
                    payload = json.dumps(
                        {"error": {"message": f"scripted error {reply.status}", "type": "x"}}
                    ).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if reply.trickle_s:
                        for index in range(len(payload)):
                            self.wfile.write(payload[index : index + 1])
                            self.wfile.flush()
                            time.sleep(reply.trickle_s)
                    else:
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up first (a scripted slow reply)

        return Handler

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        prompt_chars = sum(len(m.get("content") or "") for m in body.get("messages", []))
        return {
            "id": f"chatcmpl-{len(self.exchanges)}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model_name,
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(reply.content or "") // 4,
                "total_tokens": prompt_chars // 4 + len(reply.content or "") // 4,
            },
        }


# ---- scripts -------------------------------------------------------------------------------------------------

_LEGAL_LINE = re.compile(r"^ *(\d+)[.:] \(?(\((?:Play|Discard|Reveal)[^)]*\))", re.MULTILINE)


def legal_moves_in(request: dict[str, Any]) -> list[tuple[int, str]]:
    """The numbered legal moves listed in the last user message of a request."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return [(int(m.group(1)), m.group(2)) for m in _LEGAL_LINE.finditer(user)]


def careful_player(request: dict[str, Any]) -> Reply:
    """Answers every prompt with a legal move in the prompt's own format: hints first, then discards, plays last."""
    moves = legal_moves_in(request)
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    turn = int(re.search(r"turn (\d+)", user).group(1)) if re.search(r"turn (\d+)", user) else 0
    deck = re.search(r"Deck: (\d+)|There are (\d+) cards remaining in the deck", user)
    if deck and not turn:  # the paper's prompts give no turn number: count the cards drawn instead
        turn = 60 - int(deck.group(1) or deck.group(2))
    ordered = (
        [i for i, d in moves if d.startswith("(Reveal")]
        + [i for i, d in moves if d.startswith("(Discard")]
        + [i for i, d in moves if d.startswith("(Play")]
    )
    choice = ordered[turn % min(len(ordered), 3)] if turn % 4 else ordered[-1]
    ratings = {i: (0.8 if i == choice else -0.2) for i, _ in moves}
    return Reply(
        content=answer_in_format(request, choice, ratings, f"Turn {turn}: move {choice} looks best.")
    )


def answer_in_format(request: dict[str, Any], action: int, ratings: dict[int, float], reason: str) -> str:
    system_and_user = " ".join(m["content"] for m in request["messages"] if m["role"] in ("system", "user"))
    if '"move_ratings"' in system_and_user or "JSON" in system_and_user:
        payload: dict[str, Any] = {
            "move_ratings": [{"action": i, "rating": r} for i, r in ratings.items()],
            "reason": reason,
            "action": action,
        }
        if '"deductions"' in system_and_user:
            players = sorted(set(re.findall(r'"(player_\d+)"', system_and_user)))
            payload["deductions"] = {p: [] for p in players}
        return json.dumps(payload)
    listed = ", ".join(f"Move {i}: {r}" for i, r in ratings.items())
    return f"Reasoning: {reason}\nMove Ratings: {listed}\nChosen Move Number: {action}"


def slow_player(request: dict[str, Any]) -> Reply:
    """careful_player's move, 10 ms later: games overlap in time, as with a real server."""
    reply = careful_player(request)
    reply.delay_s = 0.01
    return reply
