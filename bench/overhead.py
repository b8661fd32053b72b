"""The harness's own cost per move, without the model's time: median and 95th percentile per phase, and a profile.

Plays games with the offline model once to get real prompts and replies, then replays every move through the real
per-move path (observe -> view -> render -> LiteLLM -> parse -> engine -> record -> log write), with a
bench-only LiteLLM provider that answers instantly with the reply logged for that move, so no model time is in the
figures. The floor, measured in the same run: each move's LiteLLM call alone, with no game around it. Run:
python bench/overhead.py [--players 2 5] [--seeds 1,2,3] [--scaffold watson] [--profile]
"""

from __future__ import annotations

import asyncio
import cProfile
import io
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

from bench.options import BenchParser, int_in, seed_list
from harness.cli.main import main as cli
from harness.engine.game import Game
from harness.models.client import ModelClient, RetryPolicy, litellm
from harness.play.agent import SeatAgent
from harness.play.game import move_record
from harness.schema.log_file import GameLog, read_game_log
from harness.schema.records import SeatConfig
from harness.strategies.scaffold import load_scaffold, scaffold_names
from harness.view.builder import build_view

REPLIES: dict[str, str] = {}  # user prompt -> the reply logged for it


def install_replay_provider() -> None:
    """`replay/<name>` answers instantly with the logged reply to the same prompt."""
    lib = litellm()

    class Replay(lib.CustomLLM):
        async def acompletion(
            self, model: str, messages: list[dict[str, Any]], *args: Any, **kwargs: Any
        ) -> Any:
            text = REPLIES[messages[-1]["content"]]
            return lib.ModelResponse(
                model=model,
                choices=[
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                ],
                usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            )

    lib.custom_provider_map = [*lib.custom_provider_map, {"provider": "replay", "custom_handler": Replay()}]
    # priced like a hosted model, so that LiteLLM's cost bookkeeping is the ordinary one
    price = {
        "input_cost_per_token": 1e-6,
        "output_cost_per_token": 4e-6,
        "litellm_provider": "replay",
        "mode": "chat",
    }
    lib.register_model({"replay/logged": price})


def make_games(players: list[int], seeds: str, scaffold: str, out: Path) -> list[Path]:
    argv = ["run", "--players", *map(str, players), "--seeds", seeds, "--scaffold", scaffold]
    assert cli([*argv, "--out", str(out), "--no-progress"]) == 0
    return sorted(out.glob("*/games/*.jsonl"))


async def replay_moves(paths: list[Path], scaffold_name: str, log_dir: Path) -> dict[str, list[float]]:
    seat = SeatConfig(model="replay/logged", scaffold=scaffold_name)
    agent = SeatAgent(seat, load_scaffold(scaffold_name), ModelClient(seat, RetryPolicy()), reply_retries=0)
    phases: dict[str, list[float]] = defaultdict(list)
    for path in paths:
        contents = read_game_log(path)
        assert contents.header is not None
        for record in contents.moves:
            final = record.calls[0].attempts[-1]
            REPLIES[final.messages[-1].content] = final.reply or ""
        game = Game(contents.header.players, contents.header.deck)
        with GameLog(log_dir / path.name) as log:
            for logged in contents.moves:
                t0 = time.perf_counter()
                view = build_view(game.observe(game.current_player))
                t1 = time.perf_counter()
                decision = await agent.decide(view)  # render, LiteLLM round trip, parse
                t2 = time.perf_counter()
                move = view.legal_moves[decision.reply.action].move
                game.apply(move)
                game.digest()  # timed here as the engine's part; the record takes it again
                t3 = time.perf_counter()
                record = move_record(view, agent, decision, game)
                await log.append(record)
                t4 = time.perf_counter()
                assert move == logged.move, "the replay diverged from the log"
                phases["view (observe + derived facts)"].append(t1 - t0)
                phases["decide (render + LiteLLM + parse)"].append(t2 - t1)
                phases["engine (apply + digest)"].append(t3 - t2)
                phases["record + write (its fsync overlaps the next move)"].append(t4 - t3)
                phases["total"].append(t4 - t0)
    return phases


async def litellm_alone(paths: list[Path]) -> list[float]:
    """The floor: each move's LiteLLM call alone (the same messages, the same instant provider, the call options a
    seat sends), with no game, view, rendering, parsing or log around it. No harness built on LiteLLM can spend less
    per move; the rows above, less this one, are the harness's own share."""
    from harness.models.client import litellm

    lib = litellm()
    timings = []
    for path in paths:
        for logged in read_game_log(path).moves:
            messages = [m.model_dump(exclude_none=True) for m in logged.calls[0].attempts[-1].messages]
            t0 = time.perf_counter()
            await lib.acompletion(
                model="replay/logged",
                messages=messages,
                timeout=600,
                num_retries=0,
                max_retries=0,
                drop_params=True,
            )
            timings.append(time.perf_counter() - t0)
    return timings


def render_only(paths: list[Path], scaffold_name: str) -> list[float]:
    """Prompt rendering alone, over the same states (part of 'decide')."""
    from harness.strategies.rendering import render_messages

    scaffold = load_scaffold(scaffold_name)
    timings = []
    for path in paths:
        contents = read_game_log(path)
        game = Game(contents.header.players, contents.header.deck)
        for logged in contents.moves:
            view = build_view(game.observe(game.current_player))
            t0 = time.perf_counter()
            render_messages(scaffold, view)
            timings.append(time.perf_counter() - t0)
            game.apply(logged.move)
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--players", type=int_in(2, 5), nargs="+", default=[2, 5])
    parser.add_argument("--seeds", type=seed_list, default="1,2,3,4,5")
    parser.add_argument("--scaffold", default="watson", choices=scaffold_names())
    parser.add_argument("--profile", action="store_true", help="print where the time goes (cProfile, top 25)")
    args = parser.parse_args()
    if args.quick:  # one 2-player game
        args.players, args.seeds = [2], "1"
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_games(args.players, args.seeds, args.scaffold, Path(tmp) / "runs")
        install_replay_provider()
        (Path(tmp) / "logs").mkdir()
        asyncio.run(replay_moves(paths[:1], args.scaffold, Path(tmp) / "logs"))  # warm-up: imports, caches
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        phases = asyncio.run(replay_moves(paths, args.scaffold, Path(tmp) / "logs"))
        if profiler:
            profiler.disable()
        phases["  of which: render"] = render_only(paths, args.scaffold)
        phases["floor: the LiteLLM call alone"] = asyncio.run(litellm_alone(paths))
    moves = len(phases["total"])
    print(
        f"harness cost per move, model time excluded: {moves} moves, scaffold {args.scaffold}, "
        f"players {' '.join(map(str, args.players))}"
    )
    print(f"{'phase':40s} {'median ms':>10s} {'p95 ms':>10s} {'mean ms':>10s}")
    for name, values in phases.items():
        print(
            f"{name:40s} {statistics.median(values) * 1e3:10.2f} {percentile(values, 0.95) * 1e3:10.2f} "
            f"{statistics.fmean(values) * 1e3:10.2f}"
        )
    harness = statistics.median(phases["total"]) - statistics.median(phases["floor: the LiteLLM call alone"])
    print(f"{'harness share (total - floor, medians)':40s} {harness * 1e3:10.2f}")
    if profiler:
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(25)
        print(stream.getvalue())


if __name__ == "__main__":
    main()
