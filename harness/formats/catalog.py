"""The reply formats by name, and which one a scaffold call uses."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Literal

from harness.formats.base import ParsedReply, ReplyFormat
from harness.formats.reading import Unreadable
from harness.schema.cards import COLOR_WORDS, RANKS


class MemoryFormat(ReplyFormat):
    """Mycroft's reply: the JSON move plus a "deductions" block, for every player and card, of the colours and
    ranks that player could still consider possible. Cards are numbered as the prompt numbers them (from 0)."""

    def _extras(self, obj: dict[str, Any]) -> dict[str, Any]:
        extras = super()._extras(obj)
        raw = extras.get("deductions")
        if raw is None or raw in ({}, []):
            if "deductions" in self.required:
                raise Unreadable("missing_field", "missing" if raw is None else "empty", field="deductions")
            return extras
        extras["deductions"] = _deductions(raw)
        return extras


def _deductions(raw: Any) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(raw, dict):
        raise Unreadable("missing_field", "deductions_shape")
    block: dict[str, list[dict[str, Any]]] = {}
    for player, cards in raw.items():
        if not isinstance(cards, list):
            raise Unreadable("missing_field", "deductions_player", player=str(player))
        entries = []
        for position, card in enumerate(cards):
            number = card.get("card", position) if isinstance(card, dict) else position
            where = f"{player}, card {number}"
            if not isinstance(card, dict):
                raise Unreadable("missing_field", "deductions_card", where=where)
            if isinstance(number, bool) or not isinstance(number, int):
                where = f"{player}, entry {position}"
                raise Unreadable("missing_field", "deductions_card_number", where=where)
            colors, ranks = _colors(card.get("colors"), where), _ranks(card.get("ranks"), where)
            entries.append({"card": number, "colors": colors, "ranks": ranks})
        block[str(player)] = entries
    return block


def _colors(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise Unreadable("missing_field", "deductions_colors", where=where)
    letters = []
    for item in value:
        text = str(item).strip()
        letter = COLOR_WORDS.get(text.lower())
        if letter is None:
            raise Unreadable("missing_field", "deductions_color", where=where, value=text[:20])
        letters.append(letter)
    return letters


def _ranks(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise Unreadable("missing_field", "deductions_ranks", where=where)
    ranks = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or item not in RANKS:
            raise Unreadable("missing_field", "deductions_rank", where=where, value=str(item)[:20])
        ranks.append(item)
    return ranks


def _format(name: str, layout: Literal["text", "json", "free"], fields: tuple[str, ...], **more: Any) -> ReplyFormat:
    """The format `name`, its instructions and reminder in prompts/formats/ under its name."""
    kind = MemoryFormat if name == "memory" else ReplyFormat
    stem = "formats/" + name.replace("-", "_")
    return kind(name=name, layout=layout, template=f"{stem}.j2", reminder=f"{stem}_again.j2", fields=fields, **more)


_MEMORY_REQUIRED = ("action", "deductions")
_FORMATS: dict[str, ReplyFormat] = {
    fmt.name: fmt
    for fmt in (
        _format("text-move", "text", ("reason", "move_ratings", "action")),
        _format("json-move", "json", ("move_ratings", "reason", "action")),
        _format("json-action", "json", ("reason", "action")),
        _format("memory", "json", ("deductions", "move_ratings", "reason", "action"), required=_MEMORY_REQUIRED),
        # the paper's Mycroft: its "deduction" block is free text and optional (read by tracking)
        _format("mycroft", "json", ("move_ratings", "deduction", "reason", "action")),
        _format("report", "free", (), required=()),
    )
}
FORMAT_NAMES = tuple(_FORMATS)


def get_format(name: str, required: Collection[str] | None = None) -> ReplyFormat:
    """The format called `name`, with the given required fields (default: the format's own)."""
    try:
        fmt = _FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown reply format {name!r}; use one of: {', '.join(FORMAT_NAMES)}") from None
    return fmt if required is None else fmt.with_required(required)


def format_for(
    output: str, contract: str, required: Collection[str] = ("action",), name: str | None = None
) -> ReplyFormat:
    """The format of a scaffold call: named explicitly, or by its output ("text"/"json") and contract."""
    if name is None:
        name = contract if contract in ("report", "memory") else "text-move" if output == "text" else "json-move"
    return get_format(name, required)


def parse_reply(
    text: str,
    n_legal: int,
    contract: str = "move",
    required: tuple[str, ...] = (),
    allowed: Collection[int] | None = None,
) -> ParsedReply:
    """Read a move reply strictly when only its contract is known, not its layout (rewards over exported rows,
    tests): either move layout is read; problems are worded as for the contract's JSON format."""
    reply = format_for("json", contract, required or ("action",)).read(text, n_legal, allowed)
    assert isinstance(reply, ParsedReply)
    return reply
