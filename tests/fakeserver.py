"""A small, real OpenAI-compatible HTTP server on 127.0.0.1 that tests start and script.

Each request to /v1/chat/completions is recorded (body and headers) and answered by a script: a callable that
gets the parsed request and returns a Reply (status, content or raw body, finish_reason, headers, delay, or a body
trickled out byte by byte). Helpers build scripts that play legal moves, misbehave in chosen ways, or fail with
provider errors.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


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
    at: float = 0.0  # time.monotonic() when the request came in (FakeAnthropicServer)
    answered_at: float = 0.0  # and when its answer was sent
    cache_use: Any = None  # what the prompt cache did for it (FakeAnthropicServer: a CacheUse)


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 (or IPv6's ::1, `host="::1"`) on a free port, serving while its `with`
    block runs; `base_url` is what a client is pointed at (the scheme, host and port, and `url_path`)."""

    url_path = ""

    def _serve(self, handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1") -> None:
        self._server = (_IPv6Server if ":" in host else ThreadingHTTPServer)((host, 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{f'[{host}]' if ':' in host else host}:{port}{self.url_path}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class FakeModelServer(LocalServer):
    """Start with `with FakeModelServer(script) as server:`; `server.base_url` goes to --api-base."""

    def __init__(self, script: Script, model_name: str = "fake-model", host: str = "127.0.0.1") -> None:
        self.script = script
        self.model_name = model_name
        self.exchanges: list[Exchange] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests this server was handling at the same moment
        self._lock = threading.Lock()
        self._serve(self._handler(), host)

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


# ---- Anthropic's Messages API ----------------------------------------------------------------------------------


def cl100k_tokens(text: str) -> int:
    """Tokens of a text by LiteLLM's bundled cl100k tokenizer (what BENCHMARKS.md section 4 counts with)."""
    from litellm.litellm_core_utils.default_encoding import encoding

    return len(encoding.encode(text, disallowed_special=()))


# Anthropic's stop reasons for the OpenAI-style finish reasons a script gives
STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
               429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}  # fmt: skip


@dataclass
class CacheUse:
    """What the server's prompt cache did for one request, in tokens."""

    read: int = 0
    written: int = 0
    uncached: int = 0


class FakeAnthropicServer(LocalServer):
    """A real Anthropic Messages API server on 127.0.0.1 (POST /v1/messages): LiteLLM's anthropic provider is pointed
    at it with `--api-base server.base_url`. Scripted like FakeModelServer: each request is recorded (its body as
    sent, with `cache_control` blocks) and answered by a script, which gets the request as OpenAI-style messages of
    plain text (the system blocks joined as a system message, each message's blocks joined), so the scripts above
    serve it too. Errors come as Anthropic sends them (429 rate_limit_error, 529 overloaded_error, ...).

    It keeps a prompt cache as Anthropic does: a request's breakpoints (blocks with `cache_control`, at most four,
    else 400) write the prefix up to each one of at least `minimum` tokens, available once the answer is sent; a
    request reads the longest cached prefix that ends at one of its block boundaries. Usage reports them as Anthropic
    does: input_tokens (uncached), cache_read_input_tokens, cache_creation_input_tokens, output_tokens; tokens are
    counted by cl100k_tokens."""

    def __init__(self, script: Script, minimum: int = 1_024) -> None:
        self.script = script
        self.minimum = minimum
        self.exchanges: list[Exchange] = []
        self.cache_uses: list[CacheUse] = []
        self._cache: set[tuple[tuple[str, str], ...]] = set()
        self._lock = threading.Lock()
        self._serve(self._handler())

    @staticmethod
    def as_openai(body: dict[str, Any]) -> dict[str, Any]:
        """The request as OpenAI-style messages of plain text, for the scripts."""
        def text(content: Any) -> str:
            return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)

        messages = [{"role": "system", "content": text(body["system"])}] if body.get("system") else []
        messages += [{"role": m["role"], "content": text(m["content"])} for m in body.get("messages", [])]
        return {**body, "messages": messages}

    @staticmethod
    def blocks(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
        """Every text block of a request in order, as (role, text, whether it carries cache_control)."""
        found: list[tuple[str, str, bool]] = []
        system = body.get("system") or []
        for block in [{"text": system}] if isinstance(system, str) else system:
            found.append(("system", block.get("text", ""), "cache_control" in block))
        for message in body.get("messages", []):
            content = message["content"]
            for block in [{"text": content}] if isinstance(content, str) else content:
                found.append((message["role"], block.get("text", ""), "cache_control" in block))
        return found

    def _cache_use(self, body: dict[str, Any]) -> tuple[CacheUse, list[tuple[tuple[str, str], ...]]]:
        blocks = self.blocks(body)
        counts = [cl100k_tokens(text) for _, text, _ in blocks]
        prefixes = [tuple((role, text) for role, text, _ in blocks[: i + 1]) for i in range(len(blocks))]
        marked = [i for i, (_, _, mark) in enumerate(blocks) if mark]
        read = 0
        with self._lock:
            for end in range(len(blocks)):
                if prefixes[end] in self._cache and any(end <= m < end + 20 for m in marked):
                    read = max(read, sum(counts[: end + 1]))
        to_write = [prefixes[m] for m in marked if sum(counts[: m + 1]) >= self.minimum]
        written = 0
        if marked and sum(counts[: marked[-1] + 1]) >= self.minimum:
            written = max(0, sum(counts[: marked[-1] + 1]) - read)
        return CacheUse(read, written, sum(counts) - read - written), to_write

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                exchange = Exchange(body, {k.lower(): v for k, v in self.headers.items()}, Reply(), time.monotonic())
                exchange.reply = reply = server.script(server.as_openai(body))
                with server._lock:
                    server.exchanges.append(exchange)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.drop_connection:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                writes: list[tuple[tuple[str, str], ...]] = []
                status = reply.status
                if sum(mark for _, _, mark in server.blocks(body)) > 4:
                    status, payload = 400, server._error(400, "A maximum of 4 blocks with cache_control may be given.")
                elif reply.raw_body is not None:
                    payload = reply.raw_body
                elif status == 200:
                    use, writes = server._cache_use(body)
                    exchange.cache_use = use
                    with server._lock:
                        server.cache_uses.append(use)
                    payload = json.dumps(server._message(body, reply, use)).encode()
                else:
                    payload = server._error(status, f"scripted error {status}")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
                exchange.answered_at = time.monotonic()
                with server._lock:  # what the request wrote can be read once its answer is out
                    server._cache.update(writes)

        return Handler

    @staticmethod
    def _error(status: int, message: str) -> bytes:
        kind = ERROR_TYPES.get(status, "api_error")
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()

    def _message(self, body: dict[str, Any], reply: Reply, use: CacheUse) -> dict[str, Any]:
        return {
            "id": f"msg_{len(self.exchanges)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude"),
            "content": [{"type": "text", "text": reply.content or ""}],
            "stop_reason": STOP_REASONS.get(reply.finish_reason or "stop", "end_turn"),
            "stop_sequence": None,
            "usage": {
                "input_tokens": use.uncached,
                "output_tokens": cl100k_tokens(reply.content or ""),
                "cache_creation_input_tokens": use.written,
                "cache_read_input_tokens": use.read,
            },
        }
