"""Measured state tracking for working-memory scaffolds (Mycroft).

A Mycroft reply carries a deduction block: for every player and every card in their hand, the colours and ranks that
player could still consider possible. This module compares that block, card by card, with the engine's ground truth
(HLE's could-be sets from clues, which the SeatView holds; never the model's own earlier deductions) and scores it:
exact-match rate, and precision and recall of the set of possible identities (colour x rank), separately for the
seat's own hand and for the other players' knowledge. A card the reply leaves out, or describes in a form that cannot
be read, scores 0 on every measure.

Two block shapes are read. The paper's Mycroft: free text keyed by player relative to the seat ("you", "player+1",
...) and card ("card0", ...), e.g. "color could be R, Y; rank is 2" or "color is Blue; rank cannot be 1, 5"; a text
that states only one attribute leaves the other open (all five). mycroft-plus: lists keyed "player_N" (absolute) of
{"card", "colors", "ranks"}. Reading is tolerant and linear in the text (each card's text is read up to a bound):
it only scores, it never chooses a move.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.engine.game import Knowledge
from harness.schema.cards import COLOR_WORDS, COLORS, RANKS
from harness.view.seat_view import SeatView


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


MAX_CARD_TEXT = 400  # characters of one card's free-text deduction that are read
_WORD = re.compile(r"[a-z]+|[1-5]")
_CARD_KEY = re.compile(r"\s*card\s*_?\s*(\d{1,2})\s*", re.IGNORECASE)
_DIGITS = re.compile(r"[0-9]{1,3}")  # a seat offset or card index as a model writes it: ASCII digits, a few
_NEGATION = {"not", "cannot", "cant", "isnt", "excluding", "except", "never"}


Stated = tuple[set[str], set[int]]  # the colours and ranks a deduction says a card could still be


def stated_deductions(seat: int, players: int, deductions: Any) -> dict[int, dict[int, Stated]]:
    """The deduction block of `seat`'s reply read card by card: absolute player -> card index -> (colours, ranks)
    stated. Cards the block leaves out or states unreadably are absent (they score 0). The game viewer shows this
    beside the engine's truth; `score_deductions` scores it."""
    block = _relative_keys(deductions, seat, players) if isinstance(deductions, dict) else {}
    return {player: _player_entries(block, player) for player in range(players)}


def score_deductions(view: SeatView, deductions: Any) -> Tracking:
    stated = stated_deductions(view.seat, view.num_players, deductions)
    own = [(c.knowledge, stated[view.seat].get(i)) for i, c in enumerate(view.own_hand)]
    others = [(c.knowledge, stated[h.player].get(i)) for h in view.others for i, c in enumerate(h.cards)]
    return Tracking(own=_aggregate(own), others=_aggregate(others))


def _relative_keys(block: dict[str, Any], seat: int, players: int) -> dict[str, Any]:
    """The block with the paper's relative keys ("you", "player+2") rewritten as absolute "player_N" keys."""
    out: dict[str, Any] = {}
    for key, value in block.items():
        text = str(key).strip().lower().replace(" ", "")
        if text in ("you", "me", "self", "yourself", "player+0"):
            out.setdefault(f"player_{seat}", value)
        elif text.startswith("player+") and _DIGITS.fullmatch(text[7:]):
            out.setdefault(f"player_{(seat + int(text[7:])) % players}", value)
        else:
            out.setdefault(str(key), value)
    return out


def _player_entries(block: dict[str, Any], player: int) -> dict[int, Stated]:
    raw = None
    for key in (f"player_{player}", f"player{player}", f"p{player}", str(player), f"Player {player}"):
        if key in block:
            raw = block[key]
            break
    entries: dict[int, Stated] = {}
    if isinstance(raw, dict) and any(isinstance(v, str) for v in raw.values()):
        for key, value in raw.items():  # the paper's {"card0": "color could be R, Y; rank is 2", ...}
            match = _CARD_KEY.fullmatch(str(key))
            index = int(match.group(1)) if match else (int(key) if _DIGITS.fullmatch(str(key)) else None)
            read = _read_card_text(value) if isinstance(value, str) and index is not None else None
            if index is not None and read is not None:
                entries.setdefault(index, read)
        return entries
    if isinstance(raw, dict):
        raw = [{"card": k, **v} if isinstance(v, dict) else None for k, v in raw.items()]
    if not isinstance(raw, list):
        return entries
    for position, item in enumerate(raw):
        if not isinstance(item, dict):
            continue
        index = _whole(item.get("card", position))
        if index is None:
            continue
        colors = _colors(item.get("colors", item.get("colours")))
        ranks = _ranks(item.get("ranks"))
        if colors is not None and ranks is not None:
            entries[index] = (colors, ranks)
    return entries


def _read_card_text(text: str) -> Stated | None:
    """A card's free-text deduction as (colours, ranks): each clause about colour or rank gives the values it names,
    or all the others when it is negated ("cannot be"); an attribute no clause mentions stays open."""
    words = _WORD.findall(text[:MAX_CARD_TEXT].lower().replace("'", ""))
    colors: set[str] | None = None
    ranks: set[int] | None = None
    topic: str | None = None
    negated = False
    named: set[str] = set()
    numbers: set[int] = set()

    def close() -> None:
        nonlocal colors, ranks
        if topic == "color" and named:
            colors = (set(COLORS) - named) if negated else named
        elif topic == "rank" and numbers:
            ranks = (set(RANKS) - numbers) if negated else numbers

    for word in words:
        if word in ("color", "colour", "colors", "colours", "rank", "ranks", "number", "value"):
            close()
            topic = "color" if word.startswith("colo") else "rank"
            negated, named, numbers = False, set(), set()
        elif word in _NEGATION:
            negated = True
        elif topic == "color" and word in COLOR_WORDS:
            named.add(COLOR_WORDS[word])
        elif topic == "rank" and word.isdigit():
            numbers.add(int(word))
    close()
    if colors is None and ranks is None:
        return (set(COLORS), set(RANKS)) if {"unknown", "anything", "any"} & set(words) else None
    return (colors if colors is not None else set(COLORS)), (ranks if ranks is not None else set(RANKS))


def _colors(raw: Any) -> set[str] | None:
    if not isinstance(raw, list):
        return None
    found = set()
    for value in raw:
        letter = COLOR_WORDS.get(str(value).strip().lower())
        if letter is None:
            return None
        found.add(letter)
    return found


def _ranks(raw: Any) -> set[int] | None:
    if not isinstance(raw, list):
        return None
    found = set()
    for value in raw:
        rank = _whole(value)
        if rank not in RANKS:
            return None
        found.add(rank)
    return found


def _whole(value: Any) -> int | None:
    """A whole number as a model wrote it (2, 2.0, "2"), or None for anything else however odd: a superscript digit,
    infinity, thousands of digits. A model's text can only be unreadable here, never an error."""
    if isinstance(value, str):
        value = value.strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,6}", value):
            return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _aggregate(pairs: list[tuple[Knowledge, Stated | None]]) -> TrackingScore:
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
