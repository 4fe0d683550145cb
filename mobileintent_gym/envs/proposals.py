"""Proposals of the proactive envs: what an assistant answers each turn, read leniently.

An answer is ``"no action"`` or a JSON object ``{"Intent": "<intention>", "Memory": "<op>"}``
(prose around it is allowed; keys in any case). ``"Intent"`` null, empty or "no action"
proposes nothing, as does an object with ``"Memory"`` alone; ``"Memory"`` is optional, one of
CREATE, RESUME, UPDATE, IDLE. An answer that is neither is read as no proposal and the
reason kept in :attr:`Proposal.error`; a bad ``"Memory"`` keeps the intent and drops the
operation. Nothing here raises on an answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mobileintent_gym.envs.scoring import CachedEncoder
from mobileintent_gym.errors import brief
from mobileintent_gym.intents.generator import intention_text
from mobileintent_gym.intents.schema import IntentionSegment
from mobileintent_gym.metrics.pira import MEMORY_OPS, IntentMatcher
from mobileintent_gym.metrics.prediction import casefolded, first_json_object, no_object_reason
from mobileintent_gym.tasks import instantiate, task_ids
from mobileintent_gym.users.pair import UserContent

NO_ACTION = "no action"
ANSWER_LENGTH = 2048  # the longest answer the action space holds
_SILENT = {"", "no action", "no_action", "none"}


@dataclass(frozen=True, slots=True)
class Proposal:
    """One answer, read.

    Attributes:
        intent: The intention proposed, or ``None`` for no proposal.
        memory: The memory operation given, or ``None``.
        error: Why (part of) the answer could not be read, else ``None``.
    """

    intent: str | None
    memory: str | None = None
    error: str | None = None


def _silent(text: str) -> bool:
    return text.strip().strip(".!").casefold() in _SILENT


def parse_proposal(answer: Any) -> Proposal:
    """Read an answer (see the module notes); never raises."""
    if not isinstance(answer, str):
        return Proposal(None, None, no_object_reason(answer))
    if _silent(answer):
        return Proposal(None)
    data = first_json_object(answer)
    if data is None:
        return Proposal(None, None, 'the answer must be "no action" or a JSON object '
                        f'{{"Intent": ...}}, got {answer.strip()[:80]!r}')
    keys = casefolded(data)
    if not keys.keys() & {"intent", "memory"}:
        return Proposal(None, None, 'the answer has neither an "Intent" nor a "Memory" key: '
                        f"{answer.strip()[:80]!r}")
    intent = keys.get("intent")
    if not (intent is None or isinstance(intent, str)):
        return Proposal(None, None, f'"Intent" must be a text or null, got {brief(intent)}')
    intent = None if intent is None or _silent(intent) else " ".join(intent.split())
    memory = keys.get("memory")
    if memory is None:
        return Proposal(intent)
    if not isinstance(memory, str) or memory.strip().upper() not in MEMORY_OPS:
        return Proposal(intent, None, f'"Memory" must be one of {", ".join(MEMORY_OPS)}, '
                        f"got {brief(memory, 40)}")
    return Proposal(intent, memory.strip().upper())


def answer(intent: str | None, memory: str | None = None) -> str:
    """The answer proposing ``intent`` (``None``: "no action") with an optional operation."""
    if intent is None and memory is None:
        return NO_ACTION
    data: dict[str, Any] = {"Intent": intent}
    if memory is not None:
        data["Memory"] = memory
    return json.dumps(data, ensure_ascii=False)


def intent_matcher(encoder: CachedEncoder, segments: Sequence[IntentionSegment],
                   threshold: float, content: UserContent) -> IntentMatcher:
    """The matcher of a user's day: every task of theirs, and the intentions of ``segments``.

    Every task ``content`` (the user's) gives counts, each in both wordings, not only
    those of the day: the known intentions (which the envs list as candidates) then say
    nothing of what the day holds, and a proposal closer to a task the user did not take
    up that day is about that task. Each task's target — the record it is about, as
    ``content`` labels it — is a name of the task, so a proposal quoting another one is
    about something else even where no wording of the task quotes its name. The known
    intentions are kept as known texts (on disk: ``keep_known``).
    """
    names: dict[str, set[str]] = {}
    known: dict[str, str] = {}
    for task in (instantiate(task_id, content) for task_id in task_ids()):
        names.setdefault(_task_key(task.id), set()).update(
            content.labels[e] for e in (task.record, task.target) if e in content.labels)
        known[intention_text(task)] = _task_key(task.id)
    known |= known_intentions(segments)  # loaded data may word them otherwise
    encoder.keep_known(list(known))  # the matcher then finds their rows in memory
    return IntentMatcher(encoder, dict(sorted(known.items())), threshold, names)


def known_intentions(segments: Iterable[IntentionSegment]) -> dict[str, str]:
    """Each distinct intention among ``segments`` → the task it names, sorted by text.

    The task is the template and target type of the segment's task id (the explicit and
    implicit wordings of one task name the same one); a segment without a task id (loaded
    data) names its own text. Noise is left out.
    """
    known = {s.intention: _task_key(s.task) if s.task else s.intention
             for s in segments if not s.is_noise}
    return dict(sorted(known.items()))


def _task_key(task_id: str) -> str:
    """The task a task id names to the matcher: its template and target type."""
    return task_id.rsplit(":", 1)[0]
