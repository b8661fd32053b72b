"""One game as an RL episode: a stored seed deck, one learning seat, the built-in bot at the others.

The learning seat is served the prompt its scaffold builds in a run, working memory included; the other seats
play the built-in bot's moves. A `Position` names one decision exactly (deck, earlier moves, the game id a run
gives the deal), so that its rewards can be computed again anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.bots import DEFAULT_BOT, get_bot
from harness.engine.game import Game
from harness.engine.replay import replay_to_end
from harness.engine.seeds import resolve_seeds
from harness.formats import ParsedReply
from harness.schema.config import SeedDeck
from harness.schema.errors import Refused
from harness.schema.moves import Move
from harness.schema.records import Message, game_id
from harness.strategies.definition import ScaffoldDef
from harness.strategies.memory import keeps_notes, seat_notes
from harness.strategies.offline_reply import bot_reply as offline_reply
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import calls_text, load_scaffold
from harness.view.builder import build_view
from harness.view.seat_view import SeatView


class Position(BaseModel):
    """One decision of the learning seat: enough to rebuild its view anywhere."""

    model_config = ConfigDict(frozen=True)

    game_id: str  # as a run names the same deal at this player count: "2p-standard-seed3"
    players: int
    seed: int
    seed_set: str
    deck: tuple[str, ...]
    history: tuple[Move, ...]  # every move of the game before this decision

    @property
    def turn(self) -> int:
        return len(self.history) + 1

    def view(self) -> SeatView:
        """The view of the seat to move, rebuilt from the deck and the moves before the decision."""
        game = replay_to_end(self.players, list(self.deck), list(self.history))
        return build_view(game.observe(game.current_player))


def check_scaffold(scaffold: ScaffoldDef) -> None:
    """The RL environments serve one prompt per move: single-call scaffolds only."""
    if scaffold.strategy not in ("single", "memory"):
        raise Refused(
            f"scaffold {scaffold.name!r} makes {calls_text(scaffold)} calls per move ({scaffold.strategy}); "
            "the RL environments serve single-call scaffolds: pick e.g. watson, sherlock or mycroft"
        )


class SeatGame:
    """A game in progress from the learning seat's point of view; partners move by themselves."""

    def __init__(
        self, scaffold: ScaffoldDef, players: int, seat: int, deal: SeedDeck, bot: str = DEFAULT_BOT
    ):
        check_scaffold(scaffold)
        if not 2 <= players <= 5:
            raise Refused(f"players={players}: Hanabi takes 2 to 5 players")
        if not 0 <= seat < players:
            raise Refused(
                f"seat={seat} is not a seat of a {players}-player game; seats run from 0 to {players - 1}"
            )
        self.scaffold = scaffold
        self.players = players
        self.seat = seat
        self.deal = deal
        self.partner = get_bot(bot)
        self.game = Game(players, list(deal.deck))
        self.memory: dict[str, Any] | None = None  # the learning seat's notes (working-memory scaffolds)
        self.moves: list[Move] = []
        self.partners_play()

    @property
    def game_id(self) -> str:
        return game_id(self.players, self.deal.seed_set, self.deal.seed)  # as a run names its first play

    @property
    def over(self) -> bool:
        return self.game.is_over

    def partners_play(self) -> None:
        """Let the bot play every other seat until the learning seat is to move or the game ends."""
        while not self.game.is_over and self.game.current_player != self.seat:
            view = build_view(self.game.observe(self.game.current_player))
            self._apply(view.legal_moves[self.partner.decide(view).move_index].move)

    def view(self) -> SeatView:
        return build_view(self.game.observe(self.seat))

    def position(self) -> Position:
        return Position(
            game_id=self.game_id,
            players=self.players,
            seed=self.deal.seed,
            seed_set=self.deal.seed_set,
            deck=self.deal.deck,
            history=tuple(self.moves),
        )

    def prompt(self) -> list[Message]:
        """The learning seat's prompt now, exactly as its scaffold renders it in a run."""
        return render_messages(self.scaffold, self.view(), self.memory)

    def play(self, reply: ParsedReply, text: str) -> Move:
        """Make the learning seat's move read from its accepted reply `text`, then let the partners play."""
        view = self.view()
        move = view.legal_moves[reply.action].move
        if keeps_notes(self.scaffold):
            self.memory, _ = seat_notes(self.scaffold, view, reply, text)
        self._apply(move)
        self.partners_play()
        return move

    def _apply(self, move: Move) -> None:
        self.game.apply(move)
        self.moves.append(move)


class LearnerTurn(BaseModel):
    """One decision of the learning seat: where it stands, the prompt it is served, and its working memory."""

    model_config = ConfigDict(frozen=True)

    position: Position
    prompt: list[Message]
    memory: dict[str, Any] | None


def chat(messages: list[Message]) -> list[dict[str, str]]:
    """Messages as the {"role", "content"} dicts of a chat request."""
    return [{"role": m.role, "content": m.content} for m in messages]


def decisions(
    scaffold: str, players: int, seat: int, seeds: str, bot: str = DEFAULT_BOT
) -> Iterator[LearnerTurn]:
    """Every decision of the learning seat in the games of the deals of `seeds`, in order, when the built-in bot
    plays every seat, the learning one included (its moves are the `local/<bot>` model's replies, read as a
    run reads them). The scaffold (single-call only) and the seeds are read before any game is played."""
    definition = load_scaffold(scaffold)
    check_scaffold(definition)
    deals = resolve_seeds(seeds)

    def turns() -> Iterator[LearnerTurn]:
        for deal in deals:
            game = SeatGame(definition, players, seat, deal, bot)
            while not game.over:
                yield LearnerTurn(position=game.position(), prompt=game.prompt(), memory=game.memory)
                view = game.view()
                fmt = definition.base.reply_format
                text = offline_reply(bot, view, fmt.name)
                reply = fmt.read(text, len(view.legal_moves), moves=view.engine_moves)
                assert isinstance(reply, ParsedReply)
                game.play(reply, text)

    return turns()
