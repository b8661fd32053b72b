"""Seat specifications for mixed teams: `MODEL[:SCAFFOLD][,key=value,...]`, e.g.

    openai/o4-mini:sherlock
    xai/grok-3-mini:mycroft,temperature=0.6,reasoning_effort=low
    openai/my-model:watson,api_base=http://127.0.0.1:8001/v1
    local/smart:watson                      (the built-in rule-based player)
    human, human:alice                      (a person, at the table page: harness.web.table)
    openai/gpt-4.1:best-of-k-sherlock,k=3   (best-of-k with 3 samples per move; k is 1-7)

Model strings may themselves hold a colon (ollama/llama3:8b, ollama/llama3:latest): the part after the last colon is
taken as the scaffold only when it names one; a near miss of a scaffold name (`:sherlok`), or any other name after a
built-in player (`local/smart:holmes`), is refused as a typo.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from harness.schema.errors import Refused
from harness.schema.records import HUMAN, GenerationParams, SeatConfig, checked_params
from harness.schema.urls import check_url
from harness.strategies.scaffold import load_scaffold, model_and_scaffold, parse_k

SEAT_KEYS = ("api_base", "temperature", "max_tokens", "reasoning_effort", "timeout", "k")
HUMAN_SCAFFOLD = "watson"  # a person's seat records a scaffold as every seat does; nothing renders it
HUMAN_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")


def human_seat(spec: str, flag: str = "--seat") -> SeatConfig | None:
    """`human` or `human:NAME` as a seat (a person at the table page); None for any other spec. `flag` is the
    option that gave the spec, named in a refusal."""
    head = spec.strip()
    if head != HUMAN and not head.startswith(HUMAN + ":"):
        return None
    name = head.partition(":")[2]
    if head != HUMAN and not HUMAN_NAME.fullmatch(name):
        raise Refused(
            f"{flag} {spec!r}: a person's name is 1-32 letters, digits, _ or -, and a human seat takes no "
            "settings (e.g. human:alice)"
        )
    return SeatConfig(model=head, scaffold=HUMAN_SCAFFOLD)


def check_humans(seats: tuple[SeatConfig, ...]) -> None:
    """Two seats a person plays need two names: each has its own table page."""
    humans = [seat.model for seat in seats if seat.human]
    if len(set(humans)) < len(humans):
        raise Refused(
            f"{len(humans)} seats are {humans[0]!r}: give each person a name of their own, e.g. "
            "--seat human:alice --seat human:bob"
        )


def parse_seat(
    spec: str,
    default_scaffold: str,
    default_params: GenerationParams,
    default_k: int | None = None,
    default_api_base: str | None = None,
    flag: str = "--seat",
) -> SeatConfig:
    """One `--seat` spec. Settings it leaves out come from the run-wide options; the run-wide `--api-base` serves
    every seat that names no server of its own, except the built-in `local/` players, which need none. `human`
    and `human:NAME` seat a person (human_seat). A refusal names `flag`, the option that gave the spec."""
    person = human_seat(spec, flag)
    if person is not None:
        return person
    where = f"{flag} {spec!r}"
    head, *pairs = spec.split(",")
    model, scaffold = model_and_scaffold(head, default_scaffold, where)
    settings: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or key not in SEAT_KEYS:
            raise Refused(
                f"{where}: {pair!r} is not a setting; use key=value with keys {', '.join(SEAT_KEYS)}"
            )
        if key in settings:
            raise Refused(f"{where}: {key} is set twice; give each setting once")
        settings[key] = value.strip()
    if "api_base" in settings:
        check_url(settings["api_base"], f"{where}: api_base")
    params = default_params.model_dump()
    for key in ("temperature", "max_tokens", "reasoning_effort"):
        if key in settings:
            params[key] = settings[key]
    if "timeout" in settings:
        params["timeout_s"] = settings["timeout"]
    from_flags = [k for k in params if k not in settings and not (k == "timeout_s" and "timeout" in settings)]
    checked = checked_params(params, f"{where}: ", from_flags)
    try:
        k = parse_k(settings["k"], "") if "k" in settings else default_k
        load_scaffold(scaffold, k)
        return SeatConfig(
            model=model.strip(),
            scaffold=scaffold,
            api_base=settings.get("api_base")
            or (None if model.strip().startswith("local/") else default_api_base),
            params=checked,
            k=k,
        )
    except Refused as exc:
        raise Refused(f"{where}: {exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        raise Refused(f"{where}: {'.'.join(map(str, error['loc']))}: {error['msg']}") from None
