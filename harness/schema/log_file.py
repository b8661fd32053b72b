"""A game's log file, `<game_id>.jsonl`: one JSONL line per record (header, moves, results), read and appended
by everyone alike.

A line is written only once the line before it is on disk, so a log is always a prefix of the game. A torn
last line (a crash mid-write) is ignored on reading and cut off by the next write. Reading checks that the
header is the game the file's name says and that the move lines are turns 1, 2, 3, ... in order, each by the
seat whose turn it is (seat 0 first), with result lines between them where a session stopped; whether each
move replays is the run store's check (harness.run.store.RunDir.read_game).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from harness.schema.disk import with_path
from harness.schema.records import (
    LOG_LINE,
    PROVIDER_ERROR_KINDS,
    SCHEMA_VERSION,
    Call,
    GameHeader,
    GameResult,
    MoveRecord,
    total_cost,
    total_saving,
)
from harness.schema.secrets import redact

DAMAGED_LOG_FIX = (
    "restore the log from a backup, or move it aside (out of the run's games folder) and `hanabi-eval resume` the "
    "run to play that game again"
)


class LogCorrupt(ValueError):
    """A game log line other than the last one is not a valid record, the header is not the game the file's name
    says, or a move line is out of sequence (or, from the run store's reader, does not replay, or the file cannot be
    read at all: `line` None). The message is `path:line: problem`; `refusal` adds what to do about it."""

    def __init__(self, path: Path, line: int | None, problem: str, fix: str = DAMAGED_LOG_FIX) -> None:
        super().__init__(f"{path}:{line}: {problem}" if line is not None else f"{path}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem
        self.fix = fix

    @property
    def at(self) -> str:
        """The problem with its line, as a listing beside the file's name gives it: `line 5: problem`."""
        return f"line {self.line}: {self.problem}" if self.line is not None else self.problem

    @property
    def refusal(self) -> str:
        """The one line that refuses to go on with this log: the file, the line, the problem and the fix."""
        return f"{self}; {self.fix}"


def check_header(path: Path, header: GameHeader) -> None:
    """Raise LogCorrupt unless the header is the game the log's file name says, in a schema this version reads."""
    if header.schema_version > SCHEMA_VERSION:
        raise LogCorrupt(
            path,
            1,
            f"the log is of schema {header.schema_version}, written by a newer hanabi-eval (this one reads schema "
            f"{SCHEMA_VERSION})",
            fix="read it with the hanabi-eval that wrote it, or a newer one",
        )
    if header.game_id != path.stem:
        raise LogCorrupt(
            path,
            1,
            f"the header is game {header.game_id}, not {path.stem} as the file name says (a log copied over another?)",
        )


GameStatus = Literal["complete", "interrupted", "unfinished"]


@dataclass(frozen=True)
class GameFacts:
    """A game's facts, counted once from its log (GameLogContents.facts): who played it, how it ended, and what it
    spent over every attempt: its moves' calls and the failed calls of every interruption and stop."""

    header: GameHeader
    status: GameStatus
    result: GameResult | None  # the game's result: its complete or interrupted line (a stop is none)
    reason: str | None  # why it is not complete: its interruption's, or that of the stop its log ends with
    moves: int
    interruptions: int  # moves that could not be made (one per interrupted line)
    calls: int
    attempts: int
    error_kinds: dict[str, int]  # attempts per error kind, in name order (an open set: whatever the log holds)
    replies_cut: int  # rejected replies (or reasoning) the log keeps only the start of (Attempt.cut)
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: not known (an attempt of an unpriced model, see total_cost), never a guessed $0
    latency_s: float  # summed over the logged moves' attempts
    cached_tokens: int  # prompt tokens read from a provider's prompt cache (counted in prompt_tokens)
    cache_write_tokens: int  # prompt tokens written to it
    cache_saving_usd: float | None  # what prompt caching saved (total_saving); None: nothing recorded

    @property
    def retries(self) -> int:
        return self.attempts - self.calls

    @property
    def invalid_replies(self) -> int:
        return sum(n for kind, n in self.error_kinds.items() if kind not in PROVIDER_ERROR_KINDS)

    @property
    def provider_errors(self) -> int:
        return sum(n for kind, n in self.error_kinds.items() if kind in PROVIDER_ERROR_KINDS)


