"""Strict, linear-time reading of a reply's text: normalisation, markup, JSON objects and "Chosen Move" labels.

Nothing here can be made slow or deep by a reply. A reply longer than MAX_REPLY_CHARS is not read at all. Every
regular expression has bounded repetition or a literal it cannot re-enter, so none backtracks over the text; the
JSON scan visits each character once, keeps no recursion, and gives up as soon as brackets nest deeper than
MAX_JSON_DEPTH, so `json.loads` only ever sees shallow spans. Problems are raised as `Unreadable(kind, why, facts)`;
the format turns them into feedback in its own words.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from harness.formats import doubt
from harness.formats.doubt import LINE_READ, Unreadable
from harness.schema.records import storable_parsed

MAX_REPLY_CHARS = 200_000  # about 50k tokens: longer replies are rejected unread, as "oversized"
MAX_JSON_DEPTH = 32  # brackets nested deeper than this are rejected unread, as "oversized"
MAX_RATINGS_READ = 256  # ratings read from one reply (Hanabi has at most about 50 legal moves)
MAX_JSON_OBJECTS = 64  # more top-level JSON objects than this in one reply are rejected, as "oversized"
MAX_LABELS = 64  # more "Chosen Move Number" labels than this in one reply are rejected, as "oversized"

# the field that holds the chosen move, and the few unmistakable spellings of it that models write
ACTION_KEYS = ("action", "chosen_action", "chosen_move", "chosen_move_number", "chosen_move_index")
RATING_KEYS = ("move_ratings", "ratings", "move_rating")
REASON_KEYS = ("reason", "reasoning", "rationale", "explanation")
# keys that look like a move elsewhere than in the action field: reported as ambiguous, never used
NESTED_MOVE_KEYS = (
    *ACTION_KEYS,
    *("move", "move_index", "move_number", "move_id", "id", "index", "choice", "chosen", "selected_move"),
    *("selected_action", "final_action", "final_move", "final_answer", "answer", "decision", "best_move"),
    *("revised_action", "revised_move", "correction", "action_index", "action_id", "action_number"),
    *("recommended_action", "best_action", "preferred_move", "top_choice", "move_choice", "selection", "pick"),
)
NOT_SEARCHED_FOR_MOVES = (*RATING_KEYS, "deductions")  # their "action" keys label ratings, not a choice
MOVE_KEYS_BELOW = (*ACTION_KEYS, "move", "move_index", "move_number", "choice", "chosen")
# keys beside the action whose words describe the chosen move ("type": "discard"), checked against it
DESCRIPTION_KEYS = (
    *("description", "move_description", "action_description", "chosen_move_description", "type", "move_type"),
    *("action_type", "kind", "action_name", "move_name"),
)
# keys whose objects weigh other moves ("second_best": {"move": 19}): a move inside them is no second choice
_ALTERNATIVES = re.compile(r"second|alternative|backup|runner|other|reject|consider|option|fallback")


# Invisible characters: Unicode format characters (zero-width spaces and joiners, direction marks, soft hyphen, BOM,
# tag characters), line and paragraph separators, combining marks left over after NFKC composition (for letters and
# for symbols, such as a keycap's), variation selectors, and the blank fillers of Hangul and Braille
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x0300, 0x036F), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x115F, 0x1160), (0x180B, 0x180F), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0x20D0, 0x20FF), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB), (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xE0100, 0xE01EF),
)  # fmt: skip
_INVISIBLE = "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in _INVISIBLE_RANGES)
_SPLIT_NUMBER = re.compile(rf"\d[{_INVISIBLE}]{{1,16}}\d")
_DROP_INVISIBLE = {c: None for a, b in _INVISIBLE_RANGES for c in range(a, b + 1)}
# Characters that NFKC turns into digits but that are no digits of a number: raised and lowered digits (footnote
# marks, exponents), vulgar fractions, circled and parenthesised numbers, and the like (every one whose compatibility
# form holds a digit, except full-width and mathematical-font digits, which are digits in another style). Each is
# read apart from its neighbours, so "1¹" (move 1 with a footnote mark) never becomes 11.
_DIGIT_SYMBOL_RANGES = (
    (0x00B2, 0x00B3), (0x00B9, 0x00B9), (0x00BC, 0x00BE), (0x2070, 0x2070), (0x2074, 0x2079), (0x2080, 0x2089),
    (0x2150, 0x215F), (0x2189, 0x2189), (0x2460, 0x249B), (0x24EA, 0x24EA), (0x3251, 0x325F), (0x32B1, 0x32CB),
    (0x3358, 0x3370), (0x3378, 0x3379), (0x339F, 0x33A6), (0x33A8, 0x33A8), (0x33AF, 0x33AF), (0x33E0, 0x33FE),
    (0x1F100, 0x1F10A),
)  # fmt: skip
_APART_DIGIT_SYMBOLS = {
    c: f" {unicodedata.normalize('NFKC', chr(c))} " for a, b in _DIGIT_SYMBOL_RANGES for c in range(a, b + 1)
}
# A reasoning model's thinking, between <think> and </think> (or <thinking> and </thinking>), in any case
_THINK_OPEN = re.compile(r"<think(?:ing)?[ \t]{0,8}>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?[ \t]{0,8}>", re.IGNORECASE)


def normalise(text: str) -> str:
    """NFKC-normalised text without invisible characters; a number split by one is ambiguous (1<ZWSP>2: 1, 2 or
    12?), and a raised digit or a fraction stays apart from its neighbours. Only what follows a reasoning model's
    closing </think> is read."""
    if len(text) > MAX_REPLY_CHARS:
        raise Unreadable("oversized", "too_long", chars=len(text), limit=MAX_REPLY_CHARS)
    text = unicodedata.normalize("NFKC", text.translate(_APART_DIGIT_SYMBOLS))
    if len(text) > MAX_REPLY_CHARS:  # a few characters expand under NFKC (U+FDFA into 18)
        raise Unreadable("oversized", "too_long", chars=len(text), limit=MAX_REPLY_CHARS)
    split = _SPLIT_NUMBER.search(text)
    if split:
        shown = split.group().translate(_DROP_INVISIBLE)
        raise Unreadable("ambiguous", "split_number", digits=" ".join(shown))
    text = text.translate(_DROP_INVISIBLE)
    answer_start = 0
    for closing in _THINK_CLOSE.finditer(text):  # the answer follows the last closing tag
        answer_start = closing.end()
    answer = text[answer_start:]
    if _THINK_OPEN.search(answer):  # thinking begun and never closed: no answer is known to follow it
        raise Unreadable("unparseable", "unclosed_thinking")
    return answer


def strip_markup(text: str) -> str:
    """Text without Markdown emphasis, code marks and heading marks, which models wrap around labels and numbers."""
    text = text.replace("**", "").replace("__", "").replace("`", "").replace("*", "")
    return _HEADING.sub("", text)


_HEADING = re.compile(r"(?m)^[ \t]{0,8}#{1,6}[ \t]{0,8}")

# ---- JSON objects ----------------------------------------------------------------------------------------------

_STRUCTURE = re.compile(r'["{}\[\]]')
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*+"', re.DOTALL)


@dataclass
class JsonSpan:
    start: int
    end: int
    value: Any = None  # the parsed object, or None when the span is not valid JSON even after mending
    readable: bool = False


def json_spans(text: str) -> list[JsonSpan]:
    """The top-level {...} spans of a text, in order, each parsed when it is JSON (mended for common slips),
    in one pass: strings are skipped whole (an unterminated one ends the scan), brackets are counted without
    recursion, and nesting deeper than MAX_JSON_DEPTH stops everything."""
    spans: list[JsonSpan] = []
    position = text.find("{")
    while position >= 0:
        start, depth, end = position, 0, -1
        while True:
            found = _STRUCTURE.search(text, position)
            if found is None:
                break
            char = found.group()
            if char == '"':
                rest = _STRING_REST.match(text, found.end())
                if rest is None:  # a string never closed: nothing after it can be read as JSON
                    break
                position = rest.end()
                continue
            position = found.end()
            if char in "{[":
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    raise Unreadable("oversized", "too_deep", limit=MAX_JSON_DEPTH)
            else:
                depth -= 1
                if depth == 0:
                    end = position
                    break
        if end < 0:  # an object never closed runs to the end: read as JSON that cannot be parsed
            spans.append(JsonSpan(start, len(text)))
            break
        spans.append(JsonSpan(start, end))
        if len(spans) > MAX_JSON_OBJECTS:
            raise Unreadable("oversized", "too_many_objects", limit=MAX_JSON_OBJECTS)
        position = text.find("{", end)
    for span in spans:
        span.value, span.readable = _loads(text[span.start : span.end])
    return spans


class RepeatedKeys(dict[str, Any]):
    """A JSON object that gives one key more than once, in any spelling ("action" twice, or "Action" and
    "action"): `repeated` holds every value of each such key (key_of form), which plain JSON reading would drop."""

    repeated: dict[str, list[Any]]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(pairs) <= 1:
        return obj
    values: dict[str, list[Any]] = {}
    for name, value in pairs:
        values.setdefault(key_of(name), []).append(value)
    if len(values) == len(pairs):
        return obj
    kept = RepeatedKeys(obj)
    kept.repeated = {name: found for name, found in values.items() if len(found) > 1}
    return kept


def repeated_values(obj: dict[str, Any], name: str) -> list[Any]:
    """Every value a JSON object gave the key `name` (key_of form), when it gave it more than once."""
    return obj.repeated.get(name, []) if isinstance(obj, RepeatedKeys) else []


def _loads(candidate: str) -> tuple[Any, bool]:
    for attempt in (candidate, _mend(candidate)):
        try:
            return storable_parsed(json.loads(attempt, strict=False, object_pairs_hook=_object), attempt), True
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError, as is an over-long integer
            continue
    return None, False


_TRAILING_COMMA = re.compile(r",[ \t\r\n]{0,40}([}\]])")
_BARE_KEY = re.compile(r"([{,][ \t\r\n]{0,40})([A-Za-z_][A-Za-z0-9_]{0,40})[ \t]{0,10}:")


def _mend(candidate: str) -> str:
    """Mend the common slips: curly quotes, trailing commas, unquoted keys, and single quotes in an object that
    has no double quote (a Python dict)."""
    fixed = candidate.replace("\u201c", '"').replace("\u201d", '"').replace("\u201e", '"')
    if '"' not in fixed:
        fixed = fixed.replace("'", '"')
    fixed = _TRAILING_COMMA.sub(r"\1", fixed)
    return _BARE_KEY.sub(r'\1"\2":', fixed)


def blank_spans(text: str, spans: list[JsonSpan]) -> str:
    """The text with the given spans replaced by a line break, so labels are read outside JSON objects only."""
    pieces, position = [], 0
    for span in spans:
        pieces.append(text[position : span.start])
        pieces.append("\n")
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces)


_LOOKS_LIKE_JSON = re.compile(r'"[ \t]{0,3}:')
_ACTION_IN_BROKEN_JSON = re.compile(
    rf'"(?:{"|".join((*ACTION_KEYS, "move"))})"[ \t]{{0,3}}:[ \t]{{0,3}}"?[ \t]{{0,3}}([+-]?\d{{1,9}})(?!\d)',
    re.IGNORECASE,
)
# A second answer outside the JSON object that gives the move: "Final answer: 6", a line "Action: 6"
_OTHER_ANSWER = re.compile(
    r"(?:final[ \t](?:answer|choice|decision|move)|revised(?:[ \t](?:move|answer|choice))?|"
    r"my[ \t](?:final[ \t])?(?:move|choice|answer|decision)|^[ \t]{0,8}action[ \t]{0,3}[:=])"
    r"[ \t]{0,3}(?:is|:|=|-)?[ \t]{0,3}(?:move[ \t]{0,3})?#?[ \t]{0,3}([+-]?\d{1,9})(?!\d)",
    re.IGNORECASE | re.MULTILINE,
)
MAX_MENTIONS = 8  # other mentions of a move read from one reply


def unread_spans(text: str, spans: list[JsonSpan]) -> list[JsonSpan]:
    """The spans not to read labels in: the JSON objects, and the spans that look like JSON ('"key":') but could
    not be parsed (a label inside an unreadable object's string is no label)."""
    return [
        s
        for s in spans
        if isinstance(s.value, dict) or (not s.readable and _LOOKS_LIKE_JSON.search(text, s.start, s.end))
    ]


def other_mentions(text: str, spans: list[JsonSpan], outside: str) -> list[tuple[int, str]]:
    """Moves named elsewhere than in a label or a readable JSON object's action: an action field inside JSON that
    could not be parsed, and a "Final answer: N", "My move: N" or "Action: N" line. They are never played; one
    that differs from the move read makes the reply ambiguous."""
    found: list[tuple[int, str]] = []
    for span in spans:
        if not span.readable:
            for match in itertools.islice(_ACTION_IN_BROKEN_JSON.finditer(text, span.start, span.end), MAX_MENTIONS):
                found.append((int(match.group(1)), "a JSON object that could not be read"))
    for match in itertools.islice(_OTHER_ANSWER.finditer(outside), MAX_MENTIONS):
        found.append((int(match.group(1)), f'"{match.group().strip()}"'))
    for match in itertools.islice(_ACTION_IN_BROKEN_JSON.finditer(outside), MAX_MENTIONS):  # quoted beside it
        found.append((int(match.group(1)), f"{match.group()} outside the JSON object"))
    return found


def key_of(name: Any) -> str:
    """A key as compared: "Chosen Move", "chosen-move" and "chosenMove" are all "chosen_move"."""
    return re.sub(r"[\s\-]+", "_", _CAMEL_HUMP.sub("_", str(name).strip()).lower())


_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalised_keys(obj: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in obj.items():
        out.setdefault(key_of(name), value)
    return out


def nested_move_field(obj: dict[str, Any]) -> tuple[str, Any] | None:
    """The path and value of a move-like key other than the action field (outside ratings and deductions), at the
    top level ("move": 3) or below it ("reason": {"id": 1}), if there is one: a move written there is reported as
    ambiguous, never used. Iterative; the depth is already bounded by the scan."""
    for k, v in obj.items():
        if key_of(k) in NESTED_MOVE_KEYS and looks_like_number(v):
            return f'"{k}"', v
    stack: list[tuple[str, Any]] = [
        (str(k), v) for k, v in obj.items() if key_of(k) not in NOT_SEARCHED_FOR_MOVES
    ]
    while stack:
        path, value = stack.pop()
        items: list[tuple[str, Any]] = []
        if isinstance(value, dict):
            for k, v in value.items():
                if key_of(k) in NESTED_MOVE_KEYS and looks_like_number(v):
                    return f'"{path}.{k}"', v
                items.append((f"{path}.{k}", v))
        elif isinstance(value, list):
            items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        stack.extend(items)
    return None


def moves_below(obj: dict[str, Any], limit: int = 16) -> list[tuple[str, Any]]:
    """Keys that name a move, with a number, inside the other fields of an object that has an action ("reason":
    {"choice": 11}), as (path, value): a second move there makes the reply ambiguous. Only objects inside objects
    are searched (a list weighs moves one by one), not the ratings and deductions, and not "id" or "index", which
    number players and cards as often as moves. Iterative and bounded."""
    found: list[tuple[str, Any]] = []
    stack = [(str(k), v) for k, v in obj.items() if isinstance(v, dict) and _searched(k)]
    while stack and len(found) < limit:
        path, value = stack.pop()
        for k, v in value.items():
            if not _searched(k):
                continue
            if key_of(k) in MOVE_KEYS_BELOW and looks_like_number(v):
                found.append((f"{path}.{k}", v))
            elif isinstance(v, dict):
                stack.append((f"{path}.{k}", v))
    return found


def _searched(key: Any) -> bool:
    name = key_of(key)
    return name not in NOT_SEARCHED_FOR_MOVES and not _ALTERNATIVES.search(name)


def looks_like_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (
        isinstance(value, str) and bool(re.fullmatch(r"\s{0,4}\d{1,6}\s{0,4}", value))
    )


# ---- values ----------------------------------------------------------------------------------------------------

# A move number as a JSON string gives it ("3", "move 3", "#3", "[3]"), then at most a description of the move:
# "3 (Play 3)", "3. (Play 3)", "3 - Play 3", "3: Play 3"
_MOVE_STRING = re.compile(
    r"[ \t]{0,8}(?:move[ \t]{0,3})?#?[ \t]{0,3}\[?(?P<num>[+-]?\d{1,9})(?!\d)\]?(?P<rest>.{0,400})",
    re.IGNORECASE | re.DOTALL,
)
_DESCRIPTION = re.compile(r"[ \t.]{0,3}|[ \t]{0,3}(?:\(|[.:\-\u2013\u2014][ \t]{0,3}[(\w])[^\n]{0,400}")


def described(value: Any) -> str:
    """What a JSON value says beside its move number ("10 (Discard 0)": "(Discard 0)"), or the whole of a string
    that holds no number; "" for anything else."""
    if not isinstance(value, str):
        return ""
    match = _MOVE_STRING.match(value)
    return match.group("rest")[:LINE_READ] if match else value[:LINE_READ]


def move_value(value: Any, where: str) -> int:
    """A move number from a JSON value: an integer, or a string holding a move number and at most a description
    of the move, with nothing that puts it in doubt (harness.formats.doubt)."""
    if isinstance(value, bool) or value is None:
        raise Unreadable("unparseable", "not_a_number", value=json.dumps(value), where=where)
    if isinstance(value, int):
        return value
    if isinstance(value, float):  # 2.5, and even 2.0: a move number is written as a whole number
        raise Unreadable("ambiguous", "decimal", value=repr(value), where=where)
    if isinstance(value, dict | list):
        raise Unreadable("ambiguous", "nested", field=where)
    text = strip_markup(str(value))
    match = _MOVE_STRING.fullmatch(text)
    if match:
        doubt.check_after(match.group("num"), match.group("rest"), where)
        if _DESCRIPTION.fullmatch(match.group("rest")):
            return doubt.whole_number(match.group("num"), where)
    raise Unreadable("unparseable", "not_a_number", value=json.dumps(str(value)[:60]), where=where)


# ---- the text layout -------------------------------------------------------------------------------------------

_LABEL = re.compile(
    r"chosen[ \t_-]{0,3}(?:move|action)(?:[ \t_-]{0,3}(?:number|index|no\.?|id|#))?"
    # a qualifier before the number: "Chosen Move Number (0-indexed): 12"
    r"(?:[ \t]{0,3}[(\[][^()\[\]\n]{0,40}[)\]](?=[ \t|]{0,3}[:=]?[ \t|]{0,3}\d))?"
    r"[ \t|]{0,5}(?:is|was|will[ \t]be|=|:|-|\u2013|\u2014)?[ \t|]{0,3}[:=\-\u2013\u2014]?\s{0,6}"
    r"(?:[\[(#]|\$?\\boxed\{|move[ \t]{0,3}#?|number[ \t]{0,3})?[ \t]{0,3}"
    r"(?P<num>[+-]?\d{1,9}(?!\d))?",  # a longer number is no move number, never its first nine digits
    re.IGNORECASE,
)
WHERE_LABEL = "the Chosen Move Number line"


@dataclass
class Labels:
    """The "Chosen Move Number" labels of a text: the numbers they give (each with the rest of its line, which may
    describe the move), whether one gave none, and where each label starts."""

    numbers: list[int] = field(default_factory=list)
    described: list[str] = field(default_factory=list)
    unnumbered: list[str] = field(default_factory=list)  # what labels without a number say: "Chosen Move: Play 0"
    starts: list[int] = field(default_factory=list)


def chosen_labels(text: str) -> Labels:
    """Every chosen-move label of a (markup-stripped) text. A label whose number is put in doubt ("2.5", "3 or 4",
    "5, no wait, 6": harness.formats.doubt) is ambiguous."""
    labels = Labels()
    for match in _LABEL.finditer(text):
        labels.starts.append(match.start())
        if len(labels.starts) > MAX_LABELS:  # each label's line is read for doubt: their count is bounded
            raise Unreadable("oversized", "too_many_labels", limit=MAX_LABELS)
        number = match.group("num")
        line_end = text.find("\n", match.end(), match.end() + LINE_READ)
        after = text[match.end() : match.end() + LINE_READ if line_end < 0 else line_end]
        if number is None:
            labels.unnumbered.append(after)
            continue
        # the next line with something on it (a correction after the label: "Wait, I'll go with 6.")
        following = "" if line_end < 0 else text[line_end + 1 : line_end + 1 + LINE_READ].lstrip("\n")
        next_line = following.split("\n", 1)[0]
        doubt.check_after(number, after, WHERE_LABEL, next_line)
        labels.numbers.append(doubt.whole_number(number, WHERE_LABEL))
        labels.described.append(after)
    return labels


_REASON_LABEL = re.compile(r"reason(?:ing)?[ \t]{0,3}[:=]", re.IGNORECASE)
_RATINGS_LABEL = re.compile(r"move[ \t]{0,3}ratings?[ \t]{0,3}[:=]", re.IGNORECASE)
_TEXT_RATING = re.compile(
    r"move[ \t]{0,3}#?[ \t]{0,3}(\d{1,6})[ \t]{0,3}(?:\([^()\n]{0,160}\)[ \t]{0,3})?[:=][ \t]{0,3}"
    r"([+\-]?(?:\d{1,6}(?:\.\d{0,9})?|\.\d{1,9}))",
    re.IGNORECASE,
)


def text_fields(text: str, labels: Labels) -> dict[str, Any]:
    """Reason and ratings of a text-layout reply (markup-stripped): "Reasoning: ...", "Move Ratings: Move 0: 0.5".
    Each labelled part runs to the next label, before or after the Chosen Move Number line; without a "Move
    Ratings:" label, ratings are read before the chosen move only."""
    ratings_label = _RATINGS_LABEL.search(text)
    reason_label = _REASON_LABEL.search(text)
    starts = [*labels.starts, *(m.start() for m in (ratings_label, reason_label) if m)]

    def up_to_next_label(start: int) -> str:
        return text[start : min((s for s in starts if s >= start), default=len(text))]

    reason = None  # no "Reasoning:" label: missing, not empty
    if reason_label:
        reason = up_to_next_label(reason_label.end()).strip()
    if ratings_label:
        ratings_text = up_to_next_label(ratings_label.end())
    else:
        ratings_text = text[: labels.starts[0]] if labels.starts else text
    found = itertools.islice(_TEXT_RATING.finditer(ratings_text), MAX_RATINGS_READ)
    pairs = [(m.group(1), m.group(2)) for m in found]
    return {"move_ratings": pairs if (pairs or ratings_label) else None, "reason": reason}
