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

Meanings depend only on facts that the hinter and the receiver share at that moment (which slots the hint touched,
the fireworks, the discards, what everybody knows from earlier hints, and the cards in the other hands), so both
replay the history to the same conclusions. Slots are followed through plays and discards: removing index i shifts
the later cards down by one, and a drawn card goes to the end. A player who ignores the convention can mislead a
bot that follows it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from harness.schema.cards import ALL_CARDS, COLORS, COPIES, DECK_SIZE, RANKS, card
from harness.view.seat_view import SeatView, dead_cards

ALL_CARD_SET: frozenset[str] = frozenset(ALL_CARDS)
ALL_COLORS: frozenset[str] = frozenset(COLORS)
ALL_RANKS: frozenset[int] = frozenset(RANKS)
RANK_OF: dict[str, int] = {name: int(name[1]) for name in ALL_CARDS}
# Player counts in which a 2 on the chop is saved although another copy exists (self-play tests: it pays only here).
TWO_SAVE_PLAYERS = frozenset({2})


@dataclass(frozen=True, slots=True)
class Slot:
    """What the public history says about one card in a hand."""

    uid: int  # which card this is: the initial hands are numbered seat by seat, then each drawn card in turn
    colors: frozenset[str] = ALL_COLORS  # the could-be sets every player can derive from the hints
    ranks: frozenset[int] = ALL_RANKS
    touched: bool = False
    play: bool = False  # focus of a play clue
    save: bool = False  # focus of a play-or-save clue on the chop
    allowed: frozenset[str] | None = None  # identities the clue convention allows, or None if unrestricted

    def public_candidates(self) -> frozenset[str]:
        """Identities everybody knows this card may have (hints and convention only, no card counting)."""
        return public_candidates(self.colors, self.ranks, self.allowed)


@lru_cache(maxsize=16384)
def public_candidates(
    colors: frozenset[str], ranks: frozenset[int], allowed: frozenset[str] | None
) -> frozenset[str]:
    names = frozenset(c + str(r) for c in colors for r in ranks)
    if allowed is not None and names & allowed:
        return names & allowed
    return names


@dataclass(frozen=True, slots=True)
class CardSets:
    """Card sets derived from the public table: a pure function of the fireworks and discards."""

    dead: frozenset[str]  # can never score
    live: frozenset[str]
    playable: frozenset[str]
    critical: frozenset[str]  # live, and every other copy is discarded (every live 5 among them)
    saves: frozenset[str]  # what a chop clue may be saving: critical cards, and live 2s with two players


@lru_cache(maxsize=8192)
def _card_sets(heights: tuple[int, ...], discarded: tuple[tuple[str, int], ...], two_saves: bool) -> CardSets:
    fireworks = dict(zip(COLORS, heights, strict=True))
    discards = Counter(dict(discarded))
    dead = frozenset(dead_cards(fireworks, discards))
    live = ALL_CARD_SET - dead
    playable = frozenset(card(c, fireworks[c] + 1) for c in COLORS if fireworks[c] < 5)
    critical = frozenset(name for name in live if discards[name] == COPIES[RANK_OF[name]] - 1)
    saves = critical | frozenset(name for name in live if two_saves and RANK_OF[name] == 2)
    return CardSets(dead, live, playable, critical, saves)


def card_sets(fireworks: dict[str, int], discards: Counter[str], players: int) -> CardSets:
    """The derived card sets for this table (memoised: the same table gives the same sets)."""
    heights = tuple(fireworks[c] for c in COLORS)
    discarded = tuple(sorted((name, n) for name, n in discards.items() if n))
    return _card_sets(heights, discarded, players in TWO_SAVE_PLAYERS)


def chop_index(slots: Sequence[Slot]) -> int | None:
    """The oldest slot no hint has touched, or None if every card is touched."""
    return next((i for i, s in enumerate(slots) if not s.touched), None)


def successor(name: str) -> str | None:
    rank = RANK_OF[name]
    return None if rank == 5 else name[0] + str(rank + 1)


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


@lru_cache(maxsize=1024)
def _narrow_colors(colors: frozenset[str], color: str, hit: bool) -> frozenset[str]:
    narrowed = frozenset((color,)) if hit else colors - {color}
    return colors if narrowed == colors else narrowed


