"""What puts a named move in doubt: a second number or a correction after it, digits of two scripts, and a
description that names another move.

A move number is often followed by words about it ("2 (Play 0), since card 0 is surely playable"), and those words
hold numbers of their own (cards, ranks, tokens), so a number after the move is no second move by itself. Doubt is
a number right after the move, alone or behind words of alternative or correction ("5 or 6", "5 (maybe 6)",
"5 -> 6"); a strong correction later on the line or at the start of the next ("... (Play 5), no wait, 6"); or a
description that names a different kind of move or a different move in the engine's own words ("10 (Discard 0)"
where move 10 is a clue, "2 (Play 3)" where move 2 is Play 2). Every pattern is bounded: it reads at most LINE_READ
characters after a number, and none can backtrack over a reply.
"""

from __future__ import annotations

import re
import unicodedata

from harness.formats.unreadable import Unreadable
from harness.schema.moves import Move, MoveKind

LINE_READ = 200  # characters read after a move number, on its line and on the next

# Words that, right after a move number, offer another one: "5 or 6", "5, no wait, 6", "5 (I mean 6)"
_ALTERNATIVE_WORD = (
    r"(?:or[ \t]rather|or|vs|versus|nor|and|no|maybe|perhaps|possibly|probably|either|then|to|y|o|ou|oder|или|и|"
    r"或|也|alt|alternatively|alternative|otherwise|else|fallback|backup|second[ \t]choice|also[ \t]consider|"
    r"if[ \t]not|final(?:[ \t]answer)?|answer|updated?|edit(?:ed)?|changed?(?:[ \t]to)?|i[ \t]mean|i[ \t]meant|"
    r"meant|mean|oops|sorry|correction|corrected|wait|actually|scratch[ \t]that|hmm+|make[ \t](?:it|that)|is|was)"
)
# A second number right after the first, behind at most a few signs ("->", ";", "(", "...") and such words. A
# relative player ("+1") is no move number.
_SECOND_NUMBER = re.compile(
    rf"[\s\W_]{{0,6}}(?:{_ALTERNATIVE_WORD}\b[\s\W_]{{0,6}}){{0,4}}"
    r"(?:(?:move|option|number|no\.?)[ \t]{0,3})?#?[ \t]{0,3}(?<![+\d])\d(?!\d{0,2}[ \t-]?(?:indexed|based))",
    re.IGNORECASE,
)
# A line that ends on an alternative ("5 or", "5 /"), when the next line starts with a number
_OPEN_ALTERNATIVE = re.compile(rf"(?:\b{_ALTERNATIVE_WORD}|[/|&+;,\-\u2013\u2014])[ \t]{{0,8}}$", re.IGNORECASE)
_STARTS_WITH_NUMBER = re.compile(r"[ \t]{0,8}(?:(?:move|option|number)[ \t]{0,3})?#?[ \t]{0,3}\d", re.IGNORECASE)
# Words that take a move back wherever they stand on the line, and the few words that may lead from them to the
# new number ("wait, I'll go with 6").
_CORRECTION_WORD = (
    r"(?:no[ \t]wait|wait|actually|i[ \t]mean|i[ \t]meant|oops|sorry|correction|changed?[ \t](?:it[ \t])?to|"
    r"scratch[ \t]that|on[ \t]second[ \t]thoughts?|final[ \t]answer|make[ \t](?:it|that)|or[ \t]maybe|"
    r"or[ \t]perhaps|or[ \t]rather|alternatively|otherwise|fallback|edit|update)"
)
_LEAD = (
    r"(?:[\s\W_]|\b(?:i'?ll|i|will|would|go|going|with|let'?s|take|choose|pick|do|move|option|number|it|is|be|"
    r"should|to|play|instead|rather)\b)"
)
_CORRECTION = re.compile(rf"\b{_CORRECTION_WORD}\b{_LEAD}{{0,16}}(?<![+\w])\d", re.IGNORECASE)
_NEXT_LINE_CORRECTION = re.compile(
    rf"[ \t]{{0,8}}[(\[]?[ \t]{{0,3}}(?:{_CORRECTION_WORD}|or|maybe|perhaps)\b{_LEAD}{{0,16}}(?<![+\w])\d",
    re.IGNORECASE,
)
_DECIMAL_AFTER = re.compile(r"[.,](\d{1,9})")


