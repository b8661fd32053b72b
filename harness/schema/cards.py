"""Card vocabulary shared by every module: colours, ranks, copies per rank, deck validation.

Pure Python, no engine import. Cards are written as two characters, colour letter then 1-based rank ("R1", "B5"),
with HLE's colour order R, Y, G, W, B.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

COLORS: tuple[str, ...] = ("R", "Y", "G", "W", "B")
COLOR_NAMES: dict[str, str] = {"R": "Red", "Y": "Yellow", "G": "Green", "W": "White", "B": "Blue"}
# A colour as a reply may write it, in lower case (its letter or its name) -> its letter
COLOR_WORDS: dict[str, str] = {c.lower(): c for c in COLORS} | {name.lower(): c for c, name in COLOR_NAMES.items()}
RANKS: tuple[int, ...] = (1, 2, 3, 4, 5)
COPIES: dict[int, int] = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
DECK_SIZE = 50
MAX_SCORE = 25
HAND_SIZE: dict[int, int] = {2: 5, 3: 5, 4: 4, 5: 4}
MIN_PLAYERS, MAX_PLAYERS = 2, 5

ALL_CARDS: tuple[str, ...] = tuple(f"{c}{r}" for c in COLORS for r in RANKS)
FULL_DECK: dict[str, int] = {name: COPIES[int(name[1])] for name in ALL_CARDS}  # copies of each card


def card(color: str, rank: int) -> str:
    return f"{color}{rank}"


def parse_card(text: str) -> tuple[str, int]:
    """'R3' -> ('R', 3); raises ValueError on anything else."""
    if len(text) != 2 or text[0] not in COLORS or not text[1].isdigit() or int(text[1]) not in RANKS:
        raise ValueError(
            f"not a card: {text!r} (expected a colour letter from RYGWB and a rank 1-5, like 'R3')"
        )
    return text[0], int(text[1])


def full_deck_counts() -> Counter[str]:
    return Counter(FULL_DECK)


def validate_deck(deck: list[str]) -> None:
    """Raise ValueError unless `deck` is a complete standard 50-card Hanabi deck."""
    for text in deck:
        parse_card(text)
    if len(deck) != DECK_SIZE:
        raise ValueError(f"a deck has {DECK_SIZE} cards, this one has {len(deck)}")
    counts = Counter(deck)
    expected = full_deck_counts()
    if counts != expected:
        wrong = sorted(c for c in expected if counts[c] != expected[c])
        raise ValueError(f"deck has the wrong number of copies of {', '.join(wrong)}")


def deck_digest(deck: Sequence[str]) -> str:
    """A short name of a deck's order: two games share it exactly when they deal the same cards in the same order,
    whichever seed set named their seed."""
    return hashlib.sha256(" ".join(deck).encode()).hexdigest()[:16]


# The seeds the engine takes: HLE parses its seed with std::stoi (a larger one aborts the process) and takes -1 as
# "random", so a deck's seed is a whole number in this range.
MIN_SEED = 0
MAX_SEED = 2**31 - 1
