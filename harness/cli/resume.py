"""`hanabi-eval resume RUN_DIR`: continue every unfinished game of a run exactly where its log stops.

The configuration comes from the run's manifest. Operational settings can be changed for this session (a new
server URL, a longer timeout, more retries): they are not part of the run's identity.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.errors import UsageError
from harness.cli.run import add_session_options
from harness.models.client import RetryPolicy
from harness.schema.records import SeatConfig


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("resume", help="continue the unfinished games of a run")
    parser.add_argument("run_dir", type=Path, help="the run directory (it holds manifest.json)")
    parser.add_argument("--api-base", help="a new base URL for the run's model server (single-model runs)")
    add_session_options(parser, recorded=True)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from harness.cli.run import SESSION_DEFAULTS, check_operational, play_run
    from harness.models.client import ModelSpecError, check_model
    from harness.run.runner import RunConfigError, config_of
    from harness.run.store import RunDir

    if not args.run_dir.is_dir():
        raise UsageError(
            f"{args.run_dir} is not a directory; give the folder of a run (it holds manifest.json)"
        )
    from harness.session.sweep import SWEEP_FILE

    check_operational(args)
    if (args.run_dir / SWEEP_FILE).exists():
        return _resume_sweep(args)
    run = RunDir(args.run_dir)
    try:
        config = config_of(run)
    except RunConfigError as exc:
        raise UsageError(str(exc)) from None
    seats = list(config.seats)
    if args.api_base is not None:
        if len({s.model for s in seats}) > 1:
            raise UsageError("--api-base is ambiguous for a run with several models; resume without it")
        seats = [_with_api_base(s, args.api_base) for s in seats]
    if args.timeout is not None:
        seats = [
            s.model_copy(update={"params": s.params.model_copy(update={"timeout_s": args.timeout})})
            for s in seats
        ]
    updates: dict[str, object] = {"seats": tuple(seats), "retry": _retry_policy(args, config.retry)}
    if args.max_retries is not None:
        updates["reply_retries"] = args.max_retries
    config = config.model_copy(update=updates)
    try:
        for seat in {s.model: s for s in config.seats}.values():
            check_model(seat)
    except ModelSpecError as exc:
        raise UsageError(str(exc)) from None
    sessions = (run.read_manifest() or {}).get("sessions", [])
    recorded = next((s["concurrency"] for s in reversed(sessions) if s.get("concurrency")), None)
    concurrency = args.concurrency or recorded or SESSION_DEFAULTS["concurrency"]
    return play_run(args.run_dir, config, args.argv, concurrency, not args.no_progress, args.workers)


def _with_api_base(seat: SeatConfig, api_base: str) -> SeatConfig:
    """The seat served at `api_base`: its own URL, or that of its one deployment (a seat spread over several
    deployments has no one URL to replace)."""
    if not seat.deployments:
        return seat.model_copy(update={"api_base": api_base})
    if len(seat.deployments) > 1:
        raise UsageError(
            f"--api-base cannot stand for the {len(seat.deployments)} deployments of {seat.model}; "
            "edit the deployments in the sweep file and run it again"
        )
    (deployment,) = seat.deployments
    return seat.model_copy(update={"deployments": (deployment.model_copy(update={"api_base": api_base}),)})


def _resume_sweep(args: argparse.Namespace) -> int:
    from harness.cli.run import play_sweep, with_session_options
    from harness.session.sweep import read_sweep_dir

    if args.api_base is not None:
        raise UsageError(
            "--api-base applies to one run; resume a run of the sweep with it, or edit the sweep file"
        )
    sweep = read_sweep_dir(args.run_dir)
    assert sweep is not None
    sweep = with_session_options(sweep, args)  # only what is given: the recorded settings stand otherwise
    return play_sweep(args.run_dir, sweep, {"resumed": True}, args.argv, not args.no_progress, args.workers)


def _retry_policy(args: argparse.Namespace, policy: RetryPolicy) -> RetryPolicy:
    """The recorded retry policy with this session's overrides."""
    overrides = {
        "provider_retries": args.provider_retries,
        "wait_base_s": args.retry_wait,
        "wait_max_s": args.retry_wait_max,
    }
    return policy.model_copy(update={k: v for k, v in overrides.items() if v is not None})
