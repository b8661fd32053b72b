"""What a user asks `run` (and `resume`) to play, checked before anything is written or called: the command line's
values as a RunRequest, turned into the run's RunConfig and the session's options (or a sweep and its options).

Every check lives here, below the command line, which only parses and prints: a value that cannot be used raises
Refused, one line naming the problem and the fix (the command line exits 2 with it).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.engine.seeds import SeedEntry, deal, list_seed_lists, list_seeds, to_deal
from harness.export.contamination import check_seeds, load_exported_seeds
from harness.models.client import check_budget
from harness.run.manifest import recorded_run
from harness.run.runner import planned_calls
from harness.run.store import RunDir, is_run_dir
from harness.schema.config import Rotation, RunConfig, SessionOptions, flag_of
from harness.schema.errors import Refused
from harness.schema.records import ClientName, SeatConfig, checked, checked_params
from harness.schema.urls import check_url
from harness.session.launch import Confirm, Say, check_seats, sweep_session
from harness.session.seats import check_humans, parse_seat
from harness.session.sweep import SweepConfig, load_sweep, with_recorded_budget
from harness.strategies.scaffold import load_scaffold

DEFAULT_MODEL = "local/smart"
DEFAULT_SCAFFOLD = "watson"
DEFAULT_SEEDS = "standard"
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
DEAL_WITHOUT_ASKING = 1000  # decks the engine may deal (0.7 ms each) before a run is sized; more: sized first


class RunRequest(BaseModel):
    """The command line's `run` options that say what to play (None: not given), and the session's options."""

    model_config = ConfigDict(frozen=True)

    model: str | None = None
    scaffold: str | None = None
    k: int | None = None
    players: list[int] | None = None
    seeds: str | None = None
    repeats: int | None = None
    seat: list[str] | None = None
    seat_flag: str = "--seat"  # the option the seat specs came by, named in their refusals
    exclude_seeds_of: Path | None = None
    skip_excluded_seeds: bool = False
    rotation: Rotation | None = None
    out: Path = Path("results")
    run_name: str | None = None
    api_base: str | None = None
    client: ClientName = "litellm"
    temperature: float | None = None
    max_tokens: int | None = None
    max_tokens_on_truncation: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    given: dict[str, Any] = {}  # the session's options given (SessionOptions field paths)


PARAMS = ("temperature", "max_tokens", "max_tokens_on_truncation", "reasoning_effort", "thinking_budget")
# what a sweep file sets, and so --config cannot take beside it
SWEEP_CONFLICTS = ("model", "scaffold", "players", "seeds", "repeats", "api_base", *PARAMS)


def check_out(out: Path) -> None:
    """An --out that can hold run directories: no part of it a file or a broken link, the folder it would be made in
    writable, and not inside a run directory (a run nested in another is listed as both). Checked before any deck is
    dealt."""
    resolved = Path(os.path.abspath(out))  # ".." taken as written, as the shell takes it, links left alone
    parts = [resolved, *resolved.parents]
    try:
        for part in parts:
            if part.is_symlink() and not part.exists():
                raise Refused(f"--out {out}: {part} is a link to nothing; give a folder for the run directories")
            if part.exists() and not part.is_dir():
                raise Refused(f"--out {out}: {part} is a file; give a folder for the run directories")
            if is_run_dir(part):
                raise Refused(f"--out {out} is inside the run directory {part}; choose a folder outside it")
        existing = next(part for part in parts if part.exists())
    except OSError as exc:  # a folder on the way that cannot be searched
        raise Refused(f"--out {out} cannot be reached ({exc.strerror}); choose another --out") from None
    if not os.access(existing, os.W_OK | os.X_OK):
        raise Refused(f"--out {out} cannot be written ({existing} is read-only); choose another --out")


def plan_run(
    request: RunRequest, confirm: Confirm = lambda games, calls: None, say: Say = lambda line: None
) -> tuple[Path, RunConfig, SessionOptions]:
    """The run's folder, configuration and session options; every input checked, cheapest first, before anything
    is written or a model called (raises Refused). A run whose seeds the engine must deal in great number
    is put to `confirm` (games, expected calls) first, as a new run (size_first)."""
    if request.seat and request.model:
        raise Refused("give the players either with --model (self-play) or with one --seat per seat, not both")
    if request.seat and not 2 <= len(request.seat) <= 5:
        raise Refused(f"{len(request.seat)} --seat options: a team has 2 to 5 seats, one --seat each")
    if request.model is not None and not request.model.strip():  # an unset shell variable: not the offline player
        raise Refused(f"--model {request.model!r} names no model; give a LiteLLM model string or drop --model")
    if request.model is not None and SeatConfig(model=request.model.strip(), scaffold="").human:
        raise Refused(f"--model {request.model!r} would seat one person in every seat; play with partners: "
                      "hanabi-eval play --partner MODEL, or --seat human --seat MODEL")
    model = request.model or DEFAULT_MODEL
    scaffold = request.scaffold or DEFAULT_SCAFFOLD
    players = request.players or ([len(request.seat)] if request.seat else [2])
    drafted = [SeatConfig(model=model, scaffold=scaffold)] * len(request.seat or [None])
    repeats = 1 if request.repeats is None else request.repeats
    draft = checked(RunConfig, {"seats": drafted, "players": players, "seeds": (), "repeats": repeats}, flag)
    options = SessionOptions().merged(request.given, flag_of, "the default")
    if request.api_base is not None:
        check_url(request.api_base, "--api-base")
    if request.run_name is not None and not RUN_NAME.fullmatch(request.run_name):  # the run goes inside --out
        raise Refused(
            f"--run-name {request.run_name!r} is not a plain folder name; use letters, digits and . _ + - "
            "(no path: the run goes inside --out)"
        )
    timeout = {"timeout_s": options.timeout_s} if options.timeout_s is not None else {}
    params = checked_params({**request.model_dump(include=set(PARAMS)), **timeout}, "--")
    check_out(request.out)
    if request.skip_excluded_seeds and request.exclude_seeds_of is None:
        raise Refused(
            "--skip-excluded-seeds leaves out the seeds of an export: name it with --exclude-seeds-of EXPORT"
        )
    load_scaffold(scaffold, request.k)
    seeds = list_seeds(DEFAULT_SEEDS if request.seeds is None else request.seeds)
    if request.exclude_seeds_of is not None:
        exported = load_exported_seeds(request.exclude_seeds_of)
        seeds = check_seeds(seeds, exported, skip=request.skip_excluded_seeds)
    if request.seat:
        seats = tuple(
            parse_seat(spec, scaffold, params, request.k, request.api_base, request.seat_flag)
            for spec in request.seat
        )
        check_humans(seats)
        for seat in seats:
            load_scaffold(seat.scaffold, seat.k)
    else:
        seats = (SeatConfig(model=model, scaffold=scaffold, api_base=request.api_base, params=params, k=request.k),)
    if request.client != "litellm":
        seats = tuple(seat.model_copy(update={"client": request.client}) for seat in seats)
    check_seats(seats, options)  # every seat: two of one model may differ (one with a URL)
    draft = draft.model_copy(update={"seats": seats, "rotation": rotation_of(request.rotation, seats)})
    options = size_first([draft], seeds, options, confirm, say)
    config = RunConfig.model_validate({**dict(draft), "seeds": tuple(deal(seeds))})
    path = request.out / (request.run_name or config.default_name())
    recorded = recorded_run(RunDir(path), config) if is_run_dir(path) else None
    if recorded is not None:  # the run again: continued as resume continues it, its recorded options under these
        kept = recorded.session_options().merged(request.given, flag_of, "the run's record")
        options = kept.model_copy(update={"yes": options.yes})
        check_budget(seats, options)
    return path, config, options


def flag(path: str) -> str:
    """The `run` flag that gave a run configuration's field."""
    return {"seats": "--seat"}.get(path, "--" + path.replace("_", "-"))


