"""Bad disks, as a user meets them: a read-only --out, a disk that fills up mid-run, a run folder removed mid-run.

Each is said in one line naming the path and the fix, exit code 1, never a traceback; the status says "failed" with
the reason where it can still be written, and nothing already written is damaged: once the cause is gone the run
resumes to the end.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.schema.disk import explain
from tests.helpers import ROOT, assert_whole_logs, one_line

GAMES = ["--players", "2", "--seeds", "1,2,3", "--no-progress"]


def mount_tmpfs(folder: Path, options: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
    elif mount_tmpfs(folder, "ro,size=1m"):
        yield folder
        subprocess.run(["umount", str(folder)], check=True)
    else:
        pytest.skip("as root without mount, no folder can be made read-only")


def test_a_read_only_out_is_one_line_naming_the_folder_and_exit_2(
    read_only_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", *GAMES, "--out", str(read_only_folder / "results")]) == 2  # refused: nothing began
    line = one_line(capsys.readouterr().err)
    assert line == (
        f"hanabi-eval: error: --out {read_only_folder / 'results'} cannot be written "
        f"({read_only_folder} is read-only); choose another --out"
    )
    assert "resume" not in line  # no run was created: nothing to resume


def test_an_out_that_cannot_be_made_is_refused_up_front_and_never_called_a_removed_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    out = tmp_path / "notes.txt" / "results"
    assert main(["run", *GAMES, "--out", str(out)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line == f"hanabi-eval: error: --out {out}: {out.parent} is a file; give a folder for the run directories"
    with pytest.raises(SystemExit) as ended:
        main(["run", *GAMES, "--out", ""])
    assert ended.value.code == 2
    assert "argument --out: '' names no folder" in one_line(capsys.readouterr().err)
    # where the folder cannot be made for a reason no check foresees (/proc/x as root): said as such, not "removed"
    gone = explain(OSError(errno.ENOENT, "No such file or directory", "/proc/x"))
    assert gone == "cannot write /proc/x: No such file or directory; no folder can be made there; choose another --out"


def test_a_run_is_never_written_inside_another_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *GAMES, "--out", str(tmp_path)]) == 0
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    capsys.readouterr()
    assert main(["run", *GAMES, "--out", str(run / "more")]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.endswith(f"is inside the run directory {run}; choose a folder outside it")
    assert not (run / "more").exists()
    assert main(["run", *GAMES, "--out", str(run / "games" / ".." / "..")]) == 0  # that is tmp_path: allowed
    web = tmp_path.parent / f"{tmp_path.name}-web"  # a web project's manifest.json makes no run directory
    (web / "site").mkdir(parents=True)
    (web / "manifest.json").write_text('{"manifest_version": 3}')
    assert main(["run", *GAMES, "--out", str(web / "site" / "results")]) == 0
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    capsys.readouterr()
    assert main(["run", *GAMES, "--out", str(tmp_path / "dangling")]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.endswith("dangling is a link to nothing; give a folder for the run directories")


def test_a_disk_that_fills_up_mid_run_fails_in_one_line_and_resumes_once_there_is_room(
    tmp_path: Path,
) -> None:
    """The file size limit stands in for a full disk (a write fails with EFBIG instead of ENOSPC): anyone can set
    it, where a small full filesystem needs root."""

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    failed = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", *GAMES, "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        timeout=300,
    )
    assert failed.returncode == 1
    line = one_line(failed.stderr)
    run_dir = next(tmp_path.iterdir())
    assert line.startswith(f"hanabi-eval: error: cannot write {run_dir / 'games'}")
    assert "File too large; free some space on that disk" in line
    assert line.endswith(f"then continue with: hanabi-eval resume {run_dir}")
    status = json.loads((run_dir / "status.json").read_text())
    assert status["status"] == "failed" and "File too large" in status["reason"]
    assert_whole_logs(tmp_path, torn_tail=True)
    assert main(["resume", str(run_dir), "--no-progress"]) == 0
    assert_whole_logs(tmp_path)  # resume cut the torn tail off
    assert json.loads((run_dir / "status.json").read_text())["games_complete"] == 3


def test_a_full_filesystem_mid_run_keeps_what_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    disk = tmp_path / "small-disk"
    disk.mkdir()
    if not mount_tmpfs(disk, "size=400k"):
        pytest.skip("needs root and mount to make a small filesystem")
    try:
        assert main(["run", *GAMES, "--out", str(disk)]) == 1
        line = one_line(capsys.readouterr().err)
        assert "No space left on device; free some space on that disk" in line
        assert_whole_logs(disk, torn_tail=True)
        subprocess.run(["mount", "-o", "remount,size=20m", str(disk)], check=True)
        assert main(["resume", str(next(disk.iterdir())), "--no-progress"]) == 0
        assert_whole_logs(disk)
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_run_folder_removed_mid_run_stops_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    removed: list[Path] = []

    def remove_once_a_game_is_logged() -> None:
        deadline = time.monotonic() + 90
        while not list(tmp_path.glob("*/games/*.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        run_dir = next(tmp_path.iterdir())
        # The run may open a new log while the tree is being removed; remove
        # again until the folder is gone, as a user's `rm -rf` would leave it.
        while run_dir.exists() and time.monotonic() < deadline:
            shutil.rmtree(run_dir, ignore_errors=True)
        removed.append(run_dir)

    remover = threading.Thread(target=remove_once_a_game_is_logged)
    remover.start()
    try:
        code = main(["run", "--model", "local/smart@25ms", *GAMES, "--out", str(tmp_path)])
    finally:
        remover.join()
    assert code == 1
    line = one_line(capsys.readouterr().err)
    assert f"cannot write {removed[0]}" in line and "the folder was removed" in line
