"""Seed lists, on every route a user gives one (--seeds, a seed file, a sweep's seed lists): a seed names one deal,
listed once; anything else is refused in one line with exit code 2 before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from tests.helpers import ROOT, refused


def sweep_file(path: Path, seeds: str) -> Path:
    """A sweep of the built-in player over these seed lists (TOML)."""
    path.write_text(
        f'name = "{path.stem}"\nplayers = [2]\nseeds = {seeds}\nscaffolds = ["watson"]\n'
        '[[models]]\nmodel = "local/smart"\n'
    )
    return path


@pytest.mark.parametrize(
    ("lines", "named"),
    [
        (b'{"seed": 3}\n{"seed": 3}\n', "seeds.jsonl:2: seed 3 is listed again (first on line 1)"),
        (b'{"seed": -4}\n', '"seed" must be a whole number from 0, not -4'),
        (b'{"seed": true}\n', '"seed" must be a whole number from 0, not true'),
        (b'{"seed": 1.5}\n', '"seed" must be a whole number from 0, not 1.5'),
        (b'\xff\xfe{"seed": 1}\n', "seeds.jsonl is not UTF-8 text"),
        (b'{"seed": 1, "deck": 5}\n', 'malformed seed line ("deck" must be a list of 50 cards such as "R1", not 5)'),
        (b'{"seed": 1, "deck": ""}\n', 'malformed seed line ("deck" must be a list of 50 cards such as "R1", not "")'),
        (b'{"seed": 1, "deck": [1, 2]}\n', '("deck" must be a list of 50 cards such as "R1", not [1, 2])'),
        (b'{"seed": 1}\n{"seed": 2, "deck": ["R1", "R1"]}\n', "seeds.jsonl:2: malformed seed line (a deck has 50"),
        (b'{"seed": 7, "dek": []}\n', 'seed line (unknown key "dek": a line holds "seed" and, optionally, "deck")'),
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


def test_one_deal_listed_twice_under_two_seeds_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 1 of the standard set and seed 1 listed alone deal the same deck: one deal, which a report would count
    twice; so does a seed file giving two seeds one deck."""
    sweep = sweep_file(tmp_path / "overlap.toml", '["standard", "1,2"]')
    err = refused(["run", "--config", str(sweep), "--out", str(tmp_path / "out"), "--no-progress"], capsys)
    assert "seeds: seed 1 (custom) deals the same deck as seed 1 (standard): one deal listed twice" in err
    deck = json.loads((ROOT / "seeds" / "standard.jsonl").read_text().splitlines()[0])["deck"]
    same = tmp_path / "same.jsonl"
    same.write_text(json.dumps({"seed": 40, "deck": deck}) + "\n" + json.dumps({"seed": 41, "deck": deck}) + "\n")
    err = refused(["run", "--seeds", str(same), "--out", str(tmp_path / "out"), "--no-progress"], capsys)
    assert "seed 41 (same) deals the same deck as seed 40 (same)" in err
    assert not (tmp_path / "out").exists()


def test_a_sweep_recorded_with_one_deal_twice_is_refused_on_resume_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep recorded before the rule (its sweep.json lists seed 1 of the standard set and seed 1 alone)."""
    sweep = sweep_file(tmp_path / "older.toml", '["1"]')
    assert main(["run", "--config", str(sweep), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    record = tmp_path / "out" / "older" / "sweep.json"
    recorded = json.loads(record.read_text())
    recorded["config"]["seeds"] = ["standard", "1"]
    record.write_text(json.dumps(recorded))
    capsys.readouterr()
    err = refused(["resume", str(record.parent), "--no-progress"], capsys)
    assert "seeds: seed 1 (custom) deals the same deck as seed 1 (standard)" in err
    assert "the sweep's runs can still be resumed one by one" in err


def test_a_seed_file_with_a_byte_order_mark_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seeds = tmp_path / "bom.jsonl"
    seeds.write_bytes(b'\xef\xbb\xbf{"seed": 5}\n')
    assert main(["run", "--seeds", str(seeds), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    assert [p.name for p in tmp_path.glob("out/*/games/*.jsonl")] == ["2p-bom-seed5.jsonl"]


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
    assert f"--seeds {spec!r} has an empty entry (two commas in a row, or one at an end); list seeds as 1,2,3" in err
    assert not (tmp_path / "out").exists()


def test_a_seed_listed_in_two_of_a_sweeps_seed_lists_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = sweep_file(tmp_path / "dup.toml", '["1,2", "2,3"]')
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
