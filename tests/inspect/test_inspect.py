"""The Inspect AI route: `inspect eval hanabi_eval/hanabi` run for real as a subprocess, its log imported with
`hanabi-eval import-inspect`, and every game compared move for move with `hanabi-eval run` on the same seeds: offline
with the built-in players (`hanabi/smart` against `local/smart`), and against the scripted OpenAI-compatible server
through Inspect's own `openai` provider (bad replies re-asked exactly as `hanabi-eval run` re-asks them; provider
errors retried by Inspect; a provider that stays down stops the game, the sample errors, and the import keeps it as
an interrupted game)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.cli.main import main
from harness.inspect.options import parse_options
from harness.schema.errors import Refused
from harness.schema.log_file import GameLogContents, read_game_log
from harness.schema.records import PROVIDER_ERROR_KINDS, Attempt
from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.helpers import refused

if TYPE_CHECKING:  # Inspect itself is imported by the tests that read its logs, not by every worker's collection
    from inspect_ai.log import EvalLog

INSPECT = Path(sys.executable).with_name("inspect")


class InspectEval:
    """`inspect eval hanabi_eval/hanabi ARGS` started in a subprocess, so that the test plays the same games with
    `hanabi-eval run` (or Inspect waits out its retry back-offs) meanwhile; `result()` waits for it."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.logs = tmp_path / "inspect-logs"
        self.output = tmp_path / "inspect-output.txt"
        environment = {
            **os.environ,
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),  # Inspect's traces and caches stay in this test's folder
            "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
            **(env or {}),
        }
        with self.output.open("w") as output:  # a file, not a pipe: no pipe fills up while the test works
            self.process = subprocess.Popen(
                [str(INSPECT), "eval", "hanabi_eval/hanabi", "--log-dir", str(self.logs), "--display", "plain",
                 *args],
                env=environment,
                cwd=tmp_path,
                stdout=output,
                stderr=subprocess.STDOUT,
                text=True,
            )

    def result(self) -> tuple[int, EvalLog, str]:
        """Its exit code, its log and its output, once it is over."""
        from inspect_ai.log import read_eval_log

        try:
            code = self.process.wait(timeout=600)
        finally:
            self.stop()
        output = self.output.read_text()
        found = sorted(self.logs.glob("*.eval"))
        assert found, output
        return code, read_eval_log(str(found[-1])), output

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> InspectEval:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()  # a test that failed before waiting for it leaves no eval running


def games_of(folder: Path) -> dict[str, GameLogContents]:
    """The game logs of the one run folder in `folder`, by game id."""
    (run,) = [p for p in folder.iterdir() if p.is_dir()]
    return {path.stem: read_game_log(path) for path in sorted((run / "games").glob("*.jsonl"))}


def import_log(log: EvalLog, out: Path) -> int:
    return main(["import-inspect", log.location, "--out", str(out)])


def asked(attempt: Attempt) -> tuple[Any, ...]:
    """What an attempt sent and got, apart from its number, timing and the model's name."""
    return ([m.model_dump() for m in attempt.messages], attempt.reply, attempt.error_kind, attempt.error)


def assert_same_games(ours: GameLogContents, theirs: GameLogContents) -> None:
    """The same moves, from the same prompts and replies (provider errors aside), to the same result."""
    assert [(m.turn, m.seat, m.move_index, m.move) for m in ours.moves] == [
        (m.turn, m.seat, m.move_index, m.move) for m in theirs.moves
    ]
    for mine, other in zip(ours.moves, theirs.moves, strict=True):
        for call, twin in zip(mine.calls, other.calls, strict=True):
            kept = [asked(a) for a in twin.attempts if a.error_kind not in PROVIDER_ERROR_KINDS]
            assert [asked(a) for a in call.attempts] == kept
    assert ours.result is not None and theirs.result is not None
    for field in ("status", "fireworks_score", "engine_score", "end_reason", "turns", "invalid_replies"):
        assert getattr(ours.result, field) == getattr(theirs.result, field), field


