"""`hanabi-eval view` without a browser: bad input is one line and exit code 2, the server answers only with its own
pages on 127.0.0.1 and writes nothing, the command serves until Ctrl-C, the static site holds every page, and a
report beside the site links its runs and games to their pages. (The pages themselves are tested in a real browser
in test_viewer_browser.py.)"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.web.catalog import Catalog
from harness.web.server import ViewerServer
from tests.helpers import ROOT


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 2-player game of the built-in player, and a copy of it cut after 10 moves (a crash: unfinished)."""
    out = tmp_path_factory.mktemp("view") / "results"
    argv = ["run", "--model", "local/smart", "--seeds", "1", "--run-name", "one", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    folder = out / "one"
    lines = (folder / "games" / "2p-custom-seed1.jsonl").read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    cut = [json.dumps({**header, "game_id": "2p-custom-seed1-cut"}).encode() + b"\n", *lines[1:11]]
    (folder / "games" / "2p-custom-seed1-cut.jsonl").write_bytes(b"".join(cut))
    return folder


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below `folder` with its size and modification time."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hanabi-eval: error: ")
    return err


def test_a_path_without_runs_a_bad_port_or_a_bad_out_is_one_line_and_exit_2(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["view", str(empty)]) == 2
    assert "holds no runs" in one_error_line(capsys)
    assert main(["view", str(tmp_path / "missing")]) == 2
    assert "does not exist" in one_error_line(capsys)
    for port in ("0", "70000", "-1"):
        assert main(["view", str(run), "--port", port]) == 2
        assert "outside 1-65535" in one_error_line(capsys)
    file = tmp_path / "a-file"
    file.write_text("x")
    cases = {
        str(file): "is a file",
        str(file / "site"): "is a file",
        str(run / "site"): f"is inside the run directory {run};",
        str(run.parent): f"holds the run directory {run};",
    }
    for out, problem in cases.items():
        assert main(["view", str(run), "--out", out]) == 2
        assert problem in one_error_line(capsys)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main(["view", str(run), "--out", str(other)]) == 2
    assert "holds other files, not a viewer site" in one_error_line(capsys)
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    assert main(["view", str(run), "--out", str(tmp_path / "site"), "--port", "8000"]) == 2
    assert "give one of the two" in one_error_line(capsys)
    assert not (tmp_path / "site").exists()


