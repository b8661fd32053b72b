"""An OpenAI-compatible chat server for benchmarks: answers every request with a legal move after a fixed delay.

It reads the numbered legal moves from the prompt ("  3. (Discard 0)", or the paper's "3: ((Discard 0))") and discards
(or, when it may not, gives the first clue), so games last until the deck runs out and every game is deterministic. It
answers in the reply format the prompt asks for, as a careful model would: the text move ("Chosen Move Number: 3"),
the JSON move ({"action": 3, ...}), or Mycroft's JSON with a "deductions" block for every player; the harness's
strict reader accepts every reply. It counts requests and the most in flight at once.

The server stands in for a remote model, yet it shares the benchmark machine's two cores with the harness, so it is
written to cost as little CPU as it can: plain asyncio protocols speaking HTTP/1.1 with keep-alive, each answer sent
by a timer rather than a task (about a third of the CPU per request of the aiohttp server it replaced).
Run: python bench/delay_server.py --port 8765 --delay-ms 200   (GET /stats returns the counters)
`--quick` checks the server instead of serving: it asks it over HTTP about every scaffold's prompt at 2 and 4 players
and reads each reply with the harness's strict reader in the scaffold's own reply format.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

from bench.options import BenchParser, float_in, int_in

LEGAL = re.compile(r"^[ \t]*(\d+)(?:\.|:) \(+(Play|Discard|Reveal)[^)]*\)", re.MULTILINE)
DEDUCTION_PLAYERS = re.compile(r'"player_(\d+)"')
STATS: dict[str, int] = {"requests": 0, "in_flight": 0, "max_in_flight": 0}


def choose(prompt: str) -> int:
    """The first discard of the prompt's last list of legal moves (a prompt may quote an earlier turn's), else
    its first clue, else its first play."""
    moves = [(int(m.group(1)), m.group(2)) for m in LEGAL.finditer(prompt)]
    starts = [i for i, (index, _) in enumerate(moves) if index == 0]
    moves = moves[starts[-1] :] if starts else moves
    for kind in ("Discard", "Reveal", "Play"):
        for index, move_kind in moves:
            if move_kind == kind:
                return index
    raise ValueError("no legal move in the prompt")


def reply_text(prompt: str) -> str:
    """A valid reply in the format the prompt asks for (the text move unless it asks for a JSON object)."""
    action = choose(prompt)
    reason = "keep the game going"
    if "Chosen Move Number" in prompt:
        return f"Reasoning: {reason}.\nMove Ratings: Move {action}: 0.5\nChosen Move Number: {action}"
    reply: dict[str, Any] = {"move_ratings": [{"action": action, "rating": 0.5}], "reason": reason, "action": action}
    if '"deductions"' in prompt:  # Mycroft's memory format: every player's cards, nothing ruled out
        players = sorted({int(p) for p in DEDUCTION_PLAYERS.findall(prompt)})
        cards = 5 if len(players) <= 3 else 4
        anything = {"colors": ["R", "Y", "G", "W", "B"], "ranks": [1, 2, 3, 4, 5]}
        reply = {"deductions": {f"player_{p}": [{"card": c, **anything} for c in range(cards)] for p in players}}
        reply.update(move_ratings=[{"action": action, "rating": 0.5}], reason=reason, action=action)
    return json.dumps(reply)


def completion(body: dict[str, Any]) -> dict[str, Any]:
    prompt = "\n".join(str(m.get("content") or "") for m in body["messages"])
    text = reply_text(prompt)
    return {
        "id": f"bench-{STATS['requests']}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "bench"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {
            "prompt_tokens": len(prompt) // 4,
            "completion_tokens": 20,
            "total_tokens": len(prompt) // 4 + 20,
        },
    }


def response(status: str, payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


class DelayedHTTP(asyncio.Protocol):
    """One keep-alive connection: requests are read as they come and each is answered after the delay."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1").split("\r\n")
            length = 0
            for line in head[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if len(self.buffer) < end + 4 + length:
                return
            body, self.buffer = self.buffer[end + 4 : end + 4 + length], self.buffer[end + 4 + length :]
            self.handle(head[0].split(" ")[:2], body)

    def handle(self, request_line: list[str], body: bytes) -> None:
        method, path = [*request_line, "", ""][:2]
        if method == "GET" and path == "/stats":
            self.send(response("200 OK", STATS))
        elif method == "POST" and path == "/v1/chat/completions":
            STATS["requests"] += 1
            STATS["in_flight"] += 1
            STATS["max_in_flight"] = max(STATS["max_in_flight"], STATS["in_flight"])
            asyncio.get_running_loop().call_later(self.delay_s, self.answer, body)
        else:
            self.send(response("404 Not Found", {"error": {"message": f"no route {method} {path}"}}))

    def answer(self, body: bytes) -> None:
        STATS["in_flight"] -= 1
        try:
            reply = response("200 OK", completion(json.loads(body)))
        except Exception as exc:  # a malformed request gets an error reply, never silence
            reply = response("400 Bad Request", {"error": {"message": f"{type(exc).__name__}: {exc}"}})
        self.send(reply)

    def send(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def serve(port: int, delay_s: float) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: DelayedHTTP(delay_s), "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


async def post(port: int, payload: dict[str, Any]) -> dict[str, Any]:
    """One chat request over HTTP/1.1 to the server on `port`; the decoded JSON answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps(payload).encode()
    writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)  # fmt: skip
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
    answer = json.loads(await reader.readexactly(length))
    writer.close()
    return answer  # type: ignore[no-any-return]


async def check_replies(delay_s: float) -> int:
    """Ask the server about every scaffold's base prompt at 2 and 4 players; each reply must pass the strict
    reader of the scaffold's reply format. Returns the number of replies checked."""
    from harness.engine.game import Game, deck_for_seed
    from harness.strategies.rendering import render_messages
    from harness.strategies.scaffold import load_scaffold, scaffold_names
    from harness.view.builder import build_view

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: DelayedHTTP(delay_s), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    checked = 0
    async with server:
        for players in (2, 4):
            game = Game(players, deck_for_seed(1))
            view = build_view(game.observe(0))
            for name in scaffold_names():
                scaffold = load_scaffold(name)
                messages = [m.model_dump() for m in render_messages(scaffold, view)]
                answer = await post(port, {"model": "bench", "messages": messages})
                text = answer["choices"][0]["message"]["content"]
                reply = scaffold.base.reply_format.read(text, len(view.legal_moves), None)
                assert reply.action == choose(messages[-1]["content"]), (name, players, text)
                checked += 1
    return checked


def main(argv: list[str] | None = None) -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--port", type=int_in(1, 65535), default=8765)
    parser.add_argument("--delay-ms", type=float_in(0.0, 3_600_000.0), default=200.0)
    args = parser.parse_args(argv)
    if args.quick:
        checked = asyncio.run(check_replies(0.001))
        print(f"delay_server.py: {checked} replies, every scaffold at 2 and 4 players, pass the strict reader")
        return
    asyncio.run(serve(args.port, args.delay_ms / 1000))


if __name__ == "__main__":
    main()
