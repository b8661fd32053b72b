"""The clue convention the "smart" bot plays by, and a replay of the public history that applies it.

The convention (a small subset of the H-group's level 1, see shared/reference/hgroup.md):

- A player's chop is their oldest card that no hint has touched.
- A hint that touches no new card carries no extra meaning: it only adds what it says.
- A hint that newly touches the chop focuses on the chop and means "play or save": the card is a play target (see
  below) or worth saving: the last copy of a card still needed (every 5 among them) or, with 2 players, any 2.
- Any other hint that touches new cards focuses on the newest of them and means "play": the card is a play
  target, that is playable now or right after cards their holders already know they will play (a delayed play
  clue), and not a copy of such a queued card.
- Every other newly touched card could still score when the hint was given (good touch).
- With 3 or more players, a play clue whose focus is no play target, but would be one after the card just below it
  (which is playable now), asks the player right after the hinter for that card (see finesse_ask): they play
  their newest hinted card that may be it (a prompt), else their newest untouched card (a finesse), at once. When
  that play scores, the receiver knows its focus card is the next card of that colour.

Meanings depend only on facts that the hinter and the receiver share at that moment (which slots the hint touched,
the fireworks, the discards, what everybody knows from earlier hints, and the cards in the other hands), so both
replay the history to the same conclusions. Slots are followed through plays and discards: removing index i shifts
the later cards down by one, and a drawn card goes to the end. A player who ignores the convention can mislead a
bot that follows it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Final, NamedTuple, TypeVar

from harness.engine.game import HistoryEntry
from harness.schema.cards import ALL_CARDS, COLORS, DECK_SIZE, RANKS
from harness.schema.moves import Move, MoveKind
from harness.view.builder import table_facts
from harness.view.play_view import PlayView, TableFacts

T = TypeVar("T")
ALL_CARD_SET: frozenset[str] = frozenset(ALL_CARDS)
ALL_COLORS: frozenset[str] = frozenset(COLORS)
ALL_RANKS: frozenset[int] = frozenset(RANKS)
RANK_OF: dict[str, int] = {name: int(name[1]) for name in ALL_CARDS}
ONLY: dict[str, frozenset[str]] = {name: frozenset((name,)) for name in ALL_CARDS}  # one set per card, built once
# Player counts in which a 2 on the chop is saved although another copy exists (self-play tests: it pays only here).
TWO_SAVE_PLAYERS = frozenset({2})
# Read once: each read of an Enum's member goes through the Enum class's __getattr__ hook.
_PLAY: Final = MoveKind.PLAY
_REVEAL_COLOR: Final = MoveKind.REVEAL_COLOR
_REVEAL_RANK: Final = MoveKind.REVEAL_RANK


def _is_hint(move: Move) -> bool:
    """Move.is_hint, without the call into Python that its property is here (Move is a pydantic model)."""
    kind = move.kind
    return kind is _REVEAL_COLOR or kind is _REVEAL_RANK


class Slot(NamedTuple):
    """What the public history says about one card in a hand (a named tuple: rating one hint builds a Slot per
    card of a hand, and a frozen dataclass is slower to build)."""

    uid: int  # which card this is: the initial hands are numbered seat by seat, then each drawn card in turn
    colors: frozenset[str] = ALL_COLORS  # the could-be sets every player can derive from the hints
    ranks: frozenset[int] = ALL_RANKS
    touched: bool = False
    play: bool = False  # focus of a play clue
    save: bool = False  # focus of a play-or-save clue on the chop
    allowed: frozenset[str] | None = None  # identities the clue convention allows, or None if unrestricted
    finesse: bool = False  # the card a finesse or prompt asks its holder to play now (see finesse_ask)

    def public_candidates(self) -> frozenset[str]:
        """Identities everybody knows this card may have (hints and convention only, no card counting)."""
        return public_candidates(self.colors, self.ranks, self.allowed)


def public_candidates(
    colors: frozenset[str], ranks: frozenset[int], allowed: frozenset[str] | None
) -> frozenset[str]:
    names = _hinted(colors, ranks)
    if allowed is not None:
        both = names & allowed
        if both:
            return both
    return names


def _hinted(colors: frozenset[str], ranks: frozenset[int]) -> frozenset[str]:
    """The identities the could-be sets allow, remembered for every pair of sets (at most 31 x 31), by the
    colours then the ranks: no key tuple to build, and both sets keep their hash."""
    by_ranks = _HINTED.get(colors)
    if by_ranks is None:
        by_ranks = _HINTED[colors] = {}
    names = by_ranks.get(ranks)
    if names is None:
        names = by_ranks[ranks] = frozenset(c + str(r) for c in colors for r in ranks)
    return names


_HINTED: dict[frozenset[str], dict[frozenset[int], frozenset[str]]] = {}


@dataclass(frozen=True, slots=True)
class CardSets:
    """Card sets derived from the public table: a pure function of the fireworks and discards."""

    dead: frozenset[str]  # can never score
    live: frozenset[str]
    playable: frozenset[str]
    critical: frozenset[str]  # live, and every other copy is discarded (every live 5 among them)
    saves: frozenset[str]  # what a chop clue may be saving: critical cards, and live 2s with two players


def table_sets(table: TableFacts, players: int) -> CardSets:
    """The card sets of the table whose facts the builder derived (view/builder.py's table_facts), kept by the
    facts' identity."""
    two_saves = players in TWO_SAVE_PLAYERS
    key = (id(table), two_saves)
    found = _TABLE_SETS.get(key)
    if found is not None and found[0] is table:
        return found[1]
    status = table.status
    live = ALL_CARD_SET - table.dead
    critical = frozenset(name for name in live if status[name][2])
    saves = critical | frozenset(name for name in live if two_saves and RANK_OF[name] == 2)
    sets = CardSets(table.dead, live, table.playable, critical, saves)
    if len(_TABLE_SETS) >= _TABLE_SETS_MAX:
        _TABLE_SETS.clear()
    _TABLE_SETS[key] = (table, sets)  # the entry holds the facts: their id is not reused while it lives
    return sets


_TABLE_SETS: dict[tuple[int, bool], tuple[TableFacts, CardSets]] = {}
# Twice the builder's cache of tables (table_facts keeps 256); each entry keeps its facts (some KB) alive.
_TABLE_SETS_MAX = 512


def chop_index(slots: Sequence[Slot]) -> int | None:
    """The oldest slot no hint has touched, or None if every card is touched."""
    for i, slot in enumerate(slots):
        if not slot.touched:
            return i
    return None


def successor(name: str) -> str | None:
    rank = RANK_OF[name]
    return None if rank == 5 else name[0] + str(rank + 1)


def predecessor(name: str) -> str | None:
    rank = RANK_OF[name]
    return None if rank == 1 else name[0] + str(rank - 1)


def answer_slot(slots: Sequence[Slot], wanted: str) -> int | None:
    """Which card a player takes to be `wanted` when a clue asks for it (see finesse_ask): the newest hinted card
    that may be it (a prompt), else the newest card no hint has touched (a finesse), else None."""
    newest_first = range(len(slots) - 1, -1, -1)
    prompt = next((i for i in newest_first if slots[i].touched and wanted in slots[i].public_candidates()), None)
    if prompt is not None:
        return prompt
    return next((i for i in newest_first if not slots[i].touched), None)


def clue_focus(slots: Sequence[Slot], revealed: Sequence[int]) -> tuple[int, bool] | None:
    """The focus of a hint that touches `revealed`, and whether it is the chop; None if it touches no new card."""
    new = [i for i in revealed if not slots[i].touched]
    if not new:
        return None
    chop = chop_index(slots)
    return (chop, True) if chop in new else (max(new), False)


def play_focus(slots: Sequence[Slot], revealed: Sequence[int]) -> int | None:
    """The focus of a hint that is a play clue (touches new cards, not the chop), or None for any other hint."""
    found = clue_focus(slots, revealed)
    return None if found is None or found[1] else found[0]


@dataclass(frozen=True, slots=True)
class FinesseAsk:
    """What a play clue asks of the player right after the hinter (see finesse_ask)."""

    player: int
    position: int  # the slot they will play: answer_slot's choice
    card: str  # the card the clue asks for: the one just below the focus


def finesse_ask(
    hands: Sequence[Sequence[Slot]],
    identity: Callable[[int], frozenset[str]],
    hinter: int,
    receiver: int,
    revealed: Sequence[int],
    color: str | None,
    focus_card: str,
    table: CardSets,
) -> FinesseAsk | None:
    """What a play clue from `hinter` to `receiver` asks the player right after the hinter to play at once (from
    the slot answer_slot names: a hinted card that may be it, else their finesse position), or None if the clue
    asks nothing of them.

    It asks when the focus is no play target even if that player's own hinted cards were anything their hints
    allow, the card before the focus is playable now, and no other card the clue touches (`revealed`, in the
    receiver's hand before the clue; `color` for a colour clue) may be that card: the player after the hinter, who
    sees the focus, concludes it holds that card, and the hinter and every other seat that sees both hands reach the
    same answer. The receiver learns its card from the play that follows (see _resolve_finesse).
    """
    finessed = (hinter + 1) % len(hands)
    wanted = predecessor(focus_card)
    if finessed == receiver or wanted is None or wanted not in table.playable:
        return None
    focus = play_focus(hands[receiver], revealed)
    if color is not None and any(RANK_OF[wanted] in hands[receiver][i].ranks for i in revealed if i != focus):
        return None  # the clue may have touched that card too: the receiver holds it, no one is asked for it
    position = answer_slot(hands[finessed], wanted)
    if position is None:
        return None
    own = {slot.uid: slot.public_candidates() for slot in hands[finessed]}

    def seen_by_finessed(uid: int) -> frozenset[str]:
        return own[uid] if uid in own else identity(uid)

    if focus_card in play_targets(hands, seen_by_finessed, hinter, receiver, table):
        return None
    return FinesseAsk(finessed, position, wanted)


def play_targets(
    hands: Sequence[Sequence[Slot]],
    identity: Callable[[int], frozenset[str]],
    hinter: int,
    receiver: int,
    table: CardSets,
) -> frozenset[str]:
    """What the focus of a play clue from `hinter` to `receiver` may be: playable now, or right after a chain of
    cards that their holders know will be played (a delayed play clue), but not a copy of such a queued card.

    A queued card counts if both players can see it (it is in a third hand) or everybody knows its identity.
    `identity(uid)` gives the identities the observer allows for a card: one for a card it has seen, several for
    its own hidden cards (those only widen the result, as a card in the observer's own hand never narrows it).
    """
    reachable = set(table.playable)
    queued: set[str] = set()
    pending: list[tuple[frozenset[str], frozenset[str]]] = []
    for player, hand in enumerate(hands):
        for slot in hand:
            if not slot.touched:
                continue
            public = slot.public_candidates()
            if len(public) == 1:
                pending.append((public, public))
            elif player not in (hinter, receiver):
                pending.append((identity(slot.uid), public))
    progress = True
    while progress and pending:
        progress = False
        for item in list(pending):
            names, public = item
            if not public <= reachable or not names & reachable:
                continue
            pending.remove(item)
            progress = True
            if len(names) == 1:
                queued |= names
            for name in names & reachable:
                following = successor(name)
                if following is not None and following not in table.dead:
                    reachable.add(following)
    return frozenset(reachable - queued)


# Slot(*fields) without the Python-level __new__ a NamedTuple has (rating one hint builds about four slots).
_new_slot = partial(tuple.__new__, Slot)
ONE_COLOR: dict[str, frozenset[str]] = {c: frozenset((c,)) for c in COLORS}
ONE_RANK: dict[int, frozenset[int]] = {r: frozenset((r,)) for r in RANKS}


@cache  # at most 2 x 5 x 32 keys: a could-be set of colours or ranks, less one value
def _without(values: frozenset[T], value: T) -> frozenset[T]:
    return values - {value}


def apply_clue(
    slots: Sequence[Slot],
    revealed: Sequence[int],
    color: str | None,
    rank: int | None,
    table: CardSets,
    targets: Callable[[], frozenset[str]],
) -> list[Slot]:
    """The slots of a hand after a hint of `color` or `rank` touching `revealed`, with the convention's meaning.

    `targets()` gives what a play clue's focus may be (see play_targets); it is called only if needed.
    """
    out = list(slots)  # a slot the hint tells nothing new stays the very same object
    # The could-be sets of a touched card: the hinted value alone.
    touched_colors = ONE_COLOR[color] if color else None
    touched_ranks = ONE_RANK[rank] if rank else None
    # An untouched card loses the hinted value; a card the hint newly touches is built once, in the loop after.
    # The colour and rank loops are the same logic on the other field, kept apart: merged, they cost a rollout step
    # more (bench/rollout_values.py --step-costs).
    if color:
        for i, old in enumerate(slots):
            colors = old.colors
            if i in revealed:
                if colors == touched_colors or not old.touched:
                    continue
                colors = ONE_COLOR[color]
            elif color in colors:
                colors = _without(colors, color)
            else:
                continue
            out[i] = _new_slot((old.uid, colors, old.ranks, old.touched, old.play, old.save, old.allowed, old.finesse))
    else:
        assert rank is not None
        for i, old in enumerate(slots):
            ranks = old.ranks
            if i in revealed:
                if ranks == touched_ranks or not old.touched:
                    continue
                ranks = ONE_RANK[rank]
            elif rank in ranks:
                ranks = _without(ranks, rank)
            else:
                continue
            out[i] = _new_slot((old.uid, old.colors, ranks, old.touched, old.play, old.save, old.allowed, old.finesse))
    found = clue_focus(slots, revealed)
    if found is None:
        return out
    focus, on_chop = found
    meaning = targets() | table.saves if on_chop else targets()
    for i in revealed:
        old = slots[i]
        if old.touched:
            continue
        allowed = meaning if i == focus else table.live
        if old.allowed is not None:
            allowed = old.allowed & allowed
        out[i] = _new_slot(
            (
                old.uid,
                touched_colors or old.colors,
                touched_ranks or old.ranks,
                True,
                i == focus and not on_chop,
                i == focus and on_chop,
                allowed,
                False,
            )
        )
    return out


class Replay:
    """The public history replayed under the convention, from one seat's point of view."""

    def __init__(
        self,
        hands: list[list[Slot]],
        cards: dict[int, str],
        own: dict[int, frozenset[str]],
        chop_clued: dict[int, int],
    ) -> None:
        self.hands = hands  # every player's hand, slot by slot, oldest card first
        self.cards = cards  # uid -> card, for every card the seat has seen (in a hand or leaving one)
        self.own = own  # uid -> candidates, for the seat's own current cards
        self.chop_clued = chop_clued  # player -> index in the history of the last hint that newly touched their chop

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Replay) and (self.hands, self.cards, self.own, self.chop_clued) == (
            other.hands,
            other.cards,
            other.own,
            other.chop_clued,
        )

    def identity(self, uid: int) -> frozenset[str]:
        """The identities the seat allows for a card: one if it has seen it."""
        if uid in self.cards:
            return ONLY[self.cards[uid]]
        return self.own.get(uid, ALL_CARD_SET)


