"""PIRA-Bench's per-turn scores of proactive intent recommendation (docs/scores.md).

Each turn has a gold label — ``None`` for noise, else an intent — and a prediction, ``None``
for "no action" or an intent. With ``same(p, g)`` deciding whether two intents agree:

* tp: the prediction is an intent and equals the gold intent;
* fp: the prediction is an intent that differs from gold (a wrong intent, or any intent
  on a noise turn);
* fn: the prediction is "no action" but gold is an intent.

Precision = tp / (tp + fp), Recall = tp / (tp + fn), F1 their harmonic mean (0 when
undefined); FPS_norm = 1 − fp / max(1, noise turns); **S_final = F1 × FPS_norm**, which
punishes over-proactivity: high recall bought with pushes on idle or noisy stretches.
Taken literally, as here, fp also counts wrong intents on signal turns, so FPS_norm (and
S_final) go below 0 when false pushes outnumber the noise turns.

Whether a predicted intent "equals" gold is a rule of its own: :class:`IntentMatcher`
decides it by sentence-embedding similarity among the intentions the user could mean
(docs/scores.md, "Proactive recommendation"). Memory operations (CREATE, RESUME, UPDATE,
IDLE) are scored apart, by :func:`memory_accuracy`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mobileintent_gym.checks import check_items
from mobileintent_gym.metrics.text import normalised
from mobileintent_gym.tasks.spec import says, unsaid, words
from mobileintent_gym.users.encoders import Encoder, unit_rows
from mobileintent_gym.users.ranking import encode_cached

MATCH_THRESHOLD = 0.6
_QUOTED = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d')
MEMORY_OPS = ("CREATE", "RESUME", "UPDATE", "IDLE")


def same_intent(predicted: str, gold: str) -> bool:
    """Intents agree when equal as :func:`~mobileintent_gym.metrics.text.normalised` reads them."""
    return normalised(predicted) == normalised(gold)


@dataclass(frozen=True, slots=True)
class PiraScores:
    """Counts and scores of a trajectory's turns (fields as in the module docstring)."""

    tp: int
    fp: int
    fn: int
    noise: int
    precision: float
    recall: float
    f1: float
    fps_norm: float
    s_final: float


def pira_scores(predictions: Sequence[str | None], gold: Sequence[str | None],
                same: Callable[[str, str], bool] = same_intent) -> PiraScores:
    """Score predictions against gold labels turn by turn.

    Args:
        predictions: Per turn, the predicted intent or ``None`` for "no action".
        gold: Per turn, the gold intent or ``None`` for noise.
        same: Whether a predicted intent equals a gold one (e.g. an LLM judge).

    Raises:
        ValueError: When the sequences differ in length.
        InvalidArgumentError: When either is no sequence of texts or ``None`` (one text is
            not: its characters would be scored as turns).
    """
    for name, value in (("predictions", predictions), ("gold", gold)):
        check_items(name, value, lambda label: label is None or isinstance(label, str),
                    "a str or None")
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} predictions for {len(gold)} gold labels")
    tp = fp = fn = 0
    for p, g in zip(predictions, gold, strict=True):
        if p is None:
            fn += g is not None
        elif g is not None and same(p, g):
            tp += 1
        else:
            fp += 1
    noise = sum(g is None for g in gold)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    fps_norm = 1 - fp / max(1, noise)
    # 0 when F1 is: not -0.0, as F1 0 times a negative FPS_norm would print.
    return PiraScores(tp, fp, fn, noise, precision, recall, f1, fps_norm,
                      f1 * fps_norm if f1 else 0.0)


