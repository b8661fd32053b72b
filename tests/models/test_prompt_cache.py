"""Prompt caching and the budget, against a real Anthropic Messages server on 127.0.0.1 (tests/fakeserver.py): where
the cache marks go and that the model reads the same text, the cache tokens in the log, the cost, the summary, `runs`
and the report, calls that share a prefix waiting for the first, `--max-cost` stopping at the call that could pass
it and `resume` finishing the game as an unbudgeted run plays it, Anthropic's errors, and the OpenAI path."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.engine.game import Game, deck_for_seed
from harness.models.client import ModelClient, litellm, run_calls
from harness.models.prompt_cache import cache_style, minimum_tokens, place_marks, wire_messages
from harness.play.agent import SeatAgent
from harness.schema.config import RetryPolicy
from harness.schema.log_file import read_game_log
from harness.schema.records import Attempt, CacheBreak, GenerationParams, Message, SeatConfig
from harness.strategies.scaffold import load_scaffold
from harness.view.builder import build_view
from tests.fakeserver import FakeAnthropicServer, FakeModelServer, Reply, careful_player, legal_moves_in
from tests.helpers import ROOT

MODEL = "anthropic/claude-sonnet-4-5"  # LiteLLM's prices: cache reads at a tenth of the input, writes at 1.25 x
KEY = "sk-ant-test-key-not-a-secret"
MAX_TOKENS = "400"


def play(server_url: str, out: Path, *extra: str, scaffold: str = "mycroft") -> tuple[int, str, str]:
    """`hanabi-eval run` of one 2-player game of seed 1 against the server; (exit code, stdout, stderr)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["run", "--model", MODEL, "--api-base", server_url, "--scaffold", scaffold, "--seeds", "1",
            "--max-tokens", MAX_TOKENS, "--out", str(out), "--no-progress", *extra]  # fmt: skip
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stdout.getvalue(), stderr.getvalue()


def the_log(out: Path) -> Path:
    (path,) = out.glob("*/games/*.jsonl")
    return path


def attempts_of(path: Path) -> list[Attempt]:
    contents = read_game_log(path)
    calls = [c for m in contents.moves for c in m.calls] + contents.failed_calls
    return [a for c in calls for a in c.attempts]


