"""The state-tracking judge: each Mycroft turn graded against the engine's true knowledge, every attempt logged,
reruns judging only what is missing, bad input refused before any call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.analysis.judge import read_verdict
from harness.cli.main import main
from harness.engine.game import Game
from harness.run.store import RunDir
from harness.schema.judge_records import JudgeRecord
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply
from tests.helpers import command, one_line

VERDICT = {
    "overall_rating": 0.5,
    "deduction_accuracy": 0.75,
    "history_integration": 0.25,
    "state_tracking_quality": 0.5,
    "detailed_feedback": "card1 of player+1 lost its rank",
    "key_issues": ["missed a negative inference"],
    "strengths": ["kept the clued ranks"],
}
CONTRACT_KEYS = [
    "game_id",
    "turn",
    "seat",
    "judge_model",
    "overall_rating",
    "deduction_accuracy",
    "history_integration",
    "state_tracking_quality",
    "detailed_feedback",
    "key_issues",
    "strengths",
]


def good_judge(request: dict[str, Any]) -> Reply:
    return Reply(content=json.dumps(VERDICT))


@pytest.fixture(scope="module")
def mycroft_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("played")
    argv = [
        "run",
        "--scaffold",
        "mycroft",
        "--seeds",
        "1",
        "--players",
        "2",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert main(argv) == 0
    (run,) = [p for p in out.iterdir() if p.is_dir()]
    return run


@pytest.fixture
def run(mycroft_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(mycroft_run, copy)
    return copy


def judge(run: Path, server: FakeModelServer, *extra: str) -> int:
    return main(["judge", str(run), "--model", "openai/judge", "--api-base", server.base_url, *extra])


def judgements(run: Path) -> list[dict[str, Any]]:
    (path,) = (run / "judge").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_mycroft_turn_is_judged_against_the_engines_knowledge(run: Path) -> None:
    (log_path,) = RunDir(run).game_paths()
    log = read_game_log(log_path)
    with FakeModelServer(good_judge) as server:
        assert judge(run, server) == 0
    lines = judgements(run)
    assert sorted((j["turn"], j["seat"]) for j in lines) == [(m.turn, m.seat) for m in log.moves]
    assert all(list(j) == CONTRACT_KEYS and j["judge_model"] == "openai/judge" for j in lines)
    assert all(JudgeRecord.model_validate(j).overall_rating == 0.5 for j in lines)
    # The truth the judge sees is HLE's knowledge at that turn, rebuilt by replay, not the model's deductions.
    prompts = {
        int(e.request["messages"][1]["content"].split(" at turn ")[1].split(" ")[0]): e.request["messages"][1]
        for e in server.exchanges
    }
    game = Game(2, log.header.deck)
    checked = 0
    for record in log.moves:
        prompt = prompts[record.turn]["content"]
        truth = prompt.split("== Ground truth from the game engine ==")[1].split("== The player's")[0]
        for offset in (0, 1):
            player = (record.seat + offset) % 2
            for index, known in enumerate(game.knowledge(player)):
                colours = ", ".join(known.could_be_colors)
                ranks = ", ".join(str(r) for r in known.could_be_ranks)
                assert f"card{index}" in truth
                assert f"could be colours {colours}; could be ranks {ranks}" in truth
                checked += 1
        if record.turn > 2:
            assert "What happened since" in prompt and f"Turn {record.turn - 1}: P" in prompt
        game.apply(record.move)
    assert checked > 100
    record = json.loads((run / "judge" / "judge.json").read_text())
    assert record["identity"]["judge_model"] == "openai/judge" and record["sessions"]


def test_a_rerun_judges_only_what_is_missing(run: Path) -> None:
    with FakeModelServer(good_judge) as server:
        assert judge(run, server) == 0
        first = len(server.exchanges)
        assert judge(run, server) == 0
        assert len(server.exchanges) == first  # nothing left to judge
        (path,) = (run / "judge").glob("*.jsonl")
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(
            b"\n".join(lines[:-3]) + b"\n" + lines[-3][:20]
        )  # two lines lost, one torn by a crash
        assert judge(run, server) == 0
        assert len(server.exchanges) == first + 2
    assert len(judgements(run)) == first


@pytest.mark.parametrize("damage", ["torn", "bad", "separator"])
def test_a_damaged_line_costs_the_report_that_line_alone_as_it_does_the_judge(
    damage: str, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A crash's torn last line, or one bad line, is skipped and named by the report as by the judge command, the
    rest of the file kept: both means are over the same judgements. A U+2028 inside a judgement breaks no line."""

    def varied(request: dict[str, Any]) -> Reply:
        turn = int(request["messages"][1]["content"].split(" at turn ")[1].split(" ")[0])
        feedback = "kept \u2028 the ranks" if turn == 3 else "fine"
        return Reply(content=json.dumps({**VERDICT, "overall_rating": turn % 4 / 4, "detailed_feedback": feedback}))

    with FakeModelServer(varied) as server:
        assert judge(run, server) == 0
    (path,) = (run / "judge").glob("*.jsonl")
    lines = path.read_bytes().split(b"\n")[:-1]
    if damage == "torn":  # a crash cut the last judgement short
        path.write_bytes(b"\n".join(lines[:-1]) + b"\n" + lines[-1][:20])
        lines.pop()
    elif damage == "bad":
        path.write_bytes(path.read_bytes() + b'{"turn": "x"}\n')
        with FakeModelServer(varied) as server:
            assert judge(run, server) == 0 and not server.exchanges
    mean = sum(JudgeRecord.model_validate_json(line).overall_rating for line in lines) / len(lines)
    if damage == "bad":  # the judge command's mean skipped that line
        assert f"Mean: overall rating {mean:.3f}," in capsys.readouterr().out
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    (row,) = json.loads((tmp_path / "report" / "judge.json").read_text())
    assert row["turns"] == len(lines) and row["overall_rating"] == pytest.approx(mean)
    err = capsys.readouterr().err
    if damage == "separator":
        assert "skipped" not in err
    else:
        assert f"warning: skipped {path}: line {len(lines) + 1}: not a judge record" in err


