"""The clue convention the "smart" bot plays by, and a replay of the public history that applies it.

The convention (a small subset of the H-group's level 1, see shared/reference/hgroup.md):

- A player's chop is their oldest card that no hint has touched.
- A hint that touches no new card carries no extra meaning: it only adds what it says.
- A hint that newly touches the chop focuses on the chop and means "play or save": the card is playable now, or it
  is a card worth saving (the last copy of a card still needed, any 5, or a 2 that can still score).
- Any other hint that touches new cards focuses on the newest of them and means "play": that card was playable
  when the hint was given.
- Every other newly touched card could still score when the hint was given (good touch).

Meanings depend only on public facts (who was hinted, which slots the hint touched, the fireworks and discards at
that moment), so every seat replays the same history to the same conclusions. Slots are followed through plays
and discards: removing index i shifts the later cards down by one, and a drawn card goes to the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from harness.cards import ALL_CARDS, COLORS, COPIES, DECK_SIZE, card
from harness.view import SeatView, dead_cards

ALL_CARD_SET: frozenset[str] = frozenset(ALL_CARDS)
RANK_OF: dict[str, int] = {name: int(name[1]) for name in ALL_CARDS}


@dataclass(frozen=True, slots=True)
class Slot:
    """What the public history says about one card in a hand."""

    touched: bool = False
    play: bool = False  # focus of a play clue
    save: bool = False  # focus of a play-or-save clue on the chop
    allowed: frozenset[str] | None = None  # identities the clue convention allows, or None if unrestricted


@dataclass(frozen=True, slots=True)
class CardSets:
    """Card sets derived from the public table: a pure function of the fireworks and discards."""

    dead: frozenset[str]  # can never score
    live: frozenset[str]
    playable: frozenset[str]
    critical: frozenset[str]  # live, and every other copy is discarded (every live 5 among them)
    saves: frozenset[str]  # what a chop clue may be saving: critical cards and live 2s
    play_or_save: frozenset[str]


@lru_cache(maxsize=8192)
def _card_sets(heights: tuple[int, ...], discarded: tuple[tuple[str, int], ...]) -> CardSets:
    fireworks = dict(zip(COLORS, heights, strict=True))
    discards = Counter(dict(discarded))
    dead = frozenset(dead_cards(fireworks, discards))
    live = ALL_CARD_SET - dead
    playable = frozenset(card(c, fireworks[c] + 1) for c in COLORS if fireworks[c] < 5)
    critical = frozenset(name for name in live if discards[name] == COPIES[RANK_OF[name]] - 1)
    saves = critical | frozenset(name for name in live if RANK_OF[name] == 2)
    return CardSets(dead, live, playable, critical, saves, playable | saves)


def card_sets(fireworks: dict[str, int], discards: Counter[str]) -> CardSets:
    """The derived card sets for these fireworks and discards (memoised: the same table gives the same sets)."""
    heights = tuple(fireworks[c] for c in COLORS)
    return _card_sets(heights, tuple(sorted((name, n) for name, n in discards.items() if n)))


def chop_index(slots: Sequence[Slot]) -> int | None:
    """The oldest slot no hint has touched, or None if every card is touched."""
    return next((i for i, s in enumerate(slots) if not s.touched), None)


def apply_clue(slots: Sequence[Slot], revealed: Sequence[int], table: CardSets) -> list[Slot]:
    """The slots of a hand after a hint touching `revealed`, with the convention's meaning attached."""
    out = list(slots)
    new = [i for i in revealed if not slots[i].touched]
    if not new:
        return out
    chop = chop_index(slots)
    if chop in new:
        focus, meaning = chop, table.play_or_save
    else:
        focus, meaning = max(new), table.playable
    for i in new:
        old = slots[i]
        allowed = meaning if i == focus else table.live
        if old.allowed is not None:
            allowed = old.allowed & allowed
        out[i] = Slot(
            True, old.play or (i == focus and chop != focus), old.save or i == chop == focus, allowed
        )
    return out


def replay_slots(view: SeatView) -> list[list[Slot]]:
    """Every player's hand as the public history describes it, slot by slot, oldest card first."""
    n, size = view.num_players, view.hand_size
    hands: list[list[Slot]] = [[Slot() for _ in range(size)] for _ in range(n)]
    deck = DECK_SIZE - n * size
    fireworks = dict.fromkeys(COLORS, 0)
    discards: Counter[str] = Counter()
    table = card_sets(fireworks, discards)
    for entry in view.history:
        move = entry.move
        if move.is_hint:
            assert entry.target_player is not None
            hands[entry.target_player] = apply_clue(hands[entry.target_player], entry.revealed, table)
            continue
        assert move.card_index is not None and entry.card is not None
        hands[entry.player].pop(move.card_index)
        if entry.scored:
            fireworks[entry.card[0]] += 1
        else:
            discards[entry.card] += 1
        table = card_sets(fireworks, discards)
        if deck > 0:
            hands[entry.player].append(Slot())
            deck -= 1
    return hands
