"""`hanabi-eval import-inspect`: an Inspect log of the hanabi task becomes a run folder, written by the same writers
as `hanabi-eval run`, so that `report`, `export`, `values` and `runs` read it like any run.

Before anything is written, every sample's game (its log records, in its metadata) must be a game of the run the log's
task options make (id, seats, deck and digest) and replay through the engine. The folder is named `inspect-` + the
name `hanabi-eval run` would give. Importing a log again changes nothing; more games of its run (`inspect eval-retry`)
are added; a game already there that differs is refused. The manifest keeps the Inspect eval under `inspect`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log
from pydantic import ValidationError

from harness.engine.replay import ReplayMismatch
from harness.inspect.options import parse_options, with_eval_model
from harness.inspect.task import LOG_KEY, log_contents
from harness.play.game import rebuild
from harness.run.manifest import open_run
from harness.run.status import RunStatusFile
from harness.run.store import RunDir
from harness.schema.cards import deck_digest
from harness.schema.config import RunConfig, SessionOptions
from harness.schema.errors import Refused
from harness.schema.log_file import GameLog, GameLogContents
from harness.schema.records import GameHeader, GamePlan, GameResult, MoveRecord, SeatConfig
from harness.schema.secrets import redact

TASK_NAMES = ("hanabi_eval/hanabi", "hanabi")
RUN_PREFIX = "inspect-"  # beside runs of `hanabi-eval run` with the same configuration, never inside them


@dataclass(frozen=True)
class ImportOutcome:
    run: Path
    added: list[str]  # game ids written now
    unchanged: list[str]  # game ids already in the folder, identical
    skipped: list[str]  # samples without a game log (an error before the first move), with the reason
    complete: int
    interrupted: int
    total: int  # games the run plans


def read_log(path: Path) -> EvalLog:
    try:
        log = read_eval_log(str(path))
    except FileNotFoundError:
        raise Refused(f"{path}: no such file; give an Inspect log (.eval or .json)") from None
    except Exception as exc:  # Inspect raises several kinds for a file that is not a log
        first = " ".join(str(exc).split())[:200]
        raise Refused(
            f"{path}: not a readable Inspect log ({type(exc).__name__}: {first}); give the .eval or .json log that "
            "`inspect eval hanabi_eval/hanabi` wrote"
        ) from None
    if log.eval.task not in TASK_NAMES:
        raise Refused(f"{path} is a log of task {log.eval.task!r}, not of hanabi_eval/hanabi")
    if log.eval.config.epochs not in (None, 1):
        raise Refused(
            f"{path} plays each game over {log.eval.config.epochs} epochs; a run plays a deal again with "
            "-T repeats=N, which gives each play its own game id: run the eval that way to import it"
        )
    if log.samples is None:
        raise Refused(f"{path} holds no samples (run the eval with its samples logged)")
    return log


def run_config_of(log: EvalLog, games: list[GameLogContents]) -> tuple[RunConfig, SessionOptions]:
    """The run the log's task options make with its model, each seat as the games recorded it (with the sampling
    settings its Inspect model sent), and the session's options they set."""
    try:
        planned, session = parse_options(**{k: v for k, v in log.eval.task_args.items() if v is not None})
    except (Refused, TypeError) as exc:
        raise Refused(f"the log's task options do not make a run: {exc}") from None
    config = with_eval_model(planned, log.eval.model)
    recorded: dict[tuple[str, str], SeatConfig] = {
        (s.model, s.scaffold): s for game in games if game.header is not None for s in game.header.seats
    }
    seats = tuple(recorded.get((s.model, s.scaffold), s) for s in config.seats)
    return config.model_copy(update={"seats": seats}), session


def _checked(sample: Any, contents: GameLogContents, plan: GamePlan | None, deck: list[str]) -> None:
    where = f"sample {sample.id}"
    digest = (sample.metadata or {}).get("deck_digest")
    if plan is None:
        raise Refused(f"{where} is no game of the run its task options make; was the log edited?")
    header = contents.header
    if header is None:
        raise Refused(f"{where}: its game log has no header")
    if tuple(header.seats) != plan.seats:
        raise Refused(f"{where}: its seats are not the seats its run plans for {plan.game_id}")
    if header.deck != deck or digest != deck_digest(header.deck):
        raise Refused(f"{where}: its deck is not seed {plan.seed}'s deck (deck digest {digest})")
    try:
        rebuild(plan, deck, contents)
    except ReplayMismatch as exc:
        raise Refused(f"{where}: {exc}") from None