def replay(view: PlayView) -> Replay:
    """Replay the history: every hand as the public history describes it, under the clue convention."""
    dealt = Dealt(view.num_players, view.hand_size)
    dealt.advance(view.history)
    result = _new_replay(view, dealt)
    result.hands[:] = _first_hands(view.num_players, view.hand_size)
    run = _Replaying(view.num_players, view.hand_size, result.hands)
    for entry in view.history:
        run.step(entry, result.identity, result.chop_clued)
    return result


def _first_hands(players: int, hand_size: int) -> list[list[Slot]]:
    return [[Slot(p * hand_size + i) for i in range(hand_size)] for p in range(players)]


def _new_replay(view: PlayView, dealt: Dealt) -> Replay:
    """A Replay of `view` whose hands are still empty: the seat's identities of every card it knows of, from where
    `dealt` (advanced along the view's whole history) says each card is."""
    cards = dict(dealt.gone)
    for other in view.others:
        for uid, visible in zip(dealt.hands[other.player], other.cards, strict=True):
            cards[uid] = visible.card
    own = {uid: frozenset(cands) for uid, cands in zip(dealt.hands[view.seat], view.own_candidates, strict=True)}
    return Replay([], cards, own, {})


class Dealt:
    """Where every dealt card is along a history: the uids in each hand (the initial hands are numbered seat by seat,
    then each drawn card in turn), and the cards that left a hand, named by the history."""

    def __init__(self, players: int, hand_size: int) -> None:
        self.hands = [list(range(p * hand_size, (p + 1) * hand_size)) for p in range(players)]
        self.next_uid = players * hand_size
        self.gone: dict[int, str] = {}

    def advance(self, entries: Sequence[HistoryEntry]) -> None:
        """Follow these further history entries."""
        for entry in entries:
            if _is_hint(entry.move):
                continue
            assert entry.move.card_index is not None and entry.card is not None
            self.gone[self.hands[entry.player].pop(entry.move.card_index)] = entry.card
            if self.next_uid < DECK_SIZE:
                self.hands[entry.player].append(self.next_uid)
                self.next_uid += 1


