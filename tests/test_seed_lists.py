"""Seed lists, on every route a user gives one (--seeds, a seed file, a sweep's seed lists): a seed names one deal,
listed once; anything else is refused in one line with exit code 2 before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("lines", "named"),
    [
        (b'{"seed": 3}\n{"seed": 3}\n', "seeds.jsonl:2: seed 3 is listed again (first on line 1)"),
        (b'{"seed": -4}\n', '"seed" must be a whole number from 0, not -4'),
        (b'{"seed": true}\n', '"seed" must be a whole number from 0, not true'),
        (b'{"seed": 1.5}\n', '"seed" must be a whole number from 0, not 1.5'),
        (b'\xff\xfe{"seed": 1}\n', "seeds.jsonl is not UTF-8 text"),
        (b'{"seed": 1, "deck": 5}\n', "seeds.jsonl:1: malformed seed line ("),
        (b'{"seed": 1}\n{"seed": 2, "deck": ["R1", "R1"]}\n', "seeds.jsonl:2: malformed seed line ("),
    ],
)
def test_a_seed_file_is_read_as_strictly_as_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: bytes, named: str
) -> None:
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_bytes(lines)
    out = tmp_path / "out"
    err = refused(["run", "--seeds", str(seeds), "--out", str(out), "--no-progress"], capsys)
    assert named in err and str(seeds) in err
    assert not out.exists()


def test_an_empty_seed_list_is_refused_not_read_as_the_standard_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(["run", "--seeds", "", "--out", str(tmp_path / "out"), "--no-progress"], capsys)
    assert "--seeds '' names no seed" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("spec", ["1,,2", "1,2,", ",1"])
def test_a_seed_list_with_an_empty_entry_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    err = refused(["run", "--seeds", spec, "--out", str(tmp_path / "out"), "--no-progress"], capsys)
    assert f"--seeds {spec!r} has an empty entry between commas; list seeds as 1,2,3" in err
    assert not (tmp_path / "out").exists()


def test_a_seed_listed_in_two_of_a_sweeps_seed_lists_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "dup.toml"
    sweep.write_text(
        'name = "dup"\nplayers = [2]\nseeds = ["1,2", "2,3"]\nscaffolds = ["watson"]\n'
        '[[models]]\nmodel = "local/smart"\n'
    )
    err = refused(["run", "--config", str(sweep), "--out", str(tmp_path / "out"), "--no-progress"], capsys)
    assert "seeds: seed 2 (custom) is listed in both '1,2' and '2,3'" in err
    assert not (tmp_path / "out").exists()


def test_skipping_excluded_seeds_needs_an_export_to_exclude(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--seeds", "1", "--skip-excluded-seeds", "--out", str(tmp_path / "out"), "--no-progress"]
    assert "name it with --exclude-seeds-of EXPORT" in refused(argv, capsys)
    assert not (tmp_path / "out").exists()


def test_a_sweep_error_about_the_whole_file_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "emptymodels.toml"
    sweep.write_text('name = "x"\nplayers = [2]\nseeds = ["1"]\nmodels = []\n')
    err = refused(["run", "--config", str(sweep), "--out", str(tmp_path / "out")], capsys)
    assert f"{sweep}: nothing to play: give models and scaffolds, teams, or crossplay" in err
    assert ": :" not in err and "Value error" not in err
