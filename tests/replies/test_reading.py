"""Reply reading: what models really write is read correctly; what cannot be used is named precisely, in the
format's own words."""

from __future__ import annotations

import pytest

from harness.formats import ReplyProblem, get_format, parse_reply
from harness.formats.base import render
from harness.schema.moves import Move, MoveKind

N = 6  # legal moves 0..5
TEXT = get_format("text-move")
JSON = get_format("json-move")


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ('{"move_ratings": [{"action": 0, "rating": 0.1}], "reason": "ok", "action": 3}', 3),
        ('```json\n{"action": 2, "reason": "fenced", "move_ratings": []}\n```', 2),
        (
            'I think so.\n{"reason": "braces {like} these } inside", "action": 4, "move_ratings": []}\nDone.',
            4,
        ),
        ('{"action": "5", "reason": "string index"}', 5),
        ('{"action": 1}', 1),
        ('{action: 1, reason: "unquoted keys", move_ratings: [],}', 1),
        ("Reasoning: safe.\nMove Ratings: Move 0: 0.5, Move 1: -0.3\nChosen Move Number: **4**", 4),
        ("Chosen Move Number: 0", 0),
        ("**Chosen move number:** 2", 2),
        ("reasoning...\nChosen Move Number: [3]", 3),
        ("Reasoning: the red 1 is safe.\nYour chosen move is 3.", 3),
        ("## Chosen Move Number\n`5`", 5),
        ("Chosen Move Number: 2 (Play 0), since card 0 is surely playable.", 2),
        ("<think>maybe Chosen Move Number: 1? no...</think>\nChosen Move Number: 4", 4),
        ("Chosen Move Number: 3\n\nI chose move 3 because it is safe. Chosen move: 3", 3),
        ("Chosen Move Number: \uff13", 3),  # a full-width digit, read after NFKC normalisation
    ],
)
def test_accepts_real_reply_shapes(text: str, action: int) -> None:
    for fmt in (TEXT, JSON):
        reply = fmt.read(text, N)
        assert not isinstance(reply, str) and reply.action == action


def test_text_form_ratings_reason_and_move_labels() -> None:
    text = (
        "Reasoning: Card 3 is known playable {certainly}.\n"
        "Move Ratings: Move 0 (Discard 0): -0.5, Move 1: 0.25, Move 3 (Play 3): 1.0, Move 4: 3\n"
        "Chosen Move Number: 3"
    )
    reply = parse_reply(text, N)
    assert reply.ratings == [-0.5, 0.25, None, 1.0, None, None]
    assert reply.invalid_ratings == {"4": "3"}
    assert reply.reason == "Card 3 is known playable {certainly}."


def test_json_ratings_as_list_dict_or_plain_numbers() -> None:
    as_list = parse_reply(
        '{"action": 0, "move_ratings": [{"action": 1, "rating": 0.5}, {"move": 2, "rating": -1}]}', 3
    )
    assert as_list.ratings == [None, 0.5, -1.0]
    as_dict = parse_reply('{"action": 0, "move_ratings": {"0": 0.2, "2": "0.7"}}', 3)
    assert as_dict.ratings == [0.2, None, 0.7]
    plain = parse_reply('{"action": 0, "move_ratings": [0.1, 0.2, 0.3]}', 3)
    assert plain.ratings == [0.1, 0.2, 0.3]


def test_missing_and_invalid_ratings_are_recorded_not_invented() -> None:
    reply = parse_reply(
        '{"action": 1, "move_ratings": [{"action": 0, "rating": 1.5}, {"action": 9, "rating": 0}]}', 3
    )
    assert reply.ratings == [None, None, None]
    assert reply.invalid_ratings == {"0": "1.5", "9": "0 (no such move)"}