def test_unusable_verdicts_are_re_asked_with_feedback_and_logged(run: Path) -> None:
    replies = iter(['Rating: {"overall_rating": 0.5}', json.dumps({**VERDICT, "overall_rating": 1.5})])

    def flaky(request: dict[str, Any]) -> Reply:
        if "at turn 3 " in request["messages"][1]["content"]:
            return Reply(content=next(replies, json.dumps(VERDICT)))
        return good_judge(request)

    with FakeModelServer(flaky) as server:
        assert judge(run, server) == 0
    attempts = [
        json.loads(line)
        for line in next((run / "judge" / "attempts").glob("*.jsonl")).read_text().splitlines()
    ]
    (turn3,) = [a for a in attempts if a["turn"] == 3]
    kinds = [a["error_kind"] for a in turn3["call"]["attempts"]]
    assert kinds == ["unparseable", "unparseable", None]
    assert "overall_rating" in turn3["call"]["attempts"][1]["error"]
    third = turn3["call"]["attempts"][2]["messages"]
    assert third[-1]["role"] == "user" and "could not be used" in third[-1]["content"]
    assert {j["turn"] for j in judgements(run)} >= {3}


def test_a_lone_surrogate_in_a_verdict_is_kept_as_a_replacement_character(run: Path) -> None:
    """A judge may escape half a surrogate pair in its JSON, or send one raw: no UTF-8 file can hold it, so the
    verdict and the attempt keep U+FFFD, and judging goes on."""
    escaped = json.dumps({**VERDICT, "detailed_feedback": "lost \ud800 rank"})  # JSON text with the escape

    def odd(request: dict[str, Any]) -> Reply:
        if "at turn 3 " in request["messages"][1]["content"]:
            return Reply(content=escaped)
        return good_judge(request)

    with FakeModelServer(odd) as server:
        assert judge(run, server) == 0
        asked = len(server.exchanges)
    (turn3,) = [j for j in judgements(run) if j["turn"] == 3]
    assert turn3["detailed_feedback"] == "lost \ufffd rank"
    attempts = next((run / "judge" / "attempts").glob("*.jsonl")).read_text().splitlines()
    assert sum(len(json.loads(line)["call"]["attempts"]) for line in attempts) == asked


