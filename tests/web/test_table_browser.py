"""A person at the table page, in Debian's chromium driven by Playwright: whole games with built-in partners at 2
and 3 players and with an LLM partner on the scripted server, by clicks and keys, each log replaying to the score
the page showed; no response to the page naming the seat's own card before it leaves the hand; two people at one
table; and a reload, a killed `play` and a `resume` that continue from the same turn."""

from __future__ import annotations

import random
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, careful_player
from tests.helpers import command, launched_chromium
from tests.web.table_sessions import (
    URL,
    TableSession,
    make_move,
    play_to_the_end,
    replayed_score,
    your_turn_or_over,
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert not [e for e in errors if "Failed to fetch" not in e and "ERR_" not in e], errors


@pytest.mark.parametrize("players", [2, 3])
def test_a_whole_game_with_built_in_partners_replays_to_the_score_the_page_showed(
    page: Any, tmp_path: Path, players: int
) -> None:
    with TableSession(tmp_path, ["human", *["local/smart"] * (players - 1)]) as session:
        shown = play_to_the_end(page, session.urls["human"], seed=players)
        outcome = session.finished()
        assert replayed_score(session.run_path) == shown
        (plan, result) = outcome.results[0]
        assert result.status == "complete" and result.fireworks_score == shown
        contents = read_game_log(next((session.run_path / "games").glob("*.jsonl")))
        mine = [m for m in contents.moves if m.player == "human"]
        assert mine and all(m.calls[0].role == "human" and m.calls[0].attempts[0].messages == [] for m in mine)
        assert all(m.calls[0].attempts[0].cost_usd == 0 and m.calls[0].attempts[0].latency_s > 0 for m in mine)
        assert all(m.usage.total_tokens == 0 for m in mine)
        assert page.locator(".history li").count() == len(contents.moves)
        # the game's viewer page, now that it is over: every card shown
        page.click("a.viewer-link")
        page.wait_for_selector("body.game-page")
        assert plan.game_id in page.locator("h1").inner_text()


def test_a_whole_game_with_an_llm_partner(page: Any, tmp_path: Path) -> None:
    with FakeModelServer(careful_player) as server:
        partner = f"openai/fake-model:watson,api_base={server.base_url}"
        with TableSession(tmp_path, ["human:ada", partner]) as session:
            shown = play_to_the_end(page, session.urls["human:ada"], seed=5)
            session.finished()
            assert replayed_score(session.run_path) == shown
        contents = read_game_log(next((session.run_path / "games").glob("*.jsonl")))
        partner = [m for m in contents.moves if m.player != "human:ada"]
        assert len(server.exchanges) == len(partner) > 0  # one request per partner move, none for the person's


def _without_own_knowledge(text: str) -> str:
    """A response with the seat's own cards' clued faces taken out (what hints told the seat is its to know)."""
    return re.sub(r'hidden-face">[^<]*<', "", text)


def test_no_response_to_the_page_names_a_card_of_the_seat_s_own_hand(page: Any, tmp_path: Path) -> None:
    # seed 1 deals B5 (the only B5) to seat 0 as its oldest card; the person never plays or discards it: they
    # hint, else act on their newest card, so it stays in the hand to the end
    bodies: list[tuple[str, str]] = []

    def keep(response: Any) -> None:
        kind = response.headers.get("content-type", "")
        if "/view/" not in response.url and ("html" in kind or "json" in kind):
            bodies.append((response.url, response.text()))

    page.on("response", keep)

    def newest_or_hint(labels: list[str]) -> int:
        state = page.evaluate("document.body.getAttribute('data-state')")  # the JSON the page polls, read each turn
        bodies.append((state, page.request.get(page.url.split("/seat/")[0] + state).text()))
        hints = [i for i, label in enumerate(labels) if "→" in label]
        if hints:
            return hints[0]
        newest = max((i for i, label in enumerate(labels) if label.startswith("discard")), default=None)
        if newest is None:
            newest = max(i for i, label in enumerate(labels) if label.startswith("play"))
        return newest

    with TableSession(tmp_path, ["human", "local/smart"], seeds="1") as session:
        token = session.urls["human"].split("token=")[1]
        play_to_the_end(page, session.urls["human"], choose=newest_or_hint)
        session.finished()
    contents = read_game_log(next((session.run_path / "games").glob("*.jsonl")))
    assert contents.header is not None and contents.header.deck[0] == "B5"
    assert all(m.move.card_index != 0 for m in contents.moves if m.seat == 0 and m.move.card_index is not None)
    assert len(bodies) > 10 and any("/state?" in url for url, _ in bodies)
    for url, text in bodies:
        assert not re.search(r"B5", _without_own_knowledge(text.replace(token, "TOKEN"))), url


def test_two_people_each_play_from_their_own_page(browser: Any, tmp_path: Path) -> None:
    with TableSession(tmp_path, ["human:ada", "human:bob", "local/smart"]) as session:
        pages = {}
        for name in ("human:ada", "human:bob"):
            context = browser.new_context()
            pages[name] = context.new_page()
            pages[name].goto(session.urls[name])
        rng = random.Random(3)
        over: set[str] = set()
        while len(over) < 2:
            for name, page in pages.items():
                if name in over:
                    continue
                if page.locator("body.status-over").count():
                    over.add(name)
                elif page.locator("body.status-yours").count():
                    make_move(page, rng)
                else:
                    page.wait_for_timeout(20)
        outcome = session.finished()
        scores = {int(p.locator(".final-score").last.inner_text()) for p in pages.values()}
        assert scores == {outcome.results[0][1].fireworks_score} == {replayed_score(session.run_path)}
        contents = read_game_log(next((session.run_path / "games").glob("*.jsonl")))
        assert {m.player for m in contents.moves} == {"human:ada", "human:bob", "local/smart:watson"}
        for page in pages.values():
            page.context.close()


def _start(argv: list[str]) -> tuple[subprocess.Popen[str], str]:
    process = command(argv)
    assert process.stdout is not None
    line = process.stdout.readline()
    found = URL.match(line)
    assert found, line + process.stderr.read() if process.stderr else line
    return process, found.group(2)


def _turn(page: Any) -> int:
    your_turn_or_over(page)
    return int(page.locator("input[name=turn]").get_attribute("value"))


def test_a_reload_and_a_killed_table_continue_from_the_same_turn(page: Any, tmp_path: Path) -> None:
    rng = random.Random(9)
    safe = lambda labels: next((i for i, label in enumerate(labels) if "→" in label), len(labels) - 1)  # noqa: E731
    play, url = _start(["play", "--partner", "local/smart", "--players", "3", "--seeds", "2", "--out", str(tmp_path)])
    try:
        page.goto(url)
        for _ in range(3):
            your_turn_or_over(page)
            make_move(page, rng, safe)
        turn = _turn(page)
        page.reload()
        assert _turn(page) == turn  # a reload shows the same turn, still to play
        play.send_signal(signal.SIGKILL)
        play.wait(10)
    finally:
        if play.poll() is None:
            play.kill()
    (run,) = [p.parent for p in tmp_path.glob("*/manifest.json")]
    resumed, url = _start(["resume", str(run)])
    try:
        page.goto(url)
        assert _turn(page) == turn  # the page is served again at the same turn
        shown = play_to_the_end(page, url, seed=4)
        assert replayed_score(run) == shown
        resumed.send_signal(signal.SIGINT)  # the table stays open after the game until Ctrl-C
        assert resumed.wait(20) == 0
    finally:
        if resumed.poll() is None:
            resumed.kill()
