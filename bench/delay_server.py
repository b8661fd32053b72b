"""An OpenAI-compatible chat server for benchmarks: answers every request with a legal move after a fixed delay.

It reads the numbered legal moves from the prompt and discards (or, when it may not, gives the first clue), so games
last until the deck runs out and every game is deterministic. It counts requests and the most in flight at once.

The server stands in for a remote model, yet it shares the benchmark machine's two cores with the harness, so it is
written to cost as little CPU as it can: plain asyncio protocols speaking HTTP/1.1 with keep-alive, each answer sent
by a timer rather than a task (about a third of the CPU per request of the aiohttp server it replaced).
Run: python bench/delay_server.py --port 8765 --delay-ms 200   (GET /stats returns the counters)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from typing import Any

LEGAL = re.compile(r"^(\d+)\. \((Play|Discard|Reveal)[^)]*\)", re.MULTILINE)
STATS: dict[str, int] = {"requests": 0, "in_flight": 0, "max_in_flight": 0}


def choose(prompt: str) -> int:
    moves = [(int(m.group(1)), m.group(2)) for m in LEGAL.finditer(prompt)]
    for kind in ("Discard", "Reveal", "Play"):
        for index, move_kind in moves:
            if move_kind == kind:
                return index
    raise ValueError("no legal move in the prompt")


def completion(body: dict[str, Any]) -> dict[str, Any]:
    prompt = body["messages"][-1]["content"]
    action = choose(prompt)
    text = f"Reasoning: keep the game going.\nMove Ratings: Move {action}: 0.5\nChosen Move Number: {action}"
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delay-ms", type=float, default=200.0)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.delay_ms / 1000))


if __name__ == "__main__":
    main()