class _Replaying:
    """The state of a replay between two history entries: the hands (shared with the Replay being built), the table,
    and a play clue whose finesse the next entry answers."""

    __slots__ = ("discards", "fireworks", "hands", "next_uid", "number", "pending", "players", "table")

    def __init__(self, players: int, hand_size: int, hands: list[list[Slot]]) -> None:
        self.players = players
        self.hands = hands
        self.number = 0  # history entries replayed
        self.next_uid = players * hand_size
        self.fireworks = dict.fromkeys(COLORS, 0)
        self.discards: tuple[str, ...] = ()  # the discarded cards, sorted
        self.table: CardSets | None = None  # recomputed lazily after the table changes
        self.pending: _PendingFinesse | None = None

    def copy(self, hands: list[list[Slot]]) -> _Replaying:
        """The same state, writing into `hands` (a copy of this state's hands) from now on. (ReplayCache copies the
        state at every entry. Attribute by attribute: compiled (setup.py), it has no __dict__ to copy.)"""
        twin = _Replaying(self.players, 0, hands)
        twin.number = self.number
        twin.next_uid = self.next_uid
        twin.fireworks = dict(self.fireworks)
        twin.discards = self.discards
        twin.table = self.table
        twin.pending = self.pending
        return twin

    def same(self, other: _Replaying) -> bool:
        """Whether the two states are equal in every field, all that a step reads."""
        return (
            self.number == other.number
            and self.next_uid == other.next_uid
            and self.players == other.players
            and self.pending == other.pending
            and self.table == other.table
            and self.fireworks == other.fireworks
            and self.discards == other.discards
            and self.hands == other.hands
        )

    def step(
        self, entry: HistoryEntry, identity: Callable[[int], frozenset[str]], chop_clued: dict[int, int]
    ) -> None:
        """Replay one more history entry, as seen by the seat whose identities `identity` gives."""
        hands, n = self.hands, self.players
        number = self.number
        self.number += 1
        move = entry.move
        if self.pending is not None:
            _resolve_finesse(hands, self.pending, entry)
            self.pending = None
        if _is_hint(move):
            target = entry.target_player
            assert target is not None
            if self.table is None:
                self.table = table_sets(table_facts(tuple(self.fireworks.items()), self.discards), n)
            table = self.table
            if chop_index(hands[target]) in entry.revealed:
                chop_clued[target] = number
            before = hands[target]
            hands[target] = apply_clue(
                before,
                entry.revealed,
                move.color,
                move.rank,
                table,
                partial(play_targets, hands, identity, entry.player, target, table),
            )
            if n > 2 and self.next_uid < DECK_SIZE:
                prior = [before if p == target else hand for p, hand in enumerate(hands)]
                self.pending = _pending_finesse(prior, identity, entry, table)
                if self.pending is not None:
                    hands[self.pending.finessed] = prior[self.pending.finessed]
            return
        assert move.card_index is not None and entry.card is not None
        hands[entry.player].pop(move.card_index)
        if entry.scored:
            self.fireworks[entry.card[0]] += 1
        else:
            self.discards = tuple(sorted((*self.discards, entry.card)))
        self.table = None
        if self.next_uid < DECK_SIZE:
            hands[entry.player].append(Slot(self.next_uid))
            self.next_uid += 1