@pytest.mark.parametrize(
    ("text", "kind", "text_says", "json_says"),
    [
        ("", "empty_reply", "empty", "empty"),
        ("   \n", "empty_reply", "empty", "empty"),
        (
            "I would play my first card.",
            "unparseable",
            '"Chosen Move Number: N"',
            'JSON object with an "action"',
        ),
        ('{"reason": "forgot the action"}', "unparseable", 'no "action" field', 'no "action" field'),
        (
            "Chosen Move Number: 17",
            "illegal_move",
            "Move 17 is not a legal move",
            "Move 17 is not a legal move",
        ),
        ('{"action": -1}', "illegal_move", "(0 to 5)", "(0 to 5)"),
        ('{"action": "play the red one"}', "unparseable", "not a move number", "not a move number"),
        ("Chosen Move Number: [number]", "unparseable", "does not give a move number", "does not give"),
    ],
)
def test_unusable_replies_name_the_problem_in_the_formats_words(
    text: str, kind: str, text_says: str, json_says: str
) -> None:
    for fmt, says, reminder in ((TEXT, text_says, "Chosen Move Number: N"), (JSON, json_says, '"action": N')):
        with pytest.raises(ReplyProblem) as caught:
            fmt.read(text, N)
        assert caught.value.kind == kind
        assert says in str(caught.value)
        assert reminder in str(caught.value)  # the feedback restates the scaffold's own format


def test_required_fields_are_enforced_and_an_empty_list_is_called_empty() -> None:
    with pytest.raises(ReplyProblem) as caught:
        parse_reply('{"action": 1, "reason": "no ratings"}', N, required=("action", "move_ratings"))
    assert caught.value.kind == "missing_field"
    assert 'lacks the "move_ratings" field, which is required' in str(caught.value)
    with pytest.raises(ReplyProblem) as caught:
        parse_reply('{"action": 1, "move_ratings": []}', N, required=("action", "move_ratings"))
    assert 'the "move_ratings" field is empty: rate every legal move' in str(caught.value)
    with pytest.raises(ReplyProblem) as caught:
        TEXT.with_required(("action", "move_ratings")).read("Chosen Move Number: 1", N)
    assert 'lacks the "Move Ratings" line' in str(caught.value)


def test_two_json_objects_with_different_moves_are_ambiguous() -> None:
    text = 'Example: {"action": 0}. My answer: {"action": 2, "reason": "final"}'
    with pytest.raises(ReplyProblem) as caught:
        parse_reply(text, N)
    assert caught.value.kind == "ambiguous"
    assert "move 0" in str(caught.value) and "move 2" in str(caught.value)


def test_a_choice_may_be_restricted_to_some_moves() -> None:
    assert JSON.read('{"action": 4}', N, allowed={1, 4}).action == 4  # type: ignore[union-attr]
    with pytest.raises(ReplyProblem) as caught:
        TEXT.read("Chosen Move Number: 2", N, allowed={1, 4})
    assert caught.value.kind == "illegal_move"
    assert "Move 2 is a legal move but not one of the moves you may choose here (1 or 4)" in str(caught.value)


MEMORY = get_format("memory", ("action", "move_ratings", "reason", "deductions"))


@pytest.mark.parametrize(
    ("deductions", "says"),
    [
        (
            {
                "player_0": [
                    {"card": 0, "colors": ["R"], "ranks": [1]},
                    {"card": 1, "colors": ["Q"], "ranks": [1]},
                ]
            },
            'player_0, card 1 lists "Q", which is not a colour: use the letters R, Y, G, W, B',
        ),
        ({"player_1": [{"card": 3, "colors": ["Red"], "ranks": [7]}]}, "player_1, card 3 lists the rank 7"),
        ({"player_0": "all ones"}, "player_0 must be a list of cards"),
        ({}, 'the "deductions" field is empty'),
    ],
)
def test_memory_feedback_is_plain_words_with_the_prompts_card_numbers(deductions: dict, says: str) -> None:
    reply = {
        "deductions": deductions,
        "move_ratings": [{"action": 0, "rating": 0.5}],
        "reason": "r",
        "action": 0,
    }
    import json

    with pytest.raises(ReplyProblem) as caught:
        MEMORY.read(json.dumps(reply), N)
    message = str(caught.value)
    assert caught.value.kind == "missing_field"
    assert says in message
    assert "Value error" not in message and "validation" not in message.lower()
    assert '"deductions": {"player_0"' in message  # the feedback restates Mycroft's own format
    assert "Chosen Move Number" not in message


