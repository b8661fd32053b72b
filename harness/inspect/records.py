"""A game's log records as a sample's metadata holds them (the JSON objects of a run folder's JSONL lines), read
back into GameLogContents with the one log schema (harness.schema.records)."""

from __future__ import annotations

from typing import Any

from harness.schema.log_file import GameLogContents
from harness.schema.records import LOG_LINE, GameHeader, GameResult, MoveRecord

LOG_KEY = "hanabi_log"  # the sample metadata key that holds them


def log_contents(records: list[dict[str, Any]]) -> GameLogContents:
    """The records read as a game log (raises pydantic's ValidationError for one that is not a log record)."""
    contents = GameLogContents()
    for line in records:
        record = LOG_LINE.validate_python(line)
        if isinstance(record, GameHeader):
            contents.header = record
        elif isinstance(record, MoveRecord):
            contents.moves.append(record)
        elif isinstance(record, GameResult):
            contents.results.append(record)
        contents.ended = isinstance(record, GameResult)
    return contents
