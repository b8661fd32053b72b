"""A run directory on disk: manifest.json, status.json and one append-only JSONL log per game.

Each log line is flushed and fsynced, and a line is written only once the line before it is on disk, so a log is
always a prefix of the game. A torn last line (a crash mid-write) is detected on reading and ignored, never parsed
as data; the next write first cuts it off, so a log never holds a record twice or half a record. Files that are
replaced whole (manifest, status) are written to a temporary file and renamed over the old one. Nothing already
written is ever modified in place.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from harness.schema.config import SeedDeck
from harness.schema.manifest import RunManifest
from harness.schema.records import RunStatus
from harness.schema.secrets import redact

MANIFEST = "manifest.json"
STATUS = "status.json"
GAMES = "games"


def write_json_atomic(path: Path, payload: Any) -> None:
    """Replace `path` whole: a failed write (full disk) leaves the old file as it was and no temporary file."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(redact(json.dumps(payload, indent=2, sort_keys=False)))
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


class RunDir:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def game_path(self, game_id: str) -> Path:
        return self.path / GAMES / f"{game_id}.jsonl"

    def game_paths(self) -> list[Path]:
        return sorted((self.path / GAMES).glob("*.jsonl"))

    def read_manifest(self) -> RunManifest | None:
        """The run's manifest, or None before it is written. Raises json.JSONDecodeError for a file that is not
        JSON and pydantic's ValidationError for JSON that is not a manifest (both are ValueErrors)."""
        if not self.manifest_path.exists():
            return None
        return RunManifest.model_validate(json.loads(self.manifest_path.read_text(encoding="utf-8")))

    def write_manifest(self, manifest: RunManifest) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / GAMES).mkdir(exist_ok=True)
        write_json_atomic(self.manifest_path, manifest.to_json())

    def write_status(self, status: RunStatus) -> None:
        write_json_atomic(self.path / STATUS, status.model_dump(mode="json"))

    def read_status(self) -> RunStatus | None:
        path = self.path / STATUS
        if not path.exists():
            return None
        return RunStatus.model_validate_json(path.read_text(encoding="utf-8"))


def seed_entry(seed: SeedDeck) -> dict[str, Any]:
    return {"seed": seed.seed, "seed_set": seed.seed_set, "deck": list(seed.deck)}