@lru_cache(maxsize=1024)
def _narrow_ranks(ranks: frozenset[int], rank: int, hit: bool) -> frozenset[int]:
    narrowed = frozenset((rank,)) if hit else ranks - {rank}
    return ranks if narrowed == ranks else narrowed


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
    out = []
    for i, old in enumerate(slots):
        if color:
            colors, ranks = _narrow_colors(old.colors, color, i in revealed), old.ranks
        else:
            assert rank is not None
            colors, ranks = old.colors, _narrow_ranks(old.ranks, rank, i in revealed)
        if colors == old.colors and ranks == old.ranks:
            out.append(old)
        else:
            out.append(Slot(old.uid, colors, ranks, old.touched, old.play, old.save, old.allowed))
    new = [i for i in revealed if not slots[i].touched]
    if not new:
        return out
    chop = chop_index(slots)
    if chop in new:
        focus, meaning = chop, targets() | table.saves
    else:
        focus, meaning = max(new), targets()
    for i in new:
        old = out[i]
        allowed = meaning if i == focus else table.live
        if old.allowed is not None:
            allowed = old.allowed & allowed
        out[i] = Slot(old.uid, old.colors, old.ranks, True, i == focus != chop, i == focus == chop, allowed)
    return out


@dataclass(frozen=True, slots=True)
class Replay:
    """The public history replayed under the convention, from one seat's point of view."""

    hands: list[list[Slot]]  # every player's hand, slot by slot, oldest card first
    cards: dict[int, str]  # uid -> card, for every card the seat has seen (in a hand or leaving one)
    own: dict[int, frozenset[str]]  # uid -> candidates, for the seat's own current cards
    chop_clued: dict[int, int]  # player -> index in the history of the last hint that newly touched their chop

    def identity(self, uid: int) -> frozenset[str]:
        """The identities the seat allows for a card: one if it has seen it."""
        if uid in self.cards:
            return frozenset((self.cards[uid],))
        return self.own.get(uid, ALL_CARD_SET)


def replay(view: SeatView) -> Replay:
    """Replay the history: every hand as the public history describes it, under the clue convention."""
    n, size = view.num_players, view.hand_size
    cards, own_uids = _identities(view)
    own = {uid: frozenset(c.candidates) for uid, c in zip(own_uids, view.own_hand, strict=True)}
    result = Replay([[Slot(p * size + i) for i in range(size)] for p in range(n)], cards, own, {})
    hands = result.hands
    next_uid = n * size
    fireworks = dict.fromkeys(COLORS, 0)
    discards: Counter[str] = Counter()
    table: CardSets | None = None  # recomputed lazily after the table changes
    for number, entry in enumerate(view.history):
        move = entry.move
        if move.is_hint:
            target = entry.target_player
            assert target is not None
            if table is None:
                table = card_sets(fireworks, discards, n)
            if chop_index(hands[target]) in entry.revealed:
                result.chop_clued[target] = number
            hands[target] = apply_clue(
                hands[target],
                entry.revealed,
                move.color,
                move.rank,
                table,
                partial(play_targets, hands, result.identity, entry.player, target, table),
            )
            continue
        assert move.card_index is not None and entry.card is not None
        hands[entry.player].pop(move.card_index)
        if entry.scored:
            fireworks[entry.card[0]] += 1
        else:
            discards[entry.card] += 1
        table = None
        if next_uid < DECK_SIZE:
            hands[entry.player].append(Slot(next_uid))
            next_uid += 1
    return result


def _identities(view: SeatView) -> tuple[dict[int, str], list[int]]:
    """Which card every dealt card is, as far as the observer knows: cards that left a hand are named in the
    history, and the other players' current cards are in sight."""
    n, size = view.num_players, view.hand_size
    hands = [[p * size + i for i in range(size)] for p in range(n)]
    next_uid = n * size
    cards: dict[int, str] = {}
    for entry in view.history:
        if entry.move.is_hint:
            continue
        assert entry.move.card_index is not None and entry.card is not None
        cards[hands[entry.player].pop(entry.move.card_index)] = entry.card
        if next_uid < DECK_SIZE:
            hands[entry.player].append(next_uid)
            next_uid += 1
    for other in view.others:
        for uid, visible in zip(hands[other.player], other.cards, strict=True):
            cards[uid] = visible.card
    return cards, hands[view.seat]
