"""Reply parsing: what models really write is read correctly; what cannot be used is named precisely."""

from __future__ import annotations

import pytest

from harness.replies import ReplyProblem, parse_reply

N = 6  # legal moves 0..5


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
        ("{'action': 1}".replace("'", '"'), 1),
        ('{action: 1, reason: "unquoted keys", move_ratings: [],}', 1),
        ("Reasoning: safe.\nMove Ratings: Move 0: 0.5, Move 1: -0.3\nChosen Move Number: **4**", 4),
        ("Chosen Move Number: 0", 0),
        ("**Chosen move number:** 2", 2),
        ("reasoning...\nChosen Move Number: [3]", 3),
    ],
)
def test_accepts_real_reply_shapes(text: str, action: int) -> None:
    assert parse_reply(text, N).action == action


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
    ("text", "kind", "named"),
    [
        ("", "empty_reply", "empty"),
        ("   \n", "empty_reply", "empty"),
        ("I would play my first card.", "unparseable", "Chosen Move Number"),
        ('{"reason": "forgot the action"}', "unparseable", "action"),
        ("Chosen Move Number: 17", "illegal_move", "Move 17 is not a legal move"),
        ('{"action": -1}', "illegal_move", "numbered 0 to 5"),
        ('{"action": "play the red one"}', "unparseable", "not a move number"),
    ],
)
def test_unusable_replies_name_the_problem(text: str, kind: str, named: str) -> None:
    with pytest.raises(ReplyProblem) as caught:
        parse_reply(text, N)
    assert caught.value.kind == kind
    assert named in str(caught.value)


def test_required_fields_are_enforced() -> None:
    with pytest.raises(ReplyProblem) as caught:
        parse_reply('{"action": 1, "reason": "no ratings"}', N, required=("action", "move_ratings"))
    assert caught.value.kind == "missing_field"
    assert '"move_ratings"' in str(caught.value)


def test_the_last_json_object_with_an_action_wins() -> None:
    text = 'Example: {"action": 0}. My answer: {"action": 2, "reason": "final"}'
    assert parse_reply(text, N).action == 2