def prices() -> dict[str, float]:
    entry = litellm().model_cost[MODEL.split("/", 1)[1]]
    return {
        "input": entry["input_cost_per_token"],
        "output": entry["output_cost_per_token"],
        "read": entry["cache_read_input_token_cost"],
        "write": entry["cache_creation_input_token_cost"],
    }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The paper's Mycroft, one game, with prompt caching (the default) and with --prompt-cache off, each against a
    server of its own."""
    root = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", KEY)
        with FakeAnthropicServer(careful_player) as on, FakeAnthropicServer(careful_player) as off:
            code_on, out_on, _ = play(on.base_url, root / "on")
            code_off, _, _ = play(off.base_url, root / "off", "--prompt-cache", "off")
            yield {"root": root, "on": on, "off": off, "stdout": out_on, "codes": (code_on, code_off)}


def test_claude_requests_mark_the_rules_at_the_head_of_mycroft_and_never_more_than_four(
    played: dict[str, Any],
) -> None:
    assert played["codes"] == (0, 0)
    on, off = played["on"], played["off"]
    attempts = attempts_of(the_log(played["root"] / "on"))
    assert len(attempts) == len(on.exchanges)
    for attempt, exchange in zip(attempts, on.exchanges, strict=True):
        blocks = FakeAnthropicServer.blocks(exchange.request)
        marked = [i for i, (_, _, mark) in enumerate(blocks) if mark]
        assert 1 <= len(marked) <= 4
        head, rest = exchange.request["messages"][0]["content"][:2]  # the one user message, split in two blocks
        assert "cache_control" in head and "cache_control" not in rest
        assert head["text"].rstrip().endswith(load_rules_end())  # the rules and instructions, then the state
        assert rest["text"].startswith("You are Player") or "Turn" in rest["text"][:80]
        assert attempt.cache_marks is not None
        assert [(m.message, m.chars) for m in attempt.cache_marks] == [(0, len(head["text"]))]
        assert attempt.cache_marks[0].tokens >= 1_024
    assert not any(
        mark for exchange in off.exchanges for _, _, mark in FakeAnthropicServer.blocks(exchange.request)
    )  # --prompt-cache off: no marks
    assert all(a.cache_marks is None for a in attempts_of(the_log(played["root"] / "off")))


def load_rules_end() -> str:
    """The last words of Mycroft's rules and instructions, as the offline player's prompt shows them."""
    text = (ROOT / "prompts" / "mycroft" / "_instructions.j2").read_text()
    return text.strip().splitlines()[-1].strip()[-40:]


def test_the_model_reads_the_text_of_the_uncached_run_byte_for_byte(played: dict[str, Any]) -> None:
    on, off = played["on"], played["off"]
    assert len(on.exchanges) == len(off.exchanges)
    for cached, plain in zip(on.exchanges, off.exchanges, strict=True):
        read = FakeAnthropicServer.as_openai(cached.request)["messages"]
        assert read == FakeAnthropicServer.as_openai(plain.request)["messages"]
    logged_on = [[m.model_dump() for m in a.messages] for a in attempts_of(the_log(played["root"] / "on"))]
    logged_off = [[m.model_dump() for m in a.messages] for a in attempts_of(the_log(played["root"] / "off"))]
    assert logged_on == logged_off  # the log keeps the same prompt text
    assert all(isinstance(m["content"], str) for messages in logged_on for m in messages)


def test_cache_reads_and_writes_are_logged_priced_and_summed(played: dict[str, Any]) -> None:
    price = prices()
    contents = read_game_log(the_log(played["root"] / "on"))
    attempts = attempts_of(the_log(played["root"] / "on"))
    for attempt, exchange in zip(attempts, played["on"].exchanges, strict=True):
        use = exchange.cache_use
        assert attempt.usage.cached_tokens == use.read
        assert attempt.usage.cache_write_tokens == use.written
        assert attempt.usage.prompt_tokens == use.read + use.written + use.uncached
        expected = (
            use.uncached * price["input"]
            + use.read * price["read"]
            + use.written * price["write"]
            + attempt.usage.completion_tokens * price["output"]
        )
        assert attempt.cost_usd == pytest.approx(expected)
        saving = use.read * (price["input"] - price["read"]) - use.written * (price["write"] - price["input"])
        assert (attempt.cache_saving_usd or 0.0) == pytest.approx(saving)
    assert attempts[0].usage.cache_write_tokens > 1_024 and attempts[0].usage.cached_tokens == 0  # the first writes
    assert all(a.usage.cached_tokens == attempts[0].usage.cache_write_tokens for a in attempts[2:])  # the rest read
    result = contents.result
    assert result is not None
    assert result.usage.cached_tokens == sum(a.usage.cached_tokens for a in attempts)
    assert result.cache_saving_usd == pytest.approx(sum(a.cache_saving_usd or 0.0 for a in attempts))
    share = result.usage.cached_tokens / result.usage.prompt_tokens
    assert 0.5 < share < 0.8  # Mycroft's rules and instructions: about 65% of its prompt (BENCHMARKS.md 4)
    assert f"{share:.0%} of prompt tokens read from the cache" in played["stdout"]
    assert f"saved ${result.cache_saving_usd:.4f}" in played["stdout"]


def test_caching_saves_what_the_uncached_game_costs_more(played: dict[str, Any]) -> None:
    on = read_game_log(the_log(played["root"] / "on")).result
    off = read_game_log(the_log(played["root"] / "off")).result
    assert on is not None and off is not None and on.cost_usd is not None and off.cost_usd is not None
    assert off.usage.cached_tokens == 0 and off.cache_saving_usd is None
    assert on.cost_usd < 0.6 * off.cost_usd
    assert off.cost_usd - on.cost_usd == pytest.approx(on.cache_saving_usd)


def test_runs_and_the_report_show_the_cached_share_and_the_saving(
    played: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = read_game_log(the_log(played["root"] / "on")).result
    assert result is not None and result.cache_saving_usd is not None
    share = result.usage.cached_tokens / result.usage.prompt_tokens
    assert main(["runs", str(played["root"])]) == 0
    listing = capsys.readouterr().out
    assert "cached" in listing and f"{share:.0%} · saved ${result.cache_saving_usd:.2f}" in listing
    assert main(["report", str(played["root"] / "on"), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert f"Prompt cache: {100 * share:.1f}% of the prompt tokens read from the cache" in report
    assert f"saving ${result.cache_saving_usd:.4f}" in report


def test_no_key_reaches_a_file(played: dict[str, Any]) -> None:
    for path in played["root"].rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


def worst_case(attempt: Attempt) -> float:
    """What the harness may reserve for a request at most (its documented bound): the prompt by LiteLLM's count with
    25% more and 8 tokens a message, all at the cache-write price, and --max-tokens of reply."""
    price = prices()
    counted = sum(litellm().token_counter(model=MODEL, text=m.content) for m in attempt.messages)
    tokens = math.ceil(counted * 1.25) + 8 * len(attempt.messages)
    return tokens * max(price["input"], price["write"]) + int(MAX_TOKENS) * price["output"]


def test_a_budget_stops_at_the_call_that_could_pass_it_and_resume_plays_the_same_game(
    played: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    reference = attempts_of(the_log(played["root"] / "on"))
    spent = list(itertools.accumulate(a.cost_usd or 0.0 for a in reference))
    budget = round(spent[9] + 0.5 * worst_case(reference[10]), 6)
    stop = next(i for i, a in enumerate(reference) if (spent[i - 1] if i else 0.0) + worst_case(a) > budget)
    with FakeAnthropicServer(careful_player) as server:
        code, _, err = play(server.base_url, tmp_path, "--max-cost", str(budget))
        assert code == 3
        assert len(server.exchanges) == stop  # every call before the one that could pass the budget, and no more
        run = the_log(tmp_path).parent.parent
        line = err.strip()
        assert len(line.splitlines()) == 1 and line.startswith("Stopped at the budget: $")
        assert f"of --max-cost {budget:g}" in line and f"hanabi-eval resume {run} --max-cost " in line
        # what the call refused could have cost: more than the budget had left, within the documented bound
        could = float(line.split("could have cost up to $")[1].split(" ")[0])
        assert budget - spent[stop - 1] < could <= worst_case(reference[stop]) + 0.0001
        assert json.loads((run / "status.json").read_text())["status"] == "budget"
        logged = attempts_of(the_log(tmp_path))
        assert len(logged) == stop and sum(a.cost_usd or 0.0 for a in logged) <= budget
        assert read_game_log(the_log(tmp_path)).result is None  # unfinished, resumable
        # the same budget again: the spend already logged counts, so nothing more is sent
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            assert main(["resume", str(run), "--no-progress"]) == 3
        assert len(server.exchanges) == stop
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            assert main(["resume", str(run), "--max-cost", "100", "--no-progress"]) == 0
    finished = read_game_log(the_log(tmp_path))
    unbudgeted = read_game_log(the_log(played["root"] / "on"))
    assert finished.complete
    assert [(m.turn, m.move_index) for m in finished.moves] == [(m.turn, m.move_index) for m in unbudgeted.moves]
    sessions = json.loads((run / "manifest.json").read_text())["sessions"]
    assert [s.get("max_cost_usd") for s in sessions] == [budget, budget, 100]


def test_best_of_k_samples_wait_for_the_first_and_read_its_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropicServer(careful_player) as server:
        decision = decide(server.base_url, "best-of-k-sherlock", players=2)
        first, *samples, final = server.exchanges
    assert [c.role for c in decision.calls] == [*(f"sample-{i}" for i in range(1, 6)), "selector"]
    assert all(s.at >= first.answered_at for s in samples)  # sent once the first had its answer
    assert first.cache_use.written > 1_024 and first.cache_use.read == 0
    assert all(s.cache_use.read == first.cache_use.written and s.cache_use.written == 0 for s in samples)
    assert final.cache_use.read == first.cache_use.written  # the final agent's prompt starts with the samples'
    assert [a.usage.cached_tokens for c in decision.calls for a in c.attempts][1:] == [
        first.cache_use.written
    ] * 5


def test_mixture_advisers_sharing_the_state_wait_for_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropicServer(adviser) as server:
        decision = decide(server.base_url, "moa-sherlock", players=3)
        first, *advisers, aggregator = server.exchanges
    assert [c.role for c in decision.calls][-1] == "aggregator" and len(advisers) == 4
    assert all(a.at >= first.answered_at for a in advisers)
    shared = first.cache_use.written
    assert shared > 1_024 and all(a.cache_use.read == shared for a in [*advisers, aggregator])


def test_calls_without_a_shared_prefix_are_sent_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """moa-watson's advisers each have a system message of their own: nothing to wait for."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropicServer(lambda request: dataclasses.replace(adviser(request), delay_s=0.5)) as server:
        decide(server.base_url, "moa-watson", players=3)
        first, *advisers, _ = server.exchanges
    assert all(a.at < first.answered_at for a in advisers)  # each in before the first was answered


