"""The hanabi task's options (`-T name=value`), checked before any model is called, and the run configuration they
make: the same RunConfig, and so the same game plans and game ids, as `hanabi-eval run` with the same settings.

Inspect hands `-T` values over as YAML scalars, and splits a plain value at its commas: `players=2,3` arrives as
["2", "3"], `players=2` as 2. Every option takes either form. A seat of a mixed team is `MODEL[:SCAFFOLD]`, MODEL an
Inspect model string (`openai/gpt-4.1`, `hanabi/smart`); a seat whose model is the eval's own `--model` is served
by that very model (with the eval's generation settings).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence

from inspect_ai._util.error import PrerequisiteError  # Inspect prints one of these as one line, no traceback
from pydantic import BaseModel, ConfigDict, ValidationError

from harness.engine.seeds import SeedDeck, resolve_seeds
from harness.schema.config import Rotation, RunConfig
from harness.schema.errors import Refused
from harness.schema.records import SeatConfig
from harness.strategies.scaffold import load_scaffold, parse_k, scaffold_names

OptionValue = str | int | float | bool | Sequence[str | int | float | bool] | None
ROTATIONS: tuple[Rotation, ...] = ("seed", "all", "off")
SELF_PLAY_MODEL = "inspect/eval-model"  # a self-play seat before the eval's model is known (see seats_for)


class TaskOptionError(PrerequisiteError, ValueError):
    """A task option that cannot be used; the message names the option, the problem and the fix. `inspect eval`
    shows it as it shows its own input errors (PrerequisiteError: the message alone, exit code 1), before any model
    is called."""

    def __init__(self, option: str, problem: str) -> None:
        message = f"hanabi task option {option}: {problem}"
        ValueError.__init__(self, message)
        PrerequisiteError.__init__(self, message)
        self.option = option


class SeatSpec(BaseModel):
    """One seat of a mixed team as the task option names it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    scaffold: str


class TaskOptions(BaseModel):
    """The task's options, checked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scaffold: str
    k: int | None
    players: tuple[int, ...]
    seeds: tuple[SeedDeck, ...]
    repeats: int
    seats: tuple[SeatSpec, ...]  # empty: self-play of the eval's model
    rotation: Rotation
    max_retries: int

    def run_config(self, eval_model: str) -> RunConfig:
        """The run these options make with `eval_model` as the eval's model (it plays every seat of self-play)."""
        if self.seats:
            seats = tuple(SeatConfig(model=s.model, scaffold=s.scaffold, k=self.k) for s in self.seats)
        else:
            seats = (SeatConfig(model=eval_model, scaffold=self.scaffold, k=self.k),)
        return RunConfig(
            seats=seats,
            players=self.players,
            seeds=self.seeds,
            rotation=self.rotation,
            repeats=self.repeats,
            reply_retries=self.max_retries,
        )


def _items(value: OptionValue) -> list[str]:
    """A scalar or a list, as strings: `2,3`, `[2, 3]` and `2` alike."""
    if value is None:
        return []
    if isinstance(value, str | int | float | bool):
        return [p.strip() for p in str(value).split(",") if p.strip()]
    return [p.strip() for item in value for p in str(item).split(",") if p.strip()]


def _whole(option: str, value: OptionValue, low: int, high: int | None = None) -> int:
    items = _items(value)
    if (
        len(items) != 1
        or not items[0].isdigit()
        or int(items[0]) < low
        or (high is not None and int(items[0]) > high)
    ):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise TaskOptionError(f"{option}={value!r}", f"give one whole number {bound}")
    return int(items[0])


