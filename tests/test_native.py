"""The compiled build of the view builder and the smart bot (harness/native): setup.sh makes it, it builds the same
views and plays and values exactly as the Python source, and it is never used once a source it was compiled from has
changed, or when turned off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.bots.base import decide_by_ratings
from harness.native import status
from harness.native.paths import COMPILED, FOLDER, ROOT
from harness.native.record import check_record

# Without a build in use (none made, a source edited since, or turned off) these tests skip and say why; in CI,
# where setup.sh must have built it, they run and fail.
IN_USE = check_record()[1]
needs_build = pytest.mark.skipif(
    not IN_USE.active and not os.environ.get("CI"), reason=f"the compiled build is not in use: {IN_USE.reason}"
)

# Along self-play games at 2-5 players: every view (what prompts print), every decision (the move, every rating and
# the reason) and the rollout policy's choice; and every rollout score of one decision. Printed as JSON with the file
# the bot came from and the build's status.
PLAY = """
import hashlib, json, sys
import harness.bots.smart as smart
from harness.engine.rollout_game import RolloutGame
from harness.engine.game import deck_for_seed
from harness.native import status
from harness.play.values import rollout_scores
from harness.view.builder import build_view

bot = smart.SmartBot()
seen = []
for players in (2, 3, 4, 5):
    for seed in (1, 2):
        game, policy = RolloutGame(players, deck_for_seed(seed)), bot.policy()
        while not game.is_over:
            observation = game.observe(game.current_player)
            view = build_view(observation)
            seen.append(hashlib.sha256(view.model_dump_json().encode()).hexdigest())
            decision = bot.decide(view)
            seen.append([decision.move_index, decision.reason, [r.value for r in bot.rate(view)]])
            seen.append(policy.choose(observation))
            game.apply(view.legal_moves[decision.move_index].move)
            if players == 2 and seed == 1 and game.turn == 10:
                position = build_view(game.observe(game.current_player))
moves = [legal.move for legal in position.legal_moves]
scores = rollout_scores(position, moves, 2, 0, "smart")
print(json.dumps({"file": smart.__file__, "status": status().model_dump(), "seen": seen, "scores": scores}))
"""


def play(env: dict[str, str], cwd: Path = ROOT) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PLAY], env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=True
    )
    result: dict = json.loads(done.stdout)
    return result


def native_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "HANABI_EVAL_NATIVE"}
    return {**env, **extra}


@needs_build
def test_the_tests_run_the_compiled_bot() -> None:
    # setup.sh builds it (CI fails here if it did not), so the whole suite checks the compiled code
    import harness.bots.smart
    import harness.view.builder

    assert status().active, status().reason
    # (a module another compiled module imports first is named by mypyc below the build: compiled/harness/...)
    assert Path(harness.bots.smart.__file__).is_relative_to(FOLDER)
    assert Path(harness.view.builder.__file__).is_relative_to(FOLDER)


@needs_build
def test_the_compiled_build_views_plays_and_values_exactly_as_its_source() -> None:
    compiled = play(native_env())
    source = play(native_env(HANABI_EVAL_NATIVE="0"))
    assert compiled["status"]["active"], compiled["status"]["reason"]
    assert Path(compiled["file"]).is_relative_to(FOLDER)
    assert source["file"].endswith("harness/bots/smart.py")
    assert source["status"] == {"active": False, "reason": "turned off by HANABI_EVAL_NATIVE=0"}
    assert len(compiled["seen"]) > 500
    assert compiled["seen"] == source["seen"]
    assert compiled["scores"] == source["scores"]


def copied_install(tmp_path: Path) -> Path:
    """A copy of the harness package with its build, as an install elsewhere would hold them."""
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def import_bot(root: Path, **extra: str) -> tuple[str, str]:
    """Where harness.bots.smart comes from when the package at `root` is imported, and the build's status."""
    code = "import harness.bots.smart as s, harness.native as n; print(s.__file__); print(n.status().reason)"
    env = native_env(PYTHONPATH=str(root), **extra)
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=True)
    file, reason = done.stdout.splitlines()
    return file, reason


