"""How the commands that read a run folder scale with its games: `report`, `export`, `view --out` and `runs` on a
run of --small games and one of --large games (defaults 40 and 400): each command's wall time, CPU time and peak
memory.

Plays --played distinct offline games once (`local/smart`, Watson, 2 players, seeds 1 to --played), then makes each
run by copying their logs under new game ids (each copy's header names it, as its file does) beside the played run's
manifest and status, so that both runs hold real logs of the same games. Each command runs as `python -m
harness.cli` in a child process: its peak memory is the largest resident set of it and of the worker processes it
waited for, its CPU time theirs (user and system). The floors, measured in the same session: a child that only reads
the bytes of every log of the run, and `hanabi-eval --version` (starting Python and the command line). The last
lines hold the figures against the goals: report, export and view hold at most 100 MB more for the large run than for
the small one, and `runs` answers in under a second.
Run: python bench/run_folder_scale.py [--small 40] [--large 400] [--played 40]; --quick: runs of 1 and 2 games, each
command on both at once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

import harness
from bench.options import BenchParser, bot_build, positive_int

HARNESS = str(Path(harness.__file__).resolve().parent.parent)  # the children import the harness this process does

READ_BYTES = "import sys, pathlib; sum(len(p.read_bytes()) for p in pathlib.Path(sys.argv[1]).glob('games/*.jsonl'))"
GROWTH_MB = 100  # the most report, export and view may hold more for the large run than for the small one
RUNS_S = 1.0  # the longest `runs` may take on the large run


Figures = tuple[float, float, float]  # wall s, CPU s, peak MB


def start(argv: list[str], cwd: Path) -> Callable[[], Figures]:
    """Start a child process; the function that waits for its end and returns its wall time and CPU time in seconds,
    and its peak memory in MB (its own or that of the largest process it waited for)."""
    env = {**os.environ, "PYTHONPATH": HARNESS, "COLUMNS": "200"}
    started = time.monotonic()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def wait() -> Figures:
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
        assert process.stderr is not None
        errors = process.stderr.read().decode(errors="replace")
        process.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(argv)} failed:\n{errors[-2000:]}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024

    return wait


def hanabi(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness.cli", *args]


def copied_run(played: Path, run: Path, games: int) -> int:
    """A run folder `run` of `games` logs, copies of the played run's logs in turn, each under its own game id;
    its manifest and status are the played run's, the status written last (as a session writes it). Returns the
    bytes of its logs."""
    (run / "games").mkdir(parents=True)
    shutil.copy(played / "manifest.json", run / "manifest.json")
    sources = sorted((played / "games").glob("*.jsonl"))
    size = 0
    for number in range(games):
        source = sources[number % len(sources)]
        header, rest = source.read_bytes().split(b"\n", 1)
        game_id = f"{source.stem}-copy{number:05d}"
        data = json.dumps({**json.loads(header), "game_id": game_id}, separators=(",", ":")).encode() + b"\n" + rest
        (run / "games" / f"{game_id}.jsonl").write_bytes(data)
        size += len(data)
    time.sleep(0.05)  # a later modification time than every log, whatever the file system's clock step
    shutil.copy(played / "status.json", run / "status.json")
    return size


COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {  # each command on a run folder, its outputs in a folder
    "floor: read every log's bytes": lambda run, work: [sys.executable, "-c", READ_BYTES, str(run)],
    "floor: hanabi-eval --version": lambda run, work: hanabi("--version"),
    "report": lambda run, work: hanabi("report", str(run), "--out", str(work / "report")),
    "export --format hanabilogs": lambda run, work: hanabi(
        "export", str(run), "--format", "hanabilogs", "--out", str(work / "export")
    ),
    "view --out": lambda run, work: hanabi("view", str(run), "--out", str(work / "site")),
    "runs": lambda run, work: hanabi("runs", str(run.parent)),
}


def measure(runs: dict[int, tuple[Path, Path]], together: bool) -> dict[int, dict[str, Figures]]:
    """Each command's figures on each run (by its games: its folder and a folder for the outputs), one child at a
    time, or with `together` each command on every run at once (for --quick, whose figures mean nothing)."""
    figures: dict[int, dict[str, Figures]] = {games: {} for games in runs}
    groups = [list(runs)] if together else [[games] for games in runs]
    for name, argv in COMMANDS.items():
        for group in groups:
            waits = [(games, start(argv(*runs[games]), runs[games][1])) for games in group]
            for games, wait in waits:
                figures[games][name] = wait()
    return figures


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--small", type=positive_int, default=40, help="games of the small run (default 40)")
    parser.add_argument("--large", type=positive_int, default=400, help="games of the large run (default 400)")
    parser.add_argument("--played", type=positive_int, default=40, help="distinct games played (default 40)")
    args = parser.parse_args()
    if args.quick:
        args.small, args.large, args.played = 1, 2, 1
    if args.small >= args.large:
        parser.error(f"--small {args.small} must be fewer games than --large {args.large}")
    with tempfile.TemporaryDirectory(prefix="hanabi-scale-") as tmp:
        root = Path(tmp)
        seeds = ",".join(str(seed) for seed in range(1, args.played + 1))
        start(hanabi("run", "--seeds", seeds, "--run-name", "played", "--out", str(root), "--no-progress"), root)()
        runs, sizes = {}, {}
        for games in (args.small, args.large):
            runs[games] = (root / f"runs-{games}" / f"run-{games}", root / f"work-{games}")
            runs[games][1].mkdir()
            sizes[games] = copied_run(root / "played", runs[games][0], games)
        figures = measure(runs, together=args.quick)
    print(
        f"Run folders of {args.small} and {args.large} games (copies of {args.played} played games: local/smart, "
        f"Watson, 2 players), logs of {sizes[args.small] / 1e6:.1f} MB and {sizes[args.large] / 1e6:.1f} MB; "
        f"harness: {bot_build()}"
    )
    small, large = figures[args.small], figures[args.large]
    print(
        f"| command | {args.small} games: wall s | CPU s | peak MB | {args.large} games: wall s | CPU s | peak MB "
        "| CPU ratio | peak +MB |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in small:
        (wall_a, cpu_a, mb_a), (wall_b, cpu_b, mb_b) = small[name], large[name]
        print(
            f"| {name} | {wall_a:.2f} | {cpu_a:.2f} | {mb_a:.0f} | {wall_b:.2f} | {cpu_b:.2f} | {mb_b:.0f} "
            f"| {cpu_b / cpu_a:.1f} | {mb_b - mb_a:+.0f} |"
        )
    for name in ("report", "export --format hanabilogs", "view --out"):
        growth = large[name][2] - small[name][2]
        verdict = "met" if growth <= GROWTH_MB else "NOT met"
        print(f"{name}: {growth:+.0f} MB for {args.large} games against {args.small} (goal: +{GROWTH_MB}): {verdict}")
    wall, cpu, _ = large["runs"]
    verdict = "met" if cpu < RUNS_S else "NOT met"
    print(
        f"runs: {cpu:.2f} s CPU ({wall:.2f} s wall) on {args.large} games (goal: under {RUNS_S:.0f} s; CPU time, "
        f"which other jobs on the machine do not inflate): {verdict}"
    )


if __name__ == "__main__":
    main()
