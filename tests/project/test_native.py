"""The compiled build (setup.py compiles pyproject.toml's [tool.hanabi-eval] modules with mypyc): a plain
`pip install .` ships and runs it, it builds the same views and plays and values exactly as the Python source, and
without a C compiler the install says so in one line and runs the source. An editable install compiles nothing
(tests/project/test_packaging.py installs one), so this checkout, which the rest of the suite runs, is all source."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import harness
from tests.helpers import ROOT

pytestmark = pytest.mark.build  # a real package build (about 30 s of one core): CI's `pytest -m "bench or build"` step

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LISTED = PYPROJECT["tool"]["hanabi-eval"]["compiled"]  # the source files setup.py compiles, in its order
COMPILED = sorted(path.removesuffix(".py").replace("/", ".") for path in LISTED)
MYPY = next(r for r in PYPROJECT["build-system"]["requires"] if r.startswith("mypy==")).removeprefix("mypy==")
SUFFIX = EXTENSION_SUFFIXES[0]  # this Python's own extension suffix, which setuptools builds with
SOURCE = "the smart bot, the views it reads and the rollouts' game run as Python source: the same moves, slower"

# Along self-play games at 2-5 players: every view (what prompts print), every decision (the move, every rating and
# the reason) and the rollout policy's choice; and every rollout score of one decision. Printed as JSON with the file
# the bot came from and the modules compiled.
PLAY = """
import hashlib, json, sys
import harness, harness.bots.smart as smart
from harness.engine.rollout_game import RolloutGame
from harness.engine.game import deck_for_seed
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
print(json.dumps({"file": smart.__file__, "compiled": harness.compiled_modules(), "seen": seen, "scores": scores}))
"""


def install(target: Path, **env: str) -> str:
    """`pip install .` of this checkout into `target` (the package alone, which runs on this venv's dependencies),
    built as any install builds it; the build's output."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-v", "--no-deps", "--target", str(target), str(ROOT)],
        env={**os.environ, **env},
        cwd=target.parent,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = done.stdout + done.stderr
    if done.returncode != 0 and "Could not find a version that satisfies the requirement" in output:
        pytest.skip("no package index reachable for the build backend")
    assert done.returncode == 0, output[-4000:]
    return output


def said(output: str) -> list[str]:
    """What the build said of compiling: its lines naming hanabi-eval."""
    return [line.strip() for line in output.splitlines() if line.strip().startswith("hanabi-eval:")]


def run(code: str, path: Path) -> str:
    """`code` run by this venv's Python with the harness package at `path` (from outside this checkout)."""
    env = {**os.environ, "PYTHONPATH": str(path)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=path.parent, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain `pip install .` of this checkout: where a C compiler is missing it skips, saying why (in CI, where
    the build must compile, it fails)."""
    target = tmp_path_factory.mktemp("install") / "site"
    lines = said(install(target))
    if lines != [f"hanabi-eval: compiled {', '.join(LISTED)} with mypyc {MYPY}"]:
        if os.environ.get("CI"):
            pytest.fail(f"a plain install did not compile: {lines}")
        pytest.skip(f"this machine's install does not compile: {lines}")
    return target


def test_a_plain_pip_install_runs_the_compiled_modules(compiled: Path) -> None:
    files = {p.relative_to(compiled).as_posix() for p in compiled.rglob(f"*{SUFFIX}")}
    assert {m.replace(".", "/") + SUFFIX for m in COMPILED} < files  # and mypyc's library, beside the package
    code = (
        f"import json, harness, {', '.join(COMPILED)}; from harness.cli.main import version_line;"
        f"print(json.dumps([[{', '.join(f'{m}.__file__' for m in COMPILED)}], harness.compiled_modules()]));"
        "print(version_line())"
    )
    imported, version = run(code, compiled).splitlines()
    files_imported, modules = json.loads(imported)
    assert all(Path(file).is_relative_to(compiled) and file.endswith(SUFFIX) for file in files_imported)
    assert modules == COMPILED
    assert version.endswith(f"; {len(COMPILED)} modules compiled with mypyc)")


def test_the_compiled_build_views_plays_and_values_exactly_as_its_source(compiled: Path) -> None:
    built = json.loads(run(PLAY, compiled))
    source = json.loads(run(PLAY, ROOT))
    assert Path(built["file"]).is_relative_to(compiled) and built["compiled"] == COMPILED
    assert source["file"] == str(ROOT / "harness" / "bots" / "smart.py") and source["compiled"] == []
    assert len(built["seen"]) > 500
    assert built["seen"] == source["seen"]
    assert built["scores"] == source["scores"]


def test_a_bot_written_elsewhere_decides_by_ratings_as_with_the_source(compiled: Path) -> None:
    # decide_by_ratings, the helper a new bot uses, calls the compiled best_index, which checks its annotation (a list
    # of numbers) at run time: a tuple of ratings, or a rating as text that the source reads with float(), still works
    code = (
        "import harness.bots.choice as c; from harness.bots.base import decide_by_ratings as d; print(c.__file__);"
        "print(d((0.1, 0.7, 0.7), ['a', 'b', 'c']).move_index, d(['0.3', 0.2], ['a', 'b']).move_index)"
    )
    file, chosen = run(code, compiled).splitlines()
    assert file.endswith(SUFFIX)
    assert chosen == "1 0"


def test_without_a_c_compiler_the_install_says_so_in_one_line_and_runs_the_source(tmp_path: Path) -> None:
    target = tmp_path / "site"
    lines = said(install(target, CC="/nonexistent/cc"))
    no_compiler = "no C compiler: /nonexistent/cc: No such file or directory; Debian: apt-get install gcc python3-dev"
    assert lines == [f"hanabi-eval: not compiled ({no_compiler}): {SOURCE}"]
    assert [p for p in target.rglob("*") if p.name.endswith(tuple(EXTENSION_SUFFIXES))] == []
    assert run("import harness.bots.smart as s; print(s.__file__)", target).strip() == str(
        target / "harness" / "bots" / "smart.py"
    )


def test_this_checkout_holds_no_compiled_module() -> None:
    # A compiled module beside its source is imported instead of it, however the source is edited afterwards: an
    # editable install never builds one, and one built by hand (`python setup.py build_ext --inplace`) must go
    assert Path(harness.__file__).parent == ROOT / "harness"
    assert harness.compiled_modules() == [], "delete these compiled modules, which hide their source's edits"
