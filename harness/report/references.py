"""Published reference scores (baselines.toml) and the published judge ratings of Mycroft state tracking. A
reference is drawn on a plot only where it applies (Reference.applies_to); every one is listed in the report's
table."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped

BASELINES = Path(__file__).with_name("baselines.toml")

Convention = Literal["fireworks", "zero_on_strikeout", "unstated"]


class Reference(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    kind: str  # LLM, RL, search, rule-based, human proxies, humans
    score: float
    players: int | None = None  # None: an average over several player counts
    convention: Convention
    setting: str
    source: str
    cite: str  # a short name for plot labels

    def applies_to(self, convention: Convention, players: int) -> bool:
        return self.setting == "self-play" and self.convention == convention and self.players == players


class JudgeReference(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    overall_rating: float
    deduction_accuracy: float
    history_integration: float
    state_tracking_quality: float
    source: str


class Baselines(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reference: list[Reference]
    judge_reference: list[JudgeReference] = []


@cache
def baselines() -> Baselines:
    with BASELINES.open("rb") as handle:
        return Baselines.model_validate(tomllib.load(handle))


PLAYER_COUNTS = (2, 3, 4, 5)


class CompactReference(BaseModel):
    """One agent from one source: its score per player count (None where the source gives none) or its average."""

    model_config = ConfigDict(frozen=True)

    label: str
    kind: str
    convention: Convention
    setting: str
    source: str
    scores: dict[int, float | None]  # player count -> score
    average: float | None  # a score averaged over several player counts
    drawn: bool  # some of its scores are drawn on a plot of this report


def compact(refs: Sequence[Reference], drawn: set[Reference]) -> list[CompactReference]:
    rows = grouped(refs, lambda ref: (ref.label, ref.kind, ref.convention, ref.setting, ref.source))
    return [
        CompactReference(
            label=label,
            kind=kind,
            convention=convention,
            setting=setting,
            source=source,
            scores={p: next((r.score for r in group if r.players == p), None) for p in PLAYER_COUNTS},
            average=next((r.score for r in group if r.players is None), None),
            drawn=any(r in drawn for r in group),
        )
        for (label, kind, convention, setting, source), group in rows.items()
    ]
