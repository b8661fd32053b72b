"""What resuming costs: rebuilding a game from its log and getting ready to ask for the next move.

Plays a two-player game offline, cuts its log after 60 moves (as a crash would leave it), then times, over many
repetitions, the steps a resume performs for that game: the check of every log before any model is called (the run
store's reading: validated, torn-line check, move lines in sequence, replayed from its deal checking every state
digest), the game's own start (its log read and rebuilt again, its seats' notes restored), and building the seat's
view and prompt for the next move. It also times a whole `hanabi-eval resume` command on that
run, start-up included. The floors, measured in the same run: the log's bytes parsed as JSON with no checks, the
engine applying the same moves with no digests, and a Python process that only imports LiteLLM.
Run: python bench/resume_cost.py [--moves 60] [--repeat 200]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after an installed harness (see options.py)

from bench.options import BenchParser, positive_int  # noqa: E402
from harness.cli.main import main as cli  # noqa: E402
from harness.engine.game import Game  # noqa: E402
from harness.play.game import rebuild  # noqa: E402
from harness.run.store import RunDir  # noqa: E402
from harness.schema.log_file import read_game_log  # noqa: E402
from harness.schema.records import GamePlan  # noqa: E402
from harness.strategies.rendering import render_messages  # noqa: E402
from harness.strategies.scaffold import load_scaffold  # noqa: E402
from harness.view.builder import build_view  # noqa: E402


def cut_log(path: Path, moves: int) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) >= moves + 2, f"the game has fewer than {moves} moves"
    path.write_bytes(b"".join(lines[: 1 + moves]))


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--moves", type=positive_int, default=60, help="moves kept of the 2-player game (default 60)")
    parser.add_argument("--repeat", type=positive_int, default=200, help="repetitions of the timed steps (default 200)")
    args = parser.parse_args()
    if args.quick:  # the same game and cut, timed a few times
        args.repeat = 3
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "runs"
        assert cli(["run", "--seeds", "1", "--out", str(out), "--no-progress"]) == 0
        (run_dir,) = out.iterdir()
        (log,) = (run_dir / "games").glob("*.jsonl")
        cut_log(log, args.moves)
        scaffold = load_scaffold("watson")
        header = read_game_log(log).header
        assert header is not None
        plan = GamePlan(
            game_id=header.game_id,
            players=header.players,
            seed=header.seed,
            seed_set=header.seed_set,
            seats=tuple(header.seats),
        )
        timings: dict[str, list[float]] = {
            "check: read log (in sequence, replayed)": [],
            "game start: read log": [],
            "game start: rebuild + check digests": [],
            "next view + prompt": [],
        }
        run = RunDir(run_dir)
        floors: dict[str, list[float]] = {"floor: bytes + json.loads": [], "floor: engine apply only": []}
        moves = [record.move for record in read_game_log(log).moves]
        for _ in range(args.repeat):
            started = time.perf_counter()
            run.read_game(log)  # as harness.run.games.verify_logs checks a log dealt as its plan is
            verified = time.perf_counter()
            contents = read_game_log(log)  # as harness.play.game.play_game starts it
            t0 = time.perf_counter()
            game, _ = rebuild(plan, header.deck, contents)
            t1 = time.perf_counter()
            render_messages(scaffold, build_view(game.observe(game.current_player)))
            t2 = time.perf_counter()
            timings["check: read log (in sequence, replayed)"].append(verified - started)
            timings["game start: read log"].append(t0 - verified)
            timings["game start: rebuild + check digests"].append(t1 - t0)
            timings["next view + prompt"].append(t2 - t1)
            t4 = time.perf_counter()
            for line in log.read_bytes().splitlines():
                json.loads(line)
            t5 = time.perf_counter()
            bare = Game(header.players, header.deck)
            for move in moves:
                bare.apply(move)
            t6 = time.perf_counter()
            floors["floor: bytes + json.loads"].append(t5 - t4)
            floors["floor: engine apply only"].append(t6 - t5)
        totals = [sum(parts) for parts in zip(*timings.values(), strict=True)]
        size_kb = log.stat().st_size / 1024
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "harness.cli", "resume", str(run_dir), "--no-progress"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        command_s = time.perf_counter() - started
        assert done.returncode == 0, done.stderr
        started = time.perf_counter()
        offline = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # as the harness imports it: no download
        subprocess.run([sys.executable, "-c", "import litellm"], cwd=ROOT, env=offline, capture_output=True, check=True)
        import_s = time.perf_counter() - started
        remaining = len(read_game_log(log).moves) - args.moves
    print(
        f"resuming a 2-player game after {args.moves} logged moves (log {size_kb:.0f} KB), {args.repeat} repetitions"
    )
    print(f"{'step':40s} {'median ms':>10s} {'p95 ms':>8s}")
    for name, values in [*timings.items(), ("total per game", totals), *floors.items()]:
        p95 = sorted(values)[int(0.95 * (len(values) - 1))]
        print(f"{name:40s} {statistics.median(values) * 1e3:10.2f} {p95 * 1e3:8.2f}")
    print(
        f"whole `hanabi-eval resume` command (start-up, checks, {remaining} remaining moves): {command_s:.2f} s"
    )
    print(f"floor: a Python process that only imports LiteLLM: {import_s:.2f} s")


if __name__ == "__main__":
    main()
