"""How games are grouped in the report (`--by`): by model, scaffold, player count, seat line-up or run.

A team's name never depends on one game's seat order: a game's model (scaffold) is its seats' distinct models
(scaffolds), sorted and joined with " + "; its line-up is the seats' labels in seat order, turned to the
rotation that sorts first, one label when every seat is the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from harness.schema.records import SeatConfig

T = TypeVar("T")
K = TypeVar("K")

DIMENSIONS: tuple[str, ...] = ("model", "scaffold", "players", "seats", "run")
DEFAULT_BY: tuple[str, ...] = ("model", "scaffold")


def _distinct(values: Sequence[str]) -> str:
    return " + ".join(sorted(set(values)))


def models_of(seats: Sequence[SeatConfig]) -> str:
    return _distinct([s.model for s in seats])


def scaffolds_of(seats: Sequence[SeatConfig]) -> str:
    """The seats' distinct scaffold settings (`best-of-k-watson,k=3`: SeatConfig.setting), so that best-of-k at
    k=1 and at k=3 are never pooled as repeats of one."""
    return _distinct([s.setting for s in seats])


def lineup_of(seats: Sequence[SeatConfig]) -> str:
    labels = [s.label for s in seats]
    if len(set(labels)) == 1:
        return labels[0]
    return " | ".join(min(labels[i:] + labels[:i] for i in range(len(labels))))


def group_label(values: dict[str, str], by: Sequence[str]) -> str:
    """The group a game belongs to: its values of the chosen dimensions, joined with " · "."""
    return " · ".join(values[dimension] for dimension in by)


def grouped(items: Iterable[T], key: Callable[[T], K]) -> defaultdict[K, list[T]]:
    """The items in lists by their key, each list in the items' order; a key no item has reads as an empty list."""
    groups: defaultdict[K, list[T]] = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    return groups
