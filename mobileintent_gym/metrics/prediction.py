"""Act2Intention's prediction scores: Acc-C, Acc-S and BLEU-4, with the confidence fallback.

Definitions: docs/scores.md, "Prediction". A model answers ``{"Event": <class>, "Behaviour":
<text>}`` for the user's next intention. Over the pushed predictions:

* Acc-C = share whose event class equals the true one exactly;
* Acc-S = mean cosine similarity of the behaviours' sentence embeddings;
* BLEU-4 = mean character BLEU-4 of the behaviours (NLTK smoothing method 3).

The confidence fallback pushes a prediction only when an evaluator's confidence reaches the
threshold (0.60; 0.80 is the strict setting) and reports the push rate beside the scores.

Answers are read as leniently as the study reads them (:func:`parse_prediction`): the first
JSON object in the text (:func:`first_json_object`: prose or a code fence around it,
single quotes or a trailing comma allowed), keys in any case, ``Behaviour`` or
``Behavior``. An answer that cannot be read is kept, with the reason, and scores as wrong.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mobileintent_gym.checks import check_items, check_type, is_fraction
from mobileintent_gym.errors import InvalidArgumentError, brief
from mobileintent_gym.metrics.text import Tokens, pair_scores
from mobileintent_gym.users.encoders import Encoder

PUSH_THRESHOLD = 0.60  # the confidence fallback's default
STRICT_PUSH_THRESHOLD = 0.80  # its strict setting
_BEHAVIOUR_KEYS = ("behaviour", "behavior")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
# Where an object with string keys can start: ``{`` then a quote, or ``}`` (``{}``).
_OBJECT_START = re.compile(r"\{\s*[\"'}]")
MAX_OBJECT_STARTS = 64
"""The places a search tries an object at, at most, over all fences and the whole text
together: each try may read to the text's end, so an answer of many stray braces would
cost time quadratic in its length (40 KB of "```\n{": 10.7 s tried at every brace, 0.2 s
at 64, on the 2-core VM). Only a ``{`` followed by a quote or ``}`` counts: braces of
prose (``{name}``) do not use them up."""
MAX_LITERAL_LENGTH = 1 << 16
"""The longest Python-style object (``{'a': 1}``) read, in characters: finding where one
closes is a scan in Python, so a megabyte of unclosed ``{'`` took seconds per try."""


@dataclass(frozen=True, slots=True)
class Prediction:
    """A predicted (or true) next intention and an evaluator's confidence in it.

    Attributes:
        event: The event class (``""`` when the answer named none).
        behaviour: The behaviour in words (``None`` when the answer gave none).
        confidence: The evaluator's confidence, in [0, 1].
        error: Why the answer could not be read in full (``None`` when it could).

    Raises:
        InvalidArgumentError: Naming a field of another type, or a confidence that is no
            number in [0, 1] (NaN would never be pushed, and 1.5 always).
    """

    event: str
    behaviour: str | None
    confidence: float = 1.0
    error: str | None = None

    def __post_init__(self) -> None:
        check_type("a prediction's event", self.event, str, "a str")
        for name in ("behaviour", "error"):
            check_type(f"a prediction's {name}", getattr(self, name), str | None,
                       "a str or None")
        if not is_fraction(self.confidence):
            raise InvalidArgumentError(f"a prediction's confidence must be a number in "
                                       f"[0, 1], got {brief(self.confidence, 40)}")


def first_json_object(text: str) -> dict | None:
    """The first JSON object in a model's answer, or ``None``; never raises.

    Looks inside each Markdown code fence in turn, then anywhere (a fence of prose before
    the object does not hide it), at the first :data:`MAX_OBJECT_STARTS` places of them
    all where an object can start; prose around the object is allowed, and so are
    Python-style quoting (``{'a': 1}``, up to :data:`MAX_LITERAL_LENGTH` characters) and
    a trailing comma. Every reader of answers (the
    envs' and the agents') finds objects with it.
    """
    return _search(text, json.JSONDecoder(parse_int=_integer))


def no_object_reason(text: Any) -> str:
    """Why :func:`first_json_object` found nothing: no text, or no readable object in it."""
    if not isinstance(text, str):  # a dict holds no JSON: it was never written as an answer
        return f"the answer must be text, got {type(text).__name__}"
    if _OBJECT_START.search(text):
        return "no JSON object in the answer can be read (malformed, or nested too deeply)"
    return "no JSON object in the answer"


def _integer(digits: str) -> int | float:
    """A JSON integer; past ``int()``'s digit limit, the float it rounds to (``inf``).

    Such a number (a confidence of 4,400 digits) is then a value out of range, named as
    one, rather than making the whole object unreadable.
    """
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def first_json_pairs(text: str) -> list[tuple[Any, Any]] | None:
    """The first JSON object's ``(key, value)`` pairs in order, a repeated key kept twice.

    Found as :func:`first_json_object` finds it, Python-style literals (single quotes)
    included: their objects are read as pairs too.
    """
    found = _search(text, json.JSONDecoder(object_pairs_hook=JsonPairs, parse_int=_integer))
    return None if found is None else list(found.items() if isinstance(found, dict) else found)


class JsonPairs(list):
    """A JSON object read as its (key, value) pairs, repeated keys kept.

    ``json.loads(text, object_pairs_hook=JsonPairs)`` reads every object so.
    """


def _search(text: Any, decoder: json.JSONDecoder) -> Any:
    """The first object ``decoder`` reads, inside each code fence in turn, then anywhere."""
    if not isinstance(text, str):
        return None
    insides = itertools.chain((fence.group(1) for fence in _FENCE.finditer(text)), (text,))
    starts = ((inside, match.start()) for inside in insides
              for match in _OBJECT_START.finditer(inside))
    for inside, start in itertools.islice(starts, MAX_OBJECT_STARTS):
        found = _object_at(inside[start:], decoder)
        if found is not None:
            return found
    return None


def casefolded(data: Mapping[Any, Any]) -> dict[str, Any]:
    """``data`` with its keys as case-folded strings: answers' keys are read in any case."""
    return {str(k).casefold(): v for k, v in data.items()}


def _object_at(chunk: str, decoder: json.JSONDecoder) -> Any:
    """The JSON object (or Python dict literal) ``chunk`` starts with, as ``decoder`` reads it."""
    # The text as it is, then without trailing commas (when it has any).
    for attempt in dict.fromkeys((chunk, _TRAILING_COMMA.sub(r"\1", chunk))):
        try:
            value, _ = decoder.raw_decode(attempt)
        except json.JSONDecodeError:
            value = _literal(attempt, decoder.object_pairs_hook is JsonPairs)
        except RecursionError:  # nested deeper than the decoder goes
            value = None
        if isinstance(value, dict | JsonPairs):
            return value
    return None


def _literal(text: str, pairs: bool = False) -> Any:
    """``text`` up to the ``}`` that closes its first ``{``, read as a Python literal, or ``None``.

    With ``pairs``, the object and the objects that are its values are read as
    :class:`JsonPairs`, repeated keys kept, as the JSON decoder's hook reads JSON.
    """
    end = _closing_brace(text)
    if end is None:
        return None
    try:
        node = ast.parse(text[:end + 1], mode="eval").body
        return _pairs(node) if pairs else ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # TypeError: a set of dicts ({{...}}, as in prompt templates), say


def _closing_brace(text: str) -> int | None:
    """Where the ``{`` that ``text`` starts with is closed, braces inside quotes not counted.

    ``None`` when it is not closed within :data:`MAX_LITERAL_LENGTH` characters.
    """
    depth, quote, escaped = 0, "", False
    for end, c in enumerate(text[:MAX_LITERAL_LENGTH]):
        if escaped:
            escaped = False
        elif quote:
            escaped = c == "\\"
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        else:
            depth += (c == "{") - (c == "}")
            if depth == 0:
                return end
    return None


def _pairs(node: ast.expr) -> Any:
    """A literal's value, its dict displays (``{k: v}``) read as :class:`JsonPairs`."""
    if isinstance(node, ast.Dict):
        return JsonPairs((ast.literal_eval(key), _pairs(value))
                         for key, value in zip(node.keys, node.values, strict=True))
    return ast.literal_eval(node)


def parse_prediction(text: str, confidence: float | None = None) -> Prediction:
    """Read a model's answer into a :class:`Prediction`; never raises on the answer.

    The first JSON object in ``text`` is read (prose around it is allowed); keys match in
    any case, and ``Behaviour`` or ``Behavior`` both name the behaviour. What is missing
    or of the wrong type is left empty and named in :attr:`Prediction.error`.

    Args:
        text: The answer.
        confidence: The prediction's confidence. ``None`` (the default) takes the answer's
            ``"Confidence"`` (any case): 1 when it gives none, 0 when it holds no JSON
            object or a confidence that is no number in [0, 1] (named in ``error``), so
            such an answer is pushed only when every prediction is.

    Raises:
        ValueError: For a ``confidence`` given that is no number in [0, 1] (NaN would
            never be pushed, and 1.5 always).
    """
    if confidence is not None and not is_fraction(confidence):
        raise ValueError(f"confidence must be a number in [0, 1] or None, got "
                         f"{brief(confidence, 40)}")
    data = first_json_object(text)
    if confidence is not None or data is None:
        return prediction_from(data, text, 0.0 if confidence is None else confidence)
    guess = prediction_from(data, text)
    given = casefolded(data).get("confidence", 1.0)
    if not is_fraction(given):
        problem = f'"Confidence" must be a number in [0, 1], got {brief(given, 40)}'
        return replace(guess, confidence=0.0,
                       error="; ".join(e for e in (guess.error, problem) if e))
    return replace(guess, confidence=float(given))


def prediction_from(data: dict[str, Any] | None, text: str, confidence: float = 1.0
                    ) -> Prediction:
    """:func:`parse_prediction` of an answer whose first JSON object is already ``data``."""
    if data is None:
        return Prediction("", None, confidence, f"{no_object_reason(text)}: {brief(text)}")
    keys = casefolded(data)
    event = keys.get("event")
    behaviour = next((keys[k] for k in _BEHAVIOUR_KEYS if k in keys), None)
    problems = [f"{name} is {brief(value, 40)}, not text" if value is not None else f"no {name}"
                for name, value in (("Event", event), ("Behaviour", behaviour))
                if not isinstance(value, str)]
    return Prediction(event if isinstance(event, str) else "",
                      behaviour if isinstance(behaviour, str) else None, confidence,
                      "; ".join(problems) or None)


def prediction_scores(predicted: Sequence[Prediction], truth: Sequence[Prediction],
                      encoder: Encoder, threshold: float | None = None,
                      tokens: Tokens = "chars") -> dict[str, float | int | None]:
    """Acc-C, Acc-S and BLEU-4 of predictions, with the confidence fallback.

    Args:
        predicted: The predictions, aligned with ``truth``.
        truth: The true next intentions.
        encoder: The sentence encoder of Acc-S.
        threshold: Push only predictions whose confidence reaches it (``None``: all).
        tokens: BLEU-4 on ``chars`` (the study) or ``words``.

    Returns:
        ``push_rate`` (pushed / all; ``None`` for no cases), ``pushed``, ``unreadable``
        (pushed answers that could not be read in full; they score as wrong where they
        lack a part) and ``acc_c``, ``acc_s``, ``bleu4`` over the pushed cases — ``None``
        when nothing was pushed, as the scores are then undefined.

    Raises:
        ValueError: When the sequences differ in length, naming a truth without an event
            or a behaviour, or a threshold outside [0, 1].
        InvalidArgumentError: Naming an item that is no :class:`Prediction` (answer text
            or a dict: read it with :func:`parse_prediction`).
    """
    for name, items in (("predicted", predicted), ("truth", truth)):
        check_items(name, items, lambda item: isinstance(item, Prediction),
                    "a Prediction (see parse_prediction)")
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predictions for {len(truth)} true intentions")
    if threshold is not None and not is_fraction(threshold):
        raise ValueError(f"threshold must be a confidence in [0, 1] or None, got {threshold!r}")
    untold = next((t for t in truth if not (isinstance(t.behaviour, str) and t.event)), None)
    if untold is not None:  # an unread answer's empty event would equal an empty one
        raise ValueError(f"a true intention needs an event and a behaviour (text), got "
                         f"{untold!r}")
    pushed = [(p, t) for p, t in zip(predicted, truth, strict=True)
              if threshold is None or p.confidence >= threshold]
    scores: dict[str, float | int | None] = {
        "push_rate": len(pushed) / len(truth) if truth else None, "pushed": len(pushed),
        "unreadable": sum(p.error is not None for p, _ in pushed),
        "acc_c": None, "acc_s": None, "bleu4": None}
    if pushed:
        scores["acc_c"] = float(np.mean([p.event == t.event for p, t in pushed]))
        similarity, bleu = pair_scores([(p.behaviour, t.behaviour) for p, t in pushed],
                                       encoder, tokens)
        scores["acc_s"], scores["bleu4"] = float(similarity.mean()), float(bleu.mean())
    return scores
