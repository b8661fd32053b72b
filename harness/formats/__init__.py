"""Reply formats: one object per shape of reply a model is asked for, owning everything about that shape.

A `ReplyFormat` holds its instructions block (`template`, a Jinja partial in prompts/formats/ the prompts
include through `formats/_reply_format.j2`), its strict reader (`read`, which raises `ReplyProblem(kind,
message)`, the message being the feedback to send back in the format's own terms), that wording for problems
found outside the reader (`feedback`: a reply cut off or filtered) and a writer (`write`).

The formats, by name (`get_format(name)`, or `format_for(output, contract, required)` for a scaffold call):
- "text-move": Watson's layout, "Reasoning: ... / Move Ratings: Move 0: 0.5, ... / Chosen Move Number: N".
- "json-move": Sherlock's JSON object {"move_ratings": [{"action": i, "rating": r}, ...], "reason": ..., "action": N}
  with the rule that every legal move is rated.
- "json-action": SPIN-Bench's JSON object {"reason": ..., "action": N}, without ratings.
- "memory": Mycroft's JSON object: json-move plus a "deductions" block per player and card.
- "report": free text for mixture-of-agents advisers (no move is read from it).
A format's `required` fields (from the scaffold's call) must be present and non-empty. A reply is used only
when it names exactly one allowed move without doubt; `allowed` restricts the choice to some move indices
(best-of-k's final agent), while ratings are still read for all `n_legal` moves (harness.formats.reading).
"""

from __future__ import annotations

from harness.formats.base import ParsedReply, ReplyFormat, ReplyProblem
from harness.formats.catalog import FORMAT_NAMES, format_for, get_format, parse_reply
from harness.formats.reading import MAX_JSON_DEPTH, MAX_REPLY_CHARS

__all__ = [
    "FORMAT_NAMES",
    "MAX_JSON_DEPTH",
    "MAX_REPLY_CHARS",
    "ParsedReply",
    "ReplyFormat",
    "ReplyProblem",
    "format_for",
    "get_format",
    "parse_reply",
]
