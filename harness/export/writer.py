"""Writing an output folder (an export, a report) whole: a sibling folder renamed into place. Only --force
replaces an earlier output, and a folder that is not one is never written into or replaced."""

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


def check_place(out: Path, what: str) -> Path:
    """Refuse an --out through a file, or the current folder or one holding it (no rename can put it in
    place); `out` resolved."""
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
    """Refuse an --out inside one of the run directories read, or holding one, naming that run."""
    resolved = out.resolve()
    for run in runs:
        root = run.resolve()
        if resolved == root or root in resolved.parents:
            where = "is" if resolved == root else "is inside"
            raise Refused(f"--out {out} {where} the run directory {run}; write the {what} elsewhere")
        if resolved in root.parents:
            raise Refused(f"--out {out} holds the run directory {run}; write the {what} elsewhere")


def check_folder(out: Path, runs: Sequence[Path], what: str, is_one: Callable[[Path], bool]) -> bool:
    """Refuse an --out that cannot take an output of kind `what` (check_place, check_apart, or a folder of
    other files: `is_one` tells an earlier output); whether it holds one, which only --force replaces."""
    check_place(out, what)
    check_apart(out, runs, what)
    if not out.exists() or not any(out.iterdir()):
        return False
    if not is_one(out):
        article = "an" if what[:1] in "aeiou" else "a"
        raise Refused(
            f"--out {out} is a folder that holds other files, not {article} {what}; choose a new or "
            "empty folder"
        )
    return True


def listed_files(out: Path, manifest_name: str) -> set[str] | None:
    """The files an earlier output's manifest lists (the manifest too); None when it lists none."""
    try:
        return set(json.loads((out / manifest_name).read_text(encoding="utf-8"))["files"]) | {manifest_name}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_replaceable(out: Path, written: set[str] | None, what: str) -> None:
    """Before --force replaces an earlier output: refuse if `out` holds a file it did not write (`written`;
    None: unknown, then replaced whole), so a user's note there is never deleted."""
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


def check_out(out: Path, force: bool, runs: list[Path], fmt: str = "", schema_version: int = 0) -> None:
    """Refuse an --out that would overwrite something, naming an export of another kind or schema version
    (files of two schemas in one folder do not combine)."""
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
    try:
        data = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
        kind, version = str(data["format"]), int(data.get("schema_version", 1))
    except (OSError, ValueError, KeyError, TypeError):
        raise Refused(
            f"--out {out} holds an export whose {MANIFEST_NAME} is unreadable; pass --force to replace it"
        ) from None
    if (kind, version) != (fmt, schema_version):
        raise Refused(
            f"--out {out} holds a {kind} export of schema version {version}, not {fmt} version {schema_version}; "
            "choose another folder, or pass --force to replace it"
        )
    raise Refused(f"--out {out} already holds a {kind} export; pass --force to replace it")


def write_export(out: Path, files: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Write (name, chunks) files in order into a folder put at `out` in one rename (write_folder)."""

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
    """Let `fill` write a fresh folder put at `out` in one rename (an old `out` moved aside, then deleted)."""
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
        for folder in reversed(created):  # the parent folders made here, innermost first, while empty
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    if replacing:
        shutil.rmtree(old, ignore_errors=True)
    return filled

