"""The table page's server over plain HTTP: every read and move needs its seat's own token, a move is taken once and
only for its turn, a foreign Host or Origin is refused, its data names no card of the seat's own hand; and the
commands refuse a bad human seat in one line."""

from __future__ import annotations

import http.client
import json
import re
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from tests.helpers import refused
from tests.web.table_sessions import TableSession


def request(
    url: str, method: str = "GET", form: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
    body = urlencode(form).encode() if form is not None else None
    sent = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
    if method == "POST":
        sent["Origin"] = f"http://{parts.netloc}"
    sent.update(headers or {})
    connection.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body, headers=sent)
    response = connection.getresponse()
    return response.status, response.read().decode()


def move_form(url: str, turn: int, move: int = 0) -> dict[str, str]:
    return {"token": url.split("token=")[1], "turn": str(turn), "move": str(move)}


def wait_for_turn(url: str) -> int:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        _, text = request(url)
        found = re.search(r'name="turn" value="(\d+)"', text)
        if found:
            return int(found.group(1))
        time.sleep(0.02)
    raise AssertionError("the seat was never asked for a move")


def move_url(url: str) -> str:
    return url.split("?")[0] + "/move"


def test_tokens_turns_hosts_and_origins(tmp_path: Path) -> None:
    with TableSession(tmp_path, ["human:ada", "human:bob", "local/smart"]) as session:
        ada, bob = session.urls["human:ada"], session.urls["human:bob"]
        ada_token, bob_token = ada.split("token=")[1], bob.split("token=")[1]
        assert ada_token != bob_token
        # reading needs the seat's own token: none, a wrong one, or the other seat's is refused
        assert request(ada.split("?")[0])[0] == 403
        assert request(ada.replace(ada_token, "x" * len(ada_token)))[0] == 403
        assert request(ada.replace(ada_token, bob_token))[0] == 403
        assert request(ada.split("?")[0] + f"/state?token={bob_token}")[0] == 403
        # a Host that is not this table's address (DNS rebinding), or an Origin of another site, is refused
        assert request(ada, headers={"Host": f"evil.example:{urlsplit(ada).port}"})[0] == 421
        assert request(ada, headers={"Origin": "http://evil.example"})[0] == 403
        turn = wait_for_turn(ada)  # ada sits first: seed index 0 seats the team unrotated
        foreign = request(move_url(ada), "POST", move_form(ada, turn), {"Origin": "http://evil.example"})
        assert foreign[0] == 403 and "nothing was played" in foreign[1]
        assert request(move_url(ada), "POST", move_form(ada, turn), {"Origin": "null"})[0] == 403
        # bob's token does not move for ada, nor ada's for bob
        assert request(move_url(ada), "POST", {**move_form(ada, turn), "token": bob_token})[0] == 403
        status, text = request(move_url(bob), "POST", move_form(ada, turn))
        assert status == 403
        # a turn or move that is not a number (a digit to str.isdigit, not to int()) is refused, nothing played
        assert request(move_url(ada), "POST", {**move_form(ada, turn), "turn": "²"})[0] == 400
        assert request(ada.split("?")[0] + f"/state?token={ada_token}&since=%C2%B2")[0] == 200
        # a stale turn, or a move that is not offered, is refused and nothing is played
        status, text = request(move_url(ada), "POST", move_form(ada, turn + 1))
        assert status == 409 and f"turn {turn + 1}" in text and "nothing was played" in text
        assert request(move_url(ada), "POST", move_form(ada, turn, 999))[0] == 409
        # the move itself, then the same move again (a second tab): taken once
        status, _ = request(move_url(ada), "POST", move_form(ada, turn, 0))
        assert status == 303
        status, text = request(move_url(ada), "POST", move_form(ada, turn, 0))
        assert status == 409 and "nothing was played" in text
        # bob is asked next; his state is JSON that names whose turn it is, and no card
        wait_for_turn(bob)
        status, text = request(bob.split("?")[0] + f"/state?token={bob_token}")
        state = json.loads(text)
        assert status == 200 and state["your_move"] and state["to_move"] == 1
        assert set(state) == {"version", "turn", "to_move", "your_move", "over", "waiting_s"}
        # a finished game's viewer page only: nothing of this game while it is played
        assert request(ada.split("/seat/")[0] + f"/view/index.html?token={ada_token}")[0] == 403
    moves = (tmp_path / session.run_path.name / "games").glob("*.jsonl")
    (log,) = list(moves)
    first = json.loads(log.read_text().splitlines()[1])
    assert first["player"] == "human:ada" and first["move_index"] == 0 and first["turn"] == turn