def check_after(number: str, after: str, where: str, next_line: str = "") -> None:
    """Raise Unreadable("ambiguous") when what follows a move number on its line (`after`), or the start of the
    next line, puts it in doubt: a decimal part, a second number offered beside it, or a correction."""
    after = after[:LINE_READ]
    decimal = _DECIMAL_AFTER.match(after)
    if decimal:
        raise Unreadable("ambiguous", "decimal", value=f"{number}{after[0]}{decimal.group(1)}", where=where)
    doubt = _SECOND_NUMBER.match(after) or _CORRECTION.search(after)
    if doubt:
        raise Unreadable("ambiguous", "alternatives", value=f"{number}{after[: doubt.end()]}".strip(), where=where)
    next_line = next_line[:LINE_READ]
    later = _NEXT_LINE_CORRECTION.match(next_line) or (
        _OPEN_ALTERNATIVE.search(after) and _STARTS_WITH_NUMBER.match(next_line)
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

_KIND_WORDS = {
    "play": re.compile(r"(?<![a-z])play(?:s|ed|ing)?(?![a-z])", re.IGNORECASE),
    "discard": re.compile(
        r"(?<![a-z])(?:discard(?:s|ed|ing)?|throw(?:s|ing)?|toss(?:es|ed|ing)?|dump(?:s|ed|ing)?|"
        r"burn(?:s|ed|ing)?|ditch(?:es|ed|ing)?|trash(?:es|ed|ing)?)(?![a-z])",
        re.IGNORECASE,
    ),
    "hint": re.compile(
        r"(?<![a-z])(?:hint(?:s|ed|ing)?|clue(?:s|d|ing)?|reveal(?:s|ed|ing)?|tell(?:s|ing)?|give|giving)(?![a-z])"
        r"|player[ \t]{0,3}\+\d",
        re.IGNORECASE,
    ),
}
_KIND_OF = {MoveKind.PLAY: "play", MoveKind.DISCARD: "discard"}  # the rest are hints
# A move in the engine's own words, as the prompts list them: "Play 2", "Discard card 0", "Reveal player +1 color R"
_ENGINE_WORDS = re.compile(
    r"(?<![a-z])(?P<kind>play|discard)[ \t]{1,3}(?:card[ \t]{1,3})?#?(?P<card>\d)(?![\d.])"
    r"|(?<![a-z])reveal[ \t]{1,3}player[ \t]{1,3}\+(?P<offset>\d)[ \t]{1,3}(?P<what>colou?r|rank)[ \t]{1,3}"
    r"(?P<value>[a-z]|\d)(?![a-z\d])",
    re.IGNORECASE,
)
MAX_MENTIONS = 8  # engine-worded moves read from one description


def described_kind(description: str) -> str | None:
    """"play", "discard" or "hint" when a description names exactly one kind of move, else None."""
    text = description[:LINE_READ]
    named = [kind for kind, words in _KIND_WORDS.items() if words.search(text)]
    return named[0] if len(named) == 1 else None


def _engine_key(move: Move) -> tuple[str, ...]:
    if move.kind is MoveKind.PLAY or move.kind is MoveKind.DISCARD:
        return (move.kind.value, str(move.card_index))
    value = str(move.color) if move.kind is MoveKind.REVEAL_COLOR else str(move.rank)
    what = "color" if move.kind is MoveKind.REVEAL_COLOR else "rank"
    return ("reveal", str(move.target_offset), what, value.upper())


def _mentioned(description: str) -> list[tuple[str, ...]]:
    keys: list[tuple[str, ...]] = []
    for found in _ENGINE_WORDS.finditer(description[:LINE_READ]):
        if found.group("kind"):
            keys.append((found.group("kind").lower(), found.group("card")))
        else:
            what = "color" if found.group("what").lower().startswith("colo") else "rank"
            keys.append(("reveal", found.group("offset"), what, found.group("value").upper()))
        if len(keys) >= MAX_MENTIONS:
            break
    return keys


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