def test_memory_deductions_are_kept_with_colour_letters() -> None:
    reply = MEMORY.read(
        '{"deductions": {"player_0": [{"card": 0, "colors": ["red", "y"], "ranks": [1, 2]}]}, '
        '"move_ratings": [{"action": 2, "rating": 1}], "reason": "ok", "action": 2}',
        N,
    )
    assert not isinstance(reply, str)
    assert reply.extras["deductions"] == {"player_0": [{"card": 0, "colors": ["R", "Y"], "ranks": [1, 2]}]}


def test_json_feedback_never_mentions_the_text_layout() -> None:
    for text in (
        "",
        "no move here",
        '{"action": 1.5}',
        "Chosen Move Number: 1 or 2",
        '{"reason": {"id": 2}}',
    ):
        for fmt in (JSON, get_format("json-action"), MEMORY):
            with pytest.raises(ReplyProblem) as caught:
                fmt.read(text, N)
            message = str(caught.value)
            assert "Chosen Move Number: N" not in message and '"action": N' in message


def test_ambiguity_feedback_says_what_was_ambiguous() -> None:
    cases = {
        "Chosen Move Number: 2.5": '"2.5", which is not a whole move number',
        "Chosen Move Number: 1\u200b2": "broken up by an invisible character (the digits 1 2)",
        '{"reason": {"id": 1}}': 'appears only in "reason.id", not where the chosen move belongs',
        'Chosen Move Number: 1\n{"action": 3}': "move 1 in the Chosen Move Number line, move 3 in a JSON object",
        "Chosen Move Number: 1 or 2": '"1 or 2", which names more than one move',
    }
    for text, says in cases.items():
        with pytest.raises(ReplyProblem) as caught:
            TEXT.read(text, N)
        assert caught.value.kind == "ambiguous"
        assert says in str(caught.value), str(caught.value)


def test_every_format_has_instructions_and_writes_what_it_reads() -> None:
    from harness.formats import FORMAT_NAMES

    for name in FORMAT_NAMES:
        fmt = get_format(name)
        if name == "report":
            assert fmt.read(fmt.write(0, [], "My analysis."), 5) == "My analysis."
            continue
        assert render(fmt.template, players=3, fmt=fmt).strip()
        extras = (
            {"deductions": {"player_0": [{"card": 0, "colors": ["R"], "ranks": [1]}]}}
            if name == "memory"
            else {}
        )
        written = fmt.write(3, [(0, 0.125), (3, 1.0)], "because", extras)
        reply = fmt.read(written, 5)
        assert not isinstance(reply, str) and reply.action == 3 and reply.reason == "because"
        if "move_ratings" in fmt.fields:
            assert reply.ratings == [0.125, None, None, 1.0, None]


@pytest.mark.parametrize(
    "text",
    [
        "Chosen Move Number: 1\u20092",  # a thin space: "1 2" after normalisation
        "Chosen Move Number: 1\u20282",  # a line separator
        "Chosen Move Number: 1\u03012",  # a stray combining mark
        "Chosen Move Number: 1\ufeff2",  # a byte-order mark
        "Chosen Move Number: 3, 2",
        '{"action": 2.0}',  # a move number is a whole number, written as one
        '{"action": "2.5"}',
        '{"move": 3, "reason": "no action field"}',  # a move only in another field
        '{"action": 1, "chosen_move": 2}',
        '{"action": 1, "move": 2}',  # a second move in a move-like field beside the action
        '{"action": 1, "index": "2"}',
    ],
)
def test_more_ways_of_being_ambiguous(text: str) -> None:
    for fmt in (TEXT, JSON):
        with pytest.raises(ReplyProblem) as caught:
            fmt.read(text, N)
        assert caught.value.kind == "ambiguous"


