"""The local server of `hanabi-eval view PATH...`: the viewer's pages over HTTP on 127.0.0.1, read-only.

It answers GET and HEAD alone and serves nothing but its rendered pages and its two assets: a request names a run by
its key and a game by its page name, looked up in the catalog and never joined to a file path (a path with `..`, a
backslash or an encoded slash is refused outright). A Host header other than the loopback's (DNS rebinding) is
refused. Pages are rendered from the logs as they are at the request.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import unquote, urlsplit

from harness.run.store import RunDir
from harness.schema.value_records import values_path
from harness.web.catalog import Catalog, RunEntry, stamp_of
from harness.web.game_page import build_game_page
from harness.web.pages import ASSETS, CSP, INDEX, asset, render_game, render_index, render_run

HOST = "127.0.0.1"
CACHED_PAGES = 16  # game pages kept rendered, so that stepping back and forth between games is quick
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
_HTML = "text/html; charset=utf-8"


class Response:
    def __init__(
        self, status: HTTPStatus, body: bytes, kind: str = _HTML, location: str | None = None
    ) -> None:
        self.status, self.body, self.kind, self.location = status, body, kind, location


def _text(status: HTTPStatus, message: str) -> Response:
    body = f"{status.value} {status.phrase}: {message}\n".encode()
    return Response(status, body, "text/plain; charset=utf-8")


def route(catalog: Catalog, sources: list[str], raw_path: str, cache: PageCache) -> Response:
    """The response to a GET of `raw_path` (path and query as the request line gave them)."""
    path = urlsplit(raw_path).path
    if "%2f" in path.lower() or "%5c" in path.lower():
        return _text(HTTPStatus.NOT_FOUND, "no such page")
    parts = unquote(path).split("/")[1:]
    if any(part in ("..", ".") or "\\" in part or "\x00" in part for part in parts):
        return _text(HTTPStatus.NOT_FOUND, "no such page")
    if parts in ([""], [INDEX]):
        return Response(HTTPStatus.OK, render_index(catalog.runs(), sources).encode())
    if len(parts) == 2 and parts[0] == "assets" and parts[1] in ASSETS:
        return Response(HTTPStatus.OK, asset(parts[1]), _TYPES[Path(parts[1]).suffix])
    if len(parts) < 2 or parts[0] != "runs":
        return _text(HTTPStatus.NOT_FOUND, "no such page")
    run = catalog.run(parts[1])
    if run is None:
        return _text(HTTPStatus.NOT_FOUND, "no such run")
    if parts[2:] in ([], [""]):
        return Response(HTTPStatus.FOUND, b"", location=f"/runs/{run.key}/{INDEX}")
    if parts[2:] == [INDEX]:
        return Response(HTTPStatus.OK, render_run(run).encode())
    if len(parts) == 4 and parts[2] == "games":
        return _game(run, parts[3], cache)
    return _text(HTTPStatus.NOT_FOUND, "no such page")


class PageCache:
    """The last CACHED_PAGES game pages rendered, by their run, neighbours and the stamp of their files."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pages: OrderedDict[tuple[object, ...], bytes] = OrderedDict()

    def get(self, key: tuple[object, ...]) -> bytes | None:
        with self._lock:
            if key in self._pages:
                self._pages.move_to_end(key)
            return self._pages.get(key)

    def put(self, key: tuple[object, ...], page: bytes) -> None:
        with self._lock:
            self._pages[key] = page
            while len(self._pages) > CACHED_PAGES:
                self._pages.popitem(last=False)


def _game(run: RunEntry, name: str, cache: PageCache) -> Response:
    game = run.game(name)
    if game is None:
        return _text(HTTPStatus.NOT_FOUND, "no such game in this run (a log that cannot be read is skipped)")
    try:
        stamp = stamp_of(Path(game.log), values_path(Path(run.path), game.game_id))
        key = (run.path, name, stamp, tuple(g.page for g in run.games))
        html = cache.get(key)
        if html is None:
            html = render_game(run, build_game_page(RunDir(Path(run.path)), game)).encode()
            cache.put(key, html)
    except (OSError, ValueError) as exc:  # LogCorrupt: a log damaged since the catalog read it
        return _text(HTTPStatus.NOT_FOUND, f"the game's log cannot be shown now: {exc}")
    return Response(HTTPStatus.OK, html)


class PageHandler(BaseHTTPRequestHandler):
    """A quiet handler (the terminal shows the URL, not every request) that answers GET and HEAD alike."""

    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def start_reply(self, response: Response, csp: str, referrer: str, cache: str = "no-store") -> None:
        """The status and headers of `response`, its body left to the caller."""
        self.send_response(response.status)
        self.send_header("Content-Type", response.kind)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Cache-Control", cache)
        self.send_header("Content-Security-Policy", f"{csp}; frame-ancestors 'none'")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", referrer)
        if response.location:
            self.send_header("Location", response.location)
        self.end_headers()

    def answer(self, with_body: bool) -> None:
        raise NotImplementedError

    def do_GET(self) -> None:
        self.answer(with_body=True)

    def do_HEAD(self) -> None:
        self.answer(with_body=False)


def _handler(catalog: Catalog, sources: list[str]) -> type[BaseHTTPRequestHandler]:
    cache = PageCache()

    class Handler(PageHandler):
        server_version = "hanabi-eval-viewer"

        def _allowed_host(self) -> bool:
            host = (self.headers.get("Host") or "").lower()
            port = self.server.server_address[1]  # type: ignore[index]  # an (address, port) pair for TCP
            return host in (f"{HOST}:{port}", f"localhost:{port}", HOST, "localhost")

        def answer(self, with_body: bool) -> None:
            if not self._allowed_host():
                response = _text(HTTPStatus.MISDIRECTED_REQUEST, "this viewer answers only on 127.0.0.1")
            else:
                try:
                    response = route(catalog, sources, self.path, cache)
                except Exception as exc:  # one bad page must not stop the server
                    print(f"viewer: {self.path}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    response = _text(HTTPStatus.INTERNAL_SERVER_ERROR, "this page could not be rendered")
            self.start_reply(response, CSP, "no-referrer")
            if with_body:
                self.wfile.write(response.body)

    return Handler


class BackgroundServer:
    """An HTTP server that `start` serves from a background thread (tests, the table beside a run) and `stop` shuts
    down, closing its socket."""

    _server: ThreadingHTTPServer
    _thread: threading.Thread | None = None

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()


class ViewerServer(BackgroundServer):
    """The viewer served on 127.0.0.1:`port` (0: a free port). Binding raises OSError (port in use, not allowed)."""

    def __init__(self, catalog: Catalog, sources: list[str], port: int = 0) -> None:
        self._server = ThreadingHTTPServer((HOST, port), _handler(catalog, sources))
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._server.server_address[1]}/"

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def __enter__(self) -> ViewerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
