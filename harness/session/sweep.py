"""Sweeps: a whole evaluation grid (models x scaffolds x player counts x seed sets) in one TOML or YAML file.

Each model x scaffold pair is one run under the sweep's folder, so a sweep resumes as its runs do; the folder's
sweep.json records the configuration, and a different sweep on the same folder is refused. Every key is validated
before any model is called, an invalid one named ("models[1].concurrency: ..."); two entries that are one run (a
scaffold or team listed twice, a cross-play line-up that teams lists too) are refused, naming both.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from harness.engine.seeds import list_seed_lists, resolve_seed_lists
from harness.run.store import SWEEP_FILE, read_sweep_record, write_json_atomic
from harness.schema.cards import MAX_PLAYERS, MIN_PLAYERS
from harness.schema.config import Rotation, RunConfig, SeedDeck, SessionOptions
from harness.schema.errors import Refused
from harness.schema.records import DEFAULT_TIMEOUT_S, Deployment, GenerationParams, SeatConfig, checked_params
from harness.schema.secrets import safe_url
from harness.schema.urls import check_url
from harness.session.seats import parse_seat
from harness.strategies.scaffold import load_scaffold, model_and_scaffold, parse_scaffold_spec

SWEEP_CONCURRENCY = 16  # games in flight across the whole sweep, unless the file sets its own
# the session's options a sweep file sets
SESSION_KEYS = ("concurrency", "reply_retries", "retry", "timeout_s", "prompt_cache", "max_cost_usd", "prices")


class SweepModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    api_base: str | None = None
    # generation parameters, checked by GenerationParams (see _params)
    temperature: float | None = None
    max_tokens: int | None = None
    max_tokens_on_truncation: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None  # reasoning tokens (the paper: 20k for Gemini 2.5)
    timeout_s: float = DEFAULT_TIMEOUT_S
    concurrency: int | None = Field(default=None, gt=0)  # games of this model in flight at once
    deployments: list[Deployment] = []

    @field_validator("api_base")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None:
            check_url(value, "api_base")
        return value

    @field_validator("deployments")
    @classmethod
    def _deployment_urls(cls, value: list[Deployment]) -> list[Deployment]:
        for index, deployment in enumerate(value):
            if deployment.api_base is not None:
                check_url(deployment.api_base, f"deployments[{index}].api_base")
        return value

    @model_validator(mode="after")
    def _params(self) -> SweepModel:
        checked_params(self.params_given(), "")
        return self

    def params_given(self) -> dict[str, Any]:
        return self.model_dump(include=set(GenerationParams.model_fields))

    def seat(self, scaffold: str) -> SeatConfig:
        name, k = parse_scaffold_spec(scaffold)
        return SeatConfig(
            model=self.model,
            scaffold=name,
            k=k,
            api_base=self.api_base,
            params=GenerationParams.model_validate(self.params_given()),
            deployments=tuple(self.deployments),
        )


class TeamDef(BaseModel):
    """A mixed team: one seat spec per seat (harness.session.seats), e.g. ["openai/o4-mini:sherlock", "local/smart"]."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seats: list[str] = Field(min_length=2, max_length=5)
    rotation: Rotation = "seed"


