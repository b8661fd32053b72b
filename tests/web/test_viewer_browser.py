"""The game viewer in a real browser: Debian's chromium driven by Playwright, on the served site and on the static
site opened from disk. A user's path from a run to the move where the model went wrong, by clicks and keys; the
board read from the page at several turns and compared with the engine's replay of the log; a hostile reply shown
as text that runs nothing; paging, sorting and filtering a run of many games; a damaged log named; logs the
harness's first release wrote (tests/data) shown move by move. Screenshots go to the test's temporary folder
(`screenshots/`), or to the folder HANABI_EVAL_SCREENSHOTS names.

Without chromium these tests skip, saying how to install it, except in CI (the CI variable set), where a missing
browser fails them: CI installs chromium, so a skip there would hide a broken viewer.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.engine.replay import replay
from harness.schema.log_file import read_game_log
from harness.schema.value_records import read_values, values_path
from harness.web.catalog import Catalog
from harness.web.server import ViewerServer
from harness.web.site import write_site
from tests.helpers import launched_chromium
from tests.viewer_runs import make_many, make_runs


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("viewer") / "results"
    make_runs(out)
    return out


@pytest.fixture(scope="module")
def many(results: Path) -> Path:
    """A run of 130 readable games and a damaged log, beside the results (the static site leaves it out)."""
    source = results / "selfplay" / "games" / "2p-custom-seed1.jsonl"
    return make_many(source, results.parent / "more" / "many", copies=130)


@pytest.fixture(scope="module")
def browser(results: Path) -> Iterator[Any]:
    """One chromium for the module, started after the runs are made: Playwright's sync API runs an event loop of
    its own in this thread, and a run needs the thread's loop free."""
    yield from launched_chromium()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    yield page
    context.close()
    assert errors == []  # no script error, no blocked inline script, no alert


@pytest.fixture(scope="module")
def served(results: Path, many: Path) -> Iterator[str]:
    with ViewerServer(Catalog([results, many.parent]), [str(results), str(many.parent)]) as server:
        yield server.url