def test_a_move_number_longer_than_any_is_rejected_never_read_as_its_first_digits() -> None:
    """Nine digits of "00000000011" are 0: the reply is re-asked, never played as move 0 (nor as 11)."""
    with pytest.raises(ReplyProblem):
        TEXT.read("Chosen Move Number: 00000000011", N)
    assert TEXT.read("Chosen Move Number: 1", N).action == 1


def test_a_move_field_that_repeats_the_action_or_describes_it_is_no_second_move() -> None:
    assert JSON.read('{"action": 1, "move": 1}', N).action == 1
    assert JSON.read('{"action": 1, "move": "(Play 1)"}', N).action == 1


def test_a_second_different_rating_of_one_move_is_recorded_not_dropped() -> None:
    reply = JSON.read('{"action": 3, "move_ratings": [{"action": 3, "rating": 0.9}, {"action": 3, "rating": -0.9}]}', N)
    assert reply.ratings[3] == 0.9 and reply.invalid_ratings == {"3 (again)": "-0.9"}
    same = JSON.read('{"action": 3, "move_ratings": [{"action": 3, "rating": 0.9}, {"action": 3, "rating": 0.9}]}', N)
    assert same.ratings[3] == 0.9 and same.invalid_ratings == {}


@pytest.mark.parametrize(
    "text",
    [
        "Chosen Move Number: 2, no wait, 3",  # a correction on the label's line
        "Chosen Move Number: 2 (or 3)",
        "Chosen Move Number: 2 vs 3",
        "Chosen Move Number: 2 & 3",
        "Chosen Move Number: 1\u00b9",  # a footnote mark, not "11"
        "Chosen Move Number: 1\u00bd",  # one and a half
        '{"action": 2, "action": 3}',  # plain JSON reading keeps only the last
        '{"Action": 2, "action": 3}',  # two spellings of one key
        '{"action": 2, "reason": {"choice": 3}}',  # a second move inside another field
        '{"action": 2, "move": "3 (Play 3)"}',
    ],
)
def test_second_thoughts_repeated_keys_and_hidden_second_moves_are_ambiguous(text: str) -> None:
    for fmt in (TEXT, JSON):
        with pytest.raises(ReplyProblem) as caught:
            fmt.read(text, N)
        assert caught.value.kind == "ambiguous", text


# moves 0-5: Play 0, Play 1, Discard 0, Discard 1, Reveal player +1 color R, Reveal player +1 rank 1
MOVES = (
    Move(kind=MoveKind.PLAY, card_index=0),
    Move(kind=MoveKind.PLAY, card_index=1),
    Move(kind=MoveKind.DISCARD, card_index=0),
    Move(kind=MoveKind.DISCARD, card_index=1),
    Move(kind=MoveKind.REVEAL_COLOR, target_offset=1, color="R"),
    Move(kind=MoveKind.REVEAL_RANK, target_offset=1, rank=1),
)


