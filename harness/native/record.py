"""The build record (compiled/record.json) and its check: whether the build on disk may stand in for the source."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.native.paths import BUILD_COMMAND, COMPILED, FOLDER, OFF_VALUES, OFF_VARIABLE, RECORD, ROOT


class BuildRecord(BaseModel):
    """compiled/record.json, written last by a build: what was compiled, for which Python, from which sources."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cache_tag: str  # sys.implementation.cache_tag of the Python that built it
    mypy: str  # the mypy (mypyc) version that compiled it
    files: dict[str, str]  # module name -> its file in compiled/ (the compiled modules and mypyc's shared library)
    digests: dict[str, str]  # file in compiled/ -> its sha256 (a damaged library would crash the process loading it)
    sources: dict[str, str]  # every harness source the compiled modules import (but harness/native) -> its sha256


class NativeStatus(BaseModel):
    """Whether the compiled modules are used, and if not, why not (one line a user can act on)."""

    model_config = ConfigDict(frozen=True)

    active: bool
    reason: str


def source_digest(path: Path) -> str:
    """The sha256 of one file, as the record holds it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_record() -> tuple[dict[str, Path], NativeStatus]:
    """The compiled files by module name, if the build on disk may be used, and the status saying so or why not."""
    if os.environ.get(OFF_VARIABLE, "").strip().lower() in OFF_VALUES:
        return {}, NativeStatus(active=False, reason=f"turned off by {OFF_VARIABLE}={os.environ[OFF_VARIABLE]}")
    try:
        record = BuildRecord.model_validate_json(RECORD.read_bytes())
    except FileNotFoundError:
        return {}, NativeStatus(active=False, reason=f"not compiled ({BUILD_COMMAND} compiles it)")
    except (OSError, ValidationError):
        return {}, NativeStatus(active=False, reason=f"its build record is damaged ({BUILD_COMMAND} builds it again)")
    if record.cache_tag != sys.implementation.cache_tag:
        why = f"compiled for {record.cache_tag}, not this Python"
        return {}, NativeStatus(active=False, reason=f"{why} ({BUILD_COMMAND} builds it again)")
    files = {name: FOLDER / file for name, file in record.files.items()}
    if not set(COMPILED) <= set(files) or not all(file.is_file() for file in files.values()):
        return {}, NativeStatus(active=False, reason=f"its build is incomplete ({BUILD_COMMAND} builds it again)")
    for file in files.values():
        if record.digests.get(file.name) != source_digest(file):
            return {}, NativeStatus(active=False, reason=f"{file.name} is damaged ({BUILD_COMMAND} builds it again)")
    for path, digest in record.sources.items():
        source = ROOT / path
        if not source.is_file() or source_digest(source) != digest:
            why = f"{path} changed since it was compiled"
            return {}, NativeStatus(active=False, reason=f"{why} ({BUILD_COMMAND} builds it again)")
    return files, NativeStatus(active=True, reason=f"compiled with mypyc {record.mypy}")