def adviser(request: dict[str, Any]) -> Reply:
    """A move in the prompt's format where it lists the legal moves; a short report where it asks for one."""
    if not legal_moves_in(request):
        return Reply(content="Analysis: every clue is worth more than a discard here.")
    return careful_player(request)


def decide(api_base: str, scaffold: str, players: int) -> Any:
    """One move of seat 0 at the opening of seed 1's deal, decided through the scaffold's strategy."""
    seat = SeatConfig(model=MODEL, scaffold=scaffold, api_base=api_base, params=GenerationParams(max_tokens=400))
    agent = SeatAgent(seat, load_scaffold(scaffold), ModelClient(seat, RetryPolicy()), reply_retries=1)
    view = build_view(Game(players, deck_for_seed(1)).observe(0))
    return run_calls(agent.decide(view, None, None, "hanabi-test"))


def test_anthropic_errors_are_retried_and_bad_replies_re_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    count = itertools.count()

    def script(request: dict[str, Any]) -> Reply:
        n = next(count)
        if n == 0:
            return Reply(status=429, headers={"retry-after": "0.3"})
        if n == 1:
            return Reply(status=529)  # overloaded
        if n == 2:
            return Reply(content="Reasoning: I would play", finish_reason="length")  # stop_reason max_tokens
        if n == 3:
            return Reply(raw_body=b"{not a message")
        return careful_player(request)

    with FakeAnthropicServer(script) as server:
        code, _, _ = play(server.base_url, tmp_path, "--retry-wait", "0.01", scaffold="watson")
        exchanges = server.exchanges
    assert code == 0
    first = read_game_log(the_log(tmp_path)).moves[0].calls[0].attempts
    assert [a.error_kind for a in first] == ["rate_limited", "server_error", "truncated", "connection", None]
    assert "overloaded_error" in (first[1].error or "")
    assert first[2].finish_reason == "length"
    assert exchanges[1].at - exchanges[0].answered_at >= 0.3  # the wait the server asked for
    assert read_game_log(the_log(tmp_path)).complete


