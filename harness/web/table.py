"""The table page: where a person plays a human seat in a browser, served while its run plays (`hanabi-eval play`,
and `run` or `resume` of a run with a human seat).

One address per human seat, `/seat/<seat>?token=<secret>`: every request names its seat and carries that seat's token
(compared in constant time). The page is built from the seat's desk (harness.play.desk), which holds the seat's
SeatView and nothing else. A move names its turn and is taken once. Host and Origin are checked (no DNS rebinding, no
cross-site post); pages are autoescaped under the viewer's content security policy, which lets them post only to the
table and fetch only its state. A game of the seat's is shown in the viewer here (`/view/...`) once its deal is over.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import sys
import threading
import webbrowser
from collections.abc import Callable, Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from harness.play.desk import TABLE, Desk, DeskState, FinishedGame
from harness.run.store import RunDir, find_runs
from harness.schema.cards import COLORS
from harness.schema.errors import Refused
from harness.schema.moves import Move, MoveKind
from harness.schema.records import GameResult, is_digits
from harness.view.seat_view import SeatView
from harness.web.board import Board, Frozen, view_board
from harness.web.catalog import Catalog
from harness.web.pages import ASSETS_DIR, CSP, asset, render_template
from harness.web.server import BackgroundServer, PageCache, PageHandler, Response, route

LOOPBACK = "127.0.0.1"
POLL_S = 15.0  # the longest a state request waits for a change
SETTLE_MOVE_S = 0.5  # after a move, how long its answer waits for the seat to be asked again (quick partners)
SETTLE_POLL_S = 0.05  # after a change, how long a state request waits for the seat to be asked (moves in a row)
TABLE_CSP = CSP.replace("form-action 'none'", "form-action 'self'") + "; connect-src 'self'"
_JS, _CSS = "text/javascript; charset=utf-8", "text/css; charset=utf-8"
VIEWER_ASSETS = {"viewer.css": _CSS, "viewer.js": _JS}
TABLE_ASSETS = {"table.js": _JS, "table.css": _CSS, **VIEWER_ASSETS}
HINT_KEYS = "asdfghjklzxcvbnmyuiop"  # keys of hints, in the order they are listed
DISCARD_KEYS = "qwert"  # discard card 0-4; play card 0-4 is 1-5


class MoveButton(Frozen):
    index: int  # the legal move's index, which the form sends
    kind: str  # "play", "discard", "color", "rank"
    card: int | None = None  # play, discard: the card's index
    target: int | None = None  # hints: the player told
    value: str | None = None  # hints: the colour or rank named
    touches: tuple[int, ...] = ()  # hints: the target's cards it points at
    key: str | None = None  # the keyboard key that presses it


class HistoryLine(Frozen):
    turn: int
    player: int
    who: str
    kind: str
    card: str | None  # the card played or discarded (public once it is)
    scored: bool
    target: int | None
    value: str | None
    touched: tuple[int, ...]


class FinishedLine(Frozen):
    game_id: str
    score: int
    max_score: int
    viewer: str | None  # the game's viewer page on this server


class TablePage(Frozen):
    """Everything the table page of one seat shows, built from its desk alone."""

    name: str
    token: str
    version: int
    game_id: str | None = None
    seat: int | None = None
    board: Board | None = None
    fireworks: int = 0  # cards on the fireworks
    turn: int | None = None
    status: str  # "waiting", "yours", "sent", "thinking", "over", "stopped"
    to_move: int | None = None
    to_move_who: str | None = None
    waiting_s: int = 0
    stopped: str | None
    moves: list[MoveButton]
    hand: list[int]  # own card indices
    history: list[HistoryLine]  # newest first
    finished: list[FinishedLine]


PAGE_KINDS = {
    MoveKind.PLAY: "play",
    MoveKind.DISCARD: "discard",
    MoveKind.REVEAL_COLOR: "color",
    MoveKind.REVEAL_RANK: "rank",
}


def _named(move: Move) -> tuple[str, str | None]:
    """A move's kind as the page names it and a hint's colour or rank."""
    if move.kind is MoveKind.REVEAL_COLOR:
        value = move.color
    elif move.kind is MoveKind.REVEAL_RANK:
        value = str(move.rank)
    else:
        value = None
    return PAGE_KINDS[move.kind], value


def _buttons(view: SeatView) -> list[MoveButton]:
    buttons = []
    hint_keys = iter(HINT_KEYS)
    for legal in view.legal_moves:
        kind, value = _named(legal.move)
        card = legal.move.card_index
        if not legal.move.is_hint:
            assert card is not None
            keys = "12345" if kind == "play" else DISCARD_KEYS
            key = keys[card] if card < len(keys) else None
            buttons.append(MoveButton(index=legal.index, kind=kind, card=card, key=key))
        else:
            buttons.append(MoveButton(index=legal.index, kind=kind, target=legal.target_player, value=value,
                                      touches=legal.touches, key=next(hint_keys, None)))
    return buttons


def _history(state: DeskState, view: SeatView) -> list[HistoryLine]:
    lines = []
    for entry in reversed(view.history):
        kind, value = _named(entry.move)
        who = state.who[entry.player] if entry.player < len(state.who) else ""
        lines.append(
            HistoryLine(
                turn=entry.turn,
                player=entry.player,
                who=who,
                kind=kind,
                card=entry.card,
                scored=entry.scored,
                target=entry.target_player,
                value=value,
                touched=entry.revealed,
            )
        )
    return lines


def table_page(state: DeskState, token: str, viewer: Callable[[FinishedGame], str | None]) -> TablePage:
    """The page of a desk's state; `viewer` gives the viewer address of a finished game (None: not to be shown)."""
    view = state.view
    finished = [FinishedLine(game_id=f.game_id, score=f.score, max_score=f.max_score, viewer=viewer(f))
                for f in state.finished]
    if view is None:
        status = "stopped" if state.stopped else "waiting"
        return TablePage(name=state.name, token=token, version=state.version, status=status,
                         stopped=state.stopped, moves=[], hand=[], history=[], finished=finished)
    last = view.history[-1] if view.history else None
    acted = {last.target_player: set(last.revealed)} if last and last.target_player is not None else None
    if state.stopped:
        status = "stopped"
    elif state.over:
        status = "over"
    elif state.to_move == view.seat:
        status = "yours" if state.asking == view.turn else "sent"
    else:
        status = "thinking"
    to_move = state.to_move
    return TablePage(
        name=state.name,
        token=token,
        version=state.version,
        game_id=state.game_id,
        seat=view.seat,
        board=view_board(view, state.who, acted, None),
        fireworks=sum(view.fireworks.get(c, 0) for c in COLORS),
        turn=view.turn,
        status=status,
        to_move=to_move,
        to_move_who=state.who[to_move] if to_move is not None and to_move < len(state.who) else None,
        waiting_s=int(state.waiting_s),
        stopped=state.stopped,
        moves=_buttons(view) if status == "yours" else [],
        hand=[c.index for c in view.own_hand],
        history=_history(state, view),
        finished=finished,
    )


