"""Exports from run logs only: training datasets and hanab.live replays, each with a card and a manifest."""

from __future__ import annotations

DATASET_FORMATS: tuple[str, ...] = ("hanabilogs", "hanabirewards", "preferences")
FORMATS: tuple[str, ...] = (*DATASET_FORMATS, "hanablive")