@dataclass(frozen=True)
class SmartEval:
    """One `inspect eval --model hanabi/smart` on 2 and 3 players, its log imported, and `hanabi-eval run` of the
    same games: shared by the tests below, so that the eval runs once."""

    log: EvalLog
    folder: Path  # the tests' own folder
    imported: dict[str, GameLogContents]
    played: dict[str, GameLogContents]


@pytest.fixture(scope="module")
def smart(tmp_path_factory: pytest.TempPathFactory) -> SmartEval:
    tmp_path = tmp_path_factory.mktemp("smart")
    with InspectEval(tmp_path, "--model", "hanabi/smart", "-T", "players=2,3", "-T", "seeds=1") as started:
        assert main(["run", "--model", "local/smart", "--players", "2", "3", "--seeds", "1",
                     "--out", str(tmp_path / "run"), "--no-progress"]) == 0
        code, log, output = started.result()
    assert code == 0 and log.status == "success", output
    assert import_log(log, tmp_path / "inspect") == 0
    return SmartEval(log, tmp_path, games_of(tmp_path / "inspect"), games_of(tmp_path / "run"))


def test_the_built_in_players_play_the_same_games_under_inspect_as_under_hanabi_eval_run(smart: SmartEval) -> None:
    log = smart.log
    assert [s.id for s in log.samples or []] == ["2p-custom-seed1", "3p-custom-seed1"]
    sample = (log.samples or [])[0]
    assert sample.metadata["seed"] == 1 and len(sample.metadata["deck_digest"]) == 16
    assert [e.event for e in sample.events].count("model") == len(sample.metadata["hanabi_log"]) - 2
    assert list(smart.imported) == list(smart.played)
    for game_id, contents in smart.imported.items():
        assert_same_games(contents, smart.played[game_id])
    # Inspect's metrics are the games' scores
    scores = [smart.played[s.id].result.fireworks_score for s in log.samples or []]  # type: ignore[union-attr]
    assert log.results is not None
    metrics = {(s.name, m.name): m.value for s in log.results.scores for m in s.metrics.values()}
    assert metrics[("fireworks", "mean")] == pytest.approx(sum(scores) / len(scores))
    assert metrics[("complete", "mean")] == 1.0 and metrics[("reasked", "moves_reasked")] == 0.0


def test_an_imported_inspect_log_is_a_run_that_report_export_and_values_read(
    smart: SmartEval, capsys: pytest.CaptureFixture[str]
) -> None:
    # the imported run is a run like any other: listed, reported, exported, valued; importing again changes nothing
    tmp_path = smart.folder
    run_dir = next((tmp_path / "inspect").iterdir())
    assert json.loads((run_dir / "status.json").read_text())["status"] == "complete"
    assert main(["report", str(tmp_path / "inspect"), "--out", str(tmp_path / "report")]) == 0
    assert main(["export", str(run_dir), "--format", "hanabirewards", "--out", str(tmp_path / "export")]) == 0
    rows = (tmp_path / "export" / "hanabirewards.jsonl").read_text().splitlines()
    assert len(rows) == sum(len(c.moves) for c in smart.imported.values())
    assert main(["values", str(run_dir), "--rollouts", "1", "--from-turn", "60"]) == 0
    before = {p: p.read_bytes() for p in (run_dir / "games").iterdir()}
    assert import_log(smart.log, tmp_path / "inspect") == 0
    assert {p: p.read_bytes() for p in (run_dir / "games").iterdir()} == before
    # but only Inspect plays its seats (Inspect models): resume says how to go on instead
    capsys.readouterr()
    assert "`inspect eval-retry` on that log plays its errored" in refused(["resume", str(run_dir)], capsys)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Inspect's own, of the retry library it calls
