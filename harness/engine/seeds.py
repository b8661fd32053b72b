"""Named seed sets: each seed with the 50-card deck it deals, so a seed means the same game on every platform.

A seed set is a JSONL file in seeds/ (one `{"seed": N, "deck": [...]}` per line; scripts/make_seeds.py writes
them). A run's `--seeds` takes a set name, a comma-separated list of seeds, or a path to such a file. A seed that is
in no stored set gets its deck from the engine when the run starts; the run records that deck. A seed list names
deals, each once: playing a deal several times is `--repeats`, not a seed listed twice, and a seed listed twice (on
the command line, in a seed file, or over a sweep's seed lists) is refused, since both would be the same game; so are
two seeds that deal one deck (seed 1 of `standard` and seed 1 listed alone), which a report would count twice.
Seeds are listed (every line of a seed file checked: "seed" and an optional "deck", nothing else) before their decks
are dealt, so that a run is sized before the engine deals thousands of decks.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from harness.engine.game import deck_for_seed
from harness.schema.cards import MAX_SEED, MIN_SEED
from harness.schema.config import SeedDeck
from harness.schema.errors import Refused
from harness.schema.paths import seeds_dir
from harness.schema.records import is_digits

SEED_RANGE = f"{MIN_SEED}-{MAX_SEED}"


def set_names() -> list[str]:
    return sorted(p.stem for p in seeds_dir().glob("*.jsonl"))


@cache
def _stored_decks() -> dict[int, tuple[str, ...]]:
    decks: dict[int, tuple[str, ...]] = {}
    for name in set_names():
        for entry in list_seed_file(seeds_dir() / f"{name}.jsonl", name):
            if entry.deck is not None:
                decks.setdefault(entry.seed, entry.deck)
    return decks


class SeedEntry(NamedTuple):
    """A seed as a seed list names it, checked, before its deck is dealt: `deck` is None where the list gives none
    (then it comes from the stored sets or the engine, see deal)."""

    seed: int
    deck: tuple[str, ...] | None
    seed_set: str


def list_seed_file(path: Path, seed_set: str) -> list[SeedEntry]:
    """Every line of a JSONL seed file checked (a deck it gives included), without dealing the decks it omits
    (see deal): a file of a million seeds is checked, and its run sized, in seconds, where dealing takes minutes."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()  # a byte-order mark (some editors write one) too
    except OSError as exc:
        where = "" if path.is_absolute() else f" (relative to the current folder, {Path.cwd()})"
        raise Refused(
            f"cannot read seed file {path}{where}: {exc.strerror}; pass a readable JSONL file"
        ) from exc
    except UnicodeDecodeError as exc:
        raise Refused(
            f"seed file {path} is not UTF-8 text (byte {exc.start}); save it as UTF-8 JSONL"
        ) from None
    entries: list[SeedEntry] = []
    first_line: dict[int, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict) or "seed" not in raw:
                raise ValueError('each line must be an object with a "seed"')
            unknown = sorted(set(raw) - {"seed", "deck"})
            if unknown:  # a misspelt "deck" would otherwise leave the seed to be dealt by the engine
                raise ValueError(f'unknown key {json.dumps(unknown[0])}: a line holds "seed" and, optionally, "deck"')
            seed = raw["seed"]
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ValueError(f'"seed" must be a whole number from 0, not {json.dumps(seed)}')
            if not MIN_SEED <= seed <= MAX_SEED:
                raise ValueError(f"seed {seed} is outside {SEED_RANGE}, the seeds the engine takes")
            given = raw.get("deck")
            if "deck" in raw and not (isinstance(given, list) and all(isinstance(c, str) for c in given)):
                raise ValueError(f'"deck" must be a list of 50 cards such as "R1", not {json.dumps(given)[:40]}')
            deck = None if not given else SeedDeck(seed=seed, deck=tuple(given), seed_set=seed_set).deck
            entries.append(SeedEntry(seed, deck, seed_set))
        except (ValueError, ValidationError) as exc:
            detail = (
                str(exc).splitlines()[0]
                if not isinstance(exc, ValidationError)
                else exc.errors()[0]["msg"].removeprefix("Value error, ")
            )
            raise Refused(
                f'{path}:{number}: malformed seed line ({detail}); expected {{"seed": 7, "deck": [50 cards]}}'
            ) from exc
        if seed in first_line:
            raise Refused(
                f"{path}:{number}: seed {seed} is listed again (first on line {first_line[seed]}); list each "
                "seed once and play it again with --repeats N"
            )
        first_line[seed] = number
    if not entries:
        raise Refused(f"seed file {path} holds no seeds; add one JSON line per seed")
    return entries


