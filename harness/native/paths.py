"""Where the compiled build lives and what it holds (the standard library only: harness/__init__.py imports this)."""

from __future__ import annotations

from pathlib import Path

# The modules compiled: the smart bot, its choice among rated moves, the seat's view it reads (built without
# validating it again) and the rollouts' game; nearly all of a rollout step's time (bench/rollout_values.py
# --step-costs).
COMPILED = (
    "harness.schema.trusted",
    "harness.engine.rollout_game",
    "harness.view.play_view",
    "harness.view.builder",
    "harness.bots.choice",
    "harness.bots.conventions",
    "harness.bots.smart",
)
FOLDER = Path(__file__).resolve().parent / "compiled"
RECORD = FOLDER / "record.json"
ROOT = FOLDER.parent.parent.parent  # the folder holding the harness package, which the record's paths start from
OFF_VARIABLE = "HANABI_EVAL_NATIVE"
OFF_VALUES = ("0", "false", "off", "no")  # HANABI_EVAL_NATIVE=0 (any case) turns the build off
BUILD_COMMAND = "python -m harness.native.build"