@pytest.mark.usefixtures("inspect_home")
def test_a_mixed_team_with_multi_call_scaffolds_plays_as_under_hanabi_eval_run(tmp_path: Path) -> None:
    # a mixture of agents (5 calls a move at 2 players) beside Mycroft's working memory, as a team of two players;
    # Inspect run in this process (`inspect eval` itself runs as a subprocess in the tests above)
    team = "hanabi/smart:moa-watson,hanabi/cautious:mycroft"
    log, contents = eval_here(tmp_path, "hanabi/smart", {"seats": team, "seeds": "3"})
    assert log.status == "success"
    assert main(["run", "--seat", "local/smart:moa-watson", "--seat", "local/cautious:mycroft", "--seeds", "3",
                 "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    ((other_id, other),) = games_of(tmp_path / "run").items()
    assert contents.header is not None and contents.header.game_id == other_id == "2p-custom-seed3-r0"
    assert [s.model for s in contents.header.seats] == ["hanabi/smart", "hanabi/cautious"]  # type: ignore[union-attr]
    assert {c.role for c in contents.moves[0].calls} == {c.role for c in other.moves[0].calls}
    assert len(contents.moves[0].calls) == 5
    assert_same_games(contents, other)
    assert contents.moves[1].memory == other.moves[1].memory


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"scaffold": "sherlok"}, "scaffold: unknown scaffold 'sherlok' (did you mean sherlock?)"),
        ({"players": ["2", "6"]}, "players: 2 6 is outside 2-5"),
        ({"players": "²"}, "players: '²' is not a player count"),
        ({"repeats": "²"}, "repeats: '²': give one whole number"),
        ({"seeds": "nosuch"}, "seeds: 'nosuch'"),
        ({"seats": "openai/a:watson,hanabi/smart:holmes"}, "unknown scaffold 'holmes'"),
        ({"seats": "openai/a,hanabi/smart", "players": 3}, "a team of 2 seats plays 2-player games only"),
        ({"repeats": 0}, "repeats: 0 must be 1 or more"),
        ({"max_retries": -1}, "max_retries: -1 must be a whole number, 0 or more"),
        ({"rotation": "all"}, "rotation: all: every seat is the same player"),
    ],
)
def test_bad_task_options_are_refused_naming_the_option(options: dict[str, Any], named: str) -> None:
    with pytest.raises(Refused, match="hanabi task option") as refused:
        parse_options(**options)
    assert named in str(refused.value)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Inspect's own, of the retry library it calls
@pytest.mark.usefixtures("inspect_home")
def test_a_built_in_player_asked_outside_the_hanabi_task_is_refused_naming_the_task() -> None:
    import asyncio

    from inspect_ai.model import get_model

    import hanabi_eval._registry  # noqa: F401  (registers the hanabi/ model API)

    with pytest.raises(Refused, match="plays only the seats of the hanabi_eval/hanabi task"):
        asyncio.run(get_model("hanabi/smart").generate("Which card do you play?"))


