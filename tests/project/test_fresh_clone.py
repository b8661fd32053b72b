"""The README's and the docs' commands, run in a fresh clone, leave `git status` clean: every folder they write is
ignored, so a later run made from that checkout records a clean tree."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from harness.cli.main import main
from tests.helpers import ROOT


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_every_out_folder_the_readme_and_the_docs_name_is_ignored() -> None:
    manual = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "\n".join(path.read_text() for path in manual)
    folders = set(re.findall(r"--out ([\w./-]+)", text)) | {"results"}  # results: the default --out
    folders = {f for f in folders if not f.startswith(("<", "/")) and not f.isupper()}  # <run>, DIR, /tmp/...
    assert {"results/", "exports/rewards", "reports/all"} <= folders
    for folder in folders:
        probe = f"{folder.rstrip('/')}/some-run/manifest.json"
        assert subprocess.run(["git", "check-ignore", "-q", probe], cwd=ROOT).returncode == 0, folder


def test_the_readme_commands_in_a_fresh_clone_leave_git_status_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "clone"
    git("clone", "-q", str(ROOT), str(clone), cwd=tmp_path)
    monkeypatch.chdir(clone)  # the commands run in this process, from the clone as a user's shell would

    def hanabi_eval(*args: str) -> None:
        assert main(list(args)) == 0

    hanabi_eval("run", "--model", "local/smart", "--seeds", "1", "--out", "results/", "--no-progress")
    (run,) = [p for p in (clone / "results").iterdir() if p.is_dir()]
    hanabi_eval(
        "export", str(run.relative_to(clone)), "--format", "hanabirewards", "--out", "exports/rewards"
    )
    hanabi_eval("report", "results/", "--out", "reports/all")
    assert (clone / "exports" / "rewards").is_dir() and (clone / "reports" / "all").is_dir()
    assert git("status", "--porcelain", cwd=clone) == ""