class GameLogContents(BaseModel):
    """What a game log holds, read back. `torn` says a partial last line was found (and ignored)."""

    header: GameHeader | None = None
    moves: list[MoveRecord] = []
    move_lines: list[int] = []  # the line number of each move, 1-based as LogCorrupt names lines
    results: list[GameResult] = []
    torn: bool = False
    ended: bool = False  # the last record is a result line (no move was played after it)
    valid_bytes: int = 0

    @property
    def result(self) -> GameResult | None:
        """The game's current result: the last result line, if no move came after it (see `a_result`)."""
        return a_result(self.results[-1]) if self.results and self.ended else None

    @property
    def status(self) -> GameStatus:
        """Complete or interrupted by its result, else unfinished (still running, stopped, or its writer died)."""
        result = self.result
        if result is None or result.status == "stopped":  # never a stop (a_result), said again for the type
            return "unfinished"
        return result.status

    @property
    def complete(self) -> bool:
        return self.result is not None and self.result.status == "complete"

    @property
    def failed_calls(self) -> list[Call]:
        return [call for r in self.results for call in r.failed_calls]

    @cached_property
    def facts(self) -> GameFacts:
        """The game's facts (of a log with its header), counted on first use."""
        assert self.header is not None
        calls = self.calls
        attempts = [a for c in calls for a in c.attempts]
        kinds = Counter(str(a.error_kind) for a in attempts if a.error_kind)
        last = self.results[-1] if self.results else None
        stop = last if last is not None and last.status == "stopped" and last.turns == len(self.moves) else None
        ended = self.result or stop
        return GameFacts(
            header=self.header,
            status=self.status,
            result=self.result,
            reason=ended.interrupted_reason if ended is not None else None,
            moves=len(self.moves),
            interruptions=sum(r.status == "interrupted" for r in self.results),
            calls=len(calls),
            attempts=len(attempts),
            error_kinds=dict(sorted(kinds.items())),
            replies_cut=sum(a.cut for a in attempts),
            prompt_tokens=sum(a.usage.prompt_tokens for a in attempts),
            completion_tokens=sum(a.usage.completion_tokens for a in attempts),
            cost_usd=total_cost(attempts),
            latency_s=sum(m.latency_s for m in self.moves),
            cached_tokens=sum(a.usage.cached_tokens for a in attempts),
            cache_write_tokens=sum(a.usage.cache_write_tokens for a in attempts),
            cache_saving_usd=total_saving(attempts),
        )

    @property
    def calls(self) -> list[Call]:
        """Every call the game made: its moves' and those of every interruption and stop."""
        return [c for m in self.moves for c in m.calls] + self.failed_calls

    def records(self) -> list[MoveRecord | GameResult]:
        """The moves and result lines in the order the log holds them: each result line follows the moves made
        before it (its `turns`), so a game interrupted and continued keeps its interruption where it happened."""
        ordered: list[MoveRecord | GameResult] = []
        results = list(self.results)
        for made, move in enumerate(self.moves):
            while results and results[0].turns <= made:
                ordered.append(results.pop(0))
            ordered.append(move)
        return ordered + results


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
            raise LogCorrupt(path, number, f"not a valid log record ({exc.errors()[0]['msg']})") from exc
        if isinstance(record, GameHeader):
            check_header(path, record)
            contents.header = record
        elif isinstance(record, MoveRecord):
            check_sequence(path, number, contents, record)
            contents.moves.append(record)
            contents.move_lines.append(number)
        else:
            contents.results.append(record)
        contents.ended = isinstance(record, GameResult)
    contents.valid_bytes = len(data) - len(tail)
    return contents


def check_sequence(path: Path, line: int, contents: GameLogContents, record: MoveRecord) -> None:
    """Raise LogCorrupt unless `record` is the next move of the game read so far: the move of the next turn, made by
    the seat whose turn it is. Linear and without the engine: a repeated, deleted or moved move line fails here."""
    turn = len(contents.moves) + 1
    if record.turn == turn and (contents.header is None or record.seat == (turn - 1) % contents.header.players):
        return
    if contents.header is None:
        expected = f"turn {turn}"
    else:
        expected = f"turn {turn} by seat {(turn - 1) % contents.header.players}"
    if record.turn == turn - 1:
        found = f"turn {record.turn} again (a move line repeated)"
    elif record.turn < turn:
        found = f"turn {record.turn} again (move lines repeated or moved)"
    elif record.turn > turn:
        found = f"turn {record.turn} (a move line before it is missing)"
    else:
        found = f"seat {record.seat} (a move line edited)"
    raise LogCorrupt(path, line, f"move line out of sequence: expected the move of {expected}, found {found}")


def last_line(path: Path) -> bytes | None:
    """The log's last line, read from the end of the file only; None for an empty file or a last line without its
    line break (torn)."""
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        if size == 0:
            return None
        handle.seek(size - 1)
        if handle.read(1) != b"\n":
            return None
        window = 4096
        while True:
            handle.seek(max(0, size - window))
            lines = handle.read()[:-1].rsplit(b"\n", 1)
            if len(lines) == 2 or window >= size:  # the whole last line is in the window
                return lines[-1]
            window *= 4