@pytest.mark.parametrize("text", ["{}", "not a log"], ids=["json of something else", "not json"])
def test_importing_a_file_that_is_no_inspect_log_is_refused_in_one_line_naming_what_to_give(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = tmp_path / "other.json"
    given.write_text(text)
    line = refused(["import-inspect", str(given), "--out", str(tmp_path / "out")], capsys)
    assert line.startswith(f"hanabi-eval: error: {given}: not a readable Inspect log (")
    assert line.endswith("give the .eval or .json log that `inspect eval hanabi_eval/hanabi` wrote")
    assert not (tmp_path / "out").exists()


def test_inspect_eval_refuses_a_bad_option_in_one_line_before_any_game_starts(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(INSPECT), "eval", "hanabi_eval/hanabi", "--model", "mockllm/model", "-T", "scafold=sherlock",
         "--log-dir", str(tmp_path / "logs")],
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "hanabi task option scafold: the hanabi task has no such option (did you mean scaffold?)" in " ".join(
        (done.stdout + done.stderr).split()
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "logs").exists()  # nothing ran, nothing was written


# ---- against the scripted OpenAI-compatible server, through Inspect's openai provider ------------------------------

BAD = {
    "prose": "I think I should play my oldest card, it feels right.",
    "ambiguous": "Reasoning: both work.\nChosen Move Number: 1\nChosen Move Number: 2",
    "illegal": "Reasoning: go.\nChosen Move Number: 99",
}


class Messy:
    """A model that, for each new prompt, first answers badly (prose, two moves, an illegal move) by the prompt's
    place in the game, and answers well when re-asked; the 3rd new prompt first gets a 500 and the 6th a 429 (both
    retried by the client). Only the first ask of a prompt misbehaves, so both routes see the same replies."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}  # requests so far per prompt
        self.order: dict[str, int] = {}  # the prompt's place among the prompts seen
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        key = hashlib.sha256(json.dumps(request["messages"][:2]).encode()).hexdigest()
        with self.lock:
            count = self.seen.get(key, 0)
            self.seen[key] = count + 1
            fresh = self.order.setdefault(key, len(self.order) + 1)
        if any(m["role"] == "assistant" for m in request["messages"]):
            return careful_player(request)  # a re-ask
        if count == 0 and fresh == 3:
            return Reply(status=500)
        if count == 0 and fresh == 6:
            return Reply(status=429, headers={"Retry-After": "0"})
        kind = ("prose", "ambiguous", "illegal", None, None)[fresh % 5]
        if count <= (1 if fresh in (3, 6) else 0) and kind is not None:
            return Reply(content=BAD[kind])
        return careful_player(request)


KEY = {"OPENAI_API_KEY": "sk-test-inspect-0000"}
# Inspect's own `openai` provider, for a model it knows (it asks gpt-4.1 through Chat Completions, the scripted server's
# API); the SDK's own retries are off, so that Inspect's retry layer is the one that retries provider errors
OPENAI = ["--model", "openai/gpt-4.1", "-M", "max_retries=0"]


@pytest.fixture(scope="module", autouse=True)
def messy_eval(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[InspectEval, FakeModelServer]]:
    """The Inspect side of the test below, started as this module's tests start: Inspect waits 3 to 6 s before each
    retry of a provider error, and those waits pass while the other tests run."""
    with FakeModelServer(Messy()) as server:
        team = "seats=openai/gpt-4.1:watson,hanabi/smart:sherlock"
        args = [*OPENAI, "--model-base-url", server.base_url, "-T", team, "-T", "seeds=1"]
        with InspectEval(tmp_path_factory.mktemp("messy"), *args, env=KEY) as started:
            yield started, server


def test_bad_replies_are_re_asked_through_inspect_exactly_as_hanabi_eval_run_re_asks_them(
    tmp_path: Path, messy_eval: tuple[InspectEval, FakeModelServer]
) -> None:
    from inspect_ai.log import resolve_sample_attachments

    started, inspect_server = messy_eval
    code, log, output = started.result()
    inspect_requests = len(inspect_server.exchanges)
    assert code == 0, output
    with FakeModelServer(Messy()) as server:
        assert main(["run", "--seat", f"openai/gpt-4.1:watson,api_base={server.base_url}",
                     "--seat", "local/smart:sherlock", "--seeds", "1", "--out", str(tmp_path / "run"),
                     "--no-progress", "--retry-wait", "0.01", "--retry-wait-max", "0.05"]) == 0
        run_requests = len(server.exchanges)
    assert import_log(log, tmp_path / "inspect") == 0
    ((_, ours),), ((_, theirs),) = games_of(tmp_path / "inspect").items(), games_of(tmp_path / "run").items()
    assert_same_games(ours, theirs)
    kinds = [a.error_kind for m in ours.moves for c in m.calls for a in c.attempts if a.error_kind]
    assert {"unparseable", "ambiguous", "illegal_move"} <= set(kinds)
    assert not PROVIDER_ERROR_KINDS & set(kinds)  # Inspect retried them: no attempt of the harness's
    retried = [a.error_kind for m in theirs.moves for c in m.calls for a in c.attempts if a.error_kind]
    assert sorted(set(retried) & PROVIDER_ERROR_KINDS) == ["rate_limited", "server_error"]
    assert inspect_requests == run_requests  # the same requests reached the server, the two failed ones included
    sample = resolve_sample_attachments((log.samples or [])[0])
    failed = [e for e in sample.events if e.event == "model" and e.error]
    assert len(failed) == 2  # Inspect's transcript shows the two requests it retried
    assert sample.scores is not None
    score = sample.scores["hanabi_score"]
    assert score.value["complete"] == 1.0 and score.value["reasked"] > 0  # type: ignore[index]
    turns = [e.data for e in sample.events if e.event == "info"]
    assert len(turns) == len(ours.moves) and any("rejected: `ambiguous`" in str(t) for t in turns)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.usefixtures("inspect_home")
def test_a_provider_that_stays_down_errors_the_sample_and_imports_as_an_interrupted_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answered: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        if len(answered) >= 4:
            return Reply(status=500)
        answered.append(1)
        return careful_player(request)

    with FakeModelServer(script) as server:
        # the server named the other way Inspect's openai provider takes it, OPENAI_BASE_URL; a model name Inspect
        # does not know it takes for its newest model and asks through the Responses API unless told otherwise
        monkeypatch.setenv("OPENAI_API_KEY", KEY["OPENAI_API_KEY"])
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        model_args = {"responses_api": False, "max_retries": 0}
        log, contents = eval_here(
            tmp_path, "openai/fake-model", {"seeds": "1"}, 1, model_args=model_args, max_retries=0
        )
    assert log.status == "error"
    sample = (log.samples or [])[0]
    assert sample.error is not None and "stopped" in sample.error.message
    assert len(contents.moves) == 4
    assert contents.result is not None and contents.result.status == "interrupted"
    (failed,) = contents.result.failed_calls
    assert [a.error_kind for a in failed.attempts] == ["server_error"]
    run_dir = next((tmp_path / "inspect").iterdir())
    assert json.loads((run_dir / "status.json").read_text())["status"] == "interrupted"
    for path in [run_dir / "manifest.json", *run_dir.rglob("*.jsonl")]:
        assert "sk-test-inspect-0000" not in path.read_text()


def eval_here(
    tmp_path: Path, model: str, task: dict[str, str], imported: int = 0, **options: Any
) -> tuple[EvalLog, GameLogContents]:
    """`inspect eval hanabi_eval/hanabi` of one game with the task options `task`, through Inspect's Python API in
    this process (no subprocess importing Inspect anew): its log, and its game as `import-inspect` imports it
    (exiting with `imported`: 1 when the game did not finish)."""
    from inspect_ai import eval as inspect_eval

    from hanabi_eval._registry import hanabi

    (log,) = inspect_eval(
        hanabi(**task), model=model, log_dir=str(tmp_path / "inspect-logs"), display="none", **options
    )
    assert import_log(log, tmp_path / "inspect") == imported
    ((_, contents),) = games_of(tmp_path / "inspect").items()
    return log, contents


def limited_game(
    tmp_path: Path, model: str, scaffold: str = "moa-watson", **options: Any
) -> tuple[Any, GameLogContents]:
    """One game (by default of a mixture of agents: five calls a move at 2 players) under an Inspect limit, through
    Inspect's Python API in this process: its sample and its imported log."""
    log, contents = eval_here(tmp_path, model, {"scaffold": scaffold, "seeds": "1"}, **options)
    return (log.samples or [])[0], contents


@pytest.fixture
def inspect_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect's traces and caches in the test's folder, for Inspect run in this process."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Inspect's own, of the retry library it calls
@pytest.mark.usefixtures("inspect_home")
def test_a_token_limit_ends_the_game_with_every_token_it_counted_in_the_imported_log(tmp_path: Path) -> None:
    # the call that reached the limit is in the log, as are the move's other answered calls
    sample, contents = limited_game(tmp_path, "hanabi/smart", token_limit=20_000)
    assert sample.error is None and sample.limit is not None and sample.limit.type == "token"
    counted = sum(u.total_tokens for u in sample.model_usage.values())
    assert counted > 20_000
    assert contents.result is None  # unfinished
    stopped = contents.records()[-1]
    assert stopped.status == "stopped"  # type: ignore[union-attr]
    assert stopped.interrupted_reason == "Inspect's token limit (20,000) ended the game during this move"  # type: ignore[union-attr]
    logged = [a for m in contents.moves for c in m.calls for a in c.attempts]
    logged += [a for c in stopped.failed_calls for a in c.attempts]  # type: ignore[union-attr]
    assert sum(a.usage.prompt_tokens + a.usage.completion_tokens for a in logged) == counted
    from inspect_ai.log import resolve_sample_attachments

    events = resolve_sample_attachments(sample).events
    turns = [str(e.data) for e in events if e.event == "info"]  # `inspect view` shows the stopped turn too
    assert len(turns) == len(contents.moves) + 1 and "Inspect's token limit (20,000)" in turns[-1]
    # the report lists the game as not complete, saying why
    assert main(["report", str(tmp_path / "inspect"), "--out", str(tmp_path / "report")]) == 0
    listed = (tmp_path / "report" / "report.md").read_text()
    moves = len(contents.moves)
    assert f"| unfinished | {moves} | Inspect's token limit (20,000) ended the game during this move |" in listed
    # and the viewer's stopped move shows the calls it was answered as answered, not used: no move was made
    assert main(["view", str(tmp_path / "inspect"), "--out", str(tmp_path / "site")]) == 0
    (page,) = (tmp_path / "site").glob("runs/*/games/*.html")
    stop = page.read_text().split('class="step stop"')[1]
    assert '<span class="good">answered</span>' in stop and '<span class="good">used</span>' not in stop


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.usefixtures("inspect_home")
def test_a_time_limit_cancels_the_game_and_its_stopped_move_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answered: list[int] = []

    def script(request: dict[str, Any]) -> Reply:  # two calls of the first move answered, the others too late
        answered.append(1)
        return careful_player(request) if len(answered) <= 2 else Reply(delay_s=30.0)

    monkeypatch.setenv("OPENAI_API_KEY", KEY["OPENAI_API_KEY"])
    with FakeModelServer(script) as server:  # Inspect's own openai provider, its SDK's retries off
        sample, contents = limited_game(
            tmp_path, "openai/gpt-4.1", model_base_url=server.base_url, model_args={"max_retries": 0}, time_limit=3
        )
    assert sample.limit is not None and sample.limit.type == "time"
    (stopped,) = contents.results
    assert contents.result is None and stopped.status == "stopped"
    assert stopped.interrupted_reason.startswith("Inspect cancelled the game during this move")  # type: ignore[union-attr]
    assert len(stopped.failed_calls) == 2  # the move's two answered calls


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.usefixtures("inspect_home")
def test_replies_from_inspects_cache_cost_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_ai.model import ModelCost

    monkeypatch.setenv("OPENAI_API_KEY", KEY["OPENAI_API_KEY"])
    price = ModelCost(input=2.0, output=8.0, input_cache_write=2.0, input_cache_read=0.5)
    with FakeModelServer(careful_player, model_name="gpt-4.1") as server:

        def attempts(folder: str) -> list[Attempt]:
            _, contents = limited_game(
                tmp_path / folder, "openai/gpt-4.1", "watson", model_base_url=server.base_url, cache=True,
                token_limit=6_000, model_cost_config={"openai/gpt-4.1": price},
            )  # fmt: skip
            return [a for m in contents.moves for c in m.calls for a in c.attempts]

        first, again = attempts("first"), attempts("again")  # the second goes further: Inspect counts no cached token
    assert len(again) > len(first) and [a.reply for a in again[: len(first)]] == [a.reply for a in first]
    assert all(a.cost_usd for a in first)
    assert {a.cost_usd for a in again[: len(first)]} == {0.0}  # the same calls answered from the cache: no spend
    assert all(a.cost_usd for a in again[len(first) :])
