"""A run directory on disk: manifest.json, status.json and one append-only JSONL log per game.

Each log line is flushed and fsynced, and a line is written only once the line before it is on disk, so a log is
always a prefix of the game. A torn last line (a crash mid-write) is detected on reading and ignored, never parsed
as data; the next write first cuts it off, so a log never holds a record twice or half a record. Files that are
replaced whole (manifest, status) are written to a temporary file and renamed over the old one. Nothing already
written is ever modified in place.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.engine.seeds import SeedDeck
from harness.models.secrets import redact
from harness.run.disk import with_path
from harness.schema.manifest import RunManifest
from harness.schema.records import LOG_LINE, Call, GameHeader, GameResult, MoveRecord, SeatConfig

MANIFEST = "manifest.json"
STATUS = "status.json"
GAMES = "games"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class LogCorrupt(ValueError):
    """A game log line other than the last one is not a valid record."""


class GamePlan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: str
    players: int
    seed: int
    seed_set: str
    seats: tuple[SeatConfig, ...]
    repeat: int = 0  # which play of the seed (0-based), when a run plays each seed more than once


class RunStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal[
        "running", "interrupted", "complete", "stopped", "failed"
    ]  # stopped: Ctrl-C; failed: disk
    games_total: int
    games_complete: int
    games_interrupted: int
    reason: str | None = None
    updated_at: str


class GameLogContents(BaseModel):
    """What a game log holds, read back. `torn` says a partial last line was found (and ignored)."""

    header: GameHeader | None = None
    moves: list[MoveRecord] = []
    results: list[GameResult] = []
    torn: bool = False
    ended: bool = False  # the last record is a result line (no move was played after it)
    valid_bytes: int = 0

    @property
    def result(self) -> GameResult | None:
        """The game's current result: the last result line, if no move came after it."""
        return self.results[-1] if self.results and self.ended else None

    @property
    def complete(self) -> bool:
        return self.result is not None and self.result.status == "complete"

    @property
    def failed_calls(self) -> list[Call]:
        return [call for r in self.results for call in r.failed_calls]


def read_game_log(path: Path) -> GameLogContents:
    """Read a game log. A last line without its newline is a torn write: reported, never parsed."""
    contents = GameLogContents()
    if not path.exists():
        return contents
    data = path.read_bytes()
    *complete_lines, tail = data.split(b"\n")
    contents.torn = bool(tail.strip())
    for number, raw in enumerate(complete_lines, start=1):
        try:
            record = LOG_LINE.validate_json(raw)
        except ValidationError as exc:
            raise LogCorrupt(f"{path}:{number}: not a valid log record ({exc.errors()[0]['msg']})") from exc
        if isinstance(record, GameHeader):
            contents.header = record
        elif isinstance(record, MoveRecord):
            contents.moves.append(record)
        else:
            contents.results.append(record)
        contents.ended = isinstance(record, GameResult)
    contents.valid_bytes = len(data) - len(tail)
    return contents


def last_result(path: Path) -> GameResult | None:
    """The result line at the end of a game log, if the log ends with one, read from the end of the file only."""
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        window = 65536
        while True:
            handle.seek(max(0, size - window))
            lines = handle.read().rstrip(b"\n").rsplit(b"\n", 1)
            if len(lines) == 2 or window >= size:  # the whole last line is in the window
                break
            window *= 4
        tail = lines[-1]
    if b'"type":"result"' not in tail:
        return None
    try:
        return GameResult.model_validate_json(tail)
    except ValidationError:
        return None


def finished_result(path: Path) -> GameResult | None:
    """The result of a finished game, or None while the game can still go on (missing, unfinished, interrupted)."""
    result = last_result(path) if path.exists() else None
    return result if result is not None and result.status == "complete" else None


def count_moves(path: Path) -> int:
    """Moves logged so far, counted from the bytes without parsing (for estimates; resume checks every line)."""
    return path.read_bytes().count(b'{"type":"move"') if path.exists() else 0


def _sync_pool() -> ThreadPoolExecutor:
    """This process's threads for fsync (a forked worker gets its own: threads do not survive a fork)."""
    global _SYNC_POOL
    if _SYNC_POOL is None or _SYNC_POOL[0] != os.getpid():
        _SYNC_POOL = (os.getpid(), ThreadPoolExecutor(max_workers=4, thread_name_prefix="log-sync"))
    return _SYNC_POOL[1]


_SYNC_POOL: tuple[int, ThreadPoolExecutor] | None = None
_DATA_SYNC = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync; fsync also syncs the data


class GameLog:
    """Appends records to one game's log, durably and in order, after cutting off any torn tail.

    `append` writes a record once the record before it is on disk, then syncs it in a thread without waiting, so
    the game goes on meanwhile: the fsync overlaps the next model call instead of adding to every move. Under a
    busy event loop the wait for a thread's fsync took about 30 ms per move (BENCHMARKS.md). A killed process
    loses nothing written (the data is in the OS's cache); a machine crash can cost at most the last record, which
    resume then plays again. `durable` waits until the last record is on disk.
    """

    def __init__(self, path: Path, valid_bytes: int | None = None) -> None:
        self.path = path  # its folder exists (RunDir.write_manifest makes it): one that vanished is an error
        if valid_bytes is not None and path.exists() and path.stat().st_size > valid_bytes:
            with path.open("r+b") as handle:
                handle.truncate(valid_bytes)
                handle.flush()
                os.fsync(handle.fileno())
        self._handle = path.open("ab")
        self._syncing: Future[None] | None = None

    async def append(self, record: GameHeader | MoveRecord | GameResult) -> None:
        """Write one record after the previous one is on disk, and start syncing it."""
        line = (
            redact(record.model_dump_json()).encode() + b"\n"
        )  # a last guard: fields are redacted at source
        await self.durable()
        try:
            self._handle.write(line)
            self._handle.flush()
        except (
            OSError
        ) as exc:  # a full disk: at most this line is cut short, a torn tail that resume cuts off
            raise with_path(exc, self.path) from None
        self._syncing = _sync_pool().submit(_DATA_SYNC, self._handle.fileno())

    async def durable(self) -> None:
        """Return once every record appended so far is on disk (raises if the sync failed)."""
        if self._syncing is not None:
            # usually long done, and then not awaited: awaiting would still wait a whole turn of a busy loop
            if not self._syncing.done():  # shielded: a cancelled game must not cancel its record's sync
                await asyncio.shield(asyncio.wrap_future(self._syncing))
            syncing, self._syncing = self._syncing, None
            try:
                syncing.result()
            except OSError as exc:
                raise with_path(exc, self.path) from None

    def close(self, report_sync_errors: bool = True) -> None:
        """Close the file once its last sync has finished (never under a sync in flight), and raise if that sync
        failed, unless told not to (while another error is already on its way out)."""
        syncing, self._syncing = self._syncing, None
        try:
            if syncing is not None:
                futures.wait([syncing])
        finally:
            try:
                self._handle.close()
            except OSError as exc:  # the rest of a line a full disk cut short: it stays a torn tail
                if report_sync_errors:
                    raise with_path(exc, self.path) from None
        if syncing is not None and report_sync_errors:
            try:
                syncing.result()
            except OSError as exc:
                raise with_path(exc, self.path) from None

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(report_sync_errors=kind is None)


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