class ReplayCache:
    """`replay` of one seat's views along one game, each continuing from the last instead of from the first
    move.

    A replay depends on the history and on the identities the seat allows for the cards it asks about (what it
    has seen, and the candidates of its own cards, which narrow as the game goes on). The cache keeps the
    state after every entry of the last view's history, and what each entry asked about cards the seat had not
    seen, with the answers. A later view of the same game whose history extends that one takes the kept states
    up to the first entry whose answers have changed since, steps from there, and takes the kept states again
    from the first entry after which its state equals the kept one. Anything else is replayed from the start.
    A step reads only the state, the entry and the answers, so the result equals `replay(view)`.
    """

    def __init__(self) -> None:
        self._history: tuple[HistoryEntry, ...] = ()
        self._dealt: Dealt | None = None  # where the cards are after self._history
        # After 0, 1, ... entries of self._history: the state (never stepped again) and the chops clued so far.
        self._states: list[tuple[_Replaying, dict[int, int]]] = []
        self._asks: list[dict[int, frozenset[str]]] = []  # by entry: uid -> the identities it was given
        self._first: dict[int, tuple[frozenset[str], int]] = {}  # uid -> identities given, first entry that asked

    def replay(self, view: PlayView) -> Replay:
        history, known = view.history, len(self._history)
        dealt = self._dealt
        if (
            dealt is None
            or not self._states
            or len(history) < known
            or not all(map(operator.is_, history[:known], self._history))
        ):
            dealt = Dealt(view.num_players, view.hand_size)
            dealt.advance(history)
            begin = _Replaying(view.num_players, view.hand_size, _first_hands(view.num_players, view.hand_size))
            self._states, self._asks, self._first, known = [(begin, {})], [], {}, 0
        else:
            dealt.advance(history[known:])
        result = _new_replay(view, dealt)
        start = known
        for uid, (names, asked_at) in self._first.items():
            if asked_at < start and result.identity(uid) != names:
                start = asked_at
        kept_states, kept_asks = self._states, self._asks
        states, asks = kept_states[: start + 1], kept_asks[:start]
        asking: dict[int, frozenset[str]] = {}  # what the entry being stepped asks (a new dict for each entry)

        def identity(uid: int) -> frozenset[str]:
            names = result.identity(uid)
            if uid not in result.cards:  # a card the seat has seen keeps its name for good
                asking[uid] = names
            return names

        kept = True  # states[-1] is the kept state after as many entries
        for number in range(start, len(history)):
            if (
                kept
                and number < known
                and all(result.identity(uid) == names for uid, names in kept_asks[number].items())
            ):
                states.append(kept_states[number + 1])
                asks.append(kept_asks[number])
                continue
            state, chop_clued = states[-1]
            state, chop_clued = state.copy([list(hand) for hand in state.hands]), dict(chop_clued)
            asking = {}
            state.step(history[number], identity, chop_clued)
            kept = (
                number < known
                and chop_clued == kept_states[number + 1][1]
                and state.same(kept_states[number + 1][0])
            )
            states.append(kept_states[number + 1] if kept else (state, chop_clued))
            asks.append(asking)
        firsts = {uid: given for uid, given in self._first.items() if given[1] < start}
        for number in range(start, len(asks)):
            for uid, names in asks[number].items():
                firsts.setdefault(uid, (names, number))
        state, chop_clued = states[-1]
        result.hands[:] = [list(hand) for hand in state.hands]
        result.chop_clued.update(chop_clued)
        self._history, self._dealt, self._states, self._asks, self._first = history, dealt, states, asks, firsts
        return result


