"""A run directory on disk (manifest.json, status.json, one append-only JSONL log per game under games/)
and the one reader of run folders that every command uses.

Reading is typed and strict: the manifest is a RunManifest, the status a RunStatus, a sweep folder's record a
SweepRecord, each or RunFolderDamaged (one line naming the file and the problem); a game log is read by
harness.schema.log_file and replayed by harness.engine.replay, so that every log a reader gets from here
plays back as logged or is LogCorrupt at its first bad line. Files replaced whole (manifest, status) are
written to a temporary file and renamed over the old one; nothing written is modified in place.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from harness.engine.replay import ReplayMismatch, replay
from harness.schema.config import SeedDeck
from harness.schema.errors import Refused
from harness.schema.log_file import (
    GameFacts,
    GameLogContents,
    LogCorrupt,
    a_result,
    check_header,
    last_line,
    read_game_log,
)
from harness.schema.manifest import RunManifest, SweepRecord
from harness.schema.records import GameHeader, GameResult, RunStatus
from harness.schema.secrets import redact

MANIFEST = "manifest.json"
STATUS = "status.json"
GAMES = "games"
SWEEP_FILE = "sweep.json"
DAMAGED = "the folder is damaged (restore that file, or move the folder aside)"

Record = TypeVar("Record", bound=BaseModel)


class RunFolderDamaged(Refused):
    """A file of a run or sweep folder that cannot be read as what it should be (empty, not JSON, not the record
    it should hold): one line naming the file and the problem."""


def check_replays(path: Path, contents: GameLogContents) -> None:
    """Raise LogCorrupt unless the log's moves replay from its header's deal as logged (engine/replay.py): each move
    legal, the logged move index, the state digest after it. Names the line of the first move that does not."""
    header = contents.header
    if header is None or not contents.moves:
        return
    replayed = 0
    try:
        for step in replay(header.players, header.deck, contents.moves):
            step.apply()
            replayed += 1
    except ReplayMismatch as exc:
        raise LogCorrupt(path, contents.move_lines[replayed], f"the move does not replay ({exc})") from None
    except ValueError as exc:  # a deal the engine cannot play (read_game_log checked its shape, not its cards)
        raise LogCorrupt(path, 1, f"the header's deal cannot be played ({exc})") from None


def read_record(path: Path, model: type[Record], what: str) -> Record | None:
    """The typed record in a JSON file, None if the file does not exist; RunFolderDamaged if it is not one."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # no record there (a file stands where a folder would)
        return None
    except OSError as exc:
        raise RunFolderDamaged(f"cannot read {path}: {exc.strerror}") from None
    if not data.strip():
        raise RunFolderDamaged(f"{path} is empty; {DAMAGED}")
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        if error["type"] == "json_invalid":
            problem = f"is not valid JSON ({error['msg'].removeprefix('Invalid JSON: ')})"
        else:
            where = ".".join(str(part) for part in error["loc"]) or "its top level"
            problem = f"is not {what} ({where}: {error['msg']})"
        raise RunFolderDamaged(f"{path} {problem}; {DAMAGED}") from None


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
        self._run_id: str | None = None  # the manifest's, once read_game has needed it

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def game_path(self, game_id: str) -> Path:
        return self.path / GAMES / f"{game_id}.jsonl"

    def game_paths(self) -> list[Path]:
        return sorted((self.path / GAMES).glob("*.jsonl"))

    def logged_ids(self) -> set[str]:
        """The ids of the games that have a log, from one listing of the games folder (empty before it exists)."""
        return {path.stem for path in (self.path / GAMES).glob("*.jsonl")}

    def read_manifest(self) -> RunManifest | None:
        """The run's manifest, or None before it is written; RunFolderDamaged for one that cannot be read."""
        return read_record(self.manifest_path, RunManifest, "a run manifest")

    def read_game(self, path: Path) -> GameLogContents:
        """A game log of this run, every line checked, its header against its name and this run, its moves in
        sequence and replayed (raises LogCorrupt at the first line that is not what the game logged)."""
        contents = read_game_log(path)
        if contents.header is not None:
            self._check_run(path, contents.header)
        check_replays(path, contents)
        return contents

    def read(self, path: Path) -> GameLogContents | LogCorrupt | None:
        """One game log read by `read_game`, or the damage that leaves it out of every reader (a file that cannot be
        read at all too); None while nothing is written in it."""
        try:
            contents = self.read_game(path)
        except LogCorrupt as exc:
            return exc
        except OSError as exc:
            return LogCorrupt(path, None, f"unreadable ({exc.strerror or exc})")
        return contents if contents.header is not None else None

    def facts(self, game_id: str) -> GameFacts | None:
        """The facts of one game of the run (`read`), None while its log holds nothing or is damaged."""
        game = self.read(self.game_path(game_id))
        return game.facts if isinstance(game, GameLogContents) else None

    def games(self) -> Iterator[GameLogContents | LogCorrupt]:
        """Every game log of the run, in name order, each read (`read`) only when the one before it was taken: a
        caller that keeps only what it needs of each game holds one log at a time."""
        for path in self.game_paths():
            game = self.read(path)
            if game is not None:
                yield game

    def results(self) -> Iterator[tuple[Path, GameResult | LogCorrupt | None]]:
        """Each game log's result (None: none yet) or its damage, as `read` finds them. A log last written
        before the run's status.json is read at its two ends only (`_ends`) when they show nothing wrong,
        so a run is listed without reading its logs whole; a log written since is read in full."""
        try:
            written = (self.path / STATUS).stat().st_mtime_ns
        except OSError:
            written = None
        for path in self.game_paths():
            settled, result = False, None  # type: tuple[bool, GameResult | LogCorrupt | None]
            try:
                if written is not None and path.stat().st_mtime_ns < written:
                    settled, result = self._ends(path)
            except LogCorrupt as exc:
                settled, result = True, exc
            except OSError:
                pass  # not settled: the full read below names what is wrong
            if not settled:
                game = self.read(path)
                result = game.result if isinstance(game, GameLogContents) else game
            yield path, result

    def _ends(self, path: Path) -> tuple[bool, GameResult | None]:
        """(settled, the game's result) from a log's first and last lines, its header checked as
        `read_game` checks it; not settled when they cannot say (a torn line, a line that is not the record
        it looks like)."""
        with path.open("rb") as handle:
            first = handle.readline()
        last = last_line(path)
        if not first.endswith(b"\n") or last is None:
            return False, None
        try:
            header = GameHeader.model_validate_json(first)
        except ValidationError:
            return False, None
        check_header(path, header)
        self._check_run(path, header)
        if last.startswith(b'{"type":"move"') or last == first[:-1]:
            return True, None
        if not last.startswith(b'{"type":"result"'):
            return False, None
        try:
            return True, a_result(GameResult.model_validate_json(last))
        except ValidationError:
            return False, None

    def _check_run(self, path: Path, header: GameHeader) -> None:
        """Raise LogCorrupt unless the header is of the run the manifest (read once) records; while there is
        no readable manifest, any run's header is taken."""
        if self._run_id is None:
            with contextlib.suppress(RunFolderDamaged):
                manifest = self.read_manifest()
                self._run_id = manifest.run_id if manifest is not None else None
        if self._run_id is not None and header.run_id != self._run_id:
            raise LogCorrupt(
                path,
                1,
                f"the header is of run {header.run_id}, not of this run ({self._run_id}): a log of another run "
                "moved here?",
                fix="move it back to the run it came from, out of this run's games folder",
            )

    def write_manifest(self, manifest: RunManifest) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / GAMES).mkdir(exist_ok=True)
        write_json_atomic(self.manifest_path, manifest.to_json())

    def write_status(self, status: RunStatus) -> None:
        write_json_atomic(self.path / STATUS, status.model_dump(mode="json"))

    def read_status(self) -> RunStatus | None:
        """The run's status, or None before it is written; RunFolderDamaged for one that cannot be read."""
        return read_record(self.path / STATUS, RunStatus, "a run status")


