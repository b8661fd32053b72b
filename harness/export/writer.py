"""Writing an export folder all at once: files go to a temporary sibling folder that is renamed into place.

An export never overwrites anything silently: an existing export folder is replaced only when asked (--force), and
a folder that is not an export (no export_manifest.json) is never replaced, so a mistyped --out cannot delete a
results folder. A failure while writing leaves the old export (or nothing) in place, never a half-written one.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path

MANIFEST_NAME = "export_manifest.json"


class OutPathError(ValueError):
    """An --out that cannot take the export; the message names the problem and the fix."""


def _held(out: Path) -> tuple[str, int] | None:
    """The (format, schema version) of the export in `out`, or None when its manifest cannot be read."""
    try:
        data = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
        return str(data["format"]), int(data.get("schema_version", 1))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_out(out: Path, force: bool, sources: list[Path], fmt: str = "", schema_version: int = 0) -> None:
    """Refuse an --out that would overwrite something, before anything is read or written. An export of another
    kind or schema version is named in the refusal: adding files of one schema to a folder of another is how
    exports stop combining."""
    if out.suffix in (".jsonl", ".json"):
        raise OutPathError(
            f"--out {out} looks like a file name; give a folder: the export writes its data file, README.md and "
            f"{MANIFEST_NAME} into it"
        )
    for parent in [out, *out.parents]:
        if parent.exists() and not parent.is_dir():
            raise OutPathError(f"--out {out}: {parent} is a file; give a folder path")
    resolved = out.resolve()
    for source in sources:
        root = source.resolve()
        if resolved == root or root in resolved.parents or resolved in root.parents:
            raise OutPathError(f"--out {out} overlaps the run directory {source}; write the export elsewhere")
    if not out.exists() or not any(out.iterdir()):
        return
    if not (out / MANIFEST_NAME).is_file():
        raise OutPathError(
            f"--out {out} is a folder that holds other files, not an export; choose a new or empty folder"
        )
    if force:
        return
    held = _held(out)
    if held is None:
        raise OutPathError(
            f"--out {out} holds an export whose {MANIFEST_NAME} is unreadable; pass --force to replace it"
        )
    kind, version = held
    if (kind, version) != (fmt, schema_version):
        raise OutPathError(
            f"--out {out} holds a {kind} export of schema version {version}, not {fmt} version {schema_version}; "
            "choose another folder, or pass --force to replace it"
        )
    raise OutPathError(f"--out {out} already holds a {kind} export; pass --force to replace it")


def write_export(out: Path, files: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Write (name, chunks of text) files into a fresh folder, then put it at `out` in one rename.

    Files are written in order and each iterable is consumed only when its file is written, so a later file (the
    card, the manifest) can describe what an earlier one held. An existing `out` (already checked by check_out)
    is moved aside first, restored if the new folder cannot take its place, and deleted once it has.
    """
    created = [p for p in reversed(out.parents) if not p.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex[:8]
    staging = out.parent / f".{out.name}.tmp-{token}"
    old = out.parent / f".{out.name}.old-{token}"
    staging.mkdir()
    try:
        for name, chunks in files:
            (staging / name).parent.mkdir(parents=True, exist_ok=True)  # a name may hold folders: "runs/a/x.html"
            with (staging / name).open("w", encoding="utf-8") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())
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


def _remove_empty(folders: list[Path]) -> None:
    """Remove the parent folders this export created, innermost first, if they are still empty."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return
