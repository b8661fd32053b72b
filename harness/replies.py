"""Reading a reply by its scaffold contract: kept for callers that know a call's contract but not its format.

The reply formats themselves (instructions, strict reader, feedback, schema) live in harness.formats; this module
only maps a contract to its format and reads with it.
"""

from __future__ import annotations

from collections.abc import Collection

from harness.formats import ParsedReply, ReplyProblem, format_for

__all__ = ["ParsedReply", "ReplyProblem", "parse_reply"]


def parse_reply(
    text: str,
    n_legal: int,
    contract: str = "move",
    required: tuple[str, ...] = (),
    allowed: Collection[int] | None = None,
) -> ParsedReply:
    """Read a move reply strictly (either layout is read; the feedback uses the JSON wording)."""
    reply = format_for("json", contract, required or ("action",)).read(text, n_legal, allowed)
    assert isinstance(reply, ParsedReply)
    return reply
