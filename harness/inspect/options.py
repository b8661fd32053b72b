"""The hanabi task's options (`-T name=value`), checked before any model is called, into the run and the session they
make: the same RunConfig (so the same game ids) as `hanabi-eval run` with the same settings, and its SessionOptions.

Inspect hands `-T` values over as YAML scalars and splits a plain one at its commas (`players=2,3` arrives as
["2", "3"], `players=2` as 2): every option takes either form. A mixed team's seat is `MODEL[:SCAFFOLD]` with an
Inspect model string; a seat naming the eval's own `--model` is served by it. A bad value is refused, naming its option.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from harness.engine.seeds import resolve_seeds
from harness.schema.config import RunConfig, SessionOptions
from harness.schema.errors import Refused
from harness.schema.records import SeatConfig, checked, is_digits
from harness.strategies.scaffold import load_scaffold, model_and_scaffold, parse_k

OptionValue = str | int | float | bool | Sequence[str | int | float | bool] | None
SELF_PLAY_MODEL = "inspect/eval-model"  # the eval's model in a self-play seat, until the eval runs (with_eval_model)
OPTION_NAMES = ("scaffold", "players", "seeds", "repeats", "seats", "rotation", "max_retries", "k")


def named(option: str) -> str:
    return f"hanabi task option {option}:"


def _items(value: OptionValue) -> list[str]:
    """A scalar or a list, as strings: `2,3`, `[2, 3]` and `2` alike."""
    if value is None:
        return []
    if isinstance(value, str | int | float | bool):
        return [p.strip() for p in str(value).split(",") if p.strip()]
    return [p.strip() for item in value for p in str(item).split(",") if p.strip()]


def _whole(option: str, value: OptionValue) -> int:
    """One whole number, as the option's value."""
    items = _items(value)
    if len(items) != 1 or not is_digits(items[0].lstrip("-")):
        raise Refused(f"{named(option)} {value!r}: give one whole number")
    return int(items[0])


def _scaffold(option: str, name: str, k: int | None = None) -> str:
    try:
        load_scaffold(name, k)
    except Refused as exc:
        raise Refused(f"{named(option)} {exc}") from None
    return name


def parse_seat(spec: str, scaffold: str, k: int | None) -> SeatConfig:
    """`MODEL[:SCAFFOLD]` (the scaffold defaults to the task's `scaffold`)."""
    where = f"{named('seats')} {spec!r}"
    model, seat_scaffold = model_and_scaffold(spec.strip(), scaffold, where)
    if "/" not in model or not all(model.split("/", 1)) or any(c.isspace() or c == "," for c in model):
        raise Refused(
            f"{where}: a seat is MODEL[:SCAFFOLD] with an Inspect model such as openai/gpt-4.1 or hanabi/smart"
        )
    return SeatConfig(model=model, scaffold=_scaffold(f"seats ({model}:{seat_scaffold})", seat_scaffold, k), k=k)


def check_names(given: dict[str, object]) -> None:
    """Refuse an option the task does not have (Inspect itself would only warn, and play with the default)."""
    for name in given:
        if name not in OPTION_NAMES:
            close = difflib.get_close_matches(name, OPTION_NAMES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            options = ", ".join(OPTION_NAMES)
            raise Refused(f"{named(name)} the hanabi task has no such option{hint}; its options: {options}")


def parse_options(
    scaffold: str = "watson",
    players: OptionValue = None,
    seeds: OptionValue = "standard",
    repeats: OptionValue = 1,
    seats: OptionValue = None,
    rotation: str | None = None,
    max_retries: OptionValue = None,
    k: OptionValue = None,
) -> tuple[RunConfig, SessionOptions]:
    """The run the options make (a self-play seat played by SELF_PLAY_MODEL until the eval runs) and its session's
    options; refuses the first bad value, naming its option."""
    k_value = None if k is None else parse_k(str(_whole("k", k)), named("k"))
    own = SeatConfig(model=SELF_PLAY_MODEL, scaffold=_scaffold("scaffold", str(scaffold), k_value), k=k_value)
    team = tuple(parse_seat(spec, str(scaffold), k_value) for spec in _items(seats))
    counts = _items(players)
    for item in counts:
        if not is_digits(item):
            raise Refused(f"{named('players')} {item!r} is not a player count; Hanabi is for 2 to 5 players")
    if team and not 2 <= len(team) <= 5:
        raise Refused(f"{named('seats')} {len(team)} seats: a team has 2 to 5; for self-play use --model alone")
    if rotation is not None and len(set(team)) < 2:
        raise Refused(f"{named('rotation')} {rotation}: every seat is the same player; the seating changes nothing")
    try:
        decks = resolve_seeds(",".join(_items(seeds)))
    except Refused as exc:
        problem = re.sub(r"^--seeds '.*?' ", "", str(exc)).replace("--repeats N", "repeats=N")
        raise Refused(f"{named('seeds')} {seeds!r}: {problem}") from None
    if not decks:
        raise Refused(f"{named('seeds')} {seeds!r}: names no seed")
    values = {
        "seats": team or (own,),
        "players": [int(item) for item in counts] or ([len(team)] if team else [2]),
        "seeds": decks,
        "rotation": rotation or "seed",
        "repeats": _whole("repeats", repeats),
    }
    config = checked(RunConfig, values, named, f"{named('seats')} ")
    given = {} if max_retries is None else {"reply_retries": _whole("max_retries", max_retries)}
    return config, SessionOptions().merged(given, lambda path: named("max_retries"), "the default")


def with_eval_model(config: RunConfig, model: str) -> RunConfig:
    """The run with the eval's model in its self-play seat."""
    seats = tuple(s.model_copy(update={"model": model}) if s.model == SELF_PLAY_MODEL else s for s in config.seats)
    return config.model_copy(update={"seats": seats})
