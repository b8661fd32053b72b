"""Building a seat's SeatView from its engine Observation: the facts derived in Python (unseen-card counts,
playability, criticality, the final-round notice), so that templates never count cards; and the PlayView the
smart bot reads (play_view.py), from an Observation or a SeatView. Compiled with the smart bot (setup.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, TypeVar

from harness.engine.game import MAX_INFO_TOKENS, MAX_LIFE_TOKENS, HistoryEntry, Knowledge, Observation
from harness.schema.cards import ALL_CARDS, COLORS, COPIES, FULL_DECK, MAX_SCORE, RANKS, card
from harness.schema.moves import Move, MoveKind
from harness.schema.trusted import trusted
from harness.view.play_view import PlayCard, PlayHand, PlayMove, PlayView, TableFacts
from harness.view.seat_view import Event, LegalMove, OtherHand, OwnCard, SeatView, VisibleCard

K = TypeVar("K")
V = TypeVar("V")


def is_playable(text: str, fireworks: dict[str, int]) -> bool:
    """Whether a card (engine text such as 'R3') is the next one of its firework."""
    return fireworks[text[0]] + 1 == int(text[1])


_BY_COLOR: tuple[tuple[str, tuple[str, ...]], ...] = tuple((c, tuple(card(c, r) for r in RANKS)) for c in COLORS)


def dead_cards(fireworks: dict[str, int], discards: Mapping[str, int]) -> set[str]:
    """Cards that can never score: already played, or a lower rank of their colour is gone for good. `discards`
    counts the discarded copies of every card (a Counter, or a dict with every card)."""
    dead: set[str] = set()
    for color, names in _BY_COLOR:
        height = fireworks[color]
        dead.update(names[:height])
        for rank in range(height + 1, len(RANKS) + 1):
            if discards[names[rank - 1]] >= COPIES[rank]:  # every copy gone: the ranks above it can never score
                dead.update(names[rank:])
                break
    return dead


@lru_cache(maxsize=256)
def table_facts(fireworks: tuple[tuple[str, int], ...], discards: tuple[str, ...]) -> TableFacts:
    """The table's derived facts (`discards` sorted), memoised: a game's table changes only on a play or a
    discard. Counted in a plain dict of every card, where a Counter's missing card is a call into Python."""
    heights = dict(fireworks)
    counts = dict.fromkeys(ALL_CARDS, 0)
    for name in discards:
        counts[name] += 1
    dead = frozenset(dead_cards(heights, counts))
    unseen, status = {}, {}
    for color, names in _BY_COLOR:
        height = heights[color]
        for rank, name in enumerate(names, 1):
            unseen[name] = FULL_DECK[name] - counts[name] - (1 if rank <= height else 0)
            useless = name in dead
            status[name] = (rank == height + 1, useless, not useless and counts[name] == COPIES[rank] - 1)
    return TableFacts(
        discard_counts={name: count for name, count in counts.items() if count},
        dead=dead,
        playable=frozenset(f"{color}{height + 1}" for color, height in fireworks if height < len(RANKS)),
        unseen=unseen,
        status=status,
    )


def build_view(obs: Observation, events: bool = True) -> SeatView:
    """Build the seat's view from its observation alone. `events=False` leaves `events`, `recent` and
    `recent_events` empty (the built-in players never read them). Its models hold what this module
    computed from a valid observation, unvalidated (schema/trusted.py); own cards with the same knowledge
    share one dict of candidates, so nothing may change a view."""
    return trusted(SeatView, _view_fields(obs, events))


def play_view(obs: Observation) -> PlayView:
    """What the smart bot reads of the seat's view (play_view.py): `play_view_of(build_view(obs))`, computed alike
    without building the view, for the bot's play-outs."""
    seat, n = obs.seat, obs.num_players
    table = table_facts(tuple(obs.fireworks.items()), tuple(sorted(obs.discards)))
    unseen = _unseen(obs, table)
    status = table.status
    counted: dict[int, dict[str, int]] = {}  # by id: every knowledge lives in the observation through the loop
    own = []
    for known in obs.knowledge[seat]:
        candidates = counted.get(id(known))
        if candidates is None:
            candidates = counted[id(known)] = _candidate_counts(known, unseen)
        own.append(candidates)
    others = []
    for offset in range(1, n):
        player = (seat + offset) % n
        cards = tuple(_play_card(i, c, status[c]) for i, c in enumerate(obs.hands[player]) if c is not None)
        others.append(PlayHand(player, cards))
    return PlayView(
        seat=seat,
        num_players=n,
        hand_size=obs.hand_size,
        life_tokens=obs.life_tokens,
        info_tokens=obs.info_tokens,
        max_info_tokens=MAX_INFO_TOKENS,
        deck_size=obs.deck_size,
        turns_left=_turns_left(obs),
        fireworks=dict(obs.fireworks),
        unseen=unseen,
        history=obs.history,
        own_candidates=tuple(own),
        others=tuple(others),
        table=table,
        legal_moves=_play_moves(obs.legal_moves, seat, n, obs.hands),
    )