def state_json(state: DeskState) -> dict[str, Any]:
    """What the page polls: enough to know that it changed and whose turn it is, nothing of any card."""
    view = state.view
    return {
        "version": state.version,
        "turn": view.turn if view is not None else None,
        "to_move": state.to_move,
        "your_move": state.asking is not None,
        "over": state.over,
        "waiting_s": round(state.waiting_s, 1),
    }


def _refusal(status: HTTPStatus, message: str, back: str | None = None) -> Response:
    html = render_template("table_refused.html.j2", csp=TABLE_CSP, status=status, message=message, back=back)
    return Response(status, html.encode())


class TableServer(BackgroundServer):
    """The table pages of the open desks, served on `host`:`port` (0: a free port) from a background thread."""

    def __init__(self, desks: dict[str, Desk], host: str = LOOPBACK, port: int = 0, runs: Path | None = None) -> None:
        self.desks = desks
        self.host = host
        self.runs = runs  # the session's run, or its sweep's folder: its games on a deal keep that deal's viewer shut
        self._catalogs: dict[Path, Catalog] = {}
        self._played_out: set[tuple[str, str, Path]] = set()  # finished games whose deal no game of a seat holds
        self._cache = PageCache()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, name: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{seat_path(name)}?token={self.desks[name].token}"

    def allowed_host(self, host_header: str) -> bool:
        """A Host naming this server by an address (or `localhost` when it listens on the loopback), at its port:
        a DNS name that could rebind to it is refused."""
        host, _, port = host_header.rpartition(":") if not host_header.endswith("]") else (host_header, "", "")
        if port != str(self.port):
            return False
        host = host.strip("[]").lower()
        if host == self.host.lower():
            return True
        if host == "localhost":
            return _loopback(self.host)
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return self.host in ("0.0.0.0", "::") or (address.is_loopback and _loopback(self.host))

    def deal_played_out(self, name: str, finished: FinishedGame) -> bool:
        """Whether every game that seats `name` on the finished game's seed, in its run and the session's runs, is
        complete: only then may the viewer show that deal to the seat (a repeat, a later run of a sweep or a game
        to be resumed would deal it the hand shown). Once true it stays true, so the runs are read only until then."""
        key = (name, finished.game_id, finished.run_path)
        if key in self._played_out:
            return True
        try:
            runs = {finished.run_path, *(find_runs([self.runs]) if self.runs is not None else [])}
            manifests = {run: RunDir(run).read_manifest() for run in runs}
        except (Refused, OSError):  # a damaged run folder: nothing can be vouched for
            return False
        planned = manifests.get(finished.run_path)
        seeds = {g.seed for g in planned.games if g.game_id == finished.game_id} if planned is not None else set()
        if len(seeds) != 1:
            return False
        for run, manifest in manifests.items():
            dealt = {
                game.game_id
                for game in (manifest.games if manifest is not None else [])
                if game.seed in seeds and (not game.seats or any(seat.get("model") == name for seat in game.seats))
            }
            if not dealt:
                continue
            complete = {
                path.stem
                for path, result in RunDir(run).results()  # a settled log read at its two ends only
                if isinstance(result, GameResult) and result.status == "complete"
            }
            if not dealt <= complete:
                return False
        with self._lock:
            self._played_out.add(key)
        return True

    def viewer_path(self, game_id: str, run_path: Path) -> str | None:
        """The viewer's page of a game of `run_path` on this server, once its log is readable."""
        pages = (f"/view/runs/{quote(run.key)}/games/{quote(game.page)}"
                 for run in self._catalog(run_path).runs() for game in run.games if game.game_id == game_id)
        return next(pages, None)

    def _catalog(self, run_path: Path) -> Catalog:
        with self._lock:
            if run_path not in self._catalogs:
                self._catalogs[run_path] = Catalog([run_path])
            return self._catalogs[run_path]

    def desk_of(self, name: str, query: dict[str, list[str]]) -> Desk | None:
        desk = self.desks.get(name)
        token = (query.get("token") or [""])[0]
        if desk is None or not hmac.compare_digest(desk.token.encode(), token.encode()):
            return None
        return desk

    def get(self, raw_path: str) -> Response:
        parts = urlsplit(raw_path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        pieces = path.split("/")[1:]
        if len(pieces) == 2 and pieces[0] == "assets" and pieces[1] in TABLE_ASSETS:
            return Response(HTTPStatus.OK, (ASSETS_DIR / pieces[1]).read_bytes(), TABLE_ASSETS[pieces[1]])
        if pieces[:1] == ["view"]:
            return self._viewer(parts.path, query)
        if len(pieces) in (2, 3) and pieces[0] == "seat":
            desk = self.desk_of(pieces[1], query)
            if desk is None:
                return _refusal(HTTPStatus.FORBIDDEN, "this address needs the seat's own token, as printed")
            if len(pieces) == 2:
                page = table_page(desk.snapshot(), desk.token, self._viewer_link(desk))
                html = render_template("table.html.j2", csp=TABLE_CSP, page=page, seat_path=seat_path(desk.name))
                return Response(HTTPStatus.OK, html.encode())
            if pieces[2] == "state":
                since = (query.get("since") or [""])[0]
                if is_digits(since):
                    desk.wait(int(since), POLL_S)
                    desk.settle(SETTLE_POLL_S)
                state = json.dumps(state_json(desk.snapshot())).encode()
                return Response(HTTPStatus.OK, state, "application/json")
        return _refusal(HTTPStatus.NOT_FOUND, "no such page")

    def _viewer_link(self, desk: Desk) -> Callable[[FinishedGame], str | None]:
        def link(finished: FinishedGame) -> str | None:
            if not self.deal_played_out(desk.name, finished):
                return None
            found = self.viewer_path(finished.game_id, finished.run_path)
            return f"{found}?token={desk.token}" if found else None

        return link

    def _viewer(self, raw_path: str, query: dict[str, list[str]]) -> Response:
        """A finished game's viewer page, for a token of a seat that played it; the viewer's assets."""
        inner = raw_path.removeprefix("/view")
        if inner.startswith("/assets/"):
            name = inner.removeprefix("/assets/")
            if name in VIEWER_ASSETS:
                return Response(HTTPStatus.OK, asset(name), VIEWER_ASSETS[name])
            return _refusal(HTTPStatus.NOT_FOUND, "no such file")
        token = (query.get("token") or [""])[0]
        for desk in self.desks.values():
            if not hmac.compare_digest(desk.token.encode(), token.encode()):
                continue
            for finished in desk.snapshot().finished:
                found = self.viewer_path(finished.game_id, finished.run_path)
                if found is None or unquote(found) != unquote(raw_path):
                    continue
                if self.deal_played_out(desk.name, finished):
                    answer = route(self._catalog(finished.run_path), [str(finished.run_path)], inner, self._cache)
                    return Response(answer.status, answer.body, answer.kind, answer.location)
        return _refusal(
            HTTPStatus.FORBIDDEN, "the viewer shows a game here to its players once every game on its deal is over"
        )

    def post(self, raw_path: str, body: bytes) -> Response:
        pieces = unquote(urlsplit(raw_path).path).split("/")[1:]
        if len(pieces) != 3 or pieces[0] != "seat" or pieces[2] != "move":
            return _refusal(HTTPStatus.NOT_FOUND, "no such page")
        form = parse_qs(body.decode("utf-8", "replace"))
        desk = self.desk_of(pieces[1], form)
        if desk is None:
            return _refusal(HTTPStatus.FORBIDDEN, "a move needs the seat's own token; nothing was played")
        back = f"{seat_path(desk.name)}?token={desk.token}"
        turn, move = (form.get("turn") or [""])[0], (form.get("move") or [""])[0]
        if not (is_digits(turn) and is_digits(move)):
            return _refusal(HTTPStatus.BAD_REQUEST, "a move names its turn and one legal move; nothing was played",
                            back)
        refused = desk.submit(int(turn), int(move))
        if refused is not None:
            return _refusal(HTTPStatus.CONFLICT, refused, back)
        desk.settle(SETTLE_MOVE_S)  # the page it leads to shows a quick partner's answer, not "thinking"
        return Response(HTTPStatus.SEE_OTHER, b"", location=back)


def seat_path(name: str) -> str:
    return f"/seat/{quote(name)}"


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


MAX_FORM = 4096


def _handler(table: TableServer) -> type[BaseHTTPRequestHandler]:
    class Handler(PageHandler):
        server_version = "hanabi-eval-table"

        def _send(self, reply: Response, with_body: bool = True) -> None:
            asset_file = reply.kind.startswith(("text/css", "text/javascript"))  # package files: kept by the browser
            # same-origin, not no-referrer: with no-referrer a browser posts `Origin: null`, which could not be told
            # from a sandboxed foreign page; the token in the address goes to this table alone either way
            self.start_reply(reply, TABLE_CSP, "same-origin", "max-age=3600" if asset_file else "no-store")
            if with_body:
                with contextlib.suppress(ConnectionError):  # a page left (a reload) before its answer came
                    self.wfile.write(reply.body)

        def _checked(self, posting: bool) -> Response | None:
            host = self.headers.get("Host") or ""
            if not table.allowed_host(host):
                return _refusal(HTTPStatus.MISDIRECTED_REQUEST, "this table answers only at the address it printed")
            origin = self.headers.get("Origin")
            if (origin is not None or posting) and origin != f"http://{host}":
                return _refusal(HTTPStatus.FORBIDDEN, "a request from another site is refused; nothing was played")
            return None

        def _reply(self, posting: bool, failed: str) -> Response:
            """The answer to this GET, HEAD or POST: a refusal, or the table's; `failed` when that raised."""
            body = b""
            if posting:
                length = self.headers.get("Content-Length") or ""
                if not is_digits(length) or int(length) > MAX_FORM:
                    return _refusal(HTTPStatus.BAD_REQUEST, "a move is a small form; nothing was played")
                body = self.rfile.read(int(length))
            refused = self._checked(posting)
            if refused:
                return refused
            try:
                return table.post(self.path, body) if posting else table.get(self.path)
            except Exception as exc:  # one bad page must not stop the table
                print(f"table: {urlsplit(self.path).path}: {type(exc).__name__}: {exc}", file=sys.stderr)
                return _refusal(HTTPStatus.INTERNAL_SERVER_ERROR, failed)

        def answer(self, with_body: bool) -> None:
            self._send(self._reply(False, "this page could not be rendered"), with_body)

        def do_POST(self) -> None:
            self._send(self._reply(True, "the move could not be taken"))

    return Handler


@contextlib.contextmanager
def serving_table(
    names: list[str],
    host: str | None,
    port: int | None,
    open_pages: bool,
    say: Callable[[str], None],
    runs: Path | None = None,
) -> Iterator[TableServer | None]:
    """Open a desk for each human seat and serve their pages while the block runs (nothing when `names` is empty);
    `runs`: the session's run or sweep folder (TableServer). A port in use or an address that cannot be bound is
    refused in one line."""
    if not names:
        yield None
        return
    bind = host or LOOPBACK
    desks = TABLE.open(names)
    try:
        try:
            server = TableServer(desks, bind, port or 0, runs)
        except OSError as exc:
            raise Refused(
                f"cannot serve the table on {bind}:{port or 0}: {exc.strerror or exc}; give another --port or --host"
            ) from None
        server.start()
        try:
            if not _loopback(bind):
                say(f"warning: the table is served on {bind}, beyond this machine: anyone on the network who has an "
                    "address below can play that seat")
            for name in desks:
                say(f"Table of {name}: {server.url(name)}")
                if open_pages:
                    threading.Thread(target=webbrowser.open, args=(server.url(name),), daemon=True).start()
            yield server
        finally:
            server.stop()
    finally:
        TABLE.close(desks)
        for desk in desks.values():
            desk.cancel()