def last_result(path: Path) -> GameResult | None:
    """The game's result at the end of its log, as GameLogContents.result takes it (a stop is none, a torn
    last line is no result), read from the end of the file only."""
    tail = last_line(path)
    if tail is None or b'"type":"result"' not in tail:
        return None
    try:
        return a_result(GameResult.model_validate_json(tail))
    except ValidationError:
        return None


def a_result(line: GameResult) -> GameResult | None:
    """A result line as the game's result: a stop (the user stopped the run during a move) is none, the game goes on
    from there."""
    return line if line.status != "stopped" else None


def finished_result(path: Path) -> GameResult | None:
    """The result of a finished game, or None while the game can still go on (missing, unfinished, interrupted)."""
    result = last_result(path) if path.exists() else None
    return result if result is not None and result.status == "complete" else None


def count_moves(path: Path) -> int:
    """Moves logged so far, counted from the bytes without parsing (for estimates; resume checks every line)."""
    if not path.exists():
        return 0
    data = b"\n" + path.read_bytes()  # a record starts a line; a model's JSON kept inside one (memory) never does
    return data.count(b'\n{"type":"move"')


SYNC_THREADS = 4  # syncs at a time in a process: a slow disk's syncs overlap
_DATA_SYNC = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync; fsync also syncs the data
_SYNC_THREADS: tuple[int, ThreadPoolExecutor] | None = None


def _sync_threads() -> ThreadPoolExecutor:
    """This process's sync threads (a forked worker starts its own: threads do not survive a fork)."""
    global _SYNC_THREADS
    if _SYNC_THREADS is None or _SYNC_THREADS[0] != os.getpid():
        _SYNC_THREADS = (os.getpid(), ThreadPoolExecutor(SYNC_THREADS, thread_name_prefix="log-sync"))
    return _SYNC_THREADS[1]


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():  # a game cancelled meanwhile
        waiter.set_result(None)


class GameLog:
    """Appends records to one game's log, durably and in order, after cutting off any torn tail. Each
    record's sync runs on the process's sync threads, overlapping the game's next model call; a machine
    crash can cost at most the last record, which resume plays again."""

    def __init__(self, path: Path, valid_bytes: int | None = None) -> None:
        self.path = path  # its folder exists (RunDir.write_manifest makes it): one that vanished is an error
        if valid_bytes is not None and path.exists() and path.stat().st_size > valid_bytes:
            with path.open("r+b") as handle:
                handle.truncate(valid_bytes)
                handle.flush()
                os.fsync(handle.fileno())
        self._handle = path.open("ab")
        self._sync: Future[None] | None = None  # the last line's sync, until its outcome is taken

    async def append(self, record: GameHeader | MoveRecord | GameResult) -> None:
        """Write one record after the previous one is on disk, and have it synced."""
        line = redact(record.model_dump_json()).encode() + b"\n"  # a last guard: fields are redacted at source
        await self.durable()
        try:
            self._handle.write(line)
            self._handle.flush()
        except OSError as exc:  # a full disk: at most this line is cut short, a torn tail that resume cuts off
            raise with_path(exc, self.path) from None
        self._sync = _sync_threads().submit(_DATA_SYNC, self._handle.fileno())

    async def durable(self) -> None:
        """Return once every record appended so far is on disk; raise, once, the error of a sync that failed. A game
        stopped while it waits leaves the sync running, and `close` waits for it."""
        sync = self._sync
        if sync is None:
            return
        if not sync.done():
            loop = asyncio.get_running_loop()
            waiter: asyncio.Future[None] = loop.create_future()

            def wake(_: Future[None]) -> None:
                with contextlib.suppress(RuntimeError):  # its loop closed meanwhile: nobody waits
                    loop.call_soon_threadsafe(_settle, waiter)

            sync.add_done_callback(wake)
            await waiter
        self._sync = None
        error = sync.exception()
        if isinstance(error, OSError):
            raise with_path(error, self.path)
        if error is not None:
            raise error

    def close(self, report_sync_errors: bool = True) -> None:
        """Close the file once its last sync has finished (never under a sync in flight), and raise if that sync
        failed, unless told not to (while another error is already on its way out)."""
        error = self._sync.exception() if self._sync is not None else None  # waits for a sync in flight
        self._sync = None
        try:
            self._handle.close()
        except OSError as exc:  # the rest of a line a full disk cut short: it stays a torn tail
            if report_sync_errors:
                raise with_path(exc, self.path) from None
        if isinstance(error, OSError) and report_sync_errors:
            raise with_path(error, self.path) from None

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(report_sync_errors=kind is None)