@dataclass(frozen=True, slots=True)
class _PendingFinesse:
    """A play clue that the player after the hinter may answer by playing the card before its focus."""

    finessed: int
    before: list[Slot]  # the finessed player's hand when the clue was given
    marked: Slot | None  # the card this seat expects them to play, as they read it after the clue, if any
    playable: frozenset[str]  # the cards playable when the clue was given
    receiver: int
    focus_uid: int


def _pending_finesse(
    hands: list[list[Slot]], identity: Callable[[int], frozenset[str]], clue: HistoryEntry, table: CardSets
) -> _PendingFinesse | None:
    """The finesse a play clue may carry, given the hands as they were before it; if this seat sees that it is one,
    the finessed card is marked in `hands` (a fresh list for the finessed player)."""
    hinter, receiver = clue.player, clue.target_player
    assert receiver is not None
    finessed = (hinter + 1) % len(hands)
    focus = play_focus(hands[receiver], clue.revealed)
    if finessed == receiver or focus is None:
        return None
    focus_uid = hands[receiver][focus].uid
    names = identity(focus_uid)
    before = hands[finessed]
    ask = None
    if len(names) == 1:  # else this seat is the receiver: the next move tells it (see _resolve_finesse)
        (focus_card,) = names
        ask = finesse_ask(hands, identity, hinter, receiver, clue.revealed, clue.move.color, focus_card, table)
    if ask is None:
        return _PendingFinesse(finessed, before, None, table.playable, receiver, focus_uid)
    marked = before[ask.position]._replace(touched=True, play=True, allowed=frozenset((ask.card,)), finesse=True)
    hands[finessed] = [marked if i == ask.position else other for i, other in enumerate(before)]
    return _PendingFinesse(finessed, before, marked, table.playable, receiver, focus_uid)


