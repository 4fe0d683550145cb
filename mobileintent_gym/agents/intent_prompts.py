"""Prompts and answer parsing for understanding, predicting and proposing intentions.

Pure functions over plain inputs, for any model and any env that serves these tasks:

* **Understand**: the action descriptions of a window of intentions go in; the answer maps
  each intention, in order, to its action indices from 1:
  ``{"Order a no-ice latte via the food-delivery app": [1, 2, 3], ...}``.
* **Predict**: the user's last intentions (time, app, text, event class), their persona
  and the current time go in; the answer names the next intention:
  ``{"Event": "<one of the event classes>", "Behaviour": "<text>"}``.
* **Propose** (the Proactive and Assist envs): the same, with the user's screen, the app
  in front and the known intentions when given; the answer is ``"no action"`` or
  ``{"Intent": "<intention>"}`` (read by ``envs.proposals.parse_proposal``).

Parsers find the JSON object in an answer with
:func:`~mobileintent_gym.metrics.prediction.first_json_object` (inside prose or a code
fence, single-quoted or with a trailing comma) and return ``None`` when there is none or it
is malformed; they never raise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mobileintent_gym.metrics.act2intent import EVENT_CLASSES, Prediction, parse_prediction, spans
from mobileintent_gym.metrics.prediction import first_json_object
from mobileintent_gym.metrics.understanding import read_segmentation

HISTORY_WINDOW = 50  # the study predicts from the last 50 intentions

UNDERSTAND_SYSTEM = (
    "You read the actions a person took on their phone and name the intentions behind them. "
    "An intention is one objective carried out in one app, written as a short sentence "
    "naming the app, the operation and the purpose, such as \"Order a no-ice latte via the "
    "food-delivery app\". Consecutive actions with one purpose form one intention; "
    "boundaries usually fall where the app or the purpose changes. Answer with one JSON "
    "object mapping each intention, in order, to the list of its action numbers, such as "
    '{"Check the weather for tomorrow in the weather app": [1, 2], '
    '"Reply to Mum in the chat app": [3, 4, 5]}')

PREDICT_SYSTEM = (
    "You predict what a person will do next on their phone from their recent intentions, "
    "their persona and the current time. Answer with one JSON object: "
    '{"Event": <one event class>, "Behaviour": <the intention, one short sentence>}. '
    "Event classes: ")

PROPOSE_SYSTEM = (
    "You watch a person use their phone and offer help only when it is useful. From their "
    "persona, their recent intentions, the time and their screen, decide whether they are "
    "now carrying out an intention you could do for them. If they are, answer with one "
    "JSON object naming it in one short sentence, such as "
    '{"Intent": "In Chat, reply to Mum that you will be late"}. If they are idle or '
    "browsing without a purpose, answer: no action")

Intention = tuple[str, str, str, str]  # (time, app, intention text, event class)


def history_intentions(text: str) -> list[Intention]:
    """The intentions of an env's ``history`` text, one ``time | app | intention | class`` a line.

    The intention's text may itself hold `` | ``; lines with fewer than four fields (the
    ``(none)`` of an empty history) are skipped.
    """
    out = []
    for line in text.splitlines():
        parts = line.split(" | ")
        if len(parts) >= 4:
            out.append((parts[0], parts[1], " | ".join(parts[2:-1]), parts[-1]))
    return out


def _history_lines(history: Sequence[Intention], window: int) -> str:
    shown = history[-window:] if window > 0 else []
    return "\n".join(" | ".join(intention) for intention in shown) or "(none)"


def understand_prompt(descriptions: Sequence[str]) -> list[dict[str, str]]:
    """Chat messages asking to segment numbered actions into intentions.

    Args:
        descriptions: The action descriptions, in order (``"In Music, tap Liked Songs, to
            find the song"``); they are numbered from 1.
    """
    actions = "\n".join(f"{i}. {d}" for i, d in enumerate(descriptions, 1))
    return [{"role": "system", "content": UNDERSTAND_SYSTEM},
            {"role": "user", "content": f"Actions:\n{actions}\n\nIntentions (JSON):"}]


def predict_prompt(history: Sequence[Intention], persona: str, now: str,
                   events: Sequence[str] = EVENT_CLASSES,
                   window: int = HISTORY_WINDOW) -> list[dict[str, str]]:
    """Chat messages asking for the user's next intention.

    Args:
        history: Past intentions as (time, app, text, event class), oldest first; the
            last ``window`` are shown.
        persona: The user's persona, in words.
        now: The current time, as the history writes times.
        events: The event classes the answer chooses from.
        window: How many of the latest intentions are shown.
    """
    user = (f"Persona: {persona}\n\nRecent intentions (time | app | intention | event):\n"
            f"{_history_lines(history, window)}\n\nCurrent time: {now}\n\n"
            "Next intention (JSON):")
    return [{"role": "system", "content": PREDICT_SYSTEM + ", ".join(events) + "."},
            {"role": "user", "content": user}]


def propose_prompt(history: Sequence[Intention], persona: str, now: str,
                   screen: str | None = None, app: str | None = None,
                   candidates: Sequence[str] = (), window: int = HISTORY_WINDOW
                   ) -> list[dict[str, str]]:
    """Chat messages asking whether to propose an intention now (PIRA's proactive turn).

    Args:
        history: Past intentions as (time, app, text, event class), oldest first.
        persona: The user's persona, in words.
        now: The current time (and scene).
        screen: The user's screen as text (``agents.prompts.screen_text``), if known.
        app: The app in front (``""``: the home screen), if known.
        candidates: Known intentions the answer may name.
        window: How many of the latest intentions are shown.
    """
    parts = [f"Persona: {persona}",
             f"Recent intentions (time | app | intention | event):\n"
             f"{_history_lines(history, window)}", f"Now: {now}"]
    if app is not None:
        parts.append(f"App in front: {app or '(the home screen)'}")
    if screen:
        parts.append(f"Screen:\n{screen}")
    if candidates:
        parts.append("Known intentions (you may name one):\n"
                     + "\n".join(f"- {c}" for c in candidates))
    parts.append("Your answer (JSON or no action):")
    return [{"role": "system", "content": PROPOSE_SYSTEM},
            {"role": "user", "content": "\n\n".join(parts)}]


def parse_segmentation(answer: str) -> list[tuple[str, list[int]]] | None:
    """The segmentation ``{intention: [indices from 1]}`` in an answer, or ``None``.

    Read as the Understand env reads it
    (:func:`~mobileintent_gym.metrics.understanding.read_segmentation`): ``(intention,
    indices)`` pairs in order, an intention written twice kept twice, indices as numbers
    or numeric strings. A segment without positive integer indices makes the whole
    answer malformed.
    """
    try:
        segments = read_segmentation(answer)
        spans(segments)  # every segment has indices, all of them integers >= 1
    except ValueError:
        return None
    return segments


def parse_next_intention(answer: str, confidence: float = 1.0) -> Prediction | None:
    """The ``{"Event", "Behaviour"}`` prediction in an answer, or ``None``.

    The event class is kept as written (Acc-C scores it exactly as the study does).
    """
    data = first_json_object(answer)
    if data is None:
        return None
    try:
        prediction = parse_prediction(json.dumps(data), confidence)
    except ValueError:  # a strict reader names what is wrong by raising
        return None
    # A lenient reader keeps what it could read and names the rest in ``error``.
    return None if getattr(prediction, "error", None) else prediction
