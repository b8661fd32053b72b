"""What puts a named move in doubt: a second number or a correction after it, digits of two scripts, and a
description that names another move.

Words after a move hold numbers of their own ("2 (Play 0), since card 0 is surely playable"), so a number
after the move is no second move by itself. Doubt is a number right after it, alone or behind words of
alternative or correction ("5 or 6", "5 (maybe 6)", "5 -> 6"); a strong correction later on the line or at the
start of the next ("... (Play 5), no wait, 6"); or a description naming another kind of move or another move
in the engine's words ("10 (Discard 0)" where move 10 is a clue). Every pattern reads at most LINE_READ
characters after a number, and none can backtrack over a reply.

Also defines Unreadable, the error the reply readers raise to say why a reply cannot be used.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from harness.schema.moves import Move, MoveKind

LINE_READ = 200  # characters read after a move number, on its line and on the next


class Unreadable(Exception):
    """Why a reply cannot be used: an error kind, a finer reason for the feedback, and the facts to name; raised by
    the reader, turned into feedback by the reply format."""

    def __init__(self, kind: str, why: str, **facts: Any) -> None:
        super().__init__(f"{kind}: {why}")
        self.kind = kind
        self.why = why
        self.facts = facts


# Words that, right after a move number, offer another one: "5 or 6", "5, no wait, 6", "5 (I mean 6)"
_ALTERNATIVE_WORD = (
    r"(?:or[ \t]rather|or|vs|versus|nor|and|no|maybe|perhaps|possibly|probably|either|then|to|y|o|ou|oder|или|и|"
    r"或|也|alt|alternatively|alternative|otherwise|else|fallback|backup|second[ \t]choice|also[ \t]consider|"
    r"if[ \t]not|final(?:[ \t]answer)?|answer|updated?|edit(?:ed)?|changed?(?:[ \t]to)?|i[ \t]mean|i[ \t]meant|"
    r"meant|mean|oops|sorry|correction|corrected|wait|actually|scratch[ \t]that|hmm+|make[ \t](?:it|that)|is|was)"
)
# A number that counts something ("5 save", "1s", "2 cards", "100%", "0.8") is no move number
_QUANTITY = (
    r"(?:[.,]\d|[ \t]{0,2}(?:%|s\b|-?[ \t]?(?:saves?|clues?|cards?|plays?|playable|touched|points?|info|tokens?|"
    r"hints?|lives|life|rating|confidence|turns?|players?|indexed|based|priority)\b))"
)
_SECOND = rf"(?P<second>\d{{1,9}})(?!\d)(?!{_QUANTITY})"
# That number as a move is written: "6", "move 6", "#6", "option 6"; a relative player ("+1") or a card ("G1") is none
_MOVE_NUMBER = rf"(?:(?:move|option|number|no\.?)[ \t]{{0,3}})?#?[ \t]{{0,3}}(?<![+\w]){_SECOND}"
# A second number right after the first, behind at most a few signs ("->", ";", "(", "...") and such words
_SECOND_NUMBER = re.compile(
    rf"[\s\W_]{{0,6}}(?:{_ALTERNATIVE_WORD}\b[\s\W_]{{0,6}}){{0,4}}{_MOVE_NUMBER}", re.IGNORECASE
)
# Later on the line, a second move with its own description: "5 (Discard 0) or 0 (Play 0)"; after a comparison
# ("better than move 12 (...) or move 19 (...)") such moves are the ones passed over
_COMPARISON = re.compile(r"\b(?:than|over|instead[ \t]of|beats?|not)\b", re.IGNORECASE)
_SECOND_DESCRIBED = re.compile(
    r"(?:\bor\b|\bvs\b\.?|/|\u2192|\u27f6|->|=>|,[ \t]{0,3}unless|\bbetter\b:?)[ \t]{0,3}"
    rf"{_MOVE_NUMBER}[ \t]{{0,3}}(?:\((?=[ \t]{{0,3}}[A-Za-z])|[-:\u2013\u2014][ \t]{{0,3}}[A-Za-z])",
    re.IGNORECASE,
)
# A bare number at the end of the line behind an arrow after the description, or a condition: "5 (Discard 0) -> 0",
# "5, unless 0"
_SECOND_AT_END = re.compile(
    r"(?:\)[ \t]{0,3}(?:\u2192|\u27f6|->|=>|\bbetter\b:?)|,[ \t]{0,3}unless)[ \t]{0,3}"
    rf"{_MOVE_NUMBER}[ \t.!)]{{0,4}}$",
    re.IGNORECASE,
)
# A line that ends on an alternative ("5 or", "5 /"), when the next line starts with a number
_OPEN_ALTERNATIVE = re.compile(rf"(?:\b{_ALTERNATIVE_WORD}|[/|&+;,\-\u2013\u2014])[ \t]{{0,8}}$", re.IGNORECASE)
_STARTS_WITH_NUMBER = re.compile(rf"[ \t]{{0,8}}{_MOVE_NUMBER}", re.IGNORECASE)
# Words that take a move back wherever they stand on the line, and the few words that may lead from them to the
# new number ("wait, I'll go with 6").
_CORRECTION_WORD = (
    r"(?:no[ \t]wait|wait|actually|i[ \t]mean|i[ \t]meant|oops|sorry|correction|changed?[ \t](?:it[ \t])?to|"
    r"scratch[ \t]that|on[ \t]second[ \t]thoughts?|final[ \t]answer|make[ \t](?:it|that)|or[ \t]maybe|"
    r"or[ \t]perhaps|or[ \t]rather|alternatively|otherwise|fallback|edit|update|typo)"
)
_LEAD = (
    r"(?:[\s\W_]|\b(?:i'?ll|i|will|would|go|going|with|let'?s|take|choose|pick|do|move|option|number|it|is|be|"
    r"should|to|play|instead|rather|action|meant|mean|above)\b)"
)
_CORRECTION = re.compile(rf"\b{_CORRECTION_WORD}\b{_LEAD}{{0,16}}(?<![+\w]){_SECOND}", re.IGNORECASE)
_NEXT_LINE_ALTERNATIVE = re.compile(
    rf"[ \t]{{0,8}}[(\[]?[ \t]{{0,3}}(?:or|maybe|perhaps)\b{_LEAD}{{0,16}}(?<![+\w]){_SECOND}", re.IGNORECASE
)
_DECIMAL_AFTER = re.compile(r"[.,](\d{1,9})")
MAX_DOUBTS = 8  # corrections read on one line


def _other(matches: Iterable[re.Match[str] | None], number: str) -> re.Match[str] | None:
    """The first match whose number is another than the move's ("15 ... Final answer: 15" restates it), or the
    same number with only spaces before it ("1 1" may be 11)."""
    for match in itertools.islice(filter(None, matches), MAX_DOUBTS):
        spaced = not match.string[match.pos : match.start("second")].strip()
        if spaced or int(match.group("second")) != int(number):
            return match
    return None


def check_after(number: str, after: str, where: str, next_line: str = "") -> None:
    """Raise Unreadable("ambiguous") when what follows a move number on its line (`after`), or the start of the
    next line, puts it in doubt: a decimal part, another number offered beside it, a second described move, or a
    correction to another number."""
    after = after[:LINE_READ]
    decimal = _DECIMAL_AFTER.match(after)
    if decimal:
        raise Unreadable("ambiguous", "decimal", value=f"{number}{after[0]}{decimal.group(1)}", where=where)
    described = (m for m in _SECOND_DESCRIBED.finditer(after) if not _COMPARISON.search(after, 0, m.start()))
    doubt = (
        _other([_SECOND_NUMBER.match(after)], number)
        or _other(described, number)
        or _other([_SECOND_AT_END.search(after)], number)
        or _other(_CORRECTION.finditer(after), number)
    )
    if doubt:
        raise Unreadable("ambiguous", "alternatives", value=f"{number}{after[: doubt.end()]}".strip(), where=where)
    next_line = next_line[:LINE_READ]
    starts = _STARTS_WITH_NUMBER.match(next_line) if _OPEN_ALTERNATIVE.search(after) else None
    later = _other([_NEXT_LINE_ALTERNATIVE.match(next_line), starts], number) or _other(
        _CORRECTION.finditer(next_line), number
    )
    if later:
        value = f"{number}{after.rstrip()} / {next_line[: later.end()].strip()}"
        raise Unreadable("ambiguous", "alternatives", value=value, where=where)


def whole_number(digits: str, where: str) -> int:
    """The value of a move number's digits (an optional sign, then digits of one script: "12", "١٢", "１２");
    digits of two scripts ("1٥") are ambiguous."""
    zeros = {ord(c) - unicodedata.digit(c) for c in digits if c.isdigit()}
    if len(zeros) > 1:
        raise Unreadable("ambiguous", "mixed_digits", value=digits, where=where)
    return int(digits)


# ---- descriptions ------------------------------------------------------------------------------------------------

# The kind of move a description names by its first word ("(Discard 0)", "- toss card 0", "(Hint Bob red)"); words
# later in it often tell a move's purpose instead ("save the 5 so it is not discarded"). A relative player ("player
# +1") anywhere names a hint.
_KIND_WORDS = {
    "play": re.compile(r"play(?:s|ed|ing)?", re.IGNORECASE),
    "discard": re.compile(
        r"discard(?:s|ed|ing)?|throw(?:s|ing)?|toss(?:es|ed|ing)?|dump(?:s|ed|ing)?|burn(?:s|ed|ing)?|"
        r"ditch(?:es|ed|ing)?|trash(?:es|ed|ing)?",
        re.IGNORECASE,
    ),
    "hint": re.compile(
        r"hint(?:s|ed|ing)?|clue(?:s|d|ing)?|reveal(?:s|ed|ing)?|tell(?:s|ing)?|give|giving", re.IGNORECASE
    ),
}
_FIRST_WORD = re.compile(
    r"[\W\d_]{0,12}(?:(?:i|we|i'll|we'll|will|just|now|let's|to|simply)[ \t]{1,3}){0,2}([a-z]+)"
    r"(?:[ \t-]{1,3}(clues?|hints?)\b)?",  # "play clue", "discard hint": a hint, in the H-group's words
    re.IGNORECASE,
)
_RELATIVE_PLAYER = re.compile(r"player[ \t]{0,3}\+[ \t]{0,2}\d", re.IGNORECASE)
_KIND_OF = {MoveKind.PLAY: "play", MoveKind.DISCARD: "discard"}  # the rest are hints
_COLOURS = {"red": "R", "yellow": "Y", "green": "G", "white": "W", "blue": "B"}
_RANK_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
_VALUE = r"(?P<value>red|yellow|green|white|blue|one|two|three|four|five|[rygwb]|[1-5])(?![a-z\d])"
# A move in the engine's words, as the prompts list them, and their near variants: "Play 2", "Discard my card 0",
# "Reveal player +1 color R", "Reveal player+1 colour: yellow", "Reveal rank 2 to player +1"
_ENGINE_WORDS = re.compile(
    r"(?<![a-z])(?P<kind>play|discard)(?:ing)?[ \t]{1,3}(?:my[ \t]{1,3})?(?:card[ \t]{0,3}:?[ \t]{0,3})?#?"
    r"(?P<card>\d)(?![\d.])"
    r"|(?<![a-z])reveal(?:ing)?[ \t]{1,3}player[ \t]{0,3}\+[ \t]{0,2}(?P<offset>\d)[ \t]{1,3}"
    rf"(?P<what>colou?r|rank)[ \t]{{0,3}}:?[ \t]{{0,3}}{_VALUE}"
    r"|(?<![a-z])reveal(?:ing)?[ \t]{1,3}(?P<what2>colou?r|rank)[ \t]{0,3}:?[ \t]{0,3}"
    r"(?P<value2>red|yellow|green|white|blue|one|two|three|four|five|[rygwb]|[1-5])(?![a-z\d])"
    r"[ \t]{1,3}to[ \t]{1,3}player[ \t]{0,3}\+[ \t]{0,2}(?P<offset2>\d)",
    re.IGNORECASE,
)
MAX_MENTIONS = 8  # engine-worded moves read from one description


def described_kind(description: str) -> str | None:
    """"play", "discard" or "hint" when a description names one kind of move (by its first word, or a relative
    player for a hint), else None."""
    text = description[:LINE_READ]
    named: set[str] = set()
    first = _FIRST_WORD.match(text)
    if first and first.group(2):
        named.add("hint")
    elif first:
        named.update(kind for kind, words in _KIND_WORDS.items() if words.fullmatch(first.group(1)))
    if _RELATIVE_PLAYER.search(text):
        named.add("hint")
    return named.pop() if len(named) == 1 else None


def _engine_key(move: Move) -> tuple[str, ...]:
    if move.kind is MoveKind.PLAY or move.kind is MoveKind.DISCARD:
        return (move.kind.value, str(move.card_index))
    value = str(move.color) if move.kind is MoveKind.REVEAL_COLOR else str(move.rank)
    what = "color" if move.kind is MoveKind.REVEAL_COLOR else "rank"
    return ("reveal", str(move.target_offset), what, value.upper())


def _mentioned(description: str) -> list[tuple[str, ...]]:
    keys: list[tuple[str, ...]] = []
    for found in itertools.islice(_ENGINE_WORDS.finditer(description[:LINE_READ]), MAX_MENTIONS):
        if found.group("kind"):
            keys.append((found.group("kind").lower(), found.group("card")))
            continue
        what = (found.group("what") or found.group("what2")).lower()
        value = (found.group("value") or found.group("value2")).lower()
        value = _COLOURS.get(value, _RANK_WORDS.get(value, value)).upper()
        offset = found.group("offset") or found.group("offset2")
        keys.append(("reveal", offset, "color" if what.startswith("colo") else "rank", value))
    return keys


def field_contradiction(fields: dict[str, object], move: Move) -> str | None:
    """What a JSON object's own fields say against its move ("color": "B" beside a clue of green, "card_index": 3
    beside Play 2), or None."""
    if move.kind is MoveKind.REVEAL_COLOR:
        said = fields.get("color", fields.get("colour"))
        if isinstance(said, str) and said.strip():
            letter = _COLOURS.get(said.strip().lower(), said.strip()[:1]).upper()
            return None if letter == move.color else f"color {said.strip()[:20]}"
    if move.kind is MoveKind.REVEAL_RANK:
        said = fields.get("rank")
        if isinstance(said, int | str) and not isinstance(said, bool):
            return None if str(said).strip() == str(move.rank) else f"rank {str(said)[:20]}"
    if move.kind in (MoveKind.PLAY, MoveKind.DISCARD):
        said = fields.get("card_index", fields.get("card"))
        if isinstance(said, int) and not isinstance(said, bool):
            return None if said == move.card_index else f"card {said}"
    return None


def contradiction(description: str, move: Move) -> str | None:
    """What a move's description says against the move itself ("a discard", "Play 3"), or None. A description
    naming two kinds, or naming the move itself among others, is no contradiction."""
    kind = described_kind(description)
    actual = _KIND_OF.get(move.kind, "hint")
    if kind is not None and kind != actual:
        return {"play": "a play", "discard": "a discard"}.get(kind, "a hint")
    mentions = _mentioned(description)
    if mentions and _engine_key(move) not in mentions:
        named = mentions[0]
        if named[0] == "reveal":
            return f"Reveal player +{named[1]} {named[2]} {named[3]}"
        return f"{named[0].capitalize()} {named[1]}"
    return None
