"""Runs an evaluation: plans the games of a configuration, writes the manifest, plays games concurrently.

The run directory's name is derived from the configuration, so running the same command again continues the same
run (finished games are never replayed), while a different configuration gets a directory of its own; a run
directory named explicitly for a different configuration is refused. Every run records what is needed to reproduce
it: command, configuration, versions, git commit, seeds with their decks, and the seats.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import platform
import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness import __version__
from harness.engine.seeds import SeedDeck
from harness.models import event_loop, retry_events
from harness.models.client import ModelClient, RetryPolicy, close_clients, sent_params_record, warm_up
from harness.play.agent import SeatAgent
from harness.play.game import play_game, rebuild
from harness.run.interrupt import SessionStopped, Stop
from harness.run.live_progress import RunProgress
from harness.run.lock import RunLock
from harness.run.status import RunStatusFile
from harness.run.store import RunDir, seed_entry
from harness.schema.disk import DiskFault, explain
from harness.schema.log_file import count_moves, finished_result, read_game_log
from harness.schema.records import GamePlan, GameResult, MoveRecord, SeatConfig, now_iso
from harness.schema.secrets import public_command, public_seat, redact, safe_url
from harness.session.seats import Rotation, rotations
from harness.strategies.scaffold import calls_per_move, load_scaffold


class RunConfigError(ValueError):
    """A run directory that belongs to a different configuration."""


class RunConfig(BaseModel):
    """Everything that decides what a run plays. Two runs with equal configs play identical game plans."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seats: tuple[SeatConfig, ...]  # one entry: self-play; otherwise one per seat (a mixed team)
    players: tuple[int, ...]
    seeds: tuple[SeedDeck, ...]
    rotation: Rotation = "seed"  # mixed teams: who sits where, see harness.seats.rotations
    repeats: int = Field(default=1, ge=1)  # plays of each seed (the same deal, played again)
    reply_retries: int = 3
    retry: RetryPolicy = RetryPolicy()

    @model_validator(mode="after")
    def _team_size(self) -> RunConfig:
        if len(self.seats) > 1 and self.players != (len(self.seats),):
            raise ValueError(f"a team of {len(self.seats)} seats plays {len(self.seats)}-player games only")
        return self

    @property
    def mixed(self) -> bool:
        return len(set(self.seats)) > 1

    def identity(self) -> dict[str, Any]:
        """What decides the games' content. Operational settings (server URL, timeout, retry limits) are left out,
        so fixing one of them (a new server, a raised limit) continues the same run."""
        identity = self.model_dump(
            mode="json",
            exclude={
                "seats": {"__all__": {"api_base": True, "deployments": True, "params": {"timeout_s"}}},
                "reply_retries": True,
                "retry": True,
            },
        )
        if self.repeats == 1:  # one play per seed: the identity of runs made before repeats existed
            del identity["repeats"]
        for seat in identity["seats"]:  # likewise for seats without a thinking budget or a sample count
            if seat["params"].get("thinking_budget") is None:
                seat["params"].pop("thinking_budget", None)
            if seat.get("k") is None:
                seat.pop("k", None)
        return identity

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:10]

    def operational(self) -> dict[str, Any]:
        return {
            "api_bases": [safe_url(s.api_base) for s in self.seats],
            "deployments": [
                [{**d.model_dump(), "api_base": safe_url(d.api_base)} for d in s.deployments]
                for s in self.seats
            ],
            "timeouts_s": [s.params.timeout_s for s in self.seats],
            "reply_retries": self.reply_retries,
            "retry": self.retry.model_dump(),
        }

    def plans(self) -> list[GamePlan]:
        """Every game of the run, in order: player count, seed, seating, repeat. A repeat plays the same deal with
        the same seating again; its game id ends in -play{repeat} from the second play on (mixed teams: after the
        seating's own -r{rotation})."""
        plans = []
        for players in self.players:
            team = self.seats * players if len(self.seats) == 1 else self.seats
            for index, seed in enumerate(self.seeds):
                for shift, seats in rotations(team, index, self.rotation if self.mixed else "off"):
                    seating = f"-r{shift}" if self.mixed else ""
                    for repeat in range(self.repeats):
                        again = f"-play{repeat}" if repeat > 0 else ""
                        plans.append(
                            GamePlan(
                                game_id=f"{players}p-{seed.seed_set}-seed{seed.seed}{seating}{again}",
                                players=players,
                                seed=seed.seed,
                                seed_set=seed.seed_set,
                                seats=seats,
                                repeat=repeat,
                            )
                        )
        return plans

    def default_name(self) -> str:
        seed_sets = "+".join(sorted({s.seed_set for s in self.seeds}))
        players = "".join(str(p) for p in self.players)
        if len(self.seats) == 1:
            seat = self.seats[0]
            who = f"{_slug(seat.model)}-{seat.scaffold}" + (f"-k{seat.k}" if seat.k is not None else "")
        else:
            labels = [f"{_slug(s.model)}.{s.scaffold}" + (f".k{s.k}" if s.k else "") for s in self.seats]
            who = "team-" + "+".join(labels)
            if len(who) > 90:
                who = who[:90].rstrip("+-.")
        again = f"-x{self.repeats}" if self.repeats > 1 else ""
        return f"{who}-{players}p-{seed_sets}{again}-{self.digest()}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def git_state() -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]  # the checkout around harness/run/
    if not (
        root / "pyproject.toml"
    ).exists():  # an installed wheel: the git repository around it is not its source
        return {"commit": None, "dirty": None}
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(root),
                    "status",
                    "--porcelain",
                ],  # untracked files count: new prompts or code
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
            ).stdout.strip()
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def versions() -> dict[str, str]:
    found = {"hanabi-eval": __version__, "python": sys.version.split()[0], "platform": platform.platform()}
    for package in ("litellm", "hanabi-learning-environment", "pydantic", "jinja2", "openai", "anthropic"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def manifest_for(config: RunConfig, run_id: str, command: list[str]) -> dict[str, Any]:
    public = config.model_copy(update={"seats": tuple(public_seat(s) for s in config.seats)})
    return {
        "run_id": run_id,
        "created_at": now_iso(),
        "command": public_command(command),
        "config_digest": config.digest(),
        "config": json.loads(public.model_dump_json()),
        "sent_params": [sent_params_record(s) for s in config.seats],  # per seat, as sent to LiteLLM
        "versions": versions(),
        "git": git_state(),
        "seeds": [seed_entry(s) for s in config.seeds],
        "games": [p.model_dump(mode="json") for p in public.plans()],
    }


@contextmanager
def open_run(
    run_path: Path, config: RunConfig, command: list[str], concurrency: int | None = None
) -> Iterator[tuple[RunDir, dict[str, Any]]]:
    """Create the run directory, or reopen it if it holds this very configuration, and hold its lock.

    Raises RunConfigError for a directory of another configuration, RunLocked while another process writes it.
    """
    run = RunDir(run_path)
    existing = run.read_manifest()
    if existing is not None and existing.get("config_digest") != config.digest():
        raise RunConfigError(
            f"{run.path} holds a run of a different configuration; choose another --out or --run-name "
            "(or continue that run with `hanabi-eval resume`)"
        )
    with RunLock(run.path) as lock:
        existing = run.read_manifest()  # re-read under the lock
        session = {"started_at": now_iso(), "command": public_command(command), **config.operational()}
        if concurrency is not None:
            session["concurrency"] = concurrency
        if lock.previous_holder:
            session["took_over_lock_of"] = lock.previous_holder
        if existing is None:
            manifest = manifest_for(config, f"{run.path.name}-{uuid.uuid4().hex[:6]}", command)
            manifest["sessions"] = [session]
        else:
            manifest = existing
            manifest.setdefault("sessions", []).append(session)
        run.write_manifest(manifest)
        yield run, manifest


def config_of(run: RunDir) -> RunConfig:
    """The configuration a run directory was created with, checked against its recorded digest."""
    manifest = run.read_manifest()
    if manifest is None:
        raise RunConfigError(
            f"{run.path} is not a run directory (no {run.manifest_path.name}); give a run's folder"
        )
    config = RunConfig.model_validate(manifest["config"])
    if config.digest() != manifest.get("config_digest"):
        raise RunConfigError(
            f"{run.manifest_path} does not match its own config digest; it was edited by hand"
        )
    return config


def build_agents(config: RunConfig) -> dict[SeatConfig, SeatAgent]:
    agents: dict[SeatConfig, SeatAgent] = {}
    for seat in config.seats:
        if seat not in agents:
            client = ModelClient(seat, config.retry)
            agents[seat] = SeatAgent(seat, load_scaffold(seat.scaffold, seat.k), client, config.reply_retries)
    return agents


class RunJob(BaseModel):
    """One run to play within a session: its configuration, directory and manifest."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: RunConfig
    run: RunDir
    manifest: dict[str, Any]


Selected = list[tuple[int, GamePlan]]  # (index of the job in the session, game plan)
MoveListener = Callable[[MoveRecord], None]
GameListener = Callable[[int, GamePlan, GameResult], None]


def verify_logs(jobs: list[RunJob]) -> None:
    """Replay every existing log and check its digests, so that a log that does not match is refused before any
    model is called (raises ReplayMismatch or LogCorrupt)."""
    for job in jobs:
        decks = {s.seed: list(s.deck) for s in job.config.seeds}
        for plan in job.config.plans():
            path = job.run.game_path(plan.game_id)
            if path.exists() and finished_result(path) is None:  # finished games are never extended
                rebuild(plan, decks[plan.seed], read_game_log(path))


async def play_plans(
    jobs: list[RunJob],
    selected: Selected,
    concurrency: int,
    model_limits: dict[str, int],
    on_move: MoveListener,
    on_game: GameListener,
    stop: Stop | None = None,
) -> list[tuple[int, GamePlan, GameResult]]:
    """Play the selected games in this event loop: at most `concurrency` at once, and at most
    `model_limits[model]` games that seat `model`.

    When `stop` is pressed, or when one game fails (a disk fault), every other game is cancelled: no new call
    starts, calls in flight are dropped (their move is played again on resume) and every log is closed intact.
    Returns the games that ended; after a failure, raises it."""
    agents: dict[SeatConfig, SeatAgent] = {}
    for job in jobs:
        for seat, agent in build_agents(job.config).items():
            agents.setdefault(seat, agent)
    decks = {(index, s.seed): list(s.deck) for index, job in enumerate(jobs) for s in job.config.seeds}
    # in the process that plays: the warm-up starts LiteLLM's logging thread, which must not exist at a fork
    warm_up({seat.model for job in jobs for seat in job.config.seats})
    default_thresholds = gc.get_threshold()
    tune_gc_for_play()
    gate = asyncio.Semaphore(concurrency)
    model_gates = {model: asyncio.Semaphore(limit) for model, limit in model_limits.items()}

    async def one(index: int, plan: GamePlan) -> tuple[int, GamePlan, GameResult]:
        job = jobs[index]
        gates = [model_gates[m] for m in sorted({s.model for s in plan.seats}) if m in model_gates]
        async with AsyncExitStack() as held:
            for held_gate in [
                *gates,
                gate,
            ]:  # a fixed order, so that games never wait on each other in a cycle
                await held.enter_async_context(held_gate)
            result = await play_game(
                plan,
                decks[(index, plan.seed)],
                job.run.game_path(plan.game_id),
                {i: agents[seat] for i, seat in enumerate(plan.seats)},
                job.manifest["run_id"],
                job.manifest.get("git", {}).get("commit"),
                on_move=on_move,
            )
        on_game(index, plan, result)
        return index, plan, result

    tasks = [asyncio.create_task(one(index, plan)) for index, plan in selected]
    failures: list[BaseException] = []

    def halt() -> None:
        for task in tasks:
            task.cancel()

    async def watched(task: asyncio.Task[tuple[int, GamePlan, GameResult]]) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            try:
                await task
            except Exception as exc:
                if not failures:
                    failures.append(exc)
                    halt()

    if stop is not None and stop.requested:  # pressed before the loop listened
        halt()
    try:
        with stop.in_loop(halt) if stop is not None else contextlib.nullcontext():
            await asyncio.gather(*(watched(task) for task in tasks))
        if failures:
            raise failures[0]
        return [task.result() for task in tasks if not task.cancelled()]
    finally:
        await close_clients()
        gc.unfreeze()  # a process that goes on after play (tests, a library caller) collects as usual again
        gc.set_threshold(*default_thresholds)


def tune_gc_for_play() -> None:
    """Exempt everything alive before play (LiteLLM's modules and price list, templates, decks: hundreds of
    thousands of objects) from garbage collection, and collect the young generation every 10,000 allocations
    instead of 700. Each model call allocates thousands of short-lived objects; with the defaults the collector
    took about 6% of a worker's CPU at 64 games, with these about 2.5% (BENCHMARKS.md). No collection before the
    freeze: it would take about 0.2 s to free very little."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def play_session(
    jobs: list[RunJob],
    concurrency: int,
    model_limits: dict[str, int],
    show_progress: bool,
    workers: int = 1,
    resume_hint: str = "",
) -> list[list[tuple[GamePlan, GameResult]]]:
    """Play the unfinished games of several runs, in this process or spread over `workers` processes, keeping
    each run's status file up to date. Returns each job's (plan, result) pairs in plan order.

    Raises SessionStopped after a Ctrl-C (status "stopped") and DiskFault when a write fails (status "failed",
    where it can still be written); `resume_hint` ("continue with: hanabi-eval resume ...") ends their message."""
    verify_logs(jobs)
    selected = [(index, plan) for index, job in enumerate(jobs) for plan in job.config.plans()]
    moves_left = expected_moves([(plan, jobs[index].run.game_path(plan.game_id)) for index, plan in selected])
    progress = RunProgress(total_games=len(selected), enabled=show_progress, expected_moves=moves_left)
    statuses = [RunStatusFile(job.run, job.config.plans()) for job in jobs]
    stop = Stop(resume_hint)

    def game_done(index: int, plan: GamePlan, result: GameResult) -> None:
        progress.game_done(result)
        statuses[index].game_done(plan.game_id, result)
        statuses[index].maybe_write()

    def stop_now() -> None:  # before the games' loop listens, or between its end and ours: as Python would
        raise KeyboardInterrupt

    try:
        for status in statuses:
            status.write("running")
        with stop.in_thread(stop_now), progress, retry_events.listening(progress.backoff):
            if workers <= 1:
                flat = event_loop.run(
                    play_plans(
                        jobs,
                        selected,
                        concurrency,
                        model_limits,
                        on_move=lambda record: progress.moves_done(1, *_move_usage(record)),
                        on_game=game_done,
                        stop=stop,
                    )
                )
            else:
                from harness.run.workers import play_in_workers

                flat = play_in_workers(
                    jobs, selected, concurrency, model_limits, workers, progress, stop, game_done
                )
    except OSError as exc:
        reason = explain(exc, resume_hint)
        for status in statuses:
            status.try_write("failed", reason)
        raise DiskFault(reason) from None
    except DiskFault as exc:
        for status in statuses:
            status.try_write("failed", str(exc))
        raise
    except BaseException as exc:
        stopped = isinstance(exc, KeyboardInterrupt)
        for status in statuses:
            status.try_write(
                "stopped" if stopped else "failed",
                "stopped by Ctrl-C" if stopped else redact(f"{type(exc).__name__}: {exc}")[:500],
            )
        raise
    if stop.requested:
        for status in statuses:
            status.try_write("stopped", "stopped by Ctrl-C")
        complete = sum(s.counts()[0] for s in statuses)
        total = sum(len(s.games) for s in statuses)
        raise SessionStopped(f"Stopped by Ctrl-C: {complete} of {total} games complete; {resume_hint}")
    order = {(index, plan.game_id): n for n, (index, plan) in enumerate(selected)}
    flat.sort(key=lambda item: order[(item[0], item[1].game_id)])
    grouped: list[list[tuple[GamePlan, GameResult]]] = [[] for _ in jobs]
    for index, plan, result in flat:
        grouped[index].append((plan, result))
    try:
        for status in statuses:
            status.write("done")
    except OSError as exc:
        raise DiskFault(explain(exc, resume_hint)) from None
    return grouped


