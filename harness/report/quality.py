"""Play quality beyond the score, judged by replaying each complete game's logged moves through the engine.

Per move: whether the chosen move is among those the model rated highest; whether a play was of a card the
seat could know was unplayable (every identity its could-be sets allow, among the copies it cannot see, is
unplayable); whether a clue changed no could-be set of its target; whether a discard threw away the last copy
of a card still needed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from harness.engine.game import Game
from harness.engine.replay import replay
from harness.report.stats import ratio
from harness.schema.cards import COPIES, parse_card
from harness.schema.moves import Move, MoveKind
from harness.schema.records import GameHeader, MoveRecord
from harness.view.builder import build_view, dead_cards, is_playable


class MoveFlags(BaseModel):
    """What the replay found about one move."""

    model_config = ConfigDict(frozen=True)

    turn: int
    seat: int
    kind: str
    known_unplayable_play: bool = False
    uninformative_clue: bool = False
    critical_discard: bool = False


class MoveQuality(MoveFlags):
    rated: bool  # the reply rated at least one legal move
    chosen_top: bool | None  # the chosen move has the highest rating given (ties included); None when unrated


class GameQuality(BaseModel):
    """Per-game counts, for the per-game table."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    game_id: str
    rated_moves: int
    off_top_choices: int
    known_unplayable_plays: int
    uninformative_clues: int
    critical_discards: int


class QualitySummary(BaseModel):
    """Per group: counts, shares of the relevant moves, and rates per move and per game."""

    model_config = ConfigDict(frozen=True)

    group: str
    games: int
    moves: int
    rated_moves: int
    unrated_moves: int
    off_top_choices: int
    off_top_share: float | None  # of rated moves
    off_top_per_game: float | None
    plays: int
    known_unplayable_plays: int
    known_unplayable_share: float | None  # of plays
    known_unplayable_per_move: float | None
    known_unplayable_per_game: float | None
    hints: int
    uninformative_clues: int
    uninformative_share: float | None  # of clues
    uninformative_per_move: float | None
    uninformative_per_game: float | None
    discards: int
    critical_discards: int
    critical_share: float | None  # of discards
    critical_per_move: float | None
    critical_per_game: float | None


def chosen_is_top(ratings: Sequence[float | None], chosen: int) -> bool | None:
    """True when the chosen move has the highest rating given; None when no move was rated.

    A chosen move the reply left unrated, while it rated others, is not among the top-rated moves.
    """
    given = [r for r in ratings if r is not None]
    if not given:
        return None
    mine = ratings[chosen] if 0 <= chosen < len(ratings) else None
    return mine is not None and mine == max(given)


def judge_moves(players: int, deck: list[str], moves: Sequence[MoveRecord | Move]) -> list[MoveFlags]:
    """Replay `moves` from the deck (logged records are checked step by step) and judge each one from the state
    before it."""
    flags = []
    for last in replay(players, deck, moves):
        game, move, seat = last.game, last.move, last.seat
        unplayable = clue_is_empty = critical = False
        if move.kind is MoveKind.PLAY:
            assert move.card_index is not None
            own = build_view(game.observe(seat)).own_hand[move.card_index]
            unplayable = bool(own.candidates) and not any(
                is_playable(name, game.fireworks) for name in own.candidates
            )
        target = (seat + (move.target_offset or 0)) % players if move.is_hint else None
        knowledge_before = _could_be(game, target) if target is not None else None
        fireworks_before, discards_before = game.fireworks, Counter(game.discards())
        entry = last.apply()
        if target is not None:
            clue_is_empty = _could_be(game, target) == knowledge_before
        if move.kind is MoveKind.DISCARD and entry.card is not None:
            _, rank = parse_card(entry.card)
            critical = (
                entry.card not in dead_cards(fireworks_before, discards_before)
                and discards_before[entry.card] == COPIES[rank] - 1
            )
        flags.append(
            MoveFlags(
                turn=entry.turn,
                seat=seat,
                kind=str(move.kind),
                known_unplayable_play=unplayable,
                uninformative_clue=clue_is_empty,
                critical_discard=critical,
            )
        )
    return flags


def _could_be(game: Game, player: int) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    return [(k.could_be_colors, k.could_be_ranks) for k in game.knowledge(player)]


def assess_game(header: GameHeader, moves: Sequence[MoveRecord]) -> list[MoveQuality]:
    """Judge every move of a logged game (one the run's reader read, so it replays)."""
    flags = judge_moves(header.players, header.deck, moves)
    return [
        MoveQuality(
            **flag.model_dump(),
            rated=any(r is not None for r in record.ratings),
            chosen_top=chosen_is_top(record.ratings, record.move_index),
        )
        for flag, record in zip(flags, moves, strict=True)
    ]


@dataclass
class QualityCounts:
    """Judged moves counted, of one game or of every game of a group: what GameQuality and QualitySummary give."""

    moves: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    rated: int = 0
    off_top: int = 0
    unplayable: int = 0
    empty: int = 0
    critical: int = 0

    def add(self, judged: Sequence[MoveQuality]) -> None:
        self.moves += len(judged)
        self.kinds.update(m.kind for m in judged)
        self.rated += sum(m.rated for m in judged)
        self.off_top += sum(m.chosen_top is False for m in judged)
        self.unplayable += sum(m.known_unplayable_play for m in judged)
        self.empty += sum(m.uninformative_clue for m in judged)
        self.critical += sum(m.critical_discard for m in judged)


def game_quality(run_id: str, game_id: str, counts: QualityCounts) -> GameQuality:
    return GameQuality(
        run_id=run_id,
        game_id=game_id,
        rated_moves=counts.rated,
        off_top_choices=counts.off_top,
        known_unplayable_plays=counts.unplayable,
        uninformative_clues=counts.empty,
        critical_discards=counts.critical,
    )


def summarize(group: str, games: int, counts: QualityCounts) -> QualitySummary:
    n, kinds = counts.moves, counts.kinds
    plays = kinds[str(MoveKind.PLAY)]
    hints = kinds[str(MoveKind.REVEAL_COLOR)] + kinds[str(MoveKind.REVEAL_RANK)]
    discards = kinds[str(MoveKind.DISCARD)]
    rated, off_top, unplayable = counts.rated, counts.off_top, counts.unplayable
    empty, critical = counts.empty, counts.critical
    return QualitySummary(
        group=group,
        games=games,
        moves=n,
        rated_moves=rated,
        unrated_moves=n - rated,
        off_top_choices=off_top,
        off_top_share=ratio(off_top, rated),
        off_top_per_game=ratio(off_top, games),
        plays=plays,
        known_unplayable_plays=unplayable,
        known_unplayable_share=ratio(unplayable, plays),
        known_unplayable_per_move=ratio(unplayable, n),
        known_unplayable_per_game=ratio(unplayable, games),
        hints=hints,
        uninformative_clues=empty,
        uninformative_share=ratio(empty, hints),
        uninformative_per_move=ratio(empty, n),
        uninformative_per_game=ratio(empty, games),
        discards=discards,
        critical_discards=critical,
        critical_share=ratio(critical, discards),
        critical_per_move=ratio(critical, n),
        critical_per_game=ratio(critical, games),
    )
