"""A run's configuration: everything that decides what it plays (seats, player counts, seeds, seating, repeats),
its digest (the run's identity), its default folder name, and the plan of its games. One type serves the run that
plays and the record of it: the manifest's `config` is a RunConfig (harness.schema.manifest).

Two runs with equal configurations play identical game plans; settings that only change how a run is played (server
URLs, deadlines, retry limits) are recorded but left out of the identity, so changing one continues the same run.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.schema.cards import MAX_SEED, MIN_SEED, validate_deck
from harness.schema.records import GamePlan, SeatConfig, game_id
from harness.schema.secrets import safe_url

Rotation = Literal["seed", "all", "off"]


class SeedDeck(BaseModel):
    """One deal: a seed with the 50-card deck it deals and the seed set it was listed in (harness.engine.seeds
    resolves seed sets to these)."""

    model_config = ConfigDict(frozen=True)

    seed: int = Field(ge=MIN_SEED, le=MAX_SEED)  # the seeds the engine takes, even when a file gives the deck
    deck: tuple[str, ...]
    seed_set: str

    @field_validator("deck")
    @classmethod
    def _complete_deck(cls, deck: tuple[str, ...]) -> tuple[str, ...]:
        validate_deck(list(deck))
        return deck


class RetryPolicy(BaseModel):
    """How long to keep trying when the provider fails (not when the reply is bad: see scaffold)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider_retries: int = Field(default=6, ge=0)
    wait_base_s: float = Field(default=2.0, ge=0)
    wait_max_s: float = Field(default=120.0, ge=0)


class RunConfig(BaseModel):
    """Everything that decides what a run plays. Two runs with equal configs play identical game plans."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seats: tuple[SeatConfig, ...]  # one entry: self-play; otherwise one per seat (a mixed team)
    players: tuple[int, ...]
    seeds: tuple[SeedDeck, ...]
    rotation: Rotation = "seed"  # mixed teams: who sits where, see rotations
    repeats: int = Field(default=1, ge=1)  # plays of each seed (the same deal, played again)
    reply_retries: int = Field(default=3, ge=0)
    retry: RetryPolicy = RetryPolicy()

    @model_validator(mode="after")
    def _team_size(self) -> RunConfig:
        if len(self.seats) > 1 and self.players != (len(self.seats),):
            raise ValueError(f"a team of {len(self.seats)} seats plays {len(self.seats)}-player games only")
        deals = {(s.seed_set, s.seed) for s in self.seeds}
        if len(deals) != len(self.seeds):  # two games of one id would write one log at once
            raise ValueError("a seed is listed twice; list each seed once and play it again with repeats")
        return self

    @property
    def mixed(self) -> bool:
        return len(set(self.seats)) > 1

    def identity(self) -> dict[str, Any]:
        """What decides the games' content. Operational settings (server URL, timeout, retry limits) are left out,
        so fixing one of them (a new server, a raised limit, another client for the same server) continues the
        same run."""
        identity = self.model_dump(
            mode="json",
            exclude={
                "seats": {"__all__": {"api_base": True, "deployments": True, "client": True, "params": {"timeout_s"}}},
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

    def game_count(self) -> int:
        """How many games the run plays, counted without listing them (as len(plans()))."""
        return self.games_per_seed() * len(self.seeds)

    def games_per_seed(self) -> int:
        """The games each seed is played in: one per player count, seating and repeat."""
        seatings = len(self.seats) if self.mixed and self.rotation == "all" else 1
        return len(self.players) * seatings * self.repeats

    def games(self) -> Iterator[tuple[int, SeedDeck, int | None, tuple[SeatConfig, ...], int]]:
        """Every game of the run, in plan order, as (players, deal, rotation or None, seats, repeat): the plan
        without a GamePlan made for each, for checks that go over every game of a large grid once."""
        mixed = self.mixed  # hashes every seat: once, not per game
        mode: Rotation = self.rotation if mixed else "off"
        for players in self.players:
            team = self.seats * players if len(self.seats) == 1 else self.seats
            for index, seed in enumerate(self.seeds):
                for shift, seats in rotations(team, index, mode):
                    for repeat in range(self.repeats):
                        yield players, seed, shift if mixed else None, seats, repeat

    def longest_game_id(self) -> str:
        """The longest game id of the run, in bytes, found without listing them: an id's parts (player count, deal,
        seating, play) add up, and each is longest on its own where its number or name is."""
        deal = max(self.seeds, key=lambda s: len(f"{s.seed_set}{s.seed}".encode("utf-8", "surrogateescape")))
        return game_id(max(self.players), deal.seed_set, deal.seed, 0 if self.mixed else None, self.repeats - 1)

    def game_ids(self) -> Iterator[tuple[str, int]]:
        """Every game's id (the name of its log) and player count, in plan order."""
        for players, seed, shift, _, repeat in self.games():
            yield game_id(players, seed.seed_set, seed.seed, shift, repeat), players

    def plans(self) -> list[GamePlan]:
        """Every game of the run, in order: player count, seed, seating, repeat. A repeat plays the same deal with
        the same seating again; its game id ends in -play{repeat} from the second play on (mixed teams: after the
        seating's own -r{rotation})."""
        return [
            GamePlan(
                game_id=game_id(players, seed.seed_set, seed.seed, shift, repeat),
                players=players,
                seed=seed.seed,
                seed_set=seed.seed_set,
                seats=seats,
                repeat=repeat,
            )
            for players, seed, shift, seats, repeat in self.games()
        ]

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


def rotations(
    seats: tuple[SeatConfig, ...], seed_index: int, mode: Rotation
) -> list[tuple[int, tuple[SeatConfig, ...]]]:
    """The seatings to play for the `seed_index`-th seed: (rotation number, seats in position order)."""
    n = len(seats)
    if n == 1 or mode == "off":
        return [(0, seats)]
    shifts = [seed_index % n] if mode == "seed" else list(range(n))
    return [(k, seats[k:] + seats[:k]) for k in shifts]
