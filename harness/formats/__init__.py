"""Reply formats: one object per shape of reply a model is asked for, owning everything about that shape.

A `ReplyFormat` holds, for its shape of reply:
- `template`: the instructions block shown to the model (a Jinja partial in prompts/formats/), rendered by the
  prompts through `formats/_reply_format.j2` (`{% include call.reply_format.template %}`) or by `instructions()`;
- `read(text, n_legal, allowed=None)`: the strict parser. It returns a `ParsedReply` (move formats) or the reply
  text (the report format), or raises `ReplyProblem(kind, message)`, whose message is the feedback to send back,
  worded in the format's own terms (prompts/formats/feedback.j2 and the format's `*_again.j2` reminder);
- `feedback(kind, **facts)`: that wording, for problems found outside the parser (a reply cut off by the token
  limit, a content-filter stop);
- `write(action, ratings, reason, extras)`: a well-formed reply in the format (offline players, exports).

The formats, by name (`get_format(name)`, or `format_for(output, contract, required)` for a scaffold call):
- "text-move": Watson's layout, "Reasoning: ... / Move Ratings: Move 0: 0.5, ... / Chosen Move Number: N".
- "json-move": Sherlock's JSON object {"move_ratings": [{"action": i, "rating": r}, ...], "reason": ..., "action": N}
  with the rule that every legal move is rated.
- "json-action": SPIN-Bench's JSON object {"reason": ..., "action": N}, without ratings.
- "memory": Mycroft's JSON object: json-move plus a "deductions" block per player and card.
- "report": free text for mixture-of-agents advisers (no move is read from it).
A format's `required` fields (from the scaffold's call) say which fields must be present and non-empty.

`read` is strict: a reply is used only when it names exactly one allowed move without doubt. `allowed` restricts
the choice to some move indices (best-of-k's final agent may only choose among the sampled moves); ratings are
still read for all `n_legal` moves. Reading is linear in the reply's length, never recursive, capped in size
(MAX_REPLY_CHARS) and depth (MAX_JSON_DEPTH): see harness.formats.reading.
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