def _scaffold(option: str, name: str, k: int | None = None) -> str:
    if name not in scaffold_names():
        close = difflib.get_close_matches(name.lower(), scaffold_names(), n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise TaskOptionError(
            f"{option}={name!r}", f"no such scaffold{hint}; choose one of: {', '.join(scaffold_names())}"
        )
    try:
        load_scaffold(name, k)
    except Refused as exc:
        raise TaskOptionError(f"{option}={name!r}", str(exc)) from None
    return name


def parse_seat(spec: str) -> SeatSpec:
    """`MODEL[:SCAFFOLD]` (the scaffold defaults to the task's `scaffold`, filled in by parse_options)."""
    model, scaffold = spec.strip(), ""
    if ":" in model:
        left, right = model.rsplit(":", 1)
        if right in scaffold_names():
            model, scaffold = left, right
        elif difflib.get_close_matches(right.lower(), scaffold_names(), n=1, cutoff=0.75) or left.startswith(
            "hanabi/"
        ):
            _scaffold(f"seats ({spec!r})", right)
    if "/" not in model or not all(model.split("/", 1)) or any(c.isspace() for c in model):
        raise TaskOptionError(
            f"seats ({spec!r})",
            "a seat is MODEL[:SCAFFOLD] with an Inspect model such as openai/gpt-4.1 or hanabi/smart",
        )
    return SeatSpec(model=model, scaffold=scaffold)


OPTION_NAMES = ("scaffold", "players", "seeds", "repeats", "seats", "rotation", "max_retries", "k")


def check_names(given: dict[str, object]) -> None:
    """Refuse an option the task does not have (Inspect itself would only warn, and play with the default)."""
    for name in given:
        if name not in OPTION_NAMES:
            close = difflib.get_close_matches(name, OPTION_NAMES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise TaskOptionError(
                name, f"the hanabi task has no such option{hint}; its options: {', '.join(OPTION_NAMES)}"
            )


def parse_options(
    scaffold: str = "watson",
    players: OptionValue = None,
    seeds: OptionValue = "standard",
    repeats: OptionValue = 1,
    seats: OptionValue = None,
    rotation: str = "seed",
    max_retries: OptionValue = 3,
    k: OptionValue = None,
) -> TaskOptions:
    """Check every option (raises TaskOptionError naming the first bad one)."""
    k_value = None if k is None else _whole("k", k, 1)
    if k_value is not None:
        try:
            parse_k(str(k_value), "")
        except Refused as exc:
            raise TaskOptionError(f"k={k!r}", str(exc)) from None
    _scaffold("scaffold", str(scaffold), k_value)
    specs = [parse_seat(spec) for spec in _items(seats)] if seats is not None else []
    specs = [s if s.scaffold else s.model_copy(update={"scaffold": str(scaffold)}) for s in specs]
    for spec in specs:  # k, when given, is every seat's sample count: each seat's scaffold must take it
        _scaffold(f"seats ({spec.model}:{spec.scaffold})", spec.scaffold, k_value)
    counts: list[int] = []
    for item in _items(players):
        if not item.isdigit() or not 2 <= int(item) <= 5:
            raise TaskOptionError(
                f"players={players!r}", f"{item!r} is not a player count; Hanabi is for 2 to 5 players"
            )
        counts.append(int(item))
    if specs:
        if not 2 <= len(specs) <= 5:
            raise TaskOptionError(
                f"seats={seats!r}", "a team has 2 to 5 seats; for self-play use --model alone"
            )
        if players is not None and counts != [len(specs)]:
            raise TaskOptionError(
                f"players={players!r}", f"a team of {len(specs)} seats plays {len(specs)}-player games only"
            )
        counts = [len(specs)]
    elif players is None:
        counts = [2]
    if not counts:
        raise TaskOptionError(f"players={players!r}", "give player counts from 2 to 5, e.g. players=2,3")
    if len(set(counts)) != len(counts):
        raise TaskOptionError(f"players={players!r}", "list each player count once")
    if rotation not in ROTATIONS:
        raise TaskOptionError(f"rotation={rotation!r}", f"choose one of: {', '.join(ROTATIONS)}")
    seed_spec = ",".join(_items(seeds))
    try:
        decks = resolve_seeds(seed_spec)
    except Refused as exc:
        problem = re.sub(r"^--seeds '.*?' ", "", str(exc)).replace("--repeats N", "repeats=N")
        raise TaskOptionError(f"seeds={seeds!r}", problem) from None
    if not decks:
        raise TaskOptionError(f"seeds={seeds!r}", "names no seed")
    try:
        return TaskOptions(
            scaffold=str(scaffold),
            k=k_value,
            players=tuple(counts),
            seeds=tuple(decks),
            repeats=_whole("repeats", repeats, 1),
            seats=tuple(specs),
            rotation=rotation,
            max_retries=_whole("max_retries", max_retries, 0),
        )
    except ValidationError as exc:  # every field was checked above; kept as the last guard
        raise TaskOptionError("options", str(exc.errors()[0]["msg"])) from None


def deck_digest(deck: Sequence[str]) -> str:
    """A short fingerprint of a 50-card deck: equal digests, equal deals."""
    return hashlib.sha256(" ".join(deck).encode()).hexdigest()[:16]