def play_view_of(view: SeatView) -> PlayView:
    """What the smart bot reads of a SeatView (play_view.py), sharing its values."""
    return PlayView(
        seat=view.seat,
        num_players=view.num_players,
        hand_size=view.hand_size,
        life_tokens=view.life_tokens,
        info_tokens=view.info_tokens,
        max_info_tokens=view.max_info_tokens,
        deck_size=view.deck_size,
        turns_left=view.turns_left,
        fireworks=view.fireworks,
        unseen=view.unseen,
        history=view.history,
        own_candidates=tuple(own.candidates for own in view.own_hand),
        table=table_facts(tuple(view.fireworks.items()), tuple(sorted(view.discards))),
        others=tuple(_play_hand(hand) for hand in view.others),
        legal_moves=tuple(PlayMove(legal.move, legal.target_player, legal.touches) for legal in view.legal_moves),
    )


def _play_hand(hand: OtherHand) -> PlayHand:
    cards = tuple(_play_card(c.index, c.card, (c.playable, c.useless, c.critical)) for c in hand.cards)
    return PlayHand(hand.player, cards)


def _unseen(obs: Observation, table: TableFacts) -> dict[str, int]:
    """Copies of each card the seat cannot see: on the table's count, less the cards in the other hands."""
    unseen = dict(table.unseen)
    for player, hand in enumerate(obs.hands):
        if player != obs.seat:
            for c in hand:
                if c is not None:
                    unseen[c] -= 1
    return unseen


def _turns_left(obs: Observation) -> int | None:
    """Once the deck is empty: moves left in the game, this one included."""
    return None if obs.last_player is None else (obs.last_player - obs.current_player) % obs.num_players + 1


def _view_fields(obs: Observation, events: bool) -> dict[str, Any]:
    """The fields of the seat's view (see build_view)."""
    seat, n = obs.seat, obs.num_players
    table = table_facts(tuple(obs.fireworks.items()), tuple(sorted(obs.discards)))
    dead, playable, status = table.dead, table.playable, table.status
    unseen = _unseen(obs, table)

    own = _own_hand(obs.knowledge[seat], unseen, playable, dead)
    others = []
    for offset in range(1, n):
        player = (seat + offset) % n
        size = len(obs.hands[player])
        cards = tuple(
            _visible_card(i, size, c, k, status[c])
            for i, (c, k) in enumerate(zip(obs.hands[player], obs.knowledge[player], strict=True))
            if c is not None
        )
        others.append(trusted(OtherHand, {"player": player, "offset": offset, "cards": cards, "chop": _chop(cards)}))

    recent: tuple[HistoryEntry, ...] = ()
    told: tuple[Event, ...] = ()
    if events:
        recent = _since_own_move(obs.history, seat)
        told = _events(obs.history, seat, n)

    return {
        "seat": seat,
        "num_players": n,
        "hand_size": obs.hand_size,
        "turn": obs.turn,
        "life_tokens": obs.life_tokens,
        "max_life_tokens": MAX_LIFE_TOKENS,
        "info_tokens": obs.info_tokens,
        "max_info_tokens": MAX_INFO_TOKENS,
        "fireworks": dict(obs.fireworks),
        "score": sum(obs.fireworks.values()),
        "max_score": MAX_SCORE,
        "discards": obs.discards,
        "discard_counts": dict(table.discard_counts),
        "deck_size": obs.deck_size,
        "own_hand": own,
        "own_chop": _chop(own),
        "others": tuple(others),
        "unseen": unseen,
        "history": obs.history,
        "recent": recent,
        "events": told,
        "recent_events": tuple(told[e.turn - 1] for e in recent),
        "final_round": obs.last_player is not None,
        "last_player": obs.last_player,
        "last_player_offset": None if obs.last_player is None else (obs.last_player - seat) % n,
        "turns_left": _turns_left(obs),
        "legal_moves": _legal_moves(obs.legal_moves, seat, n, obs.hands),
    }


