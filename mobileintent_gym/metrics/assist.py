"""Scores of the closed loop: proposals a simulated user answers, then executes (docs/scores.md).

An assistant watches a user live through a day and may propose an intention at any step.
The user accepts a proposal that names what they are doing (the same rule as PIRA's match),
and rejects any other. An accepted intention is carried out by the assistant; when it fails,
the user finishes by hand. Per episode:

* **proposals**, **accepted**, **rejected** — counts of the proposals and the user's answers;
* **false_alarm_rate** = rejected / proposals: the share of proposals that interrupted the
  user for nothing (``None`` without proposals);
* **accepted_success** = accepted intentions the assistant completed / accepted
  (end-to-end success; ``None`` when nothing was accepted);
* **by_hand_steps** = Σ over the day's segments of the user actions each takes by hand from
  where it began (the simulated user plans them before acting); **user_steps** = Σ of the
  user actions actually taken; **steps_saved** = by_hand_steps − user_steps, which only
  accepted intentions change (negative when a failed execution left the user more to do);
  **saved_share** = steps_saved / by_hand_steps;
* **agent_steps** — actions the assistant took executing;
* **intentions**, **intentions_done** — the day's intentions and those achieved (by the
  assistant or by the user).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mobileintent_gym.checks import check_flags, check_integers, check_items, is_flag


@dataclass(frozen=True, slots=True)
class SegmentOutcome:
    """What happened to one segment of the user's day.

    Attributes:
        intention: Whether the segment is an intention (else noise).
        by_hand: User actions it takes by hand from where it began.
        taken: User actions actually taken on it.
        executed: ``None`` when no proposal of it was accepted, else whether the
            assistant's execution succeeded.
        done: Whether the intention was achieved in the end (``False`` for noise).

    Raises:
        InvalidArgumentError: Naming a flag that is not True or False (``executed``: or
            ``None``).
        MobileIntentError: Naming a count that is no integer of at least 0.
    """

    intention: bool
    by_hand: int
    taken: int
    executed: bool | None = None
    done: bool = False

    def __post_init__(self) -> None:
        check_flags(intention=self.intention, done=self.done,
                    **({} if self.executed is None else {"executed": self.executed}))
        check_integers(0, by_hand=self.by_hand, taken=self.taken)


@dataclass(frozen=True, slots=True)
class AssistScores:
    """The closed loop's scores of one episode (fields as in the module docstring)."""

    proposals: int
    accepted: int
    rejected: int
    false_alarm_rate: float | None
    accepted_success: float | None
    by_hand_steps: int
    user_steps: int
    steps_saved: int
    saved_share: float | None
    agent_steps: int
    intentions: int
    intentions_done: int


def assist_scores(answers: Sequence[bool], segments: Sequence[SegmentOutcome],
                  agent_steps: int = 0) -> AssistScores:
    """Score one episode from the user's answers and the outcome of each segment.

    Args:
        answers: Per proposal, whether the user accepted it.
        segments: Per segment of the day lived so far, its outcome.
        agent_steps: Actions the assistant took executing.

    Raises:
        ValueError: When the accepted proposals and the executed segments disagree.
        InvalidArgumentError: Naming an answer that is not True or False (a text "no"
            would count as accepted), or a segment that is no :class:`SegmentOutcome`.
        MobileIntentError: Naming ``agent_steps`` that is no integer of at least 0.
    """
    check_items("answers", answers, is_flag, "True or False")
    check_items("segments", segments, lambda s: isinstance(s, SegmentOutcome),
                "a SegmentOutcome")
    check_integers(0, agent_steps=agent_steps)
    accepted = sum(bool(a) for a in answers)
    executed = [s.executed for s in segments if s.executed is not None]
    if len(executed) != accepted:
        raise ValueError(f"{accepted} accepted proposals but {len(executed)} executions")
    by_hand = sum(s.by_hand for s in segments)
    taken = sum(s.taken for s in segments)
    intentions = [s for s in segments if s.intention]
    return AssistScores(
        proposals=len(answers), accepted=accepted, rejected=len(answers) - accepted,
        false_alarm_rate=(len(answers) - accepted) / len(answers) if answers else None,
        accepted_success=sum(executed) / accepted if accepted else None,
        by_hand_steps=by_hand, user_steps=taken, steps_saved=by_hand - taken,
        saved_share=(by_hand - taken) / by_hand if by_hand else None,
        agent_steps=agent_steps, intentions=len(intentions),
        intentions_done=sum(s.done for s in intentions))
