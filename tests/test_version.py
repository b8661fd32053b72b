"""`hanabi-eval --version` names the package version, the commit it runs from and whether it runs compiled."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness import __version__
from harness.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def test_version_names_the_package_version_and_the_git_commit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out.strip()
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out.startswith(f"hanabi-eval {__version__} (git {commit[:12]}")
    assert out.endswith("; Python source, not compiled)")  # this checkout (a plain install: tests/test_native.py)
    assert len(out.splitlines()) == 1