def test_openai_models_get_one_cache_key_per_game_seat(tmp_path: Path) -> None:
    with FakeModelServer(careful_player) as server:
        argv = ["run", "--model", "openai/gpt-4.1-mini", "--api-base", server.base_url, "--seeds", "1",
                "--out", str(tmp_path), "--no-progress", "--concurrency", "1"]  # fmt: skip
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(argv) == 0
        keys = [e.request.get("prompt_cache_key") for e in server.exchanges]
        bodies = [e.request for e in server.exchanges]
    assert len(set(keys[0::2])) == len(set(keys[1::2])) == 1 and keys[0] != keys[1]  # seats alternate
    assert all(isinstance(m["content"], str) for body in bodies for m in body["messages"])  # no marks for OpenAI
    with FakeModelServer(careful_player) as server:
        seat = SeatConfig(model="openai/gpt-4.1-mini", scaffold="watson", api_base=server.base_url)
        agent = SeatAgent(seat, load_scaffold("watson"), ModelClient(seat, RetryPolicy(), prompt_cache=False), 1)
        run_calls(agent.decide(build_view(Game(2, deck_for_seed(1)).observe(0)), None, None, "hanabi-test"))
        assert "prompt_cache_key" not in server.exchanges[0].request  # --prompt-cache off


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--max-cost", "nan"], "--max-cost nan must be a finite number, 0 or more"),
        (["--max-cost", "inf"], "--max-cost inf must be a finite number, 0 or more"),
        (["--max-cost", "-1"], "--max-cost -1.0 must be a finite number, 0 or more"),
        (["--max-cost", "5"], "--max-cost needs the price of openai/self-hosted, which LiteLLM does not list"),
        (["--max-cost", "5"], "give it with --price openai/self-hosted=INPUT,OUTPUT"),
        (["--price", "openai/self-hosted"], "--price 'openai/self-hosted' is not MODEL=INPUT,OUTPUT"),
        (["--price", "openai/self-hosted=1,x"], "are not numbers"),
        (["--price", "openai/self-hosted=1,-2"], "--price 'openai/self-hosted=1,-2': output -2.0 must be a finite"),
        (["--price", "openai/self-hosted=1,2", "--max-cost", "5"], "--max-cost needs the longest reply"),
        (["--price", "openai/self-hostd=1,2"], "--price openai/self-hostd: no seat plays 'openai/self-hostd'"),
        (["--price", "self-hosted=1,2"], "'self-hosted' names no provider; give the model string as --model or"),
    ],
)
def test_bad_budgets_and_prices_are_refused_in_one_line(
    extra: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--model", "openai/self-hosted", "--api-base", "http://127.0.0.1:9/v1", "--seeds", "1",
            "--out", str(tmp_path), "--no-progress", *extra]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and said in err, err
    assert not any(tmp_path.iterdir())  # nothing written