class CrossplayDef(BaseModel):
    """The paper's cross-play design: exactly one seat of model `one`, every other seat model `rest`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    one: str
    rest: str
    scaffold: str = "watson"
    players: list[int] | None = None  # default: the sweep's player counts
    rotation: Rotation = "seed"


class SweepConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")  # one plain folder name inside --out, as --run-name
    players: list[int] = Field(min_length=1)
    seeds: list[str] = Field(min_length=1)  # seed set names, comma-separated seeds, or seed files
    repeats: int = Field(default=1, ge=1)  # plays of each seed
    scaffolds: list[str] = []  # self-play runs: every model with every scaffold ("NAME" or "NAME,k=N")
    models: list[SweepModel] = []
    teams: list[TeamDef] = []
    crossplay: list[CrossplayDef] = []
    # the file's keys of SESSION_KEYS: how the sweep's session plays (_session_keys)
    session: SessionOptions = SessionOptions(concurrency=SWEEP_CONCURRENCY)

    @model_validator(mode="before")
    @classmethod
    def _session_keys(cls, data: Any) -> Any:
        """A sweep file (or record) sets its session's options at its top level, as keys of their own."""
        if not isinstance(data, dict):
            return data
        if "session" in data:
            raise ValueError(f"session is no key of a sweep file; set {', '.join(SESSION_KEYS)}")
        session = {key: data[key] for key in SESSION_KEYS if key in data}
        rest = {key: value for key, value in data.items() if key not in SESSION_KEYS}
        return {**rest, "session": {"concurrency": SWEEP_CONCURRENCY, **session}}

    def record(self) -> dict[str, Any]:
        """The sweep as its folder's sweep.json records it: the file's keys, servers without credentials."""
        recorded = self.model_dump(mode="json", exclude={"session"})
        recorded.update(self.session.model_dump(mode="json", include=set(SESSION_KEYS)))
        for model in recorded["models"]:
            model["api_base"] = safe_url(model["api_base"])
            for deployment in model["deployments"]:
                deployment["api_base"] = safe_url(deployment["api_base"])
        return recorded

    @field_validator("players")
    @classmethod
    def _players(cls, value: list[int]) -> list[int]:
        bad = [p for p in value if not MIN_PLAYERS <= p <= MAX_PLAYERS]
        if bad:
            raise ValueError(f"player counts must be 2-5, not {bad}")
        twice = sorted({p for p in value if value.count(p) > 1})
        if twice:
            raise ValueError(f"{twice[0]} is listed twice; list each player count once")
        return value

    @field_validator("scaffolds")
    @classmethod
    def _scaffolds(cls, value: list[str]) -> list[str]:
        for name in value:
            try:
                parse_scaffold_spec(name)
            except Refused as exc:
                raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _distinct_models(self) -> SweepConfig:
        models = [m.model for m in self.models]
        for index, model in enumerate(models):
            if model in models[:index]:
                first = models.index(model)
                raise ValueError(f"models[{first}] and models[{index}] are both {model!r}; list each model once")
        if not (self.models and self.scaffolds) and not self.teams and not self.crossplay:
            raise ValueError("nothing to play: give models and scaffolds, teams, or crossplay")
        for index, entry in enumerate(self.crossplay):
            load_or_raise(entry.scaffold, f"crossplay[{index}].scaffold")
            bad = [p for p in entry.players or [] if not MIN_PLAYERS <= p <= MAX_PLAYERS]
            if bad:
                raise ValueError(f"crossplay[{index}].players must be 2-5, not {bad}")
        for index, team in enumerate(self.teams):
            for position, spec in enumerate(team.seats):
                try:
                    self._seat(spec)
                except Refused as exc:
                    raise ValueError(f"teams[{index}].seats[{position}]: {exc}") from None
        self._distinct_runs()
        return self

    def _seat(self, spec: str, scaffold: str = "watson") -> SeatConfig:
        """A seat from a spec, with the generation settings of its model's [[models]] entry, if it has one."""
        model, _ = model_and_scaffold(spec.split(",")[0], scaffold, f"--seat {spec!r}")
        listed = {m.model: m for m in self.models}.get(model)
        base = listed.seat(scaffold) if listed else SeatConfig(model=model, scaffold=scaffold)
        seat = parse_seat(spec, scaffold, base.params)
        if listed:
            seat = seat.model_copy(
                update={"api_base": seat.api_base or base.api_base, "deployments": base.deployments}
            )
        load_or_raise(seat.scaffold, "scaffold")
        return seat

    def runs(self, seeds: list[SeedDeck] | None = None) -> list[RunConfig]:
        """One run per model and scaffold, each over all player counts and the sweep's seeds (or `seeds`: none, to
        check and size the runs before the engine deals the decks)."""
        runs = [run for _, run in self._groups(resolve_seed_lists(self.seeds) if seeds is None else seeds)]
        # the session's deadline, an operational setting: the runs' identities stay the same
        return [r.model_copy(update={"seats": self.session.over_seats(r.seats)}) for r in runs]

    def _distinct_runs(self) -> None:
        """Refuse two entries of the file that are the same run (one run folder: a scaffold or team listed twice, a
        cross-play line-up also listed in teams): its games would be played twice at once into one folder."""
        first: dict[str, str] = {}
        for entry, run in self._groups([]):
            earlier = first.setdefault(run.default_name(), entry)
            if earlier != entry:
                raise ValueError(f"{entry} is the same run as {earlier}; remove one of them")

    def _groups(self, seeds: list[SeedDeck]) -> list[tuple[str, RunConfig]]:
        """Each run of the sweep with the entry of the file that makes it, in the file's words."""

        def run(
            seats: tuple[SeatConfig, ...], players: tuple[int, ...], rotation: Rotation = "seed"
        ) -> RunConfig:
            return RunConfig(
                seats=seats, players=players, seeds=tuple(seeds), rotation=rotation, repeats=self.repeats
            )

        groups = [
            (f"scaffolds[{j}] ({scaffold}) for {model.model}", run((model.seat(scaffold),), tuple(self.players)))
            for model in self.models
            for j, scaffold in enumerate(self.scaffolds)
        ]
        for index, team in enumerate(self.teams):
            seats = tuple(self._seat(spec) for spec in team.seats)
            groups.append((f"teams[{index}] ({', '.join(team.seats)})", run(seats, (len(seats),), team.rotation)))
        for index, entry in enumerate(self.crossplay):
            one = self._seat(entry.one, entry.scaffold)
            rest = self._seat(entry.rest, entry.scaffold)
            for players in entry.players or self.players:
                seats = (one,) + (rest,) * (players - 1)
                line_up = ", ".join(seat.label for seat in seats)
                name = f"crossplay[{index}] at {players} players ({line_up})"
                groups.append((name, run(seats, (players,), entry.rotation)))
        return groups

    def model_limits(self) -> dict[str, int]:
        """Games in flight at once per model, as the file's models[].concurrency set them."""
        return {m.model: m.concurrency for m in self.models if m.concurrency is not None}

    def digest(self) -> str:
        runs = sorted(run.digest() for run in self.runs())
        return hashlib.sha256(json.dumps(runs).encode()).hexdigest()[:10]