def read_sweep_record(folder: Path) -> SweepRecord | None:
    """A sweep folder's record (sweep.json), or None where there is none; RunFolderDamaged if it cannot be read."""
    return read_record(folder / SWEEP_FILE, SweepRecord, "a sweep record")


NAME_MAX = 255  # bytes in one file or folder name (Linux, macOS)


def check_name_lengths(run_path: Path, game_ids: Sequence[str], fix: str) -> None:
    """Refuse, before anything is written, a run whose folder or logs the file system could not name: every part of
    the run's path and every log's name must fit NAME_MAX bytes. `fix` says what to shorten."""
    named = [(part, f"the folder name {part[:40]!r}...") for part in run_path.parts]
    named += [(f"{game_id}.jsonl", f"the log name {game_id[:40]!r}...") for game_id in game_ids]
    for name, what in named:
        size = len(name.encode("utf-8", "surrogateescape"))
        if size > NAME_MAX:
            raise Refused(f"{what} is {size} bytes long, more than the {NAME_MAX} a file system takes; {fix}")


def is_run_dir(folder: Path) -> bool:
    """Whether a folder is a run directory: its manifest.json beside its games/ (a web project's manifest.json alone
    is not)."""
    return (folder / MANIFEST).is_file() and (folder / GAMES).is_dir()


