"""Published reference scores (harness/report/baselines.toml), each with its source, convention and setting.

A reference is drawn on a plot only where it applies: a self-play score for one player count, under the same
scoring convention as the plot. Everything else is listed in the report's reference table, never drawn.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

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


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reference: list[Reference]


@cache
def references() -> tuple[Reference, ...]:
    with BASELINES.open("rb") as handle:
        return tuple(_File.model_validate(tomllib.load(handle)).reference)
