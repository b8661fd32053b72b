"""Named seed sets: each seed with the 50-card deck it deals, so a seed means the same game on every platform.

A seed set is a JSONL file in seeds/ (one `{"seed": N, "deck": [...]}` per line; scripts/make_seeds.py writes
them). A run's `--seeds` takes a set name, a comma-separated list of seeds, or a path to such a file. A seed that is
in no stored set gets its deck from the engine when the run starts; the run records that deck. A seed list names
deals, each once: playing a deal several times is `--repeats`, not a seed listed twice.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.engine.game import MAX_SEED, MIN_SEED, deck_for_seed
from harness.schema.cards import validate_deck
from harness.schema.paths import seeds_dir

SEED_RANGE = f"{MIN_SEED}-{MAX_SEED}"


class SeedSpecError(ValueError):
    """A --seeds value that cannot be used; the message names the problem and the fix."""


class SeedDeck(BaseModel):
    model_config = ConfigDict(frozen=True)

    seed: int = Field(ge=MIN_SEED, le=MAX_SEED)  # the seeds the engine takes, even when a file gives the deck
    deck: tuple[str, ...]
    seed_set: str

    @field_validator("deck")
    @classmethod
    def _complete_deck(cls, deck: tuple[str, ...]) -> tuple[str, ...]:
        validate_deck(list(deck))
        return deck


def set_names() -> list[str]:
    return sorted(p.stem for p in seeds_dir().glob("*.jsonl"))


@cache
def _stored_decks() -> dict[int, tuple[str, ...]]:
    decks: dict[int, tuple[str, ...]] = {}
    for name in set_names():
        for entry in read_seed_file(seeds_dir() / f"{name}.jsonl", name):
            decks.setdefault(entry.seed, entry.deck)
    return decks


def read_seed_file(path: Path, seed_set: str) -> list[SeedDeck]:
    """Read a JSONL seed file. Lines may omit the deck: it is then taken from the stored sets or the engine."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SeedSpecError(
            f"cannot read seed file {path}: {exc.strerror}; pass a readable JSONL file"
        ) from exc
    entries: list[SeedDeck] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict) or "seed" not in raw:
                raise ValueError('each line must be an object with a "seed"')
            if isinstance(raw["seed"], int) and not MIN_SEED <= raw["seed"] <= MAX_SEED:
                raise ValueError(f"seed {raw['seed']} is outside {SEED_RANGE}, the seeds the engine takes")
            deck = raw.get("deck") or _deck_for(int(raw["seed"]), path)
            entries.append(SeedDeck(seed=raw["seed"], deck=tuple(deck), seed_set=seed_set))
        except (ValueError, ValidationError) as exc:
            detail = (
                str(exc).splitlines()[0] if not isinstance(exc, ValidationError) else exc.errors()[0]["msg"]
            )
            raise SeedSpecError(
                f'{path}:{number}: malformed seed line ({detail}); expected {{"seed": 7, "deck": [50 cards]}}'
            ) from exc
    if not entries:
        raise SeedSpecError(f"seed file {path} holds no seeds; add one JSON line per seed")
    return entries


def _deck_for(seed: int, origin: Path | None = None) -> list[str]:
    stored = _stored_decks() if origin is None or origin.parent != seeds_dir() else {}
    if seed in stored:
        return list(stored[seed])
    return deck_for_seed(seed)


def resolve_seeds(spec: str) -> list[SeedDeck]:
    """Turn a --seeds value (set name, comma-separated seeds, or file path) into seeds with decks.

    A value made only of numbers and commas is always a list of seeds, never a file name."""
    spec = spec.strip()
    if spec in set_names():
        return read_seed_file(seeds_dir() / f"{spec}.jsonl", spec)
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if parts and all(p.lstrip("-").isdigit() for p in parts):
        seeds = [int(p) for p in parts]
        shown = spec if len(spec) <= 40 else f"{spec[:37]}..."
        if len(set(seeds)) != len(seeds):
            raise SeedSpecError(
                f"--seeds {shown!r} repeats a seed; list each seed once and play it again with --repeats N"
            )
        if any(s < 0 for s in seeds):
            raise SeedSpecError(f"--seeds {shown!r} has a negative seed; seeds are whole numbers from 0")
        too_large = next((s for s in seeds if s > MAX_SEED), None)
        if too_large is not None:
            raise SeedSpecError(
                f"--seeds {shown!r} has seed {too_large}, beyond what the engine takes; use seeds in {SEED_RANGE}"
            )
        return [SeedDeck(seed=s, deck=tuple(_deck_for(s)), seed_set="custom") for s in seeds]
    path = Path(spec)
    try:
        is_file = path.suffix in (".jsonl", ".json") or path.exists()
    except OSError:  # not a possible path (too long, for instance)
        is_file = False
    if is_file:
        return read_seed_file(path, path.stem)
    names = ", ".join(set_names())
    shown = spec if len(spec) <= 40 else f"{spec[:37]}..."
    raise SeedSpecError(
        f"--seeds {shown!r} is not a seed set ({names}), a comma-separated list of seeds, or a seed file"
    )