@pytest.mark.parametrize(
    ("text", "clear"),
    [
        ("Chosen Move Number: 4 (Discard 0)", "Chosen Move Number: 4 (Hint)"),  # move 4 is a clue
        ('{"action": "4 (Discard 0)"}', '{"action": "4 (Reveal player +1 color R)"}'),
        ('{"action": 4, "move": "(Discard0)"}', '{"action": 4, "move": "(Reveal player +1 color R)"}'),
        ('{"action": 4, "type": "discard"}', '{"action": 4, "type": "hint"}'),
        ('{"action": 4, "move": {"type": "discard", "card": 0}}', '{"action": 4, "move": {"type": "clue"}}'),
        ("Chosen Move Number: 0 - Reveal player +1 rank 1", "Chosen Move Number: 0 - Play 0"),
        ("Chosen Move Number: 1 (Play 0)", "Chosen Move Number: 1 (Play 1)"),  # the engine's words for move 0
        ("Chosen Move Number: 4 (Reveal player +1 color Y)", "Chosen Move Number: 4 (Color R to player +1)"),
        ("Chosen Move Number: 0 (toss card 0)", "Chosen Move Number: 2 (Discard card 0, not Play 1)"),
        (
            "Chosen Move Number: 4 (Reveal player+1 colour: yellow)",
            "Chosen Move Number: 4 (Reveal color red to player +1)",
        ),
        ('{"action": 4, "color": "B"}', '{"action": 4, "color": "red"}'),
        ('{"action": 1, "card_index": 0}', '{"action": 1, "card_index": 1}'),
        ("Chosen Move: Discard 1\nChosen Move Number: 2", "Chosen Move: Discard 0\nChosen Move Number: 2"),
    ],
)
def test_a_move_described_as_another_move_is_ambiguous(text: str, clear: str) -> None:
    for fmt in (TEXT, JSON):
        with pytest.raises(ReplyProblem) as caught:
            fmt.read(text, N, moves=MOVES)
        assert caught.value.kind == "ambiguous"
        assert "but describes it as" in str(caught.value)
        reply = fmt.read(clear, N, moves=MOVES)
        assert not isinstance(reply, str)


