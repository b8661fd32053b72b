"""HanabiRewards' engine-value columns: aligned with the row's candidate moves and the run's values files, the same
schema with or without values (exports combine in `datasets`), the values' settings on the card and manifest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.helpers import rows_of

ROLLOUTS, SEED, LAST_TURNS = 2, 7, 4


@pytest.fixture(scope="module")
def valued(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A sherlock game exported before and after `hanabi-eval values` valued its last turns."""
    out = tmp_path_factory.mktemp("valued")
    argv = ["run", "--scaffold", "sherlock", "--seeds", "1", "--out", str(out), "--run-name", "r", "--no-progress"]
    assert main(argv) == 0
    run = out / "r"
    assert main(["export", str(run), "--format", "hanabirewards", "--out", str(out / "before")]) == 0
    (log_path,) = (run / "games").glob("*.jsonl")
    first = read_game_log(log_path).moves[-LAST_TURNS].turn
    values = ["values", str(run), "--rollouts", str(ROLLOUTS), "--seed", str(SEED), "--from-turn", str(first)]
    assert main(values) == 0
    assert main(["export", str(run), "--format", "hanabirewards", "--out", str(out / "after")]) == 0
    return {"run": run, "log": log_path, "before": out / "before", "after": out / "after"}


def test_engine_values_line_up_with_the_candidate_moves_and_the_values_file(valued: dict[str, Path]) -> None:
    log = read_game_log(valued["log"])
    written = {
        line["turn"]: line
        for line in map(json.loads, (valued["run"] / "values" / valued["log"].name).read_text().splitlines())
    }
    assert len(written) == LAST_TURNS
    rows = rows_of(valued["after"] / "hanabirewards.jsonl")
    assert [r["turn"] for r in rows] == [m.turn for m in log.moves]
    for row in rows:
        n = len(row["candidate_moves"])
        assert len(row["engine_values"]) == len(row["engine_value_se"]) == n
        line = written.get(row["turn"])
        if line is None:  # before --from-turn: no values, zeros of the same length, never null
            assert row["engine_rollouts"] == 0
            assert row["engine_values"] == row["engine_value_se"] == [0.0] * n
            continue
        assert row["engine_rollouts"] == ROLLOUTS
        by_move = {m["move"]: m for m in line["moves"]}
        assert sorted(by_move) == sorted(row["candidate_moves"])
        assert row["engine_values"] == [by_move[move]["value"] for move in row["candidate_moves"]]
        assert row["engine_value_se"] == [by_move[move]["se"] for move in row["candidate_moves"]]
        assert row["candidate_moves"][row["chosen_move_index"]] == line["chosen"]
        best = max(range(n), key=lambda i: row["engine_values"][i])
        assert row["engine_values"][best] == by_move[line["best"]]["value"]


def test_the_card_and_manifest_state_the_values_settings(valued: dict[str, Path]) -> None:
    manifest = json.loads((valued["after"] / "export_manifest.json").read_text())
    run_id = manifest["source_runs"][0]["run_id"]
    assert manifest["engine_values"] == [
        {"run_id": run_id, "bot": "smart", "rollouts": ROLLOUTS, "base_seed": SEED, "games": 1, "decisions": LAST_TURNS}
    ]
    card = (valued["after"] / "README.md").read_text()
    assert f"{LAST_TURNS} of {manifest['rows']} rows have values, made with these settings" in card
    assert f"| `{run_id}` | smart | {ROLLOUTS} | {SEED} | 1 | {LAST_TURNS} |" in card
    for column in ("engine_values", "engine_value_se", "engine_rollouts"):
        assert f"| `{column}` |" in card
    before = json.loads((valued["before"] / "export_manifest.json").read_text())
    assert before["engine_values"] == [] and before["schema_version"] == manifest["schema_version"]
    assert "No row of this export has values" in (valued["before"] / "README.md").read_text()


def test_exports_with_and_without_values_share_the_declared_features_and_combine(
    valued: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml
    from datasets import Features, List, Value, concatenate_datasets, load_dataset

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    cache = str(tmp_path / "hf" / "datasets")
    files = [valued[name] / "hanabirewards.jsonl" for name in ("before", "after")]
    cards = [(valued[name] / "README.md").read_text().split("---")[1] for name in ("before", "after")]
    declared = [Features._from_yaml_list(yaml.safe_load(c)["dataset_info"]["features"]) for c in cards]
    assert declared[0] == declared[1]
    assert declared[0]["engine_values"] == List(Value("float64"))
    assert declared[0]["engine_rollouts"] == Value("int64")
    parts = [load_dataset("json", data_files=str(f), split="train", cache_dir=cache) for f in files]
    assert parts[0].features == parts[1].features == declared[0]
    combined = concatenate_datasets(parts)
    # the file without values first: its columns must not be typed as null, or the second would not fit
    together = load_dataset("json", data_files=[str(f) for f in files], split="train", cache_dir=cache)
    assert together.features == combined.features == declared[0]
    assert sum(r > 0 for r in together["engine_rollouts"]) == LAST_TURNS


def test_a_damaged_or_mismatched_values_file_stops_the_export_in_one_line(
    valued: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "r"
    shutil.copytree(valued["run"], run)
    path = run / "values" / valued["log"].name
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([lines[0], "{not json\n", *lines[2:]]))
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["export", str(run), "--format", "hanabirewards", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{path}:2: not a valid values record" in err and "hanabi-eval values" in err
    assert len(err.splitlines()) == 1 and not out.exists()
    # values of another decision (the chosen move differs from the log's) are refused the same way
    record = json.loads(lines[1])
    record["chosen"] = next(m["move"] for m in record["moves"] if m["move"] != record["chosen"])
    path.write_text("".join([lines[0], json.dumps(record) + "\n", *lines[2:]]))
    assert main(["export", str(run), "--format", "hanabirewards", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"turn {record['turn']} values a decision that chose {record['chosen']}" in err
    assert len(err.splitlines()) == 1 and not out.exists()
    # a torn last line (the values command was stopped mid-write) is left out, not an error
    path.write_text("".join([*lines[:-1], lines[-1][:40]]))
    assert main(["export", str(run), "--format", "hanabirewards", "--out", str(out)]) == 0
    assert json.loads((out / "export_manifest.json").read_text())["engine_values"][0]["decisions"] == 3


def test_values_of_a_single_rollout_have_no_standard_error_and_the_card_says_so(
    valued: dict[str, Path], tmp_path: Path
) -> None:
    """What `hanabi-eval values --rollouts 1` writes (no standard error) reaches the rows as 0.0 beside rollouts 1."""
    run = tmp_path / "r"
    shutil.copytree(valued["run"], run)
    path = run / "values" / valued["log"].name
    single = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record["rollouts"] = 1
        record["moves"] = [{**m, "se": None} for m in record["moves"]]
        single.append(json.dumps(record) + "\n")
    path.write_text("".join(single))
    out = tmp_path / "out"
    assert main(["export", str(run), "--format", "hanabirewards", "--out", str(out)]) == 0
    rows = [r for r in rows_of(out / "hanabirewards.jsonl") if r["engine_rollouts"]]
    assert len(rows) == LAST_TURNS
    assert all(r["engine_rollouts"] == 1 and r["engine_value_se"] == [0.0] * len(r["candidate_moves"]) for r in rows)
    assert "with a single rollout the standard error is unknown and written as 0.0" in (out / "README.md").read_text()
    assert json.loads((out / "export_manifest.json").read_text())["engine_values"][0]["rollouts"] == 1