def test_turns_that_stay_unjudged_stop_with_exit_1_and_a_rerun_finishes_them(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def stubborn(request: dict[str, Any]) -> Reply:
        if "at turn 5 " in request["messages"][1]["content"]:
            return Reply(content="no")
        return good_judge(request)

    with FakeModelServer(stubborn) as server:
        assert judge(run, server, "--max-retries", "1") == 1
    assert "could not be judged" in capsys.readouterr().out
    assert 5 not in {j["turn"] for j in judgements(run)}
    with FakeModelServer(good_judge) as server:
        assert judge(run, server) == 0
        assert len(server.exchanges) == 1
    assert 5 in {j["turn"] for j in judgements(run)}


def test_a_judge_that_refuses_the_key_stops_judging_with_exit_1(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[int] = []

    def refuse(request: dict[str, Any]) -> Reply:
        seen.append(1)
        return Reply(status=401)

    with FakeModelServer(refuse) as server:
        assert judge(run, server) == 1
    assert not list((run / "judge").glob("*.jsonl"))
    failed = [
        json.loads(line)
        for line in next((run / "judge" / "attempts").glob("*.jsonl")).read_text().splitlines()
    ]
    assert failed and all(a["status"] == "failed" for a in failed)
    # every request sent is logged and counted in the session's totals, the refused ones included
    logged = sum(len(a["call"]["attempts"]) for a in failed)
    out = capsys.readouterr().out
    assert logged == len(seen) and f"Judge requests this session: {len(seen)}," in out, out
    assert f"{len(failed)} failed, " in out and "not asked (judging stopped)" in out, out
    assert "judging stopped" in out


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("local/smart", "cannot judge"),
        ("nosuchprovider/x", "unknown provider 'nosuchprovider'"),
        ("openai/o4-mini", "OPENAI_API_KEY"),
        ("o4-mini", "not a LiteLLM model string"),
    ],
)
def test_an_unreachable_judge_is_refused_before_any_call(
    model: str, named: str, run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["judge", str(run), "--model", model]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1
    assert not (run / "judge").exists()


def test_a_run_without_mycroft_games_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", "--seeds", "1", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    with FakeModelServer(good_judge) as server:
        assert judge(out, server) == 2
        assert server.exchanges == []
    err = capsys.readouterr().err
    assert "no Mycroft" in err and len(err.strip().splitlines()) == 1
    assert not list(out.rglob("judge"))


def test_another_judge_on_the_same_run_is_refused(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeModelServer(good_judge) as server:
        assert judge(run, server) == 0
        argv = ["judge", str(run), "--model", "openai/other", "--api-base", server.base_url]
        calls = len(server.exchanges)
        assert main(argv) == 2
        assert len(server.exchanges) == calls
    assert "another judge" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("reply", "usable"),
    [
        (json.dumps(VERDICT), True),
        ("```json\n" + json.dumps(VERDICT) + "\n```", True),
        (json.dumps({**VERDICT, "overall_rating": 1}), True),
        ("Here it is: " + json.dumps(VERDICT), False),
        (json.dumps(VERDICT) + json.dumps(VERDICT), False),
        (json.dumps({**VERDICT, "overall_rating": True}), False),
        (json.dumps({**VERDICT, "overall_rating": "0.5"}), False),
        (json.dumps({**VERDICT, "history_integration": -0.1}), False),
        (json.dumps({k: v for k, v in VERDICT.items() if k != "strengths"}), False),
        ("[" * 100_000 + "]" * 100_000, False),
        ("", False),
    ],
)
def test_verdicts_are_read_strictly(reply: str, usable: bool) -> None:
    verdict = read_verdict(reply)
    assert (not isinstance(verdict, tuple)) is usable


def test_a_corrupt_log_is_named_in_one_line(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = RunDir(run).game_paths()
    lines = path.read_text().splitlines()
    lines[3] = lines[3][:40]
    path.write_text("\n".join(lines) + "\n")
    with FakeModelServer(good_judge) as server:
        assert judge(run, server) == 2
        assert server.exchanges == []
    err = capsys.readouterr().err
    assert path.name in err and len(err.strip().splitlines()) == 1


def test_no_key_reaches_the_judge_files(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-judge-secret-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with FakeModelServer(good_judge) as server:
        assert judge(run, server) == 0
        assert server.exchanges[0].headers["authorization"].endswith(secret)  # the key was used, not written
    written = [p for p in (run / "judge").rglob("*") if p.is_file()]
    assert written and all(secret not in p.read_text() for p in written)


def test_ctrl_c_stops_judging_as_every_long_command_stops(run: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    def slow_judge(request: dict[str, Any]) -> Reply:
        if len(request["messages"]) > 2:  # the re-ask of the first turn: still in flight at the Ctrl-C
            return Reply(content=json.dumps(VERDICT), delay_s=30.0)
        return Reply(content="Rating: fine.")  # no JSON: re-asked

    with FakeModelServer(slow_judge) as server:
        argv = ["judge", str(run), "--model", "openai/judge", "--api-base", server.base_url, "--concurrency", "1"]
        process = command(argv, stdout=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 90
        while len(server.exchanges) < 2:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "Stopped by Ctrl-C: the judgements made so far are kept" in err
    # the rejected reply that came before the Ctrl-C is kept; the re-ask it cut off never answered
    files = (run / "judge" / "attempts").glob("*.jsonl")
    (attempts,) = [json.loads(line) for path in files for line in path.read_text().splitlines()]
    assert attempts["status"] == "stopped"
    assert [a["error_kind"] for a in attempts["call"]["attempts"]] == ["unparseable"]


def test_a_first_wait_longer_than_the_longest_is_refused(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["judge", str(run), "--model", "openai/judge", "--retry-wait", "9", "--retry-wait-max", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "the first retry wait (--retry-wait 9) is longer than the longest (--retry-wait-max 1)" in err
    assert len(err.strip().splitlines()) == 1 and not (run / "judge").exists()


@pytest.mark.parametrize(
    ("option", "named"),
    [
        (["--retry-wait", "nan"], "--retry-wait nan must be a finite number, 0 or more"),
        (["--retry-wait-max", "inf"], "--retry-wait-max inf must be a finite number of seconds above 0"),
        (["--timeout", "-1"], "--timeout -1.0 must be a finite number of seconds above 0"),
        (["--concurrency", "0"], "--concurrency 0 must be a whole number above 0"),
        (["--max-retries", "-2"], "--max-retries -2 must be a whole number, 0 or more"),
    ],
)
def test_a_bad_option_is_refused_as_run_refuses_it_before_any_log_is_read(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], named: str
) -> None:
    """The judge's options are a session's options, checked where every session's are: `judge --retry-wait nan`
    once read every log and then failed in a traceback."""
    missing = tmp_path / "no-such-run"  # were any log read first, this path would be refused instead
    assert main(["judge", str(missing), "--model", "openai/judge", *option]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1, err


def test_a_folder_that_is_not_there_is_named_before_a_missing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both are wrong: the folder, the more basic mistake, is said first (the suite runs without provider keys)."""
    assert main(["judge", str(tmp_path / "no-such-run"), "--model", "openai/o4-mini"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "no-such-run does not exist" in line and "OPENAI_API_KEY" not in line
