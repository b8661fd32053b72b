"""Rollout move values: what one decision costs, how noisy the values are against the rollout count, and how many
decisions per second one process, several processes and a Ray cluster value.

Usage: .venv/bin/python bench/rollout_values.py --players 2 4 --turns 10 40 --rollouts 32 --seed 0
       .venv/bin/python bench/rollout_values.py --players 2 4 --turns 10 --rollouts 16 --baseline 87479c3
       .venv/bin/python bench/rollout_values.py --throughput 12 --rollouts 16 --workers 2 --ray

Positions come from `local/smart` self-play on deck seed 0: for every player count and turn, the decision of the seat
to move at that turn. Each position gets one run of the largest rollout count; because rollout r always deals the
same world, its first k rollouts are exactly a run with k rollouts, so smaller counts are read from the same run.
Prints, per position and rollout count k: legal moves, the mean standard error of a value, the spread of values
between disjoint blocks of k rollouts (the noise a fresh seed would show), the regret of trusting k rollouts (the
whole run's value of its best move minus the whole run's value of each block's best move, averaged over blocks;
0 at the full count by definition), and the cost of one decision at k rollouts in one process: wall clock and CPU
seconds (the CPU time is what "per core" means on a machine other work shares).

`--baseline REF [REF ...]` also values each position at the full count with the code of each git commit REF (a copy of
its harness/ made by `git archive`, run in a subprocess: its Python source, never a compiled build) and prints its cost
beside today's, and whether the scores of every rollout of every move are identical (they must be: the values files
are pinned byte for byte). Run by the Python of a `pip install .` (compiled, see bench/options.py), `--baseline HEAD`
times this commit's source beside its compiled build.

`--step-costs N` prints instead what one step of a play-out costs, layer by layer, over N self-play games per player
count: the game alone, with the step's observation and the view the bot reads, and with the bot's choice (the whole
step).

`--profile` runs cProfile over the valuing and prints the harness functions by cumulative time (what BENCHMARKS.md
section 6 reads the play-out's shares from; the times printed beside it are inflated by the profiler). cProfile sees
no compiled function, so where the harness it imports is compiled the script runs itself again on this checkout's
source.

`--throughput N` values the first N decisions of the 2-player self-play game (deck seed 0) as `hanabi-eval values`
does (harness.analysis.valuers): in this process, in --workers processes, and with `--ray [ADDRESS]` as Ray tasks (no
ADDRESS: a Ray instance on this machine with --workers CPUs). Prints decisions per second, the peak memory of the
driver and of one worker, and checks the three values files are the same bytes.
"""

from __future__ import annotations

import cProfile
import io
import json
import math
import os
import pickle
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

import harness
from bench.options import BenchParser, bot_build, positive_int
from harness.analysis.valuation import DecisionTask, ValuesWriter
from harness.analysis.valuers import InProcess, LocalProcesses, Valuer
from harness.bots import DEFAULT_BOT, get_bot
from harness.engine.game import Game, deck_for_seed
from harness.engine.rollout_game import RolloutGame
from harness.play.values import MAX_ROLLOUTS, rollout_scores
from harness.schema.moves import Move
from harness.view.builder import build_view, play_view
from harness.view.seat_view import SeatView

ROOT = Path(__file__).resolve().parent.parent
# Runs in the old code's copy: value the positions given on stdin, print scores and costs as JSON.
BASELINE = """
import json, sys, time
from harness.play.values import position_view, rollout_scores
from harness.schema.moves import Move
out = []
for job in json.load(sys.stdin):
    view = position_view(job["players"], job["deck"], [Move.model_validate(m) for m in job["moves"]])
    moves = [legal.move for legal in view.legal_moves]
    wall, cpu = time.perf_counter(), time.process_time()
    scores = rollout_scores(view, moves, job["rollouts"], job["seed"], job["bot"])
    out.append({"scores": scores, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu})
print(json.dumps(out))
"""