def test_an_unwritable_out_is_named_before_any_page_is_rendered(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        probe = locked / "probe"
        try:
            probe.mkdir()  # root writes anywhere: then only a path under a file is unwritable
            probe.rmdir()
            target = tmp_path / "a-file"
            target.write_text("x")
            out = target / "deeper" / "site"
        except OSError:
            out = locked / "site"
        assert main(["view", str(run), "--out", str(out)]) == 2
        assert "--out" in one_error_line(capsys)
        assert not out.exists()
    finally:
        locked.chmod(0o700)


def test_a_port_in_use_is_one_line_and_exit_2(run: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "harness.cli", "view", str(run), "--port", str(port)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr == (
        f"hanabi-eval: error: --port {port} is in use on 127.0.0.1; give another port, or leave it out\n"
    )


def get(url: str, path: str, method: str = "GET", host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request with `path` sent exactly as written (no client-side normalisation of `..`)."""
    address = url.removeprefix("http://").rstrip("/")
    connection = http.client.HTTPConnection(address, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_server_serves_its_pages_only_on_127_0_0_1_and_writes_nothing(run: Path, tmp_path: Path) -> None:
    before = tree(run)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the viewer")
    with ViewerServer(Catalog([run]), [str(run)]) as server:
        url = server.url
        assert url.startswith("http://127.0.0.1:")
        status, headers, body = get(url, "/")
        assert status == 200 and b"one" in body
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        status, _, body = get(url, "/runs/one/games/2p-custom-seed1.html")
        assert status == 200 and b"2p-custom-seed1" in body
        status, headers, _ = get(url, "/runs/one/")
        assert status == 302 and headers["location"] == "/runs/one/index.html"
        assert get(url, "/assets/viewer.js")[1]["content-type"].startswith("text/javascript")
        refused = [
            "/../../../../etc/passwd",
            "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
            "/runs/one/../../secret.txt",
            "/runs/one/manifest.json",
            "/runs/one/games/2p-custom-seed1.jsonl",
            "/runs/one/games/..%2f..%2fmanifest.json",
            "/runs/one/games/%2e%2e/manifest.json",
            "/assets/../catalog.py",
            "/assets/..%5c..%5cserver.py",
            f"/{secret}",
            "/runs/nothing/index.html",
        ]
        for path in refused:
            status, _, body = get(url, path)
            assert status == 404, path
            assert b"deck" not in body and b"not for the viewer" not in body and b"import" not in body
        assert get(url, "/", method="POST")[0] == 501
        assert get(url, "/", method="DELETE")[0] == 501
        assert get(url, "/", host="attacker.example")[0] == 421  # a page of another site cannot read this one
        assert get(url, "/", host=url.removeprefix("http://").rstrip("/"))[0] == 200
    assert tree(run) == before


@contextlib.contextmanager
def viewing(run: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`hanabi-eval view RUN EXTRA...` in a subprocess, once it serves: the process and the line that gives its
    address (after checking the line before it). The process is killed if the test leaves it running."""
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "view", str(run), *extra],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("Reading the game logs below ")
        yield process, process.stdout.readline()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def address(line: str) -> str:
    found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
    assert found, line
    return found.group(1)


def test_the_view_command_prints_its_address_and_stops_on_ctrl_c(run: Path) -> None:
    with viewing(run) as (process, line):
        assert "Serving the viewer of 1 run and 2 games" in line
        status, _, body = get(address(line), "/runs/one/index.html")
        assert status == 200 and b"2p-custom-seed1-cut" in body
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
        assert process.stderr is not None and process.stderr.read() == "Viewer stopped.\n"


def test_the_static_site_holds_every_page_and_replaces_only_a_site(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reports" / "viewer"
    before = tree(run)
    assert main(["view", str(run), "--out", str(out)]) == 0
    assert "Wrote the viewer of 1 run and 2 games" in capsys.readouterr().out
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert pages == [
        "assets/viewer.css",
        "assets/viewer.js",
        "index.html",
        "runs/one/games/2p-custom-seed1-cut.html",
        "runs/one/games/2p-custom-seed1.html",
        "runs/one/index.html",
        "site.json",
    ]
    cut = (out / "runs/one/games/2p-custom-seed1-cut.html").read_text()
    assert "The log ends here" in cut and "unfinished" in cut
    assert main(["view", str(run), "--out", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err
    (out / "runs" / "notes.txt").write_text("kept by hand")
    assert main(["view", str(run), "--out", str(out), "--force"]) == 2
    assert "holds runs/notes.txt, which the viewer site there did not write" in capsys.readouterr().err
    (out / "runs" / "notes.txt").unlink()
    assert main(["view", str(run), "--out", str(out), "--force"]) == 0
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # no staging folder left
    assert tree(run) == before


def test_a_report_beside_the_site_links_its_runs_and_games_to_their_pages(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports"
    assert main(["report", str(run), "--out", str(reports / "alone")]) == 0
    assert "../viewer/" not in (reports / "alone" / "report.html").read_text()
    assert main(["view", str(run), "--out", str(reports / "viewer")]) == 0
    assert main(["report", str(run), "--out", str(reports / "all")]) == 0
    capsys.readouterr()
    html = (reports / "all" / "report.html").read_text()
    links = set(re.findall(r'href="(\.\./viewer/[^"#]+)(#[^"]*)?"', html))
    assert ("../viewer/runs/one/index.html", "") in links
    assert ("../viewer/runs/one/games/2p-custom-seed1-cut.html", "#end") in links  # the unfinished game
    for link, _ in links:
        assert (reports / "all" / link).resolve().is_file()


def test_a_log_whose_header_names_another_game_is_skipped_and_named(run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copied"
    (folder / "games").mkdir(parents=True)
    (folder / "manifest.json").write_bytes((run / "manifest.json").read_bytes())
    source = run / "games" / "2p-custom-seed1.jsonl"
    (folder / "games" / "2p-custom-seed7.jsonl").write_bytes(source.read_bytes())
    (folder / "games" / "2p-custom-seed1.jsonl").write_bytes(source.read_bytes())
    (entry,) = Catalog([folder]).runs()
    assert [g.game_id for g in entry.games] == ["2p-custom-seed1"]
    (skipped,) = entry.skipped
    assert skipped.path.endswith("2p-custom-seed7.jsonl")
    assert "the header is game 2p-custom-seed1" in skipped.problem


BROWSER = """import sys, urllib.request
url = sys.argv[1]
page = urllib.request.urlopen(url, timeout=20).read() if url.startswith("http") else b""
with open(sys.argv[2], "a") as seen:
    seen.write(url + " " + str(len(page)) + "\\n")
"""


def test_open_hands_the_address_to_the_users_browser_which_can_load_it_at_once(run: Path, tmp_path: Path) -> None:
    """`--open` goes through Python's webbrowser, so the BROWSER variable picks the browser: here a command that
    loads the page before it exits, as a terminal browser (lynx, w3m) does; the server must already answer it."""
    script, seen = tmp_path / "browser.py", tmp_path / "seen.txt"
    script.write_text(BROWSER)
    env = {**os.environ, "BROWSER": f"{sys.executable} {script} %s {seen}"}
    with viewing(run, "--open", env=env) as (_, line):
        deadline = time.monotonic() + 60
        while not seen.is_file() or not seen.read_text().endswith("\n"):
            assert time.monotonic() < deadline, "the browser never loaded the page"
            time.sleep(0.05)
        url, size = seen.read_text().split()
        assert url == address(line) and int(size) > 0  # the run list, served while the browser was open

    site = tmp_path / "site"
    argv = [sys.executable, "-m", "harness.cli", "view", str(run), "--out", str(site), "--open"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert seen.read_text().splitlines()[-1] == f"{(site / 'index.html').resolve().as_uri()} 0"