@pytest.mark.parametrize(
    "text",
    [
        "Chosen Move Number: 2 -> 3",
        "Chosen Move Number: 2 (I mean 3)",
        "Chosen Move Number: 2, or maybe 3",
        "Chosen Move Number: 2 (changed to 3)",
        "Chosen Move Number: 2; 3",
        "Chosen Move Number: 2 (3)",
        "Chosen Move Number: 2 \u2013 3",
        "Chosen Move Number: 2    3",
        "Chosen Move Number: 2 (Play 0), no wait, 3",
        "Chosen Move Number: 2\nWait, I'll go with 3.",  # a correction on the next line
        "Chosen Move Number: 2 or\n3",
        "Chosen Move Number: 1\ufe0f\u20e32\ufe0f\u20e3",  # keycap digits: 1 and 2, or 12?
        "Chosen Move Number: 1\u0665",  # digits of two scripts
        '{"action": "2 (or 3)"}',
        '{"action": 2, "chosenMove": 3}',
        '{"action": 2, "move": {"number": 3}}',
        '{"action": 2}\nFinal answer: 3',
        '{"action": 2}\n{"move": 3}',
        '{"action": 2} {"action": 3',  # a second object, never closed
        "Chosen Move Number: 2 (Discard 0) or 0 (Play 0)",  # a second described move
        "Chosen Move Number: 2 (Discard 0) -> 0",
        "Chosen Move Number: 2 (Discard 0)\n\nP.S. I meant move 0.",
        '{"action": 2}\n\nOops, I meant "action": 0',
        "Reasoning: x\nChosen Move Number: 2\nMy final move: 0",
    ],
)
def test_second_numbers_and_corrections_are_ambiguous(text: str) -> None:
    for fmt in (TEXT, JSON):
        with pytest.raises(ReplyProblem) as caught:
            fmt.read(text, N, moves=MOVES)
        assert caught.value.kind == "ambiguous", text


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("<THINK>hm</THINK>\nChosen Move Number: 3", 3),  # tags in capitals
        ("<thinking>Chosen Move Number: 1?</thinking>\nChosen Move Number: 3", 3),
        ("Chosen Move Number: 4 (Hint Bob red so that he can play it)", 4),  # two kinds named: no contradiction
        ("Chosen Move Number: 2 (Discard card 0, rather than play card 1)", 2),
        ("Chosen Move Number: 5 instead of the riskier move 1", 5),
        ("Chosen Move Number: 5 (Reveal player +1 rank 1, touching cards 0 and 3)", 5),
        ("Chosen Move Number: 0 (Play 0) since we have 2 clues and 1 life left", 0),
        ("Chosen Move Number: 1 (Play 1) - it's either red 1 or 2, both playable", 1),
        ("Chosen Move Number: 3 (Discard 1), with 3/8 clue tokens left", 3),
        ("Chosen Move Number: 1 (Play 1) - not 100% sure but likely playable", 1),
        ("Chosen Move Number: 3, not 2", 3),
        ("Chosen Move Number: 3 (0-indexed)", 3),
        ("Chosen Move Number (0-indexed): 3", 3),  # a qualifier's number is no move
        ("Chosen Move Number: \\boxed{3}", 3),
        ("| Chosen Move Number | 3 |", 3),
        ('{"action": 3, "analysis": [{"move": 0, "note": "bad"}, {"move": 3}]}', 3),  # moves weighed in a list
        ('{"action": 4, "hint": {"id": 1, "color": "R"}}', 4),  # an "id" numbering a player, not a move
        ('{"action": 3, "move": {"type": "discard", "index": 3}}', 3),
        ('{"action": 3, "plan": {"move": 3}}', 3),  # the same move again
        ('{"action": 3, "action": 3}', 3),
        ('{"action": "1. (Play 1)"}', 1),  # the prompt's own line for the move, copied
        ('{"action": "1 - Play 1"}', 1),
        ('{"moveRatings": [0.1, 0.2], "action": 1}', 1),
        ("Chosen Move Number: 5\n\nFinal answer: 5", 5),  # the same move restated
        ("Chosen Move Number: 5 (Move 5: Reveal player +1 rank 1)", 5),
        ("Chosen Move Number: 5 (5 save)", 5),  # numbers that count something
        ("Chosen Move Number: 5 (1s clue: play clue on cards 1 and 2)", 5),
        ("Chosen Move Number: 3 (100% safe discard)", 3),
        ("Chosen Move Number: 4 (0.8 rating)", 4),
        ("Chosen Move Number: 5 (save the 1s so they are not discarded)", 5),  # a purpose, not a kind of move
        ("Chosen Move Number: 4 (so they can play the red 1)", 4),
        ("Chosen Move Number: 2 (no safe play available)", 2),
        ("Chosen Move Number: 5\nActually, it is 2 cards that get touched.", 5),
        ("Chosen Move Number: 5 (Reveal player +1 rank 1) - better than move 4 (one card) or move 0 (risky)", 5),
        ("Chosen Move Number: 0 (Play 0) - score from 11 -> 12", 0),
        ("{'reason': 'a Python dict', 'action': 1}", 1),
    ],
)
def test_clear_replies_stay_readable(text: str, action: int) -> None:
    for fmt in (TEXT, JSON):
        reply = fmt.read(text, N, moves=MOVES)
        assert not isinstance(reply, str) and reply.action == action


@pytest.mark.parametrize(
    "text",
    [
        '{"reason": "clued "red"; chosen move 1 was my first idea", "action": 2}',  # a label in broken JSON
        "Chosen Move Number: 2\n<think>\nActually move 1\n",  # thinking begun and never closed
        "<think>a</think>\n<think>\nChosen Move Number: 1\n",
    ],
)
def test_no_move_is_read_from_broken_json_or_unclosed_thinking(text: str) -> None:
    for fmt in (TEXT, JSON):
        with pytest.raises(ReplyProblem) as caught:
            fmt.read(text, N, moves=MOVES)
        assert caught.value.kind == "unparseable"


def test_reasoning_and_ratings_after_the_chosen_move_are_kept() -> None:
    reply = TEXT.read("Chosen Move Number: 3\nReasoning: safe.\nMove Ratings: Move 0: 0.5, Move 3: 1", N)
    assert reply.reason == "safe." and reply.ratings == [0.5, None, None, 1.0, None, None]
    reply = TEXT.read("Reasoning: safe.\nChosen Move Number: 3\nMove Ratings: Move 3: 0.9", N)
    assert reply.reason == "safe." and reply.ratings[3] == 0.9
