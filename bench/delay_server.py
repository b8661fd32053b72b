"""An OpenAI-compatible chat server for benchmarks: answers every request with a legal move after a fixed delay.

It reads the numbered legal moves from the prompt and discards (or, when it may not, gives the first clue), so games
last until the deck runs out and every game is deterministic. It counts requests and the most in flight at once.
Run: python bench/delay_server.py --port 8765 --delay-ms 200   (GET /stats returns the counters)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re

from aiohttp import web

LEGAL = re.compile(r"^(\d+)\. \((Play|Discard|Reveal)[^)]*\)", re.MULTILINE)


def choose(prompt: str) -> int:
    moves = [(int(m.group(1)), m.group(2)) for m in LEGAL.finditer(prompt)]
    for kind in ("Discard", "Reveal", "Play"):
        for index, move_kind in moves:
            if move_kind == kind:
                return index
    raise ValueError("no legal move in the prompt")


def make_app(delay_s: float) -> web.Application:
    stats = {"requests": 0, "in_flight": 0, "max_in_flight": 0}

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        stats["requests"] += 1
        stats["in_flight"] += 1
        stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
        try:
            await asyncio.sleep(delay_s)
            prompt = body["messages"][-1]["content"]
            action = choose(prompt)
            text = f"Reasoning: keep the game going.\nMove Ratings: Move {action}: 0.5\nChosen Move Number: {action}"
            payload = {
                "id": f"bench-{stats['requests']}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "bench"),
                "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                ],
                "usage": {
                    "prompt_tokens": len(prompt) // 4,
                    "completion_tokens": 20,
                    "total_tokens": len(prompt) // 4 + 20,
                },
            }
            return web.json_response(payload)
        finally:
            stats["in_flight"] -= 1

    async def read_stats(request: web.Request) -> web.Response:
        return web.Response(text=json.dumps(stats), content_type="application/json")

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/stats", read_stats)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delay-ms", type=float, default=200.0)
    args = parser.parse_args()
    web.run_app(make_app(args.delay_ms / 1000), host="127.0.0.1", port=args.port, print=None, backlog=1024)


if __name__ == "__main__":
    main()
