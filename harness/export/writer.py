"""Writing an output folder all at once (an export, a report): files go to a temporary sibling folder that is
renamed into place, so the folder holds exactly what this command wrote, nothing of an earlier one.

An output never overwrites anything silently: an existing export (or report) folder is replaced only when asked
(--force), and a folder that is not one (no export_manifest.json, report_manifest.json) is never written into or
replaced, so a mistyped --out cannot delete a results folder. A failure while writing leaves the old folder (or
nothing) in place, never a half-written one.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from harness.schema.errors import Refused

MANIFEST_NAME = "export_manifest.json"
T = TypeVar("T")


def _held(out: Path) -> tuple[str, int] | None:
    """The (format, schema version) of the export in `out`, or None when its manifest cannot be read."""
    try:
        data = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
        return str(data["format"]), int(data.get("schema_version", 1))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_place(out: Path, what: str) -> Path:
    """Refuse an --out that no output written whole (`write_folder`) can take: a path through a file, or the current
    folder or one holding it, which cannot be renamed into place. Returns `out` resolved."""
    for parent in [out, *out.parents]:
        if parent.exists() and not parent.is_dir():
            raise Refused(f"--out {out}: {parent} is a file; give a folder for the {what}")
    resolved = out.resolve()
    here = Path.cwd().resolve()
    if resolved == here or resolved in here.parents:
        raise Refused(
            f"--out {out} is the current folder or holds it, and the {what} is written whole and renamed into "
            "place; give a new folder"
        )
    return resolved


def check_apart(out: Path, runs: Sequence[Path], what: str) -> None:
    """Refuse an --out inside one of the run directories read, or holding one, naming that run; an output beside
    runs in a folder of runs is never read as a run (it holds no manifest.json), so it is taken."""
    resolved = out.resolve()
    for run in runs:
        root = run.resolve()
        if resolved == root or root in resolved.parents:
            where = "is" if resolved == root else "is inside"
            raise Refused(f"--out {out} {where} the run directory {run}; write the {what} elsewhere")
        if resolved in root.parents:
            raise Refused(f"--out {out} holds the run directory {run}; write the {what} elsewhere")


def check_folder(out: Path, runs: Sequence[Path], what: str, is_one: Callable[[Path], bool]) -> bool:
    """Refuse an --out folder that cannot take an output of kind `what` (an export, a report): a path through a
    file, one inside or around a run directory read (`runs`), or a folder holding other files (`is_one` tells an
    earlier output of this kind). Returns whether `out` holds an earlier output, which only --force may replace."""
    check_place(out, what)
    check_apart(out, runs, what)
    if not out.exists() or not any(out.iterdir()):
        return False
    if not is_one(out):
        raise Refused(
            f"--out {out} is a folder that holds other files, not {_article(what)} {what}; choose a new or empty folder"
        )
    return True


def listed_files(out: Path, manifest_name: str) -> set[str] | None:
    """The files an earlier output in `out` wrote, as its manifest lists them (the manifest too); None when the
    manifest lists none (an output written before they were listed)."""
    try:
        return set(json.loads((out / manifest_name).read_text(encoding="utf-8"))["files"]) | {manifest_name}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_replaceable(out: Path, written: set[str] | None, what: str) -> None:
    """Before --force replaces an earlier output: refuse if `out` holds a file that output did not write (`written`,
    relative names; None: unknown, then the output is replaced whole, as it always was), so a note a user kept
    there is never deleted with it."""
    if written is None:
        return
    foreign = sorted(
        name for path in out.rglob("*") if path.is_file() and (name := path.relative_to(out).as_posix()) not in written
    )
    if foreign:
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        raise Refused(
            f"--out {out} holds {foreign[0]}{more}, which the {what} there did not write, and --force would delete "
            "it; move it out of that folder first"
        )


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def check_out(out: Path, force: bool, runs: list[Path], fmt: str = "", schema_version: int = 0) -> None:
    """Refuse an --out that would overwrite something, before anything is read or written. An export of another
    kind or schema version is named in the refusal: adding files of one schema to a folder of another is how
    exports stop combining."""
    if out.suffix in (".jsonl", ".json"):
        raise Refused(
            f"--out {out} looks like a file name; give a folder: the export writes its data file, README.md and "
            f"{MANIFEST_NAME} into it"
        )
    if not check_folder(out, runs, "export", lambda folder: (folder / MANIFEST_NAME).is_file()):
        return
    if force:
        check_replaceable(out, listed_files(out, MANIFEST_NAME), "export")
        return
    held = _held(out)
    if held is None:
        raise Refused(
            f"--out {out} holds an export whose {MANIFEST_NAME} is unreadable; pass --force to replace it"
        )
    kind, version = held
    if (kind, version) != (fmt, schema_version):
        raise Refused(
            f"--out {out} holds a {kind} export of schema version {version}, not {fmt} version {schema_version}; "
            "choose another folder, or pass --force to replace it"
        )
    raise Refused(f"--out {out} already holds a {kind} export; pass --force to replace it")


def write_export(out: Path, files: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Write (name, chunks of text) files into a fresh folder, then put it at `out` in one rename.

    Files are written in order and each iterable is consumed only when its file is written, so a later file (the
    card, the manifest) can describe what an earlier one held.
    """

    def fill(staging: Path) -> None:
        for name, chunks in files:
            (staging / name).parent.mkdir(parents=True, exist_ok=True)  # a name may hold folders: "runs/a/x.html"
            with (staging / name).open("w", encoding="utf-8") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())

    write_folder(out, fill)


def write_folder(out: Path, fill: Callable[[Path], T]) -> T:
    """Let `fill` write a fresh folder, then put that folder at `out` in one rename; return what `fill` returned.

    An existing `out` (already checked, by check_folder) is moved aside first, restored if the new folder cannot
    take its place, and deleted once it has: nothing of it stays beside the new files.
    """
    created = [p for p in reversed(out.parents) if not p.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex[:8]
    staging = out.parent / f".{out.name}.tmp-{token}"
    old = out.parent / f".{out.name}.old-{token}"
    staging.mkdir()
    try:
        filled = fill(staging)
        replacing = out.exists()
        if replacing:
            out.rename(old)
        try:
            staging.rename(out)
        except OSError:
            if replacing:
                old.rename(out)
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_empty(created)
        raise
    if replacing:
        shutil.rmtree(old, ignore_errors=True)
    return filled


def _remove_empty(folders: list[Path]) -> None:
    """Remove the parent folders this export created, innermost first, if they are still empty."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return