def selfplay(players: int, turns: int) -> tuple[list[SeatView], list[Move]]:
    """The views of the seats to move at turns 1..`turns` of a self-play game on deck seed 0, and its moves."""
    bot = get_bot(DEFAULT_BOT)
    game = Game(players, deck_for_seed(0))
    views, moves = [], []
    while True:
        view = build_view(game.observe(game.current_player))
        views.append(view)
        if game.turn >= turns:
            return views, moves
        moves.append(view.legal_moves[bot.decide(view).move_index].move)
        game.apply(moves[-1])
        if game.is_over:
            raise SystemExit(f"the {players}-player game ends before turn {turns}")


def position(players: int, turn: int) -> SeatView:
    """The view of the seat to move at `turn` of a self-play game on deck seed 0."""
    return selfplay(players, turn)[0][-1]


def baseline(ref: str, jobs: list[dict[str, object]]) -> list[dict[str, object]]:
    """Value `jobs` with the code of git commit `ref` (its harness/, unpacked into a temporary folder)."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "archive", ref, "harness"], cwd=ROOT, capture_output=True, check=False
        )
        if archive.returncode != 0:
            raise SystemExit(f"--baseline {ref}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        done = subprocess.run(
            [sys.executable, "-c", BASELINE],
            cwd=folder,
            env={"PYTHONPATH": folder, "PATH": "/usr/bin:/bin"},
            input=json.dumps(jobs),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"the code of {ref} failed:\n{done.stderr[-2000:]}")
        result: list[dict[str, object]] = json.loads(done.stdout)
        return result


def best(means: list[float]) -> int:
    return max(range(len(means)), key=lambda i: (means[i], -i))


def main(argv: list[str] | None = None) -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], choices=[2, 3, 4, 5])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 40])
    parser.add_argument(
        "--rollouts", type=int, default=32, help="largest rollout count (a power of two is best)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--baseline",
        metavar="REF",
        nargs="+",
        help="also time the code of these git commits (their Python source), and compare",
    )
    parser.add_argument(
        "--throughput", type=positive_int, metavar="N", help="decisions per second over N decisions instead"
    )
    parser.add_argument("--workers", type=positive_int, default=2, help="processes (and Ray CPUs) for --throughput")
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="--throughput on Ray as well")
    parser.add_argument(
        "--profile", action="store_true", help="print where the valuing's time goes (cProfile, harness functions)"
    )
    parser.add_argument(
        "--step-costs",
        type=positive_int,
        metavar="N",
        help="CPU per play-out step over N self-play games: the game alone, with the view, with the bot, instead",
    )
    args = parser.parse_args(argv)
    if args.profile and harness.compiled_modules():  # cProfile sees no compiled function: profile the source
        if Path(harness.__file__).parent == ROOT / "harness":
            parser.error("--profile: this checkout holds compiled modules beside its source; remove them to profile it")
        print("--profile: cProfile cannot see compiled code, so this profiles this checkout's source", flush=True)
        again = [sys.executable, __file__, *(sys.argv[1:] if argv is None else argv)]
        source = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        os.execve(sys.executable, again, {**os.environ, "PYTHONPATH": source})
    for ref in args.baseline or ():  # a commit that does not exist is refused now, not after the valuing
        commit = ["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"]
        known = subprocess.run(commit, cwd=ROOT, capture_output=True, check=False)
        if known.returncode != 0:
            parser.error(f"--baseline {ref}: no such commit in this checkout")
    if args.quick:  # one late decision at 2 players, two rollouts per move; then one decision in one and two processes
        args.players, args.turns, args.rollouts = [2], [40], 2
        args.throughput, args.workers, args.baseline = args.throughput and 1, 2, None
        args.step_costs = args.step_costs and 1
    if not 2 <= args.rollouts <= MAX_ROLLOUTS:
        parser.error(f"--rollouts must lie in 2..{MAX_ROLLOUTS}")
    if args.step_costs:
        step_costs(args.players, args.step_costs)
        return
    if args.throughput:
        throughput(args.throughput, args.rollouts, args.seed, args.workers, args.ray)
        return
    counts = [k for k in (2**i for i in range(1, 11)) if k <= args.rollouts // 2] + [args.rollouts]

    header = (
        f"{'players':>7} {'turn':>4} {'moves':>5} {'k':>4} {'mean se':>7} {'spread':>6} {'regret':>6} "
        f"{'s/decision':>10} {'cpu s':>6}"
    )
    print(f"bot {DEFAULT_BOT} ({bot_build()}), deck seed 0, value seed {args.seed}, one process")
    print(header)
    print("-" * len(header))
    compared: list[tuple[int, int, list[list[int]], float, float]] = []
    jobs: list[dict[str, object]] = []
    profiler = cProfile.Profile() if args.profile else None
    for players in args.players:
        for turn in args.turns:
            views, history = selfplay(players, turn)
            view = views[-1]
            moves = [legal.move for legal in view.legal_moves]
            begin, cpu = time.perf_counter(), time.process_time()
            if profiler:
                profiler.enable()
            scores = rollout_scores(view, moves, args.rollouts, args.seed, DEFAULT_BOT)
            if profiler:
                profiler.disable()
            per_rollout = (time.perf_counter() - begin) / args.rollouts
            cpu_per_rollout = (time.process_time() - cpu) / args.rollouts
            compared.append((players, turn, scores, per_rollout, cpu_per_rollout))
            jobs.append(
                {
                    "players": players,
                    "deck": deck_for_seed(0),
                    "moves": [move.model_dump(mode="json") for move in history],
                    "rollouts": args.rollouts,
                    "seed": args.seed,
                    "bot": DEFAULT_BOT,
                }
            )
            full = [statistics.fmean(s) for s in scores]
            overall = best(full)
            for k in counts:
                se = statistics.fmean(statistics.stdev(s[:k]) / math.sqrt(k) for s in scores)
                blocks = args.rollouts // k
                means = [[statistics.fmean(s[b * k : (b + 1) * k]) for s in scores] for b in range(blocks)]
                spread = (  # with one block of k rollouts (the full count) there is no spread between blocks
                    f"{statistics.fmean(statistics.stdev(block[m] for block in means) for m in range(len(moves))):.2f}"
                    if blocks > 1
                    else "-"
                )
                regret = statistics.fmean(full[overall] - full[best(block)] for block in means)
                print(
                    f"{players:>7} {view.turn:>4} {len(moves):>5} {k:>4} {se:>7.2f} {spread:>6} "
                    f"{regret:>6.2f} {per_rollout * k:>10.2f} {cpu_per_rollout * k:>6.2f}"
                )
    if profiler:  # with the profiler on, the times above are inflated; its shares are what to read
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats("harness/", 30)
        print(stream.getvalue())
    for ref in args.baseline or ():
        print_baseline(ref, jobs, compared, args.rollouts)
    if args.quick:
        print()
        throughput(1, args.rollouts, args.seed, args.workers, None)


def step_costs(players_counts: list[int], games: int) -> None:
    """CPU per step of a play-out, in layers: the game alone (RolloutGame.apply), with the step's observation and
    the view the smart bot reads (play_view), and with the bot's choice too (what play_out does). The moves are those
    of `local/smart` self-play on deck seeds 1..`games`, replayed in every layer, so the three loops go through the
    same states; the best of three passes is printed. A decision's CPU divided by the full step's cost says how many
    steps it plays, and so what a target per decision leaves for each step."""
    bot = get_bot(DEFAULT_BOT)
    seeds = f"{games} self-play games per player count (deck seeds 1-{games})"
    print(f"bot {DEFAULT_BOT} ({bot_build()}), {seeds}, one process")
    print("µs of CPU per step; each column adds its layer to the one before (the last is the whole step)")
    header = f"{'players':>7} {'steps':>6} {'game':>8} {'+ view':>8} {'+ bot':>8} {'bot share':>9}"
    print(header)
    print("-" * len(header))
    for players in players_counts:
        played: list[tuple[list[str], list[int]]] = []
        for seed in range(1, games + 1):
            game, policy, chosen = RolloutGame(players, deck_for_seed(seed)), bot.policy(), []
            while not game.is_over:
                observation = game.observe(game.current_player)
                chosen.append(policy.choose(observation))
                game.apply(observation.legal_moves[chosen[-1]])
            played.append((deck_for_seed(seed), chosen))
        steps = sum(len(chosen) for _, chosen in played)
        alone, viewed, full = (step_layer(players, played, depth) / steps * 1e6 for depth in range(3))
        print(
            f"{players:>7} {steps:>6} {alone:>8.1f} {viewed:>8.1f} {full:>8.1f} "
            f"{(full - viewed) / full:>9.0%}"
        )


def step_layer(players: int, played: list[tuple[list[str], list[int]]], depth: int) -> float:
    """CPU seconds (best of three passes) to replay these games' moves: depth 0 applies them, 1 also builds each
    step's observation and the smart bot's view of it, 2 instead asks the bot for its choice (it builds that view
    itself) and plays that (the same moves, since it chose them)."""
    bot, best = get_bot(DEFAULT_BOT), math.inf
    for _ in range(3):
        cpu = time.process_time()
        for deck, chosen in played:
            game, policy = RolloutGame(players, deck), bot.policy()
            for index in chosen:
                if depth == 0:
                    game.apply(game.legal_moves()[index])
                    continue
                observation = game.observe(game.current_player)
                if depth == 1:
                    play_view(observation)
                    choice = index
                else:
                    choice = policy.choose(observation)
                game.apply(observation.legal_moves[choice])
        best = min(best, time.process_time() - cpu)
    return best


def print_baseline(
    ref: str, jobs: list[dict[str, object]], compared: list[tuple[int, int, list[list[int]], float, float]], k: int
) -> None:
    old = baseline(ref, jobs)
    print(f"\nat {k} rollouts, one process: the code of {ref} (its Python source) beside this code ({bot_build()})")
    header = f"{'players':>7} {'turn':>4} {'old s':>7} {'old cpu':>7} {'new s':>6} {'new cpu':>7} {'cpu x':>6} same"
    print(header)
    print("-" * len(header))
    for (players, turn, scores, wall, cpu), then in zip(compared, old, strict=True):
        old_cpu = float(then["cpu"])  # type: ignore[arg-type]
        same = "yes" if then["scores"] == scores else "NO"
        print(
            f"{players:>7} {turn:>4} {float(then['wall']):>7.2f} {old_cpu:>7.2f} {wall * k:>6.2f} "  # type: ignore[arg-type]
            f"{cpu * k:>7.2f} {old_cpu / (cpu * k):>6.1f} {same}"
        )
    if any(then["scores"] != scores for (_, _, scores, _, _), then in zip(compared, old, strict=True)):
        raise SystemExit("the rollouts of this code differ from those of the baseline")


def throughput(decisions: int, rollouts: int, seed: int, workers: int, ray: str | None) -> None:
    """Decisions per second valuing the first `decisions` decisions of a 2-player self-play game, three ways."""
    views, history = selfplay(2, decisions)
    deck = tuple(deck_for_seed(0))
    tasks = [
        DecisionTask(
            game_id="2p-selfplay-seed0",
            players=2,
            deck=deck,
            history=tuple(history[: view.turn - 1]),
            turn=view.turn,
            seat=view.seat,
            player=f"seat{view.seat}",
            chosen=history[view.turn - 1].description if view.turn <= len(history) else "",
            legal_moves=tuple(legal.description for legal in view.legal_moves),
            rollouts=rollouts,
            base_seed=seed,
        )
        for view in views[:decisions]
    ]
    which = f"{decisions} decisions (turns 1-{decisions}" if decisions > 1 else "1 decision (turn 1"
    print(
        f"{which} of the 2-player self-play game, deck seed 0), {rollouts} rollouts, bot {DEFAULT_BOT} ({bot_build()})"
    )
    header = f"{'where':<28} {'decisions/s':>11} {'s':>7} {'driver MB':>9} {'worker MB':>9} same"
    print(header)
    print("-" * len(header))
    ways: list[tuple[str, Valuer]] = [("one process", InProcess())]
    ways.append((f"{workers} processes", LocalProcesses(workers)))
    first: bytes | None = None
    with tempfile.TemporaryDirectory() as folder:
        for index in range(3 if ray is not None else 2):
            if index == 2:
                from harness.analysis.cluster import Cluster

                where = f"Ray at {ray}" if ray else f"Ray, local instance, {workers} CPUs"
                ways.append((where, Cluster(ray or None, workers)))
            name, valuer = ways[index]
            path = Path(folder) / f"{index}.jsonl"
            writer = ValuesWriter({"2p-selfplay-seed0": path}, tasks)
            begin = time.perf_counter()
            try:
                valuer.value(tasks, writer, lambda _: None)
                elapsed = time.perf_counter() - begin
                worker = worker_peak_mb(valuer)
            finally:
                valuer.close()
            driver = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            text = path.read_bytes()
            first = text if first is None else first
            same = "yes" if text == first else "NO"
            worker_text = f"{worker:>9.0f}" if worker else f"{'-':>9}"
            print(f"{name:<28} {decisions / elapsed:>11.3f} {elapsed:>7.1f} {driver:>9.0f} {worker_text} {same}")
            if text != first:
                raise SystemExit(f"{name} wrote other values than one process")
        assert first is not None
        driver_limits(tasks, first.splitlines(keepends=True), Path(folder))


def driver_limits(tasks: list[DecisionTask], lines: list[bytes], folder: Path) -> None:
    """What bounds a large cluster at the driver: the bytes of a task and of its result, and how many lines a
    second the driver can write through ValuesWriter (a game's file fsynced once complete, and every file written to
    about once a second), with the fsyncs counted."""
    sizes = [len(pickle.dumps(task)) for task in tasks]
    per_move = (sizes[-1] - sizes[0]) / max(1, len(tasks) - 1)
    print(
        f"task: {sizes[0]} bytes at turn 1, {sizes[-1]} at turn {len(tasks)} (+{per_move:.0f} per move); "
        f"result line: {max(len(line) for line in lines)} bytes at most"
    )
    count = 500
    many = [tasks[-1].model_copy(update={"turn": turn}) for turn in range(1, count + 1)]
    path = folder / "write-rate.jsonl"
    writer = ValuesWriter({tasks[-1].game_id: path}, many)
    line = lines[-1].decode()
    begin = time.perf_counter()
    for task in many:  # in turn order, as most results arrive: each add writes its line
        writer.add(task, line)
    writer.sync()
    print(f"driver: {count / (time.perf_counter() - begin):.0f} lines/s written in turn order, fsynced by the batch")


def worker_peak_mb(valuer: Valuer) -> float:
    """The largest peak memory (VmHWM) of a worker process of `valuer` on this machine (0: no workers)."""
    if isinstance(valuer, InProcess):
        return 0.0
    peaks = []
    for pid in worker_pids():
        try:
            status = (Path("/proc") / str(pid) / "status").read_text()
        except OSError:
            continue
        peaks += [int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")]
    return max(peaks, default=0.0)


def worker_pids() -> list[int]:
    """This process's worker processes: its children (local processes), or their children titled by Ray."""
    import os

    def children(pid: int) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    mine = children(os.getpid())
    ray_workers = [w for p in mine for w in children(p) if _title(w).startswith("ray::")]
    return ray_workers or [p for p in mine if "forkserver" not in _title(p)] + [
        w for p in mine if "forkserver" in _title(p) for w in children(p)
    ]


def _title(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


if __name__ == "__main__":
    main()