def _resolve_finesse(hands: list[list[Slot]], pending: _PendingFinesse, entry: HistoryEntry) -> None:
    """After the move that follows a play clue: a play by the player after the hinter that answers it (see
    finesse_ask) and scores tells the receiver its focus card is the next card of that colour; any other move
    means the clue asked nothing of them."""
    move = entry.move
    hand = hands[pending.finessed]
    played = None if entry.player != pending.finessed or move.card_index is None else move.card_index
    if pending.marked is not None and (played is None or hand[played] is not pending.marked):
        at = next((i for i, slot in enumerate(hand) if slot is pending.marked), None)
        if at is not None:
            hand[at] = pending.before[at]  # no finesse after all: the card is as it was
    if played is None or move.kind is not _PLAY or not entry.scored or entry.card is None:
        return
    # The play answers the clue if the player would have taken the card for the one it turned out to be, and the
    # card was no play everybody knew of before the clue.
    answered = pending.before[played]
    if answer_slot(pending.before, entry.card) != played or answered.public_candidates() <= pending.playable:
        return
    following = successor(entry.card)
    receiver = hands[pending.receiver]
    at = next((i for i, slot in enumerate(receiver) if slot.uid == pending.focus_uid), None)
    if following is None or at is None:
        return
    focus = receiver[at]
    if following[0] in focus.colors and RANK_OF[following] in focus.ranks:
        receiver[at] = focus._replace(allowed=frozenset((following,)))
