"""`hanabi-eval values RUN_DIR`: engine values of a run's logged decisions (harness.analysis), resumable."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as Bar

from harness.analysis.cluster import Cluster
from harness.analysis.valuation import GamePlan, plan_run, resumed
from harness.analysis.valuers import InProcess, LocalProcesses, Progress, Valuer, value_plans
from harness.play.values import MAX_ROLLOUTS, ValuesSettings
from harness.run.interrupt import stopped_by_ctrl_c
from harness.run.store import RunDir, runs_below
from harness.run.workers import WorkerLost
from harness.schema.errors import EXIT_FAILED, EXIT_OK, Refused
from harness.schema.records import checked
from harness.schema.value_records import VALUES_DIR


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "values", help="value every logged decision by rollouts of the built-in player (reads logs only)"
    )
    parser.add_argument("run", type=Path, metavar="RUN_DIR", help="the run directory")
    defaults = ValuesSettings()
    parser.add_argument(
        "--rollouts",
        type=int,
        help=f"sampled worlds per decision, 1-{MAX_ROLLOUTS} (default {defaults.rollouts})",
    )
    parser.add_argument("--seed", type=int, help=f"base seed of the sampled worlds (default {defaults.seed})")
    parser.add_argument(
        "--from-turn", type=int, help=f"value only decisions from this turn on (default {defaults.from_turn})"
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="value the decisions as tasks on a Ray cluster: HOST:PORT, auto (the cluster this machine belongs to), "
        "or nothing for a Ray instance on this machine (needs pip install 'hanabi-eval[ray]')",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="value in N processes of this machine; with --ray: the local Ray instance's CPUs, or at most N tasks "
        "at once on the cluster at ADDRESS",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    given = {name: getattr(args, name) for name in ValuesSettings.model_fields if getattr(args, name) is not None}
    settings = checked(ValuesSettings, given, lambda name: "--" + name.replace("_", "-"))
    run = RunDir(args.run)
    if not args.run.is_dir() or run.read_manifest() is None:
        below = runs_below(args.run) if args.run.is_dir() else []
        if below:
            raise Refused(
                f"{args.run} holds run directories ({len(below)}) but is none itself: values takes one run "
                f"directory, e.g. {below[0]}"
            )
        raise Refused(f"{args.run} is not a run directory (no manifest.json); give a folder made by hanabi-eval run")
    plans, skipped, corrupt = plan_run(run, settings.rollouts, settings.seed, settings.from_turn)
    for problem in corrupt:
        print(f"skipping a corrupt game log: {problem}", file=sys.stderr)
    if skipped:
        print(f"skipping {len(skipped)} incomplete game(s): {', '.join(skipped)}")
    # every game's earlier values are checked against these settings before any work starts
    plans = [resumed(plan, settings.rollouts, settings.seed) for plan in plans]
    # before anything is written: a cluster that cannot be used is refused in one line
    workers = settings.workers
    if args.ray is not None:
        valuer: Valuer = Cluster(args.ray or None, workers)
    else:
        valuer = LocalProcesses(workers) if workers is not None and workers > 1 else InProcess()
    try:
        return _write(args, plans, valuer)
    finally:
        valuer.close()


def _write(args: argparse.Namespace, plans: list[GamePlan], valuer: Valuer) -> int:
    out = args.run / VALUES_DIR
    out.mkdir(exist_ok=True)
    finished = [0]

    def game_done(plan: GamePlan) -> None:
        finished[0] += 1
        print(
            f"[{finished[0]}/{len(plans)}] {plan.game_id}: {len(plan.tasks)} decision(s) valued, "
            f"{plan.done} already done"
        )

    bar, show = _progress(args.no_progress, sum(len(plan.tasks) for plan in plans))
    try:
        with bar or contextlib.nullcontext():
            value_plans(plans, valuer, show, game_done)
    except KeyboardInterrupt:  # as every long command stops: one line with the command to go on, exit code 130
        again = shlex.join(["hanabi-eval", *args.argv[1:]])
        raise stopped_by_ctrl_c("every decision written is kept", again) from None
    except (Refused, WorkerLost) as exc:
        print(f"hanabi-eval: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"hanabi-eval: error: cannot write values under {out}: {exc.strerror}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _progress(off: bool, total: int) -> tuple[Bar | None, Callable[[Progress], None]]:
    """A progress bar on the terminal (none when stderr is not one, or with --no-progress) and its update."""
    console = Console(stderr=True)
    if off or not console.is_terminal or total == 0:
        return None, lambda now: None
    bar = Bar(
        TextColumn("values"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("decisions  {task.fields[cpus]}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task("values", total=None, cpus="")

    def show(now: Progress) -> None:
        cpus = f"{now.cpus_busy:.0f}/{now.cpus:.0f} CPUs busy"
        bar.update(task, total=now.total, completed=now.written, cpus=cpus)

    return bar, show