@pytest.fixture(scope="module")
def site(results: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "viewer"
    write_site(Catalog([results]), out, [str(results)])
    return out


def follow(page: Any, name: str) -> None:
    """Click the link named `name` and wait for the page it opens to be ready (its script has run)."""
    with page.expect_navigation():
        page.get_by_role("link", name=name, exact=True).click()
    page.wait_for_load_state("domcontentloaded")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: HANABI_EVAL_SCREENSHOTS if set (to keep them), else the test's temporary folder."""
    kept = os.environ.get("HANABI_EVAL_SCREENSHOTS")
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        return Path(kept)
    return tmp_path_factory.mktemp("screenshots")


def shoot(page: Any, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"))


def position(page: Any) -> str:
    return page.locator("#position").inner_text()


def shows_position(page: Any, text: str) -> bool:
    """Whether the page comes to show `text` as its position (a key or click moves it in the page's own time)."""
    from playwright.sync_api import expect

    expect(page.locator("#position")).to_have_text(text, timeout=10_000)
    return True


BOARD_TEXT = """() => {
  const step = document.querySelector("section.step.current");
  const text = (el) => el.innerText.trim();
  const shown = (el) => getComputedStyle(el).display !== "none";
  const hands = {};
  for (const hand of step.querySelectorAll(".hand")) {
    const own = hand.classList.contains("own");
    const faces = hand.querySelectorAll(own ? ".truth .face" : "li.card > .face");
    hands[hand.dataset.player] = {own, shown: [...hand.querySelectorAll(".truth")].every(shown),
                                  cards: [...faces].map(text)};
  }
  return {
    seat: step.querySelector(".board").dataset.seat,
    fireworks: [...step.querySelectorAll(".firework")].map(text),
    lives: text(step.querySelector(".lives")),
    info: text(step.querySelector(".info")),
    deck: text(step.querySelector(".deck")),
    discards: [...step.querySelectorAll(".discard")].map(text),
    hands,
  };
}"""


def board_on_page(page: Any) -> dict[str, Any]:
    """The board of the step on screen, read from the text the page shows (the own hand once revealed)."""
    seen = page.evaluate(BOARD_TEXT)
    discards: Counter[str] = Counter()
    for text in seen["discards"]:
        card, _, count = text.partition("×")
        discards[card.strip()] = int(count or 1)
    hands = {}
    for player, hand in seen["hands"].items():
        assert hand["shown"] or not hand["own"]  # the own hand's true cards show only with the reveal toggle
        hands[int(player)] = hand["cards"]
    return {
        "seat": int(seen["seat"]),
        "fireworks": {text[0]: int(text[1:]) for text in seen["fireworks"]},
        "lives": int(seen["lives"]),
        "info": int(seen["info"]),
        "deck": int(seen["deck"]),
        "discards": discards,
        "hands": hands,
    }


def board_in_engine(log: Path, turn: int) -> dict[str, Any]:
    """The board before the move of `turn`, from the engine's replay of the log."""
    contents = read_game_log(log)
    assert contents.header is not None
    for step in replay(contents.header.players, contents.header.deck, contents.moves):
        if step.record is not None and step.record.turn == turn:
            game = step.game
            return {
                "seat": step.seat,
                "fireworks": game.fireworks,
                "lives": game.life_tokens,
                "info": game.info_tokens,
                "deck": game.deck_size,
                "discards": Counter(game.discards()),
                "hands": dict(enumerate(game.hands())),
            }
    raise AssertionError(f"no turn {turn} in {log}")


def test_served_site_from_a_run_to_the_move_that_went_wrong(page: Any, served: str, results: Path, shots: Path) -> None:
    page.goto(served)
    assert page.locator("a.run-link").all_inner_texts() == [
        "crossplay",
        "first-release",
        "repeats",
        "resumed",
        "selfplay",
        "many",
    ]
    shoot(page, shots, "served-index")
    follow(page, "crossplay")
    row = page.locator("#games tbody tr").first
    lineup = "openai/fake-model:mycroft | local/smart:best-of-k-watson,k=2"
    assert "interrupted" in row.inner_text() and lineup in row.inner_text()
    shoot(page, shots, "served-run-crossplay")
    follow(page, "2p-custom-seed1-r0")
    assert shows_position(page, "turn 1 of 14")

    page.keyboard.press("s")  # the first strike: the scripted model's blind play
    assert re.fullmatch(r"turn \d+ of 14", position(page))
    step = page.locator("section.step.current")
    assert "a strike" in step.locator(".outcome").inner_text()
    turn = int(step.get_attribute("data-anchor")[1:])
    log = results / "crossplay" / "games" / "2p-custom-seed1-r0.jsonl"
    page.keyboard.press("t")
    assert board_on_page(page) == board_in_engine(log, turn)
    shoot(page, shots, "served-strike")

    page.keyboard.press("Home")
    page.keyboard.press("r")  # the first re-asked move: a hostile reply, rejected, then the re-ask
    step = page.locator("section.step.current")
    assert step.get_attribute("data-anchor") == "t3"
    rejected = step.locator(".attempt.rejected").first
    assert rejected.locator(".kind").inner_text() == "unparseable"
    assert "I could not find your chosen move" in rejected.locator(".feedback").inner_text()
    assert '<script>window.__pwned = "script"</script><img src="x" onerror=' in rejected.locator(".reply").inner_text()
    assert '<script>window.__pwned = "reason"</script>play it' in step.locator(".reason").inner_text()
    assert page.evaluate("window.__pwned") is None  # none of it ran
    assert page.locator("main img, main script").count() == 0
    assert rejected.locator(".reply").evaluate("reply => reply.children.length") == 0  # its <b> is text too
    rejected.scroll_into_view_if_needed()
    shoot(page, shots, "served-hostile-reply")

    page.keyboard.press("End")  # where the game stopped: every failed attempt, with its error kind
    step = page.locator("section.step.current")
    assert step.get_attribute("data-anchor") == "stop15"
    assert "could not move" in step.locator("h2").inner_text()
    assert step.locator(".attempt.rejected .kind").all_inner_texts() == ["unparseable", "unparseable"]
    shoot(page, shots, "served-stop")

    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")  # the built-in best-of-k seat's move: each call in its role
    step = page.locator("section.step.current")
    assert step.locator("details.call .role").all_inner_texts() == ["SAMPLE-1", "SAMPLE-2", "SELECTOR"]
    page.keyboard.press("t")
    page.keyboard.press("Home")  # a Mycroft move: its deductions beside the engine's truth, wrong cells marked
    cells = page.locator("section.step.current table.deductions td.wrong")
    assert cells.count() >= 1
    assert page.locator("section.step.current table.deductions td.missing").first.inner_text().startswith("not stated")


def test_keyboard_walks_moves_and_games_and_the_board_is_the_engines(
    page: Any, served: str, results: Path, shots: Path
) -> None:
    page.goto(served + "runs/selfplay/index.html")
    follow(page, "3p-custom-seed1")
    log = results / "selfplay" / "games" / "3p-custom-seed1.jsonl"
    moves = len(read_game_log(log).moves)
    page.keyboard.press("t")  # reveal the seat's own cards, to compare whole hands
    assert shows_position(page, f"turn 1 of {moves}")
    assert board_on_page(page) == board_in_engine(log, 1)
    for turn in (2, 3, 4):
        page.keyboard.press("ArrowRight")
        assert shows_position(page, f"turn {turn} of {moves}") and page.url.endswith(f"#t{turn}")
    assert board_on_page(page) == board_in_engine(log, 4)
    page.locator(".timeline a", has_text="30").first.click()  # the move strip: any move in one click
    assert shows_position(page, f"turn 30 of {moves}")
    assert board_on_page(page) == board_in_engine(log, 30)
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    assert shows_position(page, f"turn {moves} of {moves}")
    assert board_on_page(page) == board_in_engine(log, moves)
    shoot(page, shots, "served-3p-last-move")
    page.keyboard.press("ArrowRight")
    assert page.locator("section.step.current h2").inner_text().startswith("Game over")
    page.keyboard.press("ArrowLeft")
    assert shows_position(page, f"turn {moves} of {moves}")

    page.keyboard.press("ArrowDown")  # the next game of the run: 4 players
    page.wait_for_url("**/4p-custom-seed1.html*")
    assert shows_position(page, "turn 1 of 62")
    page.keyboard.press("t")
    page.keyboard.press("ArrowRight")
    assert board_on_page(page) == board_in_engine(results / "selfplay" / "games" / "4p-custom-seed1.jsonl", 2)
    page.keyboard.press("ArrowDown")
    page.wait_for_url("**/5p-custom-seed1.html*")
    assert len(page.locator("section.step.current .hand").all()) == 5
    page.keyboard.press("ArrowUp")
    page.wait_for_url("**/4p-custom-seed1.html*")
    page.keyboard.press("ArrowUp")
    page.wait_for_url("**/3p-custom-seed1.html*")
    page.keyboard.press("ArrowUp")
    page.wait_for_url("**/2p-custom-seed1.html*")
    assert len(page.locator("section.step.current .hand").all()) == 2


def test_static_site_opens_from_disk_and_jumps_to_the_largest_regret(
    page: Any, site: Path, results: Path, shots: Path
) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site.joinpath("index.html").as_uri())
    follow(page, "resumed")
    row = page.locator("#games tbody tr").first
    assert "complete" in row.inner_text()
    regret_turn = int(re.search(r"regret, turn (\d+)", row.inner_text()).group(1))
    follow(page, "2p-custom-seed1-r0")
    anchors = page.locator(".timeline a").evaluate_all("links => links.map(a => a.dataset.anchor)")
    assert anchors[13:17] == ["t14", "stop15", "t15", "t16"]  # stopped at turn 15, resumed from there
    page.keyboard.press("v")
    step = page.locator("section.step.current")
    assert step.get_attribute("data-anchor") == f"t{regret_turn}"
    run = results / "resumed"
    values = read_values(values_path(run, "2p-custom-seed1-r0"))[regret_turn]
    shown = [float(text) for text in step.locator("table.rated tbody td:nth-child(4)").all_inner_texts()]
    errors = [float(text) for text in step.locator("table.rated tbody td:nth-child(5)").all_inner_texts()]
    logged = read_game_log(run / "games" / "2p-custom-seed1-r0.jsonl").moves[regret_turn - 1]
    by_move = {m.move: m.value for m in values.moves}
    se_by_move = {m.move: m.se for m in values.moves}
    assert shown == [pytest.approx(by_move[text], abs=0.005) for text in logged.legal_moves]
    assert errors == [pytest.approx(se_by_move[text], abs=0.005) for text in logged.legal_moves]  # two rollouts
    ratings = [float(text) for text in step.locator("table.rated tbody td:nth-child(3)").all_inner_texts()]
    assert ratings == [pytest.approx(r, abs=0.005) for r in logged.ratings]  # the model's own, beside them
    regret = max(by_move.values()) - by_move[logged.legal_moves[logged.move_index]]
    assert f"Regret of the choice: {regret:.2f} points" in step.inner_text() and regret > 0
    page.keyboard.press("t")
    assert board_on_page(page) == board_in_engine(run / "games" / "2p-custom-seed1-r0.jsonl", regret_turn)
    shoot(page, shots, "static-largest-regret")
    page.goto(site.joinpath("runs", "selfplay", "games", "2p-custom-seed1.html").as_uri() + "#t5")
    assert shows_position(page, "turn 5 of 70")
    page.keyboard.press("ArrowDown")
    page.wait_for_url("**/3p-custom-seed1.html*")
    assert all(url.startswith("file://") for url in requests)  # nothing fetched from anywhere else


def test_a_run_of_many_games_pages_sorts_and_filters_and_names_its_damaged_log(
    page: Any, served: str, shots: Path
) -> None:
    page.goto(served + "runs/many/index.html")
    assert "damaged.jsonl" in page.locator(".skipped").inner_text()
    assert "line 3" in page.locator(".skipped").inner_text()
    rows = page.locator("#games tbody tr:visible")
    assert rows.count() == 100 and page.locator("#shown").inner_text() == "games 1–100 of 130 shown"
    page.click("#page-next")
    assert rows.count() == 30 and page.locator("#shown").inner_text() == "games 101–130 of 130 shown"
    page.fill("#filter", "copy12")
    assert page.locator("#shown").inner_text() == "games 1–10 of 10 shown"
    assert all("copy12" in text for text in rows.all_inner_texts())
    page.fill("#filter", "")
    page.select_option("#status-filter", "interrupted")
    assert page.locator("#shown").inner_text() == "no game matches" and rows.count() == 0
    page.select_option("#status-filter", "")
    header = page.locator("#games th", has_text="game")
    header.click()
    header.click()  # descending
    assert rows.first.locator("td").first.inner_text() == "2p-custom-seed1-copy129"
    shoot(page, shots, "served-many-games")
    with page.expect_navigation():
        rows.first.locator("a.game-link").click()
    page.wait_for_load_state("domcontentloaded")
    assert shows_position(page, "turn 1 of 70")
    page.keyboard.press("End")
    assert page.locator("section.step.current h2").inner_text().startswith("Game over")


def test_logs_of_the_first_release_show_move_by_move(page: Any, site: Path, results: Path, shots: Path) -> None:
    page.goto(site.joinpath("index.html").as_uri())
    follow(page, "first-release")
    assert page.locator("#games tbody tr").count() == 2
    assert page.locator(".skipped").count() == 0
    for game in ("2p-custom-seed1", "3p-custom-seed1"):
        page.goto(site.joinpath("runs", "first-release", "index.html").as_uri())
        follow(page, game)
        log = results / "first-release" / "games" / f"{game}.jsonl"
        contents = read_game_log(log)
        assert contents.header is not None and "repeat" not in contents.header.model_fields_set  # as first written
        moves = len(contents.moves)
        page.keyboard.press("t")
        assert shows_position(page, f"turn 1 of {moves}")
        assert board_on_page(page) == board_in_engine(log, 1)
        for _ in range(19):
            page.keyboard.press("ArrowRight")
        assert shows_position(page, f"turn 20 of {moves}")
        assert board_on_page(page) == board_in_engine(log, 20)
        page.keyboard.press("End")
        page.keyboard.press("ArrowLeft")
        assert shows_position(page, f"turn {moves} of {moves}")
        assert board_on_page(page) == board_in_engine(log, moves)
        rated = page.locator("section.step.current table.rated tbody td:nth-child(3)").all_inner_texts()
        assert [float(text) for text in rated] == [pytest.approx(r, abs=0.005) for r in contents.moves[-1].ratings]
        page.keyboard.press("ArrowRight")
        assert page.locator("section.step.current h2").inner_text().startswith("Game over")
    shoot(page, shots, "static-first-release")


def test_every_page_of_the_static_site_is_its_own_file(site: Path) -> None:
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert "index.html" in pages and "runs/selfplay/index.html" in pages
    assert "runs/crossplay/games/2p-custom-seed1-r0.html" in pages
    assert "runs/repeats/games/2p-custom-seed2-play1.html" in pages
    assert "runs/first-release/games/3p-custom-seed1.html" in pages
    assert len(pages) == 1 + 5 + 4 + 2 + 1 + 1 + 2  # the index, the runs, their games
    assert sorted(p.name for p in (site / "assets").iterdir()) == ["viewer.css", "viewer.js"]


def test_a_move_cut_short_by_a_stop_shows_as_stopped_not_as_a_failure(
    page: Any, results: Path, tmp_path: Path, shots: Path
) -> None:
    """The game page of a game whose last line is a stop (the run stopped while a move was being asked): the step
    says the run was stopped and that resume asks again, with the replies that came before, and the game is
    unfinished, not interrupted. The line is the crossplay game's interruption with the status a stop writes."""
    import shutil

    run = tmp_path / "stopped"
    shutil.copytree(results / "crossplay", run)
    log = run / "games" / "2p-custom-seed1-r0.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[-1] = lines[-1].replace('"status":"interrupted"', '"status":"stopped"', 1)
    log.write_text("".join(lines), encoding="utf-8")
    site = tmp_path / "site"
    write_site(Catalog([run]), site, [str(run)])
    page.goto(site.joinpath("runs", "stopped", "index.html").as_uri())
    assert "unfinished" in page.locator("#games tbody tr").first.inner_text()
    follow(page, "2p-custom-seed1-r0")
    page.keyboard.press("End")
    step = page.locator("section.step.current")
    assert step.get_attribute("data-anchor") == "stop15"
    assert "was being asked when the run was stopped" in step.locator("h2").inner_text()
    assert step.locator(".outcome").inner_text().startswith("Stopped:")
    assert step.locator(".attempt.rejected .kind").all_inner_texts() == ["unparseable", "unparseable"]
    reason = step.locator(".outcome").inner_text().removeprefix("Stopped: ")
    assert f"unfinished, stopped at turn 15: {reason}" in page.locator(".game-facts").inner_text()  # why, up top too
    shoot(page, shots, "static-stopped-move")