def load_or_raise(name: str, key: str) -> None:
    try:
        load_scaffold(name)
    except Refused as exc:
        raise ValueError(f"{key}: {exc}") from None


def load_sweep(path: Path) -> SweepConfig:
    """Read and validate a sweep file (.toml, .yaml or .yml)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Refused(f"cannot read sweep file {path}: {exc.strerror}") from None
    try:
        if path.suffix == ".toml":
            raw = tomllib.loads(text)
        elif path.suffix in (".yaml", ".yml"):
            raw = yaml.safe_load(text)
        else:
            raise Refused(f"sweep file {path} must end in .toml, .yaml or .yml")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise Refused(f"{path} is not valid {path.suffix[1:].upper()}: {str(exc).splitlines()[0]}") from None
    if not isinstance(raw, dict):
        raise Refused(f"{path} must hold a table of settings (name, players, seeds, scaffolds, models)")
    try:
        sweep = SweepConfig.model_validate(raw)
        list_seed_lists(sweep.seeds)  # checks every seed spec; dealing their decks waits for the size check
        sweep.runs(seeds=[])
    except ValidationError as exc:
        error = exc.errors()[0]
        key = _key(error["loc"])  # none for a check of the whole file: its message names the keys
        raise Refused(f"{path}: {key + ': ' if key else ''}{_plain(error)}") from None
    except Refused as exc:
        raise Refused(f"{path}: seeds: {exc}") from None
    return sweep


def _key(loc: tuple[int | str, ...]) -> str:
    """A validation error's place as the file writes it: `models[1].concurrency`, `retry.wait_base_s`."""
    parts = loc[1:] if loc[:1] == ("session",) else loc  # the session's options are keys of the file's own
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def _plain(error: ErrorDetails) -> str:
    """A sweep file's error in the words of its keys (pydantic's own message where none is plainer)."""
    given, limits = json.dumps(error.get("input"), default=str), error.get("ctx", {})
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "string_pattern_mismatch":
        return f"{given} is not a plain folder name; use letters, digits and . _ + -"
    if kind == "too_short":
        return f"needs at least {limits['min_length']} entr{'y' if limits['min_length'] == 1 else 'ies'}"
    if kind in ("greater_than", "greater_than_equal"):
        bound = f"above {limits['gt']}" if kind == "greater_than" else f"{limits['ge']} or more"
        return f"must be {bound}, not {given}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"must be a whole number, not {given}"
    if kind == "string_type":
        return f"must be text (in quotes), not {given}"
    return error["msg"].removeprefix("Value error, ")  # a check of this file's own: its message is plain


def check_sweep_dir(folder: Path, sweep: SweepConfig) -> bool:
    """Whether the sweep folder holds this very sweep already (False: nothing yet); Refused for another sweep."""
    existing = read_sweep_record(folder)
    if existing is not None and existing.digest != sweep.digest():
        raise Refused(f"{folder} holds a different sweep ({existing.name}); choose another --out or name")
    return existing is not None


def open_sweep_dir(folder: Path, sweep: SweepConfig, source: dict[str, Any]) -> None:
    """Create the sweep folder's record, or check that it holds this very sweep."""
    if check_sweep_dir(folder, sweep):
        return
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / SWEEP_FILE, {"name": sweep.name, "digest": sweep.digest(), **source})


def with_recorded_budget(sweep: SweepConfig, folder: Path) -> SweepConfig:
    """The sweep as played again into `folder`: where the folder holds this very sweep, its recorded budget and
    prices stay unless the file gives its own (prices model by model), as `resume` keeps them. Refused where the
    folder holds another sweep."""
    if not check_sweep_dir(folder, sweep):
        return sweep
    recorded = read_sweep_dir(folder)
    assert recorded is not None
    budget = sweep.session.max_cost_usd if sweep.session.max_cost_usd is not None else recorded.session.max_cost_usd
    kept = {"max_cost_usd": budget, "prices": {**recorded.session.prices, **sweep.session.prices}}
    return sweep.model_copy(update={"session": sweep.session.model_copy(update=kept)})


def read_sweep_dir(folder: Path) -> SweepConfig | None:
    """The sweep a sweep folder records, None where there is none; RunFolderDamaged for a record that cannot be
    read, Refused for one whose configuration is no sweep."""
    record = read_sweep_record(folder)
    if record is None:
        return None
    try:
        return SweepConfig.model_validate(record.config)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = _key(error["loc"])
        if not key:  # a check of the whole sweep (two entries of one run, say: recorded before they were refused)
            raise Refused(
                f"{folder / SWEEP_FILE}: {_plain(error)}; this folder's sweep cannot be played (move the folder "
                "aside, then run the corrected sweep file)"
            ) from None
        raise Refused(
            f"{folder / SWEEP_FILE}: config.{key}: {error['msg']}; the folder is damaged (restore that file, or "
            "move the folder aside)"
        ) from None