def test_a_priced_built_in_player_keeps_to_its_budget_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --price given to a built-in player counts in the budget as in its costs: without its longest reply the
    budget is refused first, and with it no call is sent that could take the spend past --max-cost."""
    argv = ["run", "--model", "local/smart", "--seeds", "7", "--price", "local/smart=1,2", "--max-cost", "0.01",
            "--out", str(tmp_path / "r"), "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    assert "--max-cost needs the longest reply local/smart may send" in capsys.readouterr().err
    assert main([*argv, "--max-tokens", "300"]) == 3
    (log,) = (tmp_path / "r").glob("*/games/*.jsonl")
    assert 0.005 < sum(a.cost_usd or 0.0 for a in attempts_of(log)) <= 0.01


def test_an_expensive_run_asks_first_unless_its_budget_is_small(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    argv = ["run", "--model", MODEL, "--api-base", "http://127.0.0.1:9", "--seeds", "1", "--max-tokens", "100",
            "--price", f"{MODEL}=3000,15000", "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    assert main(argv) == 2  # no terminal to ask at
    err = capsys.readouterr().err
    assert "an expected cost of about $" in err and "give --max-cost to cap it" in err and "add --yes" in err
    assert main([*argv, "--max-cost", "500"]) == 2  # a budget above the threshold asks too, naming it
    assert "(--max-cost 500 allows it); add --yes" in capsys.readouterr().err
    assert main([*argv, "--max-cost", "0.01"]) == 3  # a budget below the threshold: started, and stopped at once
    out, err = capsys.readouterr()
    assert "Expected cost: about $" in out and "Stopped at the budget: $0.0000 spent of --max-cost 0.01" in err


def test_worker_processes_share_one_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropicServer(careful_player) as server:
        code, _, err = play(server.base_url, tmp_path, "--seeds", "1,2", "--workers", "2", "--max-cost", "0.05",
                            scaffold="watson")  # fmt: skip
        sent = len(server.exchanges)
    assert code == 3 and "Stopped at the budget" in err
    logs = sorted(tmp_path.glob("*/games/*.jsonl"))
    assert len(logs) == 2 and sent == sum(len(attempts_of(p)) for p in logs)
    assert sum(a.cost_usd or 0.0 for p in logs for a in attempts_of(p)) <= 0.05


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("anthropic/claude-haiku-4-5", "cache_control"),
        ("bedrock/anthropic.claude-sonnet-4-20250514-v1:0", "cache_control"),  # Claude on Bedrock: the same marks
        ("vertex_ai/claude-sonnet-4-5@20250929", "cache_control"),  # and on Vertex AI
        ("openai/gpt-4.1", "prompt_cache_key"),
        ("deepseek/deepseek-chat", "automatic"),  # caches by itself: only the first-call-first order changes
        ("hosted_vllm/my-model", None),  # a server LiteLLM knows nothing of: requests as before
    ],
)
def test_each_provider_caches_its_own_way(model: str, style: str | None) -> None:
    assert cache_style(model, litellm().model_cost) == style


def test_never_more_than_four_marks_and_none_below_the_minimum() -> None:
    text = "".join(f"part {i} " * 400 for i in range(8))  # eight stable parts of about 800 tokens each
    breaks = tuple(CacheBreak(len("".join(f"part {i} " * 400 for i in range(n))), "turn") for n in range(1, 8))
    messages = [Message(role="system", content="rules " * 100), Message(role="user", content=text, cache_breaks=breaks)]
    marks = place_marks(messages, minimum_tokens(MODEL), lambda t: litellm().token_counter(model=MODEL, text=t))
    assert len(marks) == 4 and all(m.tokens >= 1_024 for m in marks)
    assert (marks[0].message, marks[0].chars) == (1, breaks[0].chars)  # the system message alone is too short
    assert [m.chars for m in marks[1:]] == [b.chars for b in breaks[-3:]]  # the first mark and the last three
    sent = wire_messages(messages, marks)
    assert "".join(b["text"] for b in sent[1]["content"]) == text  # the blocks join to the same text
    assert sum("cache_control" in b for b in sent[1]["content"]) == 4
    assert minimum_tokens("anthropic/claude-haiku-4-5") == 4_096 and minimum_tokens(MODEL) == 1_024


def test_a_sweep_file_sets_the_budget_checked_as_the_flag_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "sweep.toml"
    lines = ['name = "budgeted"', "players = [2]", 'seeds = ["1"]', 'scaffolds = ["watson"]',
             '[[models]]', 'model = "local/smart"']  # fmt: skip
    sweep.write_text("max_cost_usd = nan\n" + "\n".join(lines) + "\n")
    assert main(["run", "--config", str(sweep), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "max_cost_usd: must be a finite number, 0 or more" in capsys.readouterr().err
    sweep.write_text("max_cost_usd = 0.5\nprompt_cache = false\n" + "\n".join(lines) + "\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", "--config", str(sweep), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    recorded = json.loads((tmp_path / "out" / "budgeted" / "sweep.json").read_text())["config"]
    assert recorded["max_cost_usd"] == 0.5 and recorded["prompt_cache"] is False
    (manifest,) = (tmp_path / "out" / "budgeted").glob("*/manifest.json")
    (session,) = json.loads(manifest.read_text())["sessions"]
    assert session["max_cost_usd"] == 0.5 and session["prompt_cache"] == "off"