def play_until_over(url: str, game_id: str) -> None:
    """Play the first offered move at every turn of the seat until its page says `game_id` is over."""
    deadline = time.monotonic() + 60
    while f'data-game="{game_id}"' not in (text := request(url)[1]):
        assert time.monotonic() < deadline, f"{game_id} did not end"
        found = re.search(r'name="turn" value="(\d+)"', text)
        if found is None:
            time.sleep(0.02)
            continue
        request(move_url(url), "POST", move_form(url, int(found.group(1))))


def test_a_finished_games_viewer_stays_shut_while_the_seat_still_has_its_deal_to_play(tmp_path: Path) -> None:
    """A repeat deals the same cards again: the first play's viewer would show the person the hand they hold."""
    with TableSession(tmp_path, ["human", "local/smart"], repeats=2) as session:
        url = session.urls["human"]
        first, second = (plan.game_id for plan in session.config.plans())
        viewer = url.split("/seat/")[0] + f"/view/runs/{session.run_path.name}/games/{first}.html?token="
        viewer += url.split("token=")[1]
        play_until_over(url, first)
        wait_for_turn(url)  # the second play of the deal has begun
        assert "viewer-link" not in request(url)[1]
        status, text = request(viewer)
        assert status == 403 and "once every game on its deal is over" in text
        play_until_over(url, second)
        session.finished()
        assert len(re.findall('class="viewer-link"', request(url)[1])) == 2  # both plays are over: both shown
        assert request(viewer)[0] == 200  # the address refused above, now served


def test_pages_carry_the_viewer_s_security_headers(tmp_path: Path) -> None:
    with TableSession(tmp_path, ["human", "local/smart"]) as session:
        url = session.urls["human"]
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
        connection.request("GET", f"{parts.path}?{parts.query}")
        response = connection.getresponse()
        response.read()
        policy = response.getheader("Content-Security-Policy") or ""
        assert "script-src 'self'" in policy and "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert "form-action 'self'" in policy and "unsafe-inline" not in policy
        assert response.getheader("X-Content-Type-Options") == "nosniff"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["play", "--partner", "local/smart", "--players", "7"], "--players 7"),
        (["play", "--partner", "human"], "--partner"),
        (["play", "--partner", "local/smart", "--name", "a b"], "--name 'a b': a person's name is 1-32 letters"),
        (["play", "--partner", "local/smart:sherlok"], "--partner 'local/smart:sherlok': unknown scaffold"),
        (["play", "--partner", "local/smart,temperature=9"], "--partner 'local/smart,temperature=9': temperature"),
        (["play", "--partner", "local/smart", "--port", "70000"], "--port 70000"),
        (["run", "--model", "human"], "--model"),
        (["run", "--seat", "human", "--seat", "human", "--seat", "local/smart"], "human:alice"),
        (["run", "--seat", "human:<b>", "--seat", "local/smart"], "name"),
    ],
)
def test_bad_human_seats_are_refused_in_one_line(
    argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert named in refused([*argv, "--out", str(tmp_path)], capsys)


def test_two_runs_games_of_one_id_are_each_listed_as_finished(tmp_path: Path, deck: list[str]) -> None:
    """A sweep's runs name their games alike (2p-custom-seed1-r0 in each): the page lists each run's game."""
    from harness.engine.game import Game
    from harness.play.desk import Desk
    from harness.view.builder import build_view

    game = Game(2, deck)
    view = build_view(game.observe(0))
    desk = Desk("human")
    for run in ("a", "b", "b"):  # the last: the same game shown over again
        desk.show("2p-custom-seed1-r0", tmp_path / run, ("human", "local/smart"), view, None)
    assert [f.run_path.name for f in desk.snapshot().finished] == ["a", "b"]
