"""Understanding and prediction prompts, and lenient parsing of their JSON answers."""

import pytest

from mobileintent_gym.agents.intent_prompts import (
    PREDICT_SYSTEM,
    UNDERSTAND_SYSTEM,
    parse_next_intention,
    parse_segmentation,
    predict_prompt,
    understand_prompt,
)
from mobileintent_gym.metrics.act2intent import EVENT_CLASSES, Prediction, goal_accuracy
from mobileintent_gym.metrics.prediction import first_json_object

ACTIONS = ["In Music, tap Your Library, to find saved songs",
           "In Music, tap Liked Songs, to open the liked list",
           "In Chat, tap Li Wei, to open the conversation"]


def test_understand_prompt_numbers_the_actions_from_one():
    messages = understand_prompt(ACTIONS)
    assert messages[0] == {"role": "system", "content": UNDERSTAND_SYSTEM}
    assert messages[1]["content"] == (
        "Actions:\n1. In Music, tap Your Library, to find saved songs\n"
        "2. In Music, tap Liked Songs, to open the liked list\n"
        "3. In Chat, tap Li Wei, to open the conversation\n\nIntentions (JSON):")


def test_predict_prompt_shows_the_last_window_persona_time_and_classes():
    history = [(f"2026-11-{d:02d} 08:00", "Music", f"Play song {d}", "Listen music")
               for d in range(1, 61)]
    messages = predict_prompt(history, "Likes jazz in the morning.", "2026-12-01 08:00")
    system, user = messages[0]["content"], messages[1]["content"]
    assert system.startswith(PREDICT_SYSTEM) and all(e in system for e in EVENT_CLASSES)
    rows = [line for line in user.splitlines() if line.startswith("2026-11-")]
    assert len(rows) == 50 and rows[0] == "2026-11-11 08:00 | Music | Play song 11 | Listen music"
    assert "Persona: Likes jazz in the morning." in user
    assert "Current time: 2026-12-01 08:00" in user
    assert "(none)" in predict_prompt([], "p", "t", window=5)[1]["content"]


@pytest.mark.parametrize(("answer", "expected"), [
    ('{"Open liked songs in Music": [1, 2], "Open the chat with Li Wei": [3]}',
     [("Open liked songs in Music", [1, 2]), ("Open the chat with Li Wei", [3])]),
    ('Sure! ```json\n{"Open liked songs": [1, 2], "Chat": [3],}\n``` Hope it helps.',
     [("Open liked songs", [1, 2]), ("Chat", [3])]),
    ("{'Open liked songs': ['1', '2'], 'Chat': [3]}", [("Open liked songs", [1, 2]),
                                                       ("Chat", [3])]),
    ('The intentions are {"A": [1,2,3]} and nothing else {"B": [9]}', [("A", [1, 2, 3])]),
    # One intention text twice (two intentions of a window): both kept, in order.
    ('{"Play music": [1, 2], "Reply to Mum": [3], "Play music": [4, 5]}',
     [("Play music", [1, 2]), ("Reply to Mum", [3]), ("Play music", [4, 5])]),
    ("Done: {'Play music': [1, 2], 'Reply to Mum': [3], 'Play music': [4, 5],}",
     [("Play music", [1, 2]), ("Reply to Mum", [3]), ("Play music", [4, 5])]),
])
def test_segmentations_are_found_in_answers(answer, expected):
    parsed = parse_segmentation(answer)
    assert parsed == expected
    truth = {"x": [1, 2], "y": [3]}
    assert goal_accuracy(parsed, truth) in (0.0, 0.5, 1.0)  # the scores take what it gives


@pytest.mark.parametrize("answer", [
    "", "no json here", "{}", '{"A": []}', '{"A": [0, 1]}', '{"A": [1.5]}', '{"A": "1,2"}',
    '{"A": [true]}', "[1, 2, 3]", '{"A": [1, 2', None, 7, "{'A': [1], **rest}",
    # int() of a 5,000-digit string raised ValueError out of a reader that never raises.
    '{"A": ["' + "9" * 5000 + '"]}', '{"A": ["\u0663"]}',
])
def test_malformed_segmentations_give_none(answer):
    assert parse_segmentation(answer) is None


@pytest.mark.parametrize(("answer", "expected"), [
    ('{"Event": "Listen music", "Behaviour": "Play jazz on the way to work"}',
     Prediction("Listen music", "Play jazz on the way to work")),
    ("Prediction:\n{'Event': 'Chatting', 'Behaviour': 'Reply to Mum',}",
     Prediction("Chatting", "Reply to Mum")),
])
def test_predictions_are_found_in_answers(answer, expected):
    assert parse_next_intention(answer) == expected
    assert parse_next_intention(answer, confidence=0.7).confidence == 0.7


@pytest.mark.parametrize("answer", [
    "", '{"Event": "Chatting"}', '{"Event": 3, "Behaviour": "x"}', '["Chatting", "x"]', None])
def test_malformed_predictions_give_none(answer):
    assert parse_next_intention(answer) is None


def test_json_object_prefers_the_fenced_block_and_survives_unbalanced_braces():
    assert first_json_object('{"outside": 1} ```json\n{"inside": 2}\n```') == {"inside": 2}
    assert first_json_object("{ { {") is None
    assert first_json_object('{"a": {"b": [1, {"c": 2}]}}') == {"a": {"b": [1, {"c": 2}]}}
