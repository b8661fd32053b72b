"""Contamination guard: the seeds of an exported training set kept out of an evaluation run, by number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import ValidationError

from harness.export.rows import ExportManifest
from harness.export.writer import MANIFEST_NAME
from harness.schema.errors import Refused


class ListedSeed(Protocol):
    """A seed of a planned run, with or without its deck (SeedDeck, or the engine's SeedEntry before dealing)."""

    @property
    def seed(self) -> int: ...

    @property
    def seed_set(self) -> str: ...


Seed = TypeVar("Seed", bound=ListedSeed)


def _from_manifest(path: Path) -> set[int]:
    try:
        manifest = ExportManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as exc:
        raise Refused(f"{path} is not a readable hanabi-eval export manifest ({exc})") from None
    return {entry.seed for entry in manifest.seeds}


def _from_rows(path: Path) -> set[int]:
    seeds: set[int] = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            seeds.add(int(json.loads(line)["seed"]))
        except (ValueError, KeyError, TypeError):
            raise Refused(f"{path}:{number} is not an exported row with a seed") from None
    if not seeds:
        raise Refused(f"{path} holds no exported rows")
    return seeds


def load_exported_seeds(path: Path | str) -> set[int]:
    """The seeds an export holds, from its folder, its manifest, or a data file (row by row if alone)."""
    path = Path(path)
    if not path.exists():
        raise Refused(f"{path} does not exist; give an export folder or its {MANIFEST_NAME}")
    if path.is_dir():
        if not (path / MANIFEST_NAME).is_file():
            raise Refused(f"{path} is not an export folder: it has no {MANIFEST_NAME}")
        return _from_manifest(path / MANIFEST_NAME)
    if path.name == MANIFEST_NAME:
        return _from_manifest(path)
    if (path.parent / MANIFEST_NAME).is_file():
        return _from_manifest(path.parent / MANIFEST_NAME)
    if path.suffix == ".jsonl":
        return _from_rows(path)
    raise Refused(f"{path} is neither an export folder, an {MANIFEST_NAME} nor an exported .jsonl file")


def check_seeds(seeds: list[Seed], exported: set[int], skip: bool) -> list[Seed]:
    """The seeds to run: those the export holds refused, or with `skip` left out (refused if none left)."""
    overlap = [s for s in seeds if s.seed in exported]
    if not overlap:
        return list(seeds)
    named = ", ".join(f"{s.seed} ({s.seed_set})" for s in overlap)
    if not skip:
        raise Refused(
            f"seeds {named} are in the exported training data; evaluate on other seeds (e.g. --seeds heldout) "
            "or pass --skip-excluded-seeds to leave them out"
        )
    kept = [s for s in seeds if s.seed not in exported]
    if not kept:
        raise Refused(
            f"every requested seed ({named}) is in the exported training data; choose other seeds"
        )
    return kept
