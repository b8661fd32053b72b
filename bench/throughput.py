"""Throughput against the limit the game itself sets, for N games at once.

A game's moves are sequential, so a run cannot finish faster than its longest game's number of model calls times
the model's delay. This plays N two-player games at once against a model that answers after a fixed delay, served
over real HTTP by bench/delay_server.py (in its own process) or by the in-process offline provider
(local/smart@<delay>ms), and reports wall time / limit for the playing phase (importing LiteLLM is reported
separately as start-up; each worker's LiteLLM warm-up, about 0.4 s, is inside the playing phase, as in any run), and
the peak memory of the processes. Each configuration runs in a fresh process.

`--via floor` makes the same HTTP calls with no game at all (chains of 82 sequential LiteLLM calls, in the same
number of worker processes): what LiteLLM and the server cost on this machine, the best any harness could do here.
Run: python bench/throughput.py [--games 1 16 64 256] [--delay-ms 200] [--via http local floor] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(delay_ms: float) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "bench" / "delay_server.py"),
            "--port",
            str(port),
            "--delay-ms",
            str(delay_ms),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=1).read()
            return server, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError("the delay server did not start")


def one(games: int, via: str, delay_ms: float, api_base: str | None, workers: int) -> dict[str, object]:
    """Play `games` games at once in this process and measure."""
    started = time.perf_counter()
    from harness.engine.seeds import resolve_seeds
    from harness.run.options import SessionOptions
    from harness.run.runner import RunConfig, RunDir, execute, manifest_for
    from harness.schema.config import RetryPolicy
    from harness.schema.log_file import read_game_log
    from harness.schema.records import GenerationParams, SeatConfig

    if via == "http":
        seat = SeatConfig(
            model="hosted_vllm/bench", scaffold="watson", api_base=api_base, params=GenerationParams()
        )
    else:
        seat = SeatConfig(model=f"local/smart@{int(delay_ms)}ms", scaffold="watson")
    seeds = resolve_seeds(",".join(str(s) for s in range(1, games + 1)))
    config = RunConfig(seats=(seat,), players=(2,), seeds=tuple(seeds))
    from harness.models.client import litellm

    litellm()  # import LiteLLM before the clock starts: start-up is reported on its own
    with tempfile.TemporaryDirectory() as tmp:
        run = RunDir(Path(tmp) / "run")
        manifest = manifest_for(config, "bench", ["bench"])
        run.write_manifest(manifest)
        startup = time.perf_counter() - started
        cpu_before = _cpu_seconds()
        t0 = time.perf_counter()
        options = SessionOptions(
            concurrency=games, workers=workers, reply_retries=3, retry=RetryPolicy(), show_progress=False
        )
        results = execute(config, run, manifest, options)
        wall = time.perf_counter() - t0
        cpu = _cpu_seconds() - cpu_before
        calls = [
            sum(len(c.attempts) for m in read_game_log(p).moves for c in m.calls) for p in run.game_paths()
        ]
    assert all(r.status == "complete" for _, r in results)
    limit = max(calls) * delay_ms / 1000
    return {
        "via": via,
        "games": games,
        "moves": sum(calls),
        "longest_game_calls": max(calls),
        "limit_s": round(limit, 2),
        "wall_s": round(wall, 2),
        "ratio": round(wall / limit, 3),
        "startup_s": round(startup, 2),
        "cpu_ms_per_move": round(1000 * cpu / sum(calls), 2),
        "parent_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "worker_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
        if workers > 1
        else 0.0,
    }


# A bench game over HTTP discards or clues until the deck runs out: 82 moves, one call each.
HTTP_GAME_CALLS = 82


def floor(games: int, delay_ms: float, api_base: str, workers: int) -> dict[str, object]:
    """The same model calls with no game at all: `games` chains of HTTP_GAME_CALLS sequential LiteLLM calls to the
    delay server, split over `workers` processes like the harness's games, each with the harness's event loop and
    GC settings. What this costs is LiteLLM's (and the server's), so no harness can do better on this machine."""
    started = time.perf_counter()
    import asyncio
    from multiprocessing import get_context

    from harness.models import event_loop
    from harness.models.client import list_at_zero_price, litellm, warm_up
    from harness.run.runner import tune_gc_for_play

    lib = litellm()
    model = "hosted_vllm/bench"
    list_at_zero_price(model)  # as the harness does for a model LiteLLM has no price for
    messages = [  # about the size of a two-player Watson prompt (~2.8 KB)
        {"role": "system", "content": "You are playing Hanabi. " * 50},
        {"role": "user", "content": "Legal moves:\n0. (Discard 0)\n1. (Play 0)\n" + "State. " * 220},
    ]

    async def chain() -> None:
        for _ in range(HTTP_GAME_CALLS):
            with event_loop.run_inline(True):  # hosted_vllm: its set-up never blocks (harness.models.client)
                await lib.acompletion(
                    model=model,
                    messages=messages,
                    api_base=api_base,
                    api_key="none",
                    timeout=60,
                    num_retries=0,
                    max_retries=0,
                    drop_params=True,
                )

    async def chains(count: int) -> None:
        await asyncio.gather(*(chain() for _ in range(count)))

    def worker(count: int) -> None:
        warm_up([model])  # in the worker, as play does
        tune_gc_for_play()
        event_loop.run(chains(count))

    context = get_context("fork")
    processes = [
        context.Process(target=worker, args=(games // workers + (1 if i < games % workers else 0),))
        for i in range(min(workers, games))
    ]
    startup = time.perf_counter() - started
    cpu_before = _cpu_seconds()
    t0 = time.perf_counter()
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    wall = time.perf_counter() - t0
    assert all(p.exitcode == 0 for p in processes), "a floor worker failed"
    limit = HTTP_GAME_CALLS * delay_ms / 1000
    return {
        "via": "floor",
        "games": games,
        "moves": games * HTTP_GAME_CALLS,
        "longest_game_calls": HTTP_GAME_CALLS,
        "limit_s": round(limit, 2),
        "wall_s": round(wall, 2),
        "ratio": round(wall / limit, 3),
        "startup_s": round(startup, 2),
        "cpu_ms_per_move": round(1000 * (_cpu_seconds() - cpu_before) / (games * HTTP_GAME_CALLS), 2),
        "parent_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "worker_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
    }


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its finished worker processes."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1, 16, 64, 256])
    parser.add_argument("--delay-ms", type=float, default=200.0)
    parser.add_argument(
        "--via", nargs="+", choices=["http", "local", "floor"], default=["http", "local", "floor"]
    )
    parser.add_argument("--workers", type=int, default=2, help="harness processes (default 2: both cores)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--api-base", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        if args.via[0] == "floor":
            print(json.dumps(floor(args.one, args.delay_ms, args.api_base, args.workers)))
        else:
            print(json.dumps(one(args.one, args.via[0], args.delay_ms, args.api_base, args.workers)))
        return
    rows = []
    for via in args.via:
        server, api_base = start_server(args.delay_ms) if via != "local" else (None, None)
        try:
            for games in args.games:
                command = [
                    sys.executable,
                    __file__,
                    "--one",
                    str(games),
                    "--via",
                    via,
                    "--delay-ms",
                    str(args.delay_ms),
                    "--workers",
                    str(args.workers),
                ]
                if api_base:
                    command += ["--api-base", api_base]
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
                print(json.dumps(rows[-1]), file=sys.stderr)
        finally:
            if server is not None:
                server.kill()
                server.wait()
    columns = (
        "games",
        "moves",
        "limit s",
        "wall s",
        "ratio",
        "CPU ms/move",
        "start-up s",
        "parent MB",
        "worker MB",
    )
    header = f"{'via':6s} " + " ".join(f"{c:>{max(len(c), 6)}s}" for c in columns)
    print(
        f"delay {args.delay_ms:.0f} ms per call; limit = longest game's calls x delay; ratio = wall / limit"
    )
    print(header)
    for row in rows:
        values = (
            str(row["games"]),
            str(row["moves"]),
            f"{row['limit_s']:.2f}",
            f"{row['wall_s']:.2f}",
            f"{row['ratio']:.3f}",
            f"{row['cpu_ms_per_move']:.2f}",
            f"{row['startup_s']:.2f}",
            f"{row['parent_rss_mb']:.1f}",
            f"{row['worker_rss_mb']:.1f}",
        )
        print(
            f"{row['via']:6s} "
            + " ".join(f"{v:>{max(len(c), 6)}s}" for c, v in zip(columns, values, strict=True))
        )


if __name__ == "__main__":
    main()