def runs_below(folder: Path) -> list[Path]:
    """The run folders at or below `folder`: those holding a manifest.json, in name order. A symbolic link to a
    folder is followed, and each real folder is searched once, so a link back up is no cycle."""
    if (folder / MANIFEST).is_file():
        return [folder]
    found: list[Path] = []
    searched: set[str] = set()
    for top, folders, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in searched:
            folders.clear()
            continue
        searched.add(real)
        folders.sort()  # name order, so that of two ways to one run folder the same is always taken
        if MANIFEST in files and (Path(top) / MANIFEST).is_file():
            found.append(Path(top))
    return sorted(found)


def find_runs(paths: Sequence[Path]) -> list[Path]:
    """The run folders `paths` name, each once: each path is a run, or a folder holding runs below it. Raises
    Refused for a path that is neither."""
    found: dict[Path, Path] = {}
    for path in paths:
        if not path.exists():
            raise Refused(f"{path} does not exist; give run directories made by `hanabi-eval run`")
        if not path.is_dir():
            raise Refused(f"{path} is not a run directory but a file; give folders made by `hanabi-eval run`")
        below = runs_below(path)
        if not below:
            raise Refused(
                f"{path} is not a run directory (no {MANIFEST}) and holds no runs; give folders made by "
                "`hanabi-eval run`"
            )
        for run in below:
            found.setdefault(run.resolve(), run)
    return list(found.values())


def check_each_game_once(runs: Sequence[Path]) -> None:
    """Refuse run folders two of which hold the same game of the same run (a copied run), which a reader
    adding runs up (report, export) would count twice; RunFolderDamaged for a manifest that cannot be read."""
    seen: dict[tuple[str, str], Path] = {}
    for path in runs:
        run = RunDir(path)
        manifest = run.read_manifest()
        run_id = manifest.run_id if manifest is not None else path.name
        for game_id in sorted(run.logged_ids()):
            first = seen.setdefault((run_id, game_id), path)
            if first != path:
                raise Refused(
                    f"game {game_id} of run {run_id} is in both {first} and {path} (a copied run?); "
                    "pass each run once"
                )


def seed_entry(seed: SeedDeck) -> dict[str, Any]:
    return {"seed": seed.seed, "seed_set": seed.seed_set, "deck": list(seed.deck)}