@needs_build
def test_a_moved_build_is_used_and_a_stale_one_is_not(tmp_path: Path) -> None:
    root = copied_install(tmp_path)
    file, reason = import_bot(root)
    assert Path(file).is_relative_to(root / "harness" / "native" / "compiled"), reason
    # A source the compiled bot imports changes (a developer's edit): the source runs until the next build, and the
    # status names the file
    view = root / "harness" / "view" / "seat_view.py"
    view.write_text(view.read_text() + "\n# edited\n")
    file, reason = import_bot(root)
    assert file == str(root / "harness" / "bots" / "smart.py")
    rebuild = "(python -m harness.native.build builds it again)"
    assert reason == f"harness/view/seat_view.py changed since it was compiled {rebuild}"


@needs_build
def test_a_damaged_or_foreign_build_record_means_the_source(tmp_path: Path) -> None:
    root = copied_install(tmp_path)
    record = root / "harness" / "native" / "compiled" / "record.json"
    kept = json.loads(record.read_text())
    record.write_text('{"cache_tag": ')
    file, reason = import_bot(root)
    assert file.endswith("harness/bots/smart.py")
    assert reason == "its build record is damaged (python -m harness.native.build builds it again)"
    record.write_text(json.dumps({**kept, "cache_tag": "cpython-399"}))
    file, reason = import_bot(root)
    assert file.endswith("harness/bots/smart.py")
    assert reason.startswith("compiled for cpython-399, not this Python")
    # A compiled file cut short (a full disk, a bad copy) would crash the process that loads it: it is never loaded
    record.write_text(json.dumps(kept))
    library = root / "harness" / "native" / "compiled" / kept["files"]["harness.bots.smart"]
    library.write_bytes(library.read_bytes()[:1000])
    file, reason = import_bot(root)
    assert file.endswith("harness/bots/smart.py")
    assert reason == f"{library.name} is damaged (python -m harness.native.build builds it again)"


@needs_build
def test_the_build_is_turned_off_by_any_usual_spelling_of_no(tmp_path: Path) -> None:
    root = copied_install(tmp_path)
    for off in ("0", "false", "Off", "no"):
        file, reason = import_bot(root, HANABI_EVAL_NATIVE=off)
        assert file.endswith("harness/bots/smart.py") and reason == f"turned off by HANABI_EVAL_NATIVE={off}"


def test_without_a_build_the_source_runs_and_says_how_to_build(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__", "compiled"))
    file, reason = import_bot(tmp_path)
    assert file == str(tmp_path / "harness" / "bots" / "smart.py")
    assert reason == "not compiled (python -m harness.native.build compiles it)"


def run_build(root: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """`python -m harness.native.build` for the package at `root`."""
    env = native_env(PYTHONPATH=str(root), **extra)
    command = [sys.executable, "-m", "harness.native.build"]
    return subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, timeout=120)


@needs_build
def test_a_file_that_cannot_be_copied_stops_the_build_in_one_line_and_keeps_the_build(tmp_path: Path) -> None:
    root = copied_install(tmp_path)
    (root / "harness" / "dangling.txt").symlink_to(tmp_path / "nowhere")
    record = root / "harness" / "native" / "compiled" / "record.json"
    before = record.read_bytes()
    done = run_build(root)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"harness.native.build: cannot copy {root / 'harness' / 'dangling.txt'} to compile the package: "
        f"[Errno 2] No such file or directory: '{root / 'harness' / 'dangling.txt'}'"
    ]
    assert record.read_bytes() == before


@needs_build
def test_a_build_without_a_compiler_stops_in_one_line_and_keeps_the_build(tmp_path: Path) -> None:
    root = copied_install(tmp_path)
    record = root / "harness" / "native" / "compiled" / "record.json"
    before = record.read_bytes()
    done = run_build(root, PATH="/nonexistent")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "harness.native.build: no C compiler found: install one (Debian: apt-get install gcc), then run this again"
    ]
    files = json.loads(before)["files"]
    assert record.read_bytes() == before and all((record.parent / f).is_file() for f in files.values())
    assert set(COMPILED) <= set(files)


def test_a_bot_written_elsewhere_decides_by_ratings_as_with_the_source() -> None:
    # decide_by_ratings, the helper a new bot uses, calls the compiled best_index, which checks its annotation (a list
    # of numbers) at run time: a tuple of ratings, or a rating as text that the source reads with float(), still works
    assert decide_by_ratings((0.1, 0.7, 0.7), ["a", "b", "c"]).move_index == 1
    assert decide_by_ratings(["0.3", 0.2], ["a", "b"]).move_index == 0
