"""A run's manifest: written when the run is created, extended by one session record each time the run is
played, and read back to continue it.

The run directory's name is derived from the configuration, so running the same command again continues the
same run, while a run directory named explicitly for a different configuration is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import platform
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness import __version__
from harness.models.client import sent_params_record
from harness.run.games import verify_logs
from harness.run.lock import LOCK_FILE, RunLock
from harness.run.store import RunDir, seed_entry
from harness.schema.config import RecordedConfig, RunConfig, SessionOptions
from harness.schema.errors import Refused
from harness.schema.manifest import RunManifest, SessionRecord
from harness.schema.records import GameHeader, now_iso
from harness.schema.secrets import public_command, public_seat


def git_state() -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]  # the checkout around harness/run/
    if not (root / "pyproject.toml").exists():  # an installed wheel: the git repository around it is not its source
        return {"commit": None, "dirty": None}

    def git(*args: str) -> str:
        run = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=5, check=True)
        return run.stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain"))  # untracked files count: new prompts or code
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def versions() -> dict[str, str]:
    found = {"hanabi-eval": __version__, "python": sys.version.split()[0], "platform": platform.platform()}
    for package in ("litellm", "hanabi-learning-environment", "pydantic", "jinja2", "openai", "anthropic"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def manifest_for(config: RunConfig, options: SessionOptions, run_id: str, command: list[str]) -> RunManifest:
    public = config.model_copy(update={"seats": tuple(public_seat(s) for s in config.seats)})
    recorded = RecordedConfig.model_validate(
        {**dict(public), "reply_retries": options.reply_retries, "retry": options.retry}
    )
    return RunManifest.model_validate(
        {
            "run_id": run_id,
            "created_at": now_iso(),
            "command": public_command(command),
            "config_digest": config.digest(),
            "config": json.loads(recorded.model_dump_json()),
            "sent_params": [sent_params_record(s) for s in config.seats],  # per seat, as sent to LiteLLM
            "versions": versions(),
            "git": git_state(),
            "seeds": [seed_entry(s) for s in config.seeds],
            "games": [p.model_dump(mode="json") for p in public.plans()],
        }
    )


def recorded_run(run: RunDir, config: RunConfig) -> RunManifest | None:
    """The manifest of the run `run` holds already, if it is a run of this very configuration (None before one is
    written). Raises Refused for a run of another configuration, RunFolderDamaged for a manifest that cannot be
    read."""
    existing = run.read_manifest()
    if existing is not None and not (
        existing.config_digest == config.digest() or (existing.config.digest() == config.digest() and _unedited(run))
    ):
        raise Refused(
            f"{run.path} holds a run of a different configuration; choose another --out or --run-name "
            "(or continue that run with `hanabi-eval resume`)"
        )
    return existing


@contextmanager
def open_run(
    run_path: Path, config: RunConfig, command: list[str], options: SessionOptions, concurrency: bool = True
) -> Iterator[tuple[RunDir, RunManifest]]:
    """Create the run directory, or reopen it if it holds this very configuration, hold its lock, and check
    every log it holds (verify_logs; LogCorrupt or ReplayMismatch for one that is damaged). Yields the run
    and its manifest with this session added, which `record_session` writes once every run of the session
    is checked: a refused session leaves no trace. Raises Refused for a directory of another configuration or
    one another process holds locked, RunFolderDamaged for a manifest that cannot be read."""
    run = RunDir(run_path)
    recorded_run(run, config)
    created = not run.path.exists()
    try:
        with RunLock(run.path) as lock:
            yield run, _session_manifest(run, config, command, options, concurrency, lock)
    finally:
        if created and not run.manifest_path.exists():  # stopped before the run began: leave no empty folder
            with contextlib.suppress(OSError):
                (run.path / LOCK_FILE).unlink()
                run.path.rmdir()


def _session_manifest(
    run: RunDir, config: RunConfig, command: list[str], options: SessionOptions, concurrency: bool, lock: RunLock
) -> RunManifest:
    """Under the run's lock: its logs checked, the manifest (read, or new) with this session added (its games at
    once too, where `concurrency`)."""
    existing = run.read_manifest()  # re-read under the lock
    verify_logs(config, run)
    session: dict[str, Any] = {
        "started_at": now_iso(),
        "command": public_command(command),
        **options.operational(config.seats),
    }
    if concurrency:
        session["concurrency"] = options.concurrency
    if lock.previous_holder:
        session["took_over_lock_of"] = lock.previous_holder
    if existing is None:  # a new run, or one whose manifest was lost: its logs keep the run id they carry
        run_id = _logged_run_id(run) or f"{run.path.name}-{uuid.uuid4().hex[:6]}"
        existing = manifest_for(config, options, run_id, command)
    return existing.with_session(SessionRecord.model_validate(session))


def _logged_run_id(run: RunDir) -> str | None:
    """The run id the game logs of a folder without a manifest carry, when they all carry the same one."""
    found = set()
    for path in run.game_paths():
        try:
            with path.open("rb") as handle:
                found.add(GameHeader.model_validate_json(handle.readline()).run_id)
        except (OSError, ValidationError):
            continue
    return found.pop() if len(found) == 1 else None


def record_session(run: RunDir, manifest: RunManifest) -> None:
    """Write the manifest with the session that opened the run (open_run): the run then exists on disk."""
    run.write_manifest(manifest)


def config_of(run: RunDir) -> RunConfig:
    """The configuration a run directory was created with, checked against its recorded digest."""
    manifest = run.read_manifest()
    if manifest is None:
        raise Refused(f"{run.path} is not a run directory (no {run.manifest_path.name}); give a run's folder")
    config = manifest.config
    if config.digest() != manifest.config_digest and not _unedited(run):
        raise Refused(f"{run.manifest_path} does not match its own config digest; it was edited by hand")
    return config


def _unedited(run: RunDir) -> bool:
    """Whether the run's manifest holds its config as the very first version of the harness wrote it: that version's
    digest was over the config exactly as written (every setting, in its order), not over today's identity."""
    try:
        manifest = json.loads(run.manifest_path.read_text(encoding="utf-8"))
        written = json.dumps(manifest["config"], separators=(",", ":"), ensure_ascii=False)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return hashlib.sha256(written.encode()).hexdigest()[:10] == manifest.get("config_digest")