def _since_own_move(history: tuple[HistoryEntry, ...], seat: int) -> tuple[HistoryEntry, ...]:
    """The moves the others made since the seat's own last move (all of them before its first), oldest first."""
    since = len(history)
    while since and history[since - 1].player != seat:
        since -= 1
    return history[since:]


def _clued(knowledge: Knowledge) -> bool:
    return knowledge.color is not None or knowledge.rank is not None


def _chop(cards: tuple[OwnCard, ...] | tuple[VisibleCard, ...]) -> int | None:
    return next((c.index for c in cards if not c.clued), None)


def _own_hand(
    knowledge: tuple[Knowledge, ...],
    unseen: dict[str, int],
    playable_cards: frozenset[str],
    dead: frozenset[str],
) -> tuple[OwnCard, ...]:
    """The seat's own cards. Cards with the same knowledge object share one count of their candidates: the engine's
    knowledge is interned, so every unhinted card of a hand has the same one."""
    counted: dict[int, tuple[dict[str, int], float, float]] = {}  # by id: every item lives through the loop
    cards = []
    for index, known in enumerate(knowledge):
        if id(known) not in counted:
            counted[id(known)] = _candidates(known, unseen, playable_cards, dead)
        candidates, playable, useless = counted[id(known)]
        cards.append(
            trusted(
                OwnCard,
                {
                    "index": index,
                    "slot": len(knowledge) - index,
                    "clued": _clued(known),
                    "knowledge": known,
                    "candidates": candidates,
                    "playable_probability": playable,
                    "useless_probability": useless,
                },
            )
        )
    return tuple(cards)


def _candidates(
    knowledge: Knowledge, unseen: dict[str, int], playable_cards: frozenset[str], dead: frozenset[str]
) -> tuple[dict[str, int], float, float]:
    """A hidden card's candidate identities with their unseen copies, and the chances it is playable and useless."""
    candidates = _candidate_counts(knowledge, unseen)
    total = sum(candidates.values())
    playable = sum(candidates.get(name, 0) for name in playable_cards)  # at most one per colour
    useless = sum(n for name, n in candidates.items() if name in dead)
    return candidates, playable / total if total else 0.0, useless / total if total else 0.0


def _candidate_counts(knowledge: Knowledge, unseen: dict[str, int]) -> dict[str, int]:
    """The identities a hidden card's could-be sets allow that have unseen copies, with their counts."""
    return {name: count for name in _could_be(knowledge) if (count := unseen[name]) > 0}


def _could_be(knowledge: Knowledge) -> tuple[str, ...]:
    """The identities a card's could-be sets allow, in colour then rank order. Remembered by the knowledge's
    id (the engine's knowledge objects are interned): hashing the model goes through Python."""
    found = _COULD_BE.get(id(knowledge))
    if found is None or found[0] is not knowledge:
        found = (knowledge, tuple(f"{c}{r}" for c in knowledge.could_be_colors for r in knowledge.could_be_ranks))
        _remember(_COULD_BE, id(knowledge), found)
    return found[1]


def _play_card(index: int, text: str, status: tuple[bool, bool, bool]) -> PlayCard:
    """The PlayCard of `text` at `index` whose status on the table is (playable, useless, critical), built once."""
    key = (index, text, status)
    found = _PLAY_CARDS.get(key)
    if found is None:
        found = _PLAY_CARDS[key] = PlayCard(index, text, *status)  # at most 5 x 25 x 8 of them
    return found


def _visible_card(
    index: int, size: int, text: str, knowledge: Knowledge, status: tuple[bool, bool, bool]
) -> VisibleCard:
    """The card `text` at `index` of a hand of `size`, whose status on the table is (playable, useless, critical)."""
    playable, useless, critical = status
    return VisibleCard(
        index=index,
        slot=size - index,
        clued=_clued(knowledge),
        card=text,
        knowledge=knowledge,
        playable=playable,
        useless=useless,
        critical=critical,
    )


def _legal_moves(
    moves: tuple[Move, ...], seat: int, n: int, hands: tuple[tuple[str | None, ...], ...]
) -> tuple[LegalMove, ...]:
    """The seat's legal moves, with each hint's target and the indices it touches in the target's hand."""
    legal = []
    for index, move in enumerate(moves):
        target, touches = _hint_target(move, seat, n, hands)
        if target is None:
            legal.append(LegalMove(index=index, move=move, description=move.description))
        else:
            legal.append(
                LegalMove(index=index, move=move, description=move.description, target_player=target, touches=touches)
            )
    return tuple(legal)