class IntentMatcher:
    """Decides whether a predicted intent names the same task as the gold one.

    The known intentions are the candidates the user could mean (in the envs: every task
    of their content, and their history's and the day's intentions), each with the task it
    names (two wordings of one task, explicit and implicit, share it). A prediction
    matches gold when

    * it is, case and spacing aside, gold or a known wording of gold's task; or
    * it is no known intention, quotes no name that rules it out (below), the cosine
      similarity of its sentence embedding to gold (or to a known wording of gold's task)
      is at least ``threshold``, and no known intention of another task is closer to it.

    A text in double quotes names a thing: a song, a note, a reply to send. Gold's names
    are those gold or a known wording of gold's task quotes, and those ``names`` gives its
    task (its target's label); where there are any, a prediction quoting something else
    is about something else. A name that only known
    intentions of other tasks quote never matches either. Where gold has no names, any
    other quoted name is left to the similarity, as an unquoted one is.

    A prediction that says none of the names only gold's task has (quoted or not: its
    words, whole and in order) is about no target: its closeness counts only to the
    wordings of gold's task that do not name it either (an implicit one, naming it by a
    cue), and unless it says a word of a name that neither the wordings around the name
    nor another task's wordings say (the "budgeting webinar" of "Personal Budgeting 101";
    not "for" or "new"), must be no less close to those
    than to the wordings that name the target with the names left out
    (:func:`~mobileintent_gym.tasks.spec.unsaid`): a prediction closer to "play from your
    recently played songs" than to "put on the recently played song named after a colour"
    is the first, naming nothing. "Play a song from your
    recently played songs" names no song, however close it embeds to "play "Yellow" from
    your recently played songs" or to the wording by cue; "reply "Understood"" names no
    one where "Understood" is the reply to send to Mum and to Dad alike.

    So naming another known task — even one worded much like gold, say the same playlist
    with another song — never matches, nor does gold's sentence about another song, while
    a paraphrase of gold does. Choosing from candidates an env offers is the special case
    of answering one of them word for word.

    Args:
        encoder: The sentence encoder (all-MiniLM-L6-v2 in the envs).
        known: Each known intention → the task it names.
        threshold: The least cosine similarity of a match.
        names: Task → what it is about by name (its target's label), beside what its
            known wordings quote: with them a task has names even where no wording of it
            quotes one (the envs give each task's target).

    Attributes:
        known: The known intentions, in the order given.
    """

    def __init__(self, encoder: Encoder, known: Mapping[str, str],
                 threshold: float = MATCH_THRESHOLD,
                 names: Mapping[str, Iterable[str]] | None = None) -> None:
        self.encoder, self.threshold = encoder, threshold
        self._task = {normalised(text): task for text, task in known.items()}
        self.known: tuple[str, ...] = tuple(known)
        self._rows = unit_rows(encode_cached(encoder, self.known)) if known else None
        self._names: dict[str, set[str]] = {}  # task -> its names: quoted, or given
        for text, task in known.items():
            self._names.setdefault(task, set()).update(quoted_names(text))
        for task, given in (names or {}).items():
            self._names.setdefault(task, set()).update(normalised(n) for n in given)
        self._quoted = frozenset().union(*self._names.values())  # by any known task
        self._known_tasks = tuple(self.task(text) for text in self.known)  # once, not per call
        self._said_by: dict[str, set[str | None]] = {}  # word -> the tasks whose wordings say it
        for text, task in zip(self.known, self._known_tasks, strict=True):
            for word in words(text):
                self._said_by.setdefault(word, set()).add(task)
        tasks_named = Counter(name for names in self._names.values() for name in names)
        self._own = {task: frozenset(n for n in names if tasks_named[n] == 1)
                     for task, names in self._names.items()}  # names no other task has
        self._unnamed_of: dict[str, tuple[np.ndarray | None, frozenset[str]]] = {}

    def task(self, intent: str) -> str | None:
        """The task a known intention names, ``None`` for an unknown text."""
        return self._task.get(normalised(intent))

    def __call__(self, predicted: str, gold: str) -> bool:
        """Whether ``predicted`` names the task ``gold`` names."""
        target, said = self.task(gold), self.task(predicted)
        if same_intent(predicted, gold):
            return True
        if said is not None:  # a known intention word for word: the task it names decides
            return said == target
        if not self._names_agree(quoted_names(predicted), gold, target):
            return False
        own = self._own.get(target, frozenset()) if target is not None else frozenset()
        unnamed = bool(own) and not _says_any(predicted, own)

        def counts(wording: str) -> bool:  # a wording of gold's task it may be close to
            return not (unnamed and _says_any(wording, own))

        p, g = unit_rows(self.encoder.encode([predicted, gold]))
        closeness, rivals = float(p @ g) if counts(gold) else -1.0, 0.0
        if self._rows is not None:
            near = zip((self._rows @ p).tolist(), self._known_tasks, self.known, strict=True)
            for c, task, text in near:
                if task != target:
                    rivals = max(rivals, c)
                elif counts(text):
                    closeness = max(closeness, c)
        if unnamed:  # gold is one of the target's known wordings then (it has names)
            bare, named = self._unnamed(target)
            if bare is not None and named.isdisjoint(words(predicted)):
                rivals = max(rivals, float((bare @ p).max()))
        return closeness >= self.threshold and rivals <= closeness

    def _unnamed(self, target: str) -> tuple[np.ndarray | None, frozenset[str]]:
        """What a prediction saying none of ``target``'s names is held to, kept per target.

        The rows of the target's wordings that name it, with the names left out (``None``
        when none does), and the words of its names that only they say: no such wording
        and no known wording of another task says them. "The budgeting webinar" names part
        of "Personal Budgeting 101", while "for" (of "Morning Skincare for Oily Skin") or
        "new" names nothing.
        """
        if target not in self._unnamed_of:
            own = self._own[target]
            bare = sorted({_nameless(text, own) for text, task in zip(
                self.known, self._known_tasks, strict=True)
                if task == target and _says_any(text, own)} - {""})
            around = {word for wording in bare for word in words(wording)}
            named = frozenset(word for name in own for word in words(name)
                              if self._said_by.get(word, {target}) <= {target}) - around
            rows = unit_rows(encode_cached(self.encoder, bare)) if bare else None
            self._unnamed_of[target] = rows, named
        return self._unnamed_of[target]

    def _names_agree(self, named: frozenset[str], gold: str, target: str | None) -> bool:
        """Whether a prediction naming ``named`` may be about gold's task (see the class).

        A name not gold's that a known task quotes is another task's: ``_quoted`` holds
        every known task's names, and gold's are left out before asking it.
        """
        ours = quoted_names(gold) | self._names.get(target, set())
        if ours and not named <= ours:
            return False
        return not (named - ours) & self._quoted