def execute(
    config: RunConfig,
    run: RunDir,
    manifest: dict[str, Any],
    concurrency: int,
    show_progress: bool,
    workers: int = 1,
    resume_hint: str = "",
) -> list[tuple[GamePlan, GameResult]]:
    """Play every unfinished game of one run."""
    job = RunJob(config=config, run=run, manifest=manifest)
    (results,) = play_session([job], concurrency, {}, show_progress, workers, resume_hint)
    return results


def _move_usage(record: MoveRecord) -> tuple[int, float]:
    return record.usage.total_tokens, record.cost_usd or 0.0


# Mean moves per game of the built-in player's self-play (offline demo, standard seeds): a typical game length.
TYPICAL_MOVES = {2: 67, 3: 61, 4: 62, 5: 56}


def expected_moves(plans: list[tuple[GamePlan, Path]]) -> int:
    """Moves the unfinished games are still expected to take (typical game lengths less the moves logged)."""
    return sum(
        max(TYPICAL_MOVES[plan.players] - count_moves(path), 1)
        for plan, path in plans
        if finished_result(path) is None
    )


def expected_calls(plans: list[tuple[GamePlan, Path]]) -> tuple[int, int]:
    """(unfinished games, expected model calls): typical moves left x each seat's calls per move."""
    remaining, calls = 0, 0.0
    for plan, path in plans:
        if finished_result(path) is not None:
            continue
        done = count_moves(path)
        per_move = (
            sum(calls_per_move(load_scaffold(s.scaffold, s.k), plan.players) for s in plan.seats) / plan.players
        )
        remaining += 1
        calls += max(TYPICAL_MOVES[plan.players] - done, 1) * per_move
    return remaining, round(calls)