def _play_moves(
    moves: tuple[Move, ...], seat: int, n: int, hands: tuple[tuple[str | None, ...], ...]
) -> tuple[PlayMove, ...]:
    """The seat's legal moves as PlayMoves (`_legal_moves` without the index), each built once for the move,
    its target and the cards it touches."""
    legal = []
    for move in moves:
        target, touches = _hint_target(move, seat, n, hands)
        key = (id(move), target, touches)
        found = _PLAY_MOVES.get(key)
        if found is None or found.move is not move:
            found = PlayMove(move, target, touches)
            _remember(_PLAY_MOVES, key, found)
        legal.append(found)
    return tuple(legal)


def _hint_target(
    move: Move, seat: int, n: int, hands: tuple[tuple[str | None, ...], ...]
) -> tuple[int | None, tuple[int, ...]]:
    """A hint's target player and the indices it touches in the target's hand; (None, ()) for a play or a discard.
    The hint's target offset and what it names (its colour or rank) are remembered by the move's id (the engine's
    moves are interned)."""
    found = _HINTS.get(id(move))
    if found is None or found[0] is not move:
        found = (move, move.target_offset, move.color or move.rank)  # a hint names one of the two
        _remember(_HINTS, id(move), found)
    _, offset, what = found
    if offset is None or what is None:
        return None, ()
    target = (seat + offset) % n
    return target, _touches_of(hands[target]).get(what, ())


def _touches_of(hand: tuple[str | None, ...]) -> dict[str | int, tuple[int, ...]]:
    """The hand indices a hint of each colour (a letter) and of each rank (a number) touches, ascending;
    remembered by the hand (the same hands come back in every play-out of a decision)."""
    found = _TOUCHES.get(hand)
    if found is None:
        indices: dict[str | int, list[int]] = {}
        for i, c in enumerate(hand):
            if c is not None:
                indices.setdefault(c[0], []).append(i)
                indices.setdefault(int(c[1]), []).append(i)
        found = {what: tuple(touched) for what, touched in indices.items()}
        _remember(_TOUCHES, hand, found)
    return found


# The play view's immutable parts that recur from turn to turn (the engine's Moves and Knowledge are
# interned), built once. Keyed by the id of the object the entry itself holds, so an id cannot be reused while
# it lives.
_PLAY_MOVES: dict[tuple[int, int | None, tuple[int, ...]], PlayMove] = {}  # by move id, target, indices touched
_TOUCHES: dict[tuple[str | None, ...], dict[str | int, tuple[int, ...]]] = {}
_PLAY_CARDS: dict[tuple[int, str, tuple[bool, bool, bool]], PlayCard] = {}
_COULD_BE: dict[int, tuple[Knowledge, tuple[str, ...]]] = {}
_HINTS: dict[int, tuple[Move, int | None, str | int | None]] = {}
_REMEMBERED_MAX = 5_000  # entries per kind (about 1.3 KB each), a bound on memory


def _remember(cache: dict[K, V], key: K, value: V) -> None:
    if len(cache) >= _REMEMBERED_MAX:
        cache.clear()
    cache[key] = value


def _fireworks_text(fireworks: dict[str, int]) -> str:
    return " ".join(f"{c}{fireworks[c]}" for c in COLORS)


def _events(history: tuple[HistoryEntry, ...], seat: int, n: int) -> tuple[Event, ...]:
    """The public history as events, with the fireworks and information tokens around each move (HLE's rules: a hint
    costs a token, a discard returns one, a completed firework returns one while tokens are below the maximum)."""
    fireworks, info = dict.fromkeys(COLORS, 0), MAX_INFO_TOKENS
    events = []
    for entry in history:
        before, info_before = _fireworks_text(fireworks), info
        move = entry.move
        if move.is_hint:
            info -= 1
            absolute = move.description.replace(f"player +{move.target_offset}", f"player P{entry.target_player}")
        else:
            absolute = move.description
            if move.kind is MoveKind.DISCARD:
                info = min(info + 1, MAX_INFO_TOKENS)
            elif entry.scored and entry.card is not None:
                fireworks[entry.card[0]] += 1
                if entry.card[1] == "5":
                    info = min(info + 1, MAX_INFO_TOKENS)
        events.append(
            Event(
                turn=entry.turn,
                player=entry.player,
                offset=(entry.player - seat) % n,
                move=move.description,
                absolute_move=absolute,
                fireworks_before=before,
                info_before=info_before,
                fireworks_after=_fireworks_text(fireworks),
                info_after=info,
            )
        )
    return tuple(events)
