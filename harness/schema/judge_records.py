"""The judge's files, `<run>/judge/<game_id>.jsonl` (one JudgeRecord a line, written by `hanabi-eval judge`):
the typed line and the one reader the judge command and the report share. A line that is not a judgement of
the file's game is skipped and counted with its line number and problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

JUDGE_DIR = "judge"  # the folder of a run that `hanabi-eval judge` writes
RATINGS = ("overall_rating", "deduction_accuracy", "history_integration", "state_tracking_quality")


class JudgeRecord(BaseModel):
    """One working-memory (Mycroft) turn judged by an LLM judge: the paper's Appendix E.3 rubric, ratings in
    [0, 1]."""

    model_config = ConfigDict(extra="forbid")

    game_id: str
    turn: int
    seat: int
    judge_model: str
    overall_rating: float = Field(ge=0.0, le=1.0)
    deduction_accuracy: float = Field(ge=0.0, le=1.0)
    history_integration: float = Field(ge=0.0, le=1.0)
    state_tracking_quality: float = Field(ge=0.0, le=1.0)
    detailed_feedback: str
    key_issues: list[str]
    strengths: list[str]


class JudgeFile(NamedTuple):
    """A judge file as read: its judgements in file order, and each line skipped as (line number, problem)."""

    judgements: list[JudgeRecord]
    skipped: list[tuple[int, str]]


def judge_files(run: Path) -> list[Path]:
    """A run's judge files, sorted by name."""
    return sorted((run / JUDGE_DIR).glob("*.jsonl"))


def read_judgements(path: Path) -> JudgeFile:
    """A judge file's judgements and skipped lines (none when the file does not exist); a blank line is no line.
    Raises OSError when the file cannot be read."""
    found = JudgeFile([], [])
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return found
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            record = JudgeRecord.model_validate_json(line)
        except ValidationError as exc:
            found.skipped.append((number, f"not a judge record ({exc.errors()[0]['msg']})"))
            continue
        if record.game_id != path.stem:
            found.skipped.append((number, f"a judgement of game {record.game_id}, not of {path.stem}"))
            continue
        found.judgements.append(record)
    return found
