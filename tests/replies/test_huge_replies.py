"""A server that answers 10 MB (#29 item 16), over real HTTP: each rejected reply is logged as its first 20,000
characters with the length and SHA-256 of the rest, so one move costs the log kilobytes, not 10 MB per attempt (one
move used to write 21 MB). The cut log still resumes, lists, reports and exports: the report counts the replies it
keeps cut and the preferences export makes no repair pair of a reply it no longer has whole."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from harness.schema.records import REJECTED_TEXT_KEPT_CHARS, Attempt
from tests.fakeserver import FakeModelServer, Reply, careful_player

TEN_MB = 10_000_000


def huge(tag: str) -> str:
    """A 10 MB reply naming a move at its start (never read: it is oversized) and different for each tag."""
    return f"Chosen Move Number: 0\n{tag}\n" + "spam " * (TEN_MB // 5)


class HugeFirst:
    """The first `count` requests get `replies` in turn; every later one a good move."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        with self.lock:
            if self.replies:
                return Reply(self.replies.pop(0))
        return careful_player(request)


def assert_kept_cut(attempt: Attempt, sent: str) -> None:
    rest = sent[REJECTED_TEXT_KEPT_CHARS:]
    assert attempt.reply == sent[:REJECTED_TEXT_KEPT_CHARS]
    assert attempt.reply_left_out is not None
    assert attempt.reply_left_out.chars == len(rest) and attempt.reply_chars == len(sent)
    assert attempt.reply_left_out.sha256 == hashlib.sha256(rest.encode()).hexdigest()


def test_a_ten_megabyte_reply_is_logged_as_its_start_with_the_length_and_digest_of_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    first = huge("first")
    argv = ["--api-base", "", "--retry-wait", "0.01", "--retry-wait-max", "0.05", "--timeout", "120"]
    # the same 10 MB twice: rejected as oversized, then as repeated_reply, and the game stops, resumable
    with FakeModelServer(HugeFirst(first, first)) as server:
        argv[1] = server.base_url
        code = main(["run", "--model", "openai/huge", "--seeds", "4", "--out", str(out), "--no-progress", *argv])
    assert code == 1
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    (log,) = (run_dir / "games").glob("*.jsonl")
    assert log.stat().st_size < 200_000  # two attempts of 10 MB each were 20 MB
    contents = read_game_log(log)
    assert contents.result is not None and contents.result.status == "interrupted"
    (call,) = contents.failed_calls
    assert [a.error_kind for a in call.attempts] == ["oversized", "repeated_reply"]
    for attempt in call.attempts:
        assert_kept_cut(attempt, first)
    # the re-ask quoted the reply cut to 2,000 characters, as any re-ask does
    assert len(call.attempts[1].messages[-2].content) <= 2_100

    # resumed against a server that answers 10 MB once more, then well: the game completes from the cut log
    second = huge("second")
    with FakeModelServer(HugeFirst(second)) as server:
        assert main(["resume", str(run_dir), "--api-base", server.base_url, "--no-progress"]) == 0
    assert log.stat().st_size < 2_000_000
    contents = read_game_log(log)
    assert contents.complete
    (reasked,) = [c for m in contents.moves for c in m.calls if len(c.attempts) > 1]
    assert reasked.attempts[0].error_kind == "oversized" and reasked.attempts[-1].error_kind is None
    assert_kept_cut(reasked.attempts[0], second)
    assert reasked.attempts[-1].reply_left_out is None  # an accepted reply is never cut
    capsys.readouterr()

    assert main(["runs", str(out)]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("│")]
    assert [cell.strip() for cell in row.split("│")[3:7]] == ["complete", "1", "0", "1"]

    report = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert "\n\n3 rejected replies were longer than 20,000 characters (openai/huge · watson: 3)" in text
    assert "| 1 |" in text  # the oversized and repeated kinds are counted as before
    assert "oversized" in text and "repeated_reply" in text

    prefs = tmp_path / "prefs"
    assert main(["export", str(run_dir), "--format", "preferences", "--repair-dialogue", "--out", str(prefs)]) == 0
    rows = [json.loads(line) for line in (prefs / "preferences.jsonl").read_text().splitlines()]
    assert rows and not [r for r in rows if r["pair_kind"] == "repair"]  # its one rejected reply is kept cut
    logs = tmp_path / "logs"
    assert main(["export", str(run_dir), "--format", "hanabilogs", "--repair-dialogue", "--out", str(logs)]) == 0
    (row,) = [
        json.loads(line)
        for line in (logs / "hanabilogs.jsonl").read_text().splitlines()
        if json.loads(line)["rejected_replies"]
    ]
    assert row["messages"][2]["content"] == reasked.attempts[-1].messages[2].content  # the quote as it was sent
    assert sum(p.stat().st_size for p in logs.rglob("*") if p.is_file()) < 2_000_000
