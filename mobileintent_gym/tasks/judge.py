"""Subgoal rewards from the event log (the PAIR study's rule) and the task verdict.

Definitions: docs/scores.md, "Subgoal rewards". For rollout i and subgoal k:

* subgoal k is **reached** when its entry screen was observed before an action; r_ik = 0
  when it was not;
* the terminal subgoal's r is the task judge's verdict (:class:`Outcome`), which is
  reached by any path (the study's SR counts completion by any path);
* a non-terminal subgoal's r is 1 when an expected item/control was clicked anywhere in
  the log after its entry screen was observed (the log is searched without enforcing
  visit order), or a later subgoal's entry screen was reached at any time — for a UC
  subgoal, only a later screen about the task's record or target counts (the item
  selected is confirmed by the screen it leads to: opening another conversation earns
  nothing), while task-agnostic navigation (UA) keeps the study's route-only rule (so a
  video opened from the home feed reaches the screen of "open Following"'s successor and
  earns it); else 0.

Routes match by path (events carry no query parameters; the record a screen is about is
logged beside the route); a target click matches by the target's entity id (by its label
on devices whose dumps carry no ids); a control matches by resource id or by its label.
Every condition is "there is an event such that …", so rewards only ever rise and the
judge updates them one event at a time.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass

from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.tasks.instances import TaskInstance


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's reading of the log so far.

    Attributes:
        rewards: r_k per subgoal, in order (0.0 or 1.0).
        reached: Per subgoal, whether its entry screen was observed before an action (the
            denominator of SAR).
        success: Whether the task's outcome was reached.
        exposed: Whether the task's record was visible before the agent first picked
            another one on a UC subgoal's screen (``None`` while it has picked no other).
    """

    rewards: tuple[float, ...]
    reached: tuple[bool, ...]
    success: bool
    exposed: bool | None


class Judge:
    """Follows one episode's event log and scores its subgoals.

    Args:
        task: The task being judged.
    """

    def __init__(self, task: TaskInstance) -> None:
        self.task = task
        goals = task.template.subgoals
        self._observed = [False] * len(goals)
        self._visited = [False] * len(goals)  # its entry screen was on screen at any time
        self._visited_record = [False] * len(goals)  # … about the task's record or target
        self._clicked = [False] * len(goals)
        self._records = {task.record, task.target.entity}
        self._success = False
        self._seen_target = False
        self._exposed: bool | None = None
        self._armed = False  # the current screen is the outcome's ``before`` screen
        self._choice_screens = {route for goal in goals if goal.context == "UC"
                                for route in goal.screens}
        self._route = ""  # the screen the next action is taken on
        self._refused_on = [False] * len(goals)  # its entry screen took a refused action

    def start(self, route: str, screen: Callable[[], Node]) -> None:
        """Note the episode's first screen (``screen`` is read only if it matters)."""
        self._route = route
        self._armed = self._is_before(route, screen)

    def refused(self) -> Verdict:
        """Take an action the device refused: a step spent on a screen that stays as it was.

        A subgoal whose entry screen that is counts as reached, as for any action, and
        earns nothing by it: no reward comes with a refused action.
        """
        for k, goal in enumerate(self.task.template.subgoals):
            self._refused_on[k] = self._refused_on[k] or self._route in goal.screens
        return self.verdict()

    def update(self, event: StepEvent, screen: Callable[[], Node]) -> Verdict:
        """Take the next event; ``screen`` returns the screen after it (read only if needed)."""
        screen = functools.cache(screen)  # parsed at most once per event
        goals = self.task.template.subgoals
        self._route = event.route_after
        shown = ((event.route_before, event.record), (event.route_after, event.record_after))
        for k, goal in enumerate(goals):
            self._observed[k] = self._observed[k] or event.route_before in goal.screens
            if self._observed[k] and any(click.matches(event, self.task.target)
                                         for click in goal.clicks):
                self._clicked[k] = True
            for route, record in shown:
                if route in goal.screens:
                    self._visited[k] = True
                    self._visited_record[k] = self._visited_record[k] or record in self._records
        self._note_exposure(event)
        armed, self._armed = self._armed, self._is_before(event.route_after, screen)
        self._success = self._success or self._outcome(event, screen, armed)
        return self.verdict()

    def verdict(self) -> Verdict:
        """The rewards, success and exposure so far."""
        goals = self.task.template.subgoals
        n = len(goals)
        rewards = []
        for k in range(n):
            if not self._observed[k]:
                done = False
            elif k == n - 1:
                done = self._success
            else:
                later = self._visited_record if goals[k].context == "UC" else self._visited
                done = self._clicked[k] or any(later[k + 1:])
            rewards.append(1.0 if done else 0.0)
        reached = tuple(map(operator.or_, self._observed, self._refused_on))
        return Verdict(tuple(rewards), reached, self._success, self._exposed)

    def _is_before(self, route: str, screen: Callable[[], Node]) -> bool:
        before = self.task.template.outcome.before
        if before is None or route != before.route:
            return False
        root = screen()
        return all(check.holds(root, self.task.target) for check in before.nodes)

    def _outcome(self, event: StepEvent, screen: Callable[[], Node], armed: bool) -> bool:
        outcome, target = self.task.template.outcome, self.task.target
        if outcome.effect and not event.effect:
            return False
        if outcome.before is not None and not armed:
            return False
        if outcome.route is not None and event.route_after != outcome.route:
            return False
        if outcome.via and not any(click.matches(event, target) for click in outcome.via):
            return False
        if not outcome.nodes:
            return True
        root = screen()
        return all(check.holds(root, target) for check in outcome.nodes)

    def _note_exposure(self, event: StepEvent) -> None:
        self._seen_target = self._seen_target or self.task.record in event.visible
        hit = event.hit
        picked_other = (hit is not None and hit.entity is not None
                        and hit.entity != self.task.target.entity
                        and rid_suffix(hit.resource_id) in self.task.template.picks
                        and event.route_before in self._choice_screens)
        if picked_other and self._exposed is None:
            self._exposed = self._seen_target
