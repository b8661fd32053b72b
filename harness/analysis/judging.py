"""A judging session (`hanabi-eval judge`): the runs with working-memory turns to judge, each judged under its judge
folder's lock with its record kept (harness.analysis.judge), and the session stopped as every long session stops.

Input found unusable (no run, no Mycroft moves, a damaged log, another judge's folder, a locked one) raises
Refused before any call; Ctrl-C and a disk fault raise Ended with their one line and exit code; a
judge that cannot be called at all raises harness.analysis.judge.JudgeUnreachable. The command line prints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.analysis.judge import (
    JUDGE_DIR,
    JudgeOutcome,
    JudgeUnreachable,
    judge_identity,
    judge_run,
    keeps_working_memory,
    open_record,
)
from harness.models import event_loop
from harness.models.client import ModelClient, close_clients
from harness.run.interrupt import stopped_by_ctrl_c
from harness.run.lock import RunLock
from harness.run.store import RunDir, find_runs
from harness.schema.config import RetryPolicy
from harness.schema.disk import explain
from harness.schema.errors import EXIT_FAILED, Ended, Refused
from harness.schema.log_file import LogCorrupt
from harness.schema.records import SeatConfig

RunJudged = Callable[[RunDir, JudgeOutcome], None]


def runs_with_memory_games(paths: list[Path]) -> list[Path]:
    """The runs named that hold working-memory games; none at all is bad input."""
    runs = find_runs(paths)
    found = []
    for path in runs:
        memory = False
        for game in RunDir(path).games():
            if isinstance(game, LogCorrupt):
                raise Refused(f"{game}; repair or remove that log")
            memory = memory or any(keeps_working_memory(m) for m in game.moves)
        if memory:
            found.append(path)
    if not found:
        named = ", ".join(str(p) for p in paths)
        raise Refused(f"{named}: no Mycroft (working-memory) moves to judge; run with --scaffold mycroft first")
    return found


def judge_runs(
    runs: list[Path],
    seat: SeatConfig,
    policy: RetryPolicy,
    reply_retries: int,
    concurrency: int,
    command: list[str],
    on_run: RunJudged,
) -> int:
    """Judge every run in turn, telling `on_run` what each session did; the turns that could not be judged."""
    client = ModelClient(seat, policy)
    failed = 0
    try:
        for path in runs:
            run = RunDir(path)
            judge_dir = path / JUDGE_DIR
            judge_dir.mkdir(exist_ok=True)
            with RunLock(judge_dir):
                open_record(judge_dir, seat, command, judge_identity(seat))

                async def session(run: RunDir = run) -> JudgeOutcome:
                    try:
                        return await judge_run(run, client, reply_retries, concurrency)
                    finally:
                        await close_clients()

                try:
                    outcome = event_loop.run(session())
                except JudgeUnreachable as stop:  # say what this session did, then stop
                    if stop.outcome is not None:
                        on_run(run, stop.outcome)
                    raise
            failed += len(outcome.failed)
            on_run(run, outcome)
    except KeyboardInterrupt:  # as every long session stops: one line, exit code 130
        raise stopped_by_ctrl_c("the judgements made so far are kept") from None
    except OSError as exc:
        raise Ended(f"hanabi-eval: error: {explain(exc)}", EXIT_FAILED) from None
    return failed