def _lines(contents: GameLogContents, run_id: str) -> list[GameHeader | MoveRecord | GameResult]:
    assert contents.header is not None
    return [contents.header.model_copy(update={"run_id": run_id}), *contents.records()]


def import_log(path: Path, out: Path, command: list[str]) -> ImportOutcome:
    """Import one Inspect log of the hanabi task into a run folder under `out` (raises Refused)."""
    log = read_log(path)
    assert log.samples is not None
    games: dict[str, tuple[Any, GameLogContents]] = {}
    skipped: list[str] = []
    for sample in log.samples:
        records = (sample.metadata or {}).get(LOG_KEY)
        if not records:
            error = sample.error.message if sample.error else None
            why = error.strip().splitlines()[0] if error else "no log"
            skipped.append(f"{sample.id} ({redact(why)[:200]})")
            continue
        try:
            games[str(sample.id)] = (sample, log_contents(records))
        except ValidationError as exc:
            raise Refused(
                f"sample {sample.id}: its game log is not in hanabi-eval's schema ({exc.errors()[0]['msg']})"
            ) from None
    config, session = run_config_of(log, [contents for _, contents in games.values()])
    plans = {p.game_id: p for p in config.plans()}
    decks = {s.seed: list(s.deck) for s in config.seeds}
    for game_id, (sample, contents) in games.items():
        plan = plans.get(game_id)
        _checked(sample, contents, plan, decks[plan.seed] if plan else [])
    run_path = out / f"{RUN_PREFIX}{config.default_name()}"
    with open_run(run_path, config, command, session, concurrency=False) as (run, manifest):
        existing = {game_id for game_id in games if run.game_path(game_id).exists()}
        fresh = {game_id: _lines(contents, manifest.run_id) for game_id, (_, contents) in games.items()}
        unchanged: list[str] = []
        for game_id in sorted(existing):
            if run.game_path(game_id).read_bytes() != _bytes(fresh[game_id]):
                raise Refused(
                    f"{run.game_path(game_id)} already holds a different play of {game_id}; import into another --out"
                )
            unchanged.append(game_id)
        record = manifest.model_copy(
            update={"sent_params": _sent_params(config, games), "inspect": _eval_record(log, path)}
        )
        run.write_manifest(record)
        added = [game_id for game_id in fresh if game_id not in existing]
        asyncio.run(_write_games(run, {game_id: fresh[game_id] for game_id in added}))
        status = RunStatusFile(run, list(plans.values()))
        complete, interrupted = status.counts()
        if complete + interrupted < len(plans):
            ended = complete + interrupted
            status.write(
                "stopped",
                f"the Inspect log holds {ended} ended game{'' if ended == 1 else 's'} of the run's {len(plans)}; "
                "the others are missing or were cut short (an Inspect limit or a cancellation)",
            )
        else:
            status.write("done")
    return ImportOutcome(run_path, added, unchanged, skipped, complete, interrupted, len(plans))


def _bytes(lines: list[GameHeader | MoveRecord | GameResult]) -> bytes:
    return b"".join(redact(line.model_dump_json()).encode() + b"\n" for line in lines)


async def _write_games(run: RunDir, games: dict[str, list[GameHeader | MoveRecord | GameResult]]) -> None:
    for game_id, lines in games.items():
        with GameLog(run.game_path(game_id)) as log:
            for line in lines:
                await log.append(line)
            await log.durable()


def _sent_params(config: RunConfig, games: dict[str, tuple[Any, GameLogContents]]) -> list[dict[str, Any]]:
    """Per seat of the configuration, what its games' headers record Inspect sent."""
    sent: dict[tuple[str, str], dict[str, Any]] = {}
    for _, contents in games.values():
        header = contents.header
        if header is not None:
            for seat, params in zip(header.seats, header.sent_params, strict=False):
                sent.setdefault((seat.model, seat.scaffold), params)
    return [sent.get((s.model, s.scaffold), {"model": s.model, "via": "inspect_ai"}) for s in config.seats]


def _eval_record(log: EvalLog, path: Path) -> dict[str, Any]:
    """What the manifest keeps of the Inspect eval the games come from."""
    spec = log.eval
    record = {
        "log": path.name,
        "eval_id": spec.eval_id,
        "run_id": spec.run_id,
        "created": spec.created,
        "task": spec.task,
        "task_args": spec.task_args,
        "model": spec.model,
        "model_base_url": spec.model_base_url,
        "model_generate_config": spec.model_generate_config.model_dump(exclude_none=True),
        "packages": spec.packages,
        "status": log.status,
    }
    return json.loads(redact(json.dumps(record, default=str)))
