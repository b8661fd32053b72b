"""Exports built from run logs only: training datasets (HanabiLogs, HanabiRewards, preference pairs) and hanab.live
replays, each with a dataset card and a machine-readable manifest of the seeds it contains.

Nothing here calls a model or replays a game through a model; every value comes from the logged records.
"""

from __future__ import annotations

DATASET_FORMATS: tuple[str, ...] = ("hanabilogs", "hanabirewards", "preferences")
FORMATS: tuple[str, ...] = (*DATASET_FORMATS, "hanablive")