def deal(entries: list[SeedEntry]) -> list[SeedDeck]:
    """The seeds with their decks: the deck a seed list gives, else a stored set's, else the engine's. Two seeds
    that deal the same deck are one deal listed twice (seed 1 of `standard` and seed 1 listed alone, say): refused,
    as a seed listed twice is, since a report would count that deal twice."""
    dealt = [
        SeedDeck.model_construct(seed=e.seed, deck=e.deck, seed_set=e.seed_set)  # checked when listed
        if e.deck is not None
        else SeedDeck(seed=e.seed, deck=_deck_for(e.seed), seed_set=e.seed_set)
        for e in entries
    ]
    first: dict[tuple[str, ...], SeedDeck] = {}
    for seed in dealt:
        earlier = first.setdefault(seed.deck, seed)
        if earlier is not seed:
            raise Refused(
                f"seed {seed.seed} ({seed.seed_set}) deals the same deck as seed {earlier.seed} ({earlier.seed_set}): "
                "one deal listed twice; list each deal once and play it again with --repeats N (repeats = N in a sweep)"
            )
    return dealt


def to_deal(entries: list[SeedEntry]) -> int:
    """How many of the seeds the engine must deal (no deck given, none stored): what sizing a run first saves."""
    stored = _stored_decks()
    return sum(1 for e in entries if e.deck is None and e.seed not in stored)


def _deck_for(seed: int) -> tuple[str, ...]:
    return _stored_decks().get(seed) or _engine_deck(seed)


@cache
def _engine_deck(seed: int) -> tuple[str, ...]:
    """The engine's deal of a seed, dealt once per process: a sweep's seed lists are resolved more than once."""
    return tuple(deck_for_seed(seed))


def resolve_seeds(spec: str) -> list[SeedDeck]:
    """Turn a --seeds value (set name, comma-separated seeds, or file path) into seeds with decks."""
    return deal(list_seeds(spec))


def list_seeds(spec: str) -> list[SeedEntry]:
    """The seeds a --seeds value (set name, comma-separated seeds, or file path) names, checked, decks not yet
    dealt. A value made only of numbers and commas is always a list of seeds, never a file name."""
    spec = spec.strip()
    if not spec:
        raise Refused(
            f"--seeds '' names no seed; give a seed set ({', '.join(set_names())}), comma-separated seeds or a "
            "seed file"
        )
    if spec in set_names():
        return list_seed_file(seeds_dir() / f"{spec}.jsonl", spec)
    shown = spec if len(spec) <= 40 else f"{spec[:37]}..."
    parts = [p.strip() for p in spec.split(",")]
    if all(is_digits(p.lstrip("-")) for p in parts if p) and any(parts):
        if not all(parts):
            raise Refused(
                f"--seeds {shown!r} has an empty entry (two commas in a row, or one at an end); list seeds as 1,2,3"
            )
        seeds = [int(p) for p in parts]
        if len(set(seeds)) != len(seeds):
            raise Refused(
                f"--seeds {shown!r} repeats a seed; list each seed once and play it again with --repeats N"
            )
        if any(s < 0 for s in seeds):
            raise Refused(f"--seeds {shown!r} has a negative seed; seeds are whole numbers from 0")
        too_large = next((s for s in seeds if s > MAX_SEED), None)
        if too_large is not None:
            raise Refused(
                f"--seeds {shown!r} has seed {too_large}, beyond what the engine takes; use seeds in {SEED_RANGE}"
            )
        return [SeedEntry(s, None, "custom") for s in seeds]
    path = Path(spec)
    try:
        is_file = path.suffix in (".jsonl", ".json") or path.exists()
    except OSError:  # not a possible path (too long, for instance)
        is_file = False
    if is_file:
        return list_seed_file(path, path.stem)
    raise Refused(
        f"--seeds {shown!r} is not a seed set ({', '.join(set_names())}), a comma-separated list of seeds, "
        "or a seed file"
    )


def resolve_seed_lists(specs: list[str]) -> list[SeedDeck]:
    """The seeds of several --seeds values in order (a sweep's `seeds`), with their decks."""
    return deal(list_seed_lists(specs))


def list_seed_lists(specs: list[str]) -> list[SeedEntry]:
    """The seeds of several --seeds values in order, checked, decks not yet dealt; each seed of a set once: a seed
    listed in two of them is refused, as one listed twice in one is."""
    seeds: list[SeedEntry] = []
    listed_in: dict[tuple[str, int], str] = {}
    for spec in specs:
        for entry in list_seeds(spec):
            key = (entry.seed_set, entry.seed)
            if key in listed_in:
                raise Refused(
                    f"seed {entry.seed} ({entry.seed_set}) is listed in both {listed_in[key]!r} and {spec!r}; "
                    "list each seed once and play it again with repeats = N"
                )
            listed_in[key] = spec
            seeds.append(entry)
    return seeds
