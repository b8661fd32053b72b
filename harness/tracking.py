"""Measured state tracking for working-memory scaffolds (Mycroft).

A Mycroft reply carries a deduction block: for every player and every card in their hand, the colours and ranks that
player could still consider possible. This module compares that block, card by card, with the engine's ground truth
(HLE's could-be sets from clues, which the SeatView holds) and scores it: exact-match rate, and precision and recall
of the set of possible identities (colour x rank), separately for the seat's own hand and for the other players'
knowledge. A card the reply leaves out, or describes in a form that cannot be read, scores 0 on every measure.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.cards import COLOR_NAMES, COLORS, RANKS
from harness.engine import Knowledge
from harness.view import SeatView

_NAME_TO_LETTER = {name.lower(): letter for letter, name in COLOR_NAMES.items()}


class TrackingScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    cards: int
    missing: int  # cards the reply gave no readable deduction for
    exact: float  # share of cards whose colours and ranks both match the engine exactly
    precision: float  # mean share of the cards' stated identities that are truly possible
    recall: float  # mean share of the truly possible identities that the reply kept


class Tracking(BaseModel):
    model_config = ConfigDict(frozen=True)

    own: TrackingScore
    others: TrackingScore


def score_deductions(view: SeatView, deductions: Any) -> Tracking:
    block = deductions if isinstance(deductions, dict) else {}
    own_truth = [c.knowledge for c in view.own_hand]
    own = _aggregate(_pair(own_truth, _player_entries(block, view.seat)))
    other_pairs: list[tuple[Knowledge, tuple[set[str], set[int]] | None]] = []
    for hand in view.others:
        entries = _player_entries(block, hand.player)
        other_pairs.extend(_pair([c.knowledge for c in hand.cards], entries))
    return Tracking(own=own, others=_aggregate(other_pairs))


def _player_entries(block: dict[str, Any], player: int) -> dict[int, tuple[set[str], set[int]]]:
    raw = None
    for key in (f"player_{player}", f"player{player}", f"p{player}", str(player), f"Player {player}"):
        if key in block:
            raw = block[key]
            break
    entries: dict[int, tuple[set[str], set[int]]] = {}
    if isinstance(raw, dict):
        raw = [{"card": k, **v} if isinstance(v, dict) else None for k, v in raw.items()]
    if not isinstance(raw, list):
        return entries
    for position, item in enumerate(raw):
        if not isinstance(item, dict):
            continue
        index = item.get("card", position)
        try:
            index = int(index)
        except (TypeError, ValueError):
            continue
        colors = _colors(item.get("colors", item.get("colours")))
        ranks = _ranks(item.get("ranks"))
        if colors is not None and ranks is not None:
            entries[index] = (colors, ranks)
    return entries


def _colors(raw: Any) -> set[str] | None:
    if not isinstance(raw, list):
        return None
    found = set()
    for value in raw:
        text = str(value).strip()
        letter = text.upper() if text.upper() in COLORS else _NAME_TO_LETTER.get(text.lower())
        if letter is None:
            return None
        found.add(letter)
    return found


def _ranks(raw: Any) -> set[int] | None:
    if not isinstance(raw, list):
        return None
    found = set()
    for value in raw:
        try:
            rank = int(value)
        except (TypeError, ValueError):
            return None
        if rank not in RANKS:
            return None
        found.add(rank)
    return found


def _pair(
    truth: list[Knowledge], entries: dict[int, tuple[set[str], set[int]]]
) -> list[tuple[Knowledge, tuple[set[str], set[int]] | None]]:
    return [(k, entries.get(i)) for i, k in enumerate(truth)]


def _aggregate(pairs: list[tuple[Knowledge, tuple[set[str], set[int]] | None]]) -> TrackingScore:
    if not pairs:
        return TrackingScore(cards=0, missing=0, exact=1.0, precision=1.0, recall=1.0)
    exact = precision = recall = 0.0
    missing = 0
    for truth, stated in pairs:
        if stated is None:
            missing += 1
            continue
        colors, ranks = stated
        true_colors, true_ranks = set(truth.could_be_colors), set(truth.could_be_ranks)
        exact += float(colors == true_colors and ranks == true_ranks)
        said = {(c, r) for c in colors for r in ranks}
        real = {(c, r) for c in true_colors for r in true_ranks}
        overlap = len(said & real)
        precision += overlap / len(said) if said else 0.0
        recall += overlap / len(real) if real else 0.0
    n = len(pairs)
    return TrackingScore(
        cards=n, missing=missing, exact=exact / n, precision=precision / n, recall=recall / n
    )
