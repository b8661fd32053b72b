"""A model trained on an export is never evaluated on the export's seeds by accident."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main


def test_run_refuses_or_skips_the_seeds_of_an_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--seeds", "1,2", "--out", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    assert main(["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "export")]) == 0
    capsys.readouterr()
    argv = ["run", "--seeds", "1,2,3", "--exclude-seeds-of", str(tmp_path / "export"), "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "eval")]) == 2
    err = capsys.readouterr().err
    assert "seeds 1 (custom), 2 (custom) are in the exported training data" in err
    assert not (tmp_path / "eval").exists()
    assert main([*argv, "--skip-excluded-seeds", "--out", str(tmp_path / "eval")]) == 0
    assert [p.name for p in (tmp_path / "eval").glob("*/games/*.jsonl")] == ["2p-custom-seed3.jsonl"]