def rotation_of(given: Rotation | None, seats: tuple[SeatConfig, ...]) -> Rotation:
    """The seating's rotation: given only for a team whose seats differ (it decides nothing in self-play, so it
    does not change a self-play run's identity), else the default."""
    if given is not None and len(set(seats)) < 2:
        raise Refused(
            f"--rotation {given}: every seat is the same player, so the seating changes nothing; drop --rotation"
        )
    return given or "seed"


def size_first(
    runs: list[RunConfig], seeds: list[SeedEntry], options: SessionOptions, confirm: Confirm, say: Say
) -> SessionOptions:
    """Put new runs of these configurations over `seeds` to `confirm` before their decks are dealt, where the
    engine has more than DEAL_WITHOUT_ASKING to deal (0.7 ms each): a run of a million new seeds is refused in
    seconds, not after a quarter of an hour of dealing. The options returned say not to ask again."""
    dealing = to_deal(seeds)
    if dealing <= DEAL_WITHOUT_ASKING:
        return options
    confirm(*planned_calls(runs, len(seeds)))
    say(f"Dealing {dealing:,} decks from the engine before the first game ...")
    return options.model_copy(update={"yes": True})


def plan_sweep(
    path: Path, request: RunRequest, confirm: Confirm = lambda games, calls: None, say: Say = lambda line: None
) -> tuple[Path, SweepConfig, SessionOptions]:
    """A sweep file's folder, sweep and session options (the command line's session options over the file's);
    the command line may not also say what to play (raises Refused). Sized first where the engine has
    many decks to deal, as plan_run."""
    given = [f"--{name.replace('_', '-')}" for name in SWEEP_CONFLICTS if getattr(request, name) is not None]
    if request.client != "litellm":
        given.append("--client")
    if given:
        raise Refused(f"--config sets the models, scaffolds, players and seeds; drop {', '.join(given)}")
    if request.run_name:
        raise Refused("--run-name does not apply to a sweep: its runs are named after their configurations")
    check_out(request.out)
    loaded = load_sweep(path)
    sweep, options = sweep_session(with_recorded_budget(loaded, request.out / loaded.name), request.given)
    seeds = list_seed_lists(sweep.seeds)
    options = size_first(sweep.runs(seeds=[]), seeds, options, confirm, say)
    try:
        deal(seeds)  # dealt once here (the engine's decks are kept): every later use agrees
    except Refused as exc:
        raise Refused(f"{path}: seeds: {exc}") from None
    return request.out / sweep.name, sweep, options
