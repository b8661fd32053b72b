"""Sizing a large grid is one pass (#29 item 15): a sweep or run of a million games is refused without --yes in one
line, with its games and model calls counted, before anything is written; the run's digest is made once per run,
never once per game (it used to be remade for every game, so checking a grid took time quadratic in its size)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main
from harness.engine.game import deck_for_seed
from harness.engine.seeds import _engine_deck
from harness.run.runner import TYPICAL_MOVES, expected_calls
from harness.run.store import RunDir
from harness.schema.config import RunConfig, SeedDeck
from harness.schema.log_file import count_moves, finished_result
from harness.schema.records import SeatConfig
from harness.session.request import RunRequest, plan_run
from harness.strategies.scaffold import calls_per_move, load_scaffold

TEN_SEEDS = ",".join(str(seed) for seed in range(1, 11))


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the run digests made (the real digest is still computed and used)."""
    made: list[int] = []
    real = RunConfig.digest

    def counted(self: RunConfig) -> str:
        made.append(1)
        return real(self)

    monkeypatch.setattr(RunConfig, "digest", counted)
    return made


def test_a_sweep_of_a_million_games_is_refused_in_one_line_with_one_digest_per_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], digests: list[int]
) -> None:
    sweep = tmp_path / "million.toml"
    sweep.write_text(
        f'name = "million"\nplayers = [2, 3, 4, 5]\nseeds = ["{TEN_SEEDS}"]\nrepeats = 12500\n'
        'scaffolds = ["watson", "sherlock"]\n[[models]]\nmodel = "local/smart"\n'
    )
    out = tmp_path / "out"
    assert main(["run", "--config", str(sweep), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hanabi-eval: error: 1,000,000 games to play (about ") and "add --yes" in err, err
    assert len(err.splitlines()) == 1
    assert not out.exists()
    assert len(digests) <= 2 * 2  # two runs (one per scaffold): a digest each for its name, at most twice


def test_a_run_of_a_million_games_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], digests: list[int]
) -> None:
    out = tmp_path / "out"
    argv = ["run", "--seeds", TEN_SEEDS, "--players", "2", "3", "4", "5", "--repeats", "25000", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "1,000,000 games to play (about 61,500,000 model calls before retries); add --yes" in err, err
    assert not out.exists() and len(digests) <= 2


def _seed_file(path: Path, count: int, first: int = 100_000) -> Path:
    path.write_text("".join(f'{{"seed": {seed}}}\n' for seed in range(first, first + count)))
    return path


@pytest.mark.parametrize("through", ["run", "sweep"])
def test_a_seed_file_of_many_seeds_without_decks_is_refused_before_the_engine_deals_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], through: str
) -> None:
    seeds = _seed_file(tmp_path / "many.jsonl", 50_000, first=100_000 if through == "run" else 300_000)
    dealt = _engine_deck.cache_info().misses
    out = tmp_path / "out"
    if through == "run":
        argv = ["run", "--seeds", str(seeds), "--out", str(out)]
    else:
        sweep = tmp_path / "many.toml"
        sweep.write_text(
            f'name = "many"\nplayers = [2]\nseeds = ["{seeds}"]\nscaffolds = ["watson"]\n'
            '[[models]]\nmodel = "local/smart"\n'
        )
        argv = ["run", "--config", str(sweep), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "hanabi-eval: error: 50,000 games to play (about 3,350,000 model calls before retries); add --yes to start "
        "a run this large"
    )
    assert _engine_deck.cache_info().misses == dealt  # dealing 50,000 decks took 35 s before the refusal
    assert not out.exists()


def test_with_yes_an_unusable_out_is_still_refused_before_the_decks_are_dealt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = _seed_file(tmp_path / "many.jsonl", 5_000, first=500_000)
    (tmp_path / "notes.txt").write_text("a file")
    dealt = _engine_deck.cache_info().misses
    assert main(["run", "--seeds", str(seeds), "--yes", "--out", str(tmp_path / "notes.txt" / "runs")]) == 2
    assert "notes.txt is a file; give a folder for the run directories" in capsys.readouterr().err
    assert _engine_deck.cache_info().misses == dealt