def _nameless(text: str, names: Iterable[str]) -> str:
    """``text`` without any of ``names`` (longest first: one may hold another)."""
    for name in sorted(names, key=len, reverse=True):
        text = unsaid(text, name)
    return text


def _says_any(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` says one of ``names`` (:func:`~mobileintent_gym.tasks.spec.says`)."""
    return any(says(text, name) for name in names)


def quoted_names(text: str) -> frozenset[str]:
    """What ``text`` quotes (in straight or curly double quotes), as ``normalised`` reads it."""
    return frozenset(normalised(a or b) for a, b in _QUOTED.findall(text))


def memory_accuracy(operations: Sequence[str | None], gold: Sequence[str]) -> float | None:
    """Share of the turns given a memory operation whose operation equals gold's.

    Turns without one are left out; ``None`` when no turn has one.

    Raises:
        ValueError: When the sequences differ in length.
        InvalidArgumentError: Naming an operation that is none of :data:`MEMORY_OPS`.
    """
    given = _given(operations, gold)
    return sum(op == g for op, g in given) / len(given) if given else None


def memory_balanced_accuracy(operations: Sequence[str | None], gold: Sequence[str]
                             ) -> float | None:
    """:func:`memory_accuracy` per gold operation, averaged over the operations gold has.

    Most turns continue an intention (UPDATE), so always answering UPDATE has a high plain
    accuracy; here it has 1 / (the number of gold operations among the turns answered).

    Raises:
        ValueError: When the sequences differ in length.
        InvalidArgumentError: Naming an operation that is none of :data:`MEMORY_OPS`.
    """
    given = _given(operations, gold)
    classes = sorted({g for _, g in given})
    recalls = [sum(op == g for op, g in given if g == c) / sum(g == c for _, g in given)
               for c in classes]
    return sum(recalls) / len(recalls) if recalls else None


def _given(operations: Sequence[str | None], gold: Sequence[str]) -> list[tuple[str, str]]:
    """The (operation, gold's) pairs of the turns given an operation.

    Raises:
        InvalidArgumentError: Naming an operation that is none of :data:`MEMORY_OPS` (as
            written there: ``"create"`` would never equal gold's ``"CREATE"``).
    """
    known = f"one of {', '.join(MEMORY_OPS)}"
    check_items("operations", operations, lambda op: op is None or op in MEMORY_OPS,
                f"{known} or None")
    check_items("gold", gold, lambda op: op in MEMORY_OPS, known)
    if len(operations) != len(gold):
        raise ValueError(f"{len(operations)} memory operations for {len(gold)} gold ones")
    return [(op, g) for op, g in zip(operations, gold, strict=True) if op is not None]