def test_a_run_sized_before_its_decks_are_dealt_is_asked_once_and_dealt_as_before(tmp_path: Path) -> None:
    seeds = _seed_file(tmp_path / "some.jsonl", 1_100, first=200_000)
    asked: list[tuple[int, int]] = []
    said: list[str] = []
    request = RunRequest(seeds=str(seeds), players=[2, 3], out=tmp_path, given={"yes": False})
    _, config, options = plan_run(request, lambda games, calls: asked.append((games, calls)), said.append)
    assert asked == [expected_calls([(config, RunDir(tmp_path / "new"))])] == [(2_200, 140_800)]
    assert said == ["Dealing 1,100 decks from the engine before the first game ..."]
    assert options.yes  # the games start without asking again
    assert [s.seed for s in config.seeds] == list(range(200_000, 201_100))
    assert config.seeds[-1].deck == tuple(deck_for_seed(201_099))


def _seat(model: str) -> SeatConfig:
    return SeatConfig(model=model, scaffold="watson")


def _config(seats: tuple[SeatConfig, ...], players: tuple[int, ...], rotation: str = "seed") -> RunConfig:
    seeds = (
        SeedDeck(seed=7, deck=_deck(), seed_set="custom"),
        SeedDeck(seed=123456, deck=_deck(), seed_set="a-longer-set-name"),
        SeedDeck(seed=99, deck=_deck(), seed_set="a-longer-set-name"),
    )
    return RunConfig(seats=seats, players=players, seeds=seeds, rotation=rotation, repeats=12)  # type: ignore[arg-type]


def _deck(seed: int = 1) -> tuple[str, ...]:
    return tuple(deck_for_seed(seed))


@pytest.mark.parametrize(
    "config",
    [
        _config((_seat("local/smart"),), (2, 3, 5)),
        _config((_seat("local/smart"), _seat("local/cautious"), _seat("local/smart")), (3,), "all"),
        _config((_seat("local/smart"), _seat("local/cautious")), (2,), "seed"),
    ],
    ids=["self-play", "team, every seating", "team, one seating per seed"],
)
def test_counting_without_listing_agrees_with_the_plan(config: RunConfig) -> None:
    plans = config.plans()
    assert config.game_count() == len(plans)
    assert [game_id for game_id, _ in config.game_ids()] == [p.game_id for p in plans]
    longest = max((p.game_id for p in plans), key=lambda game_id: len(game_id.encode()))
    assert len(config.longest_game_id().encode()) == len(longest.encode())


def test_expected_calls_read_only_the_logs_there_are_and_agree_with_a_game_by_game_count(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["run", "--seeds", "1,2", "--out", str(out), "--no-progress"]) == 0
    (run_path,) = [p for p in out.iterdir() if p.is_dir()]
    run = RunDir(run_path)
    seeds = tuple(SeedDeck(seed=s, deck=_deck(s), seed_set="custom") for s in (1, 2, 3))
    config = _config((_seat("local/smart"),), (2, 3)).model_copy(update={"seeds": seeds, "repeats": 1})
    # of the run's two logs, one stays finished and one is cut after its fifth move; the other games have none
    half = run.game_path("2p-custom-seed2")
    half.write_text("\n".join(half.read_text().splitlines()[:6]) + "\n")
    by_game, expected = 0, 0.0
    for plan in config.plans():
        path = run.game_path(plan.game_id)
        if finished_result(path) is not None:
            continue
        per_move = sum(calls_per_move(load_scaffold(s.scaffold, s.k), plan.players) for s in plan.seats)
        by_game += 1
        expected += max(TYPICAL_MOVES[plan.players] - count_moves(path), 1) * per_move / plan.players
    assert by_game == 5  # every game but the finished one (2p seed 1)
    assert expected_calls([(config, run)]) == (by_game, round(expected))
    fresh = RunDir(tmp_path / "never-made")
    assert expected_calls([(config, fresh)]) == (6, sum(3 * TYPICAL_MOVES[p] for p in (2, 3)))
