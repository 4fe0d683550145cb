"""The oracle: a scripted agent that completes a task from what the screen exposes.

It reads only the route and the hierarchy dump, so it drives a real device the same way it
drives the simulated phone. On each screen the template names one :class:`Move`; a move
for the target scrolls until the target is on screen, and a move with ``fill`` first
focuses the field and types its text.
"""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.query import matches
from mobileintent_gym.phone.touch import shown_texts
from mobileintent_gym.phone.ui import Node, center
from mobileintent_gym.tasks.instances import TaskInstance
from mobileintent_gym.tasks.spec import Move


class Oracle:
    """Chooses the next action of a task from the current route and hierarchy.

    Args:
        task: The task to complete.
    """

    def __init__(self, task: TaskInstance) -> None:
        self.task = task

    def act(self, route: str, xml: str) -> Action:
        """The next action on the screen with ``route`` and dump ``xml``.

        Screens the template does not script are left with BACK, except the outcome's own
        screen, where the oracle declares the task complete (the env ends an episode as
        soon as the outcome is reached, so it only gets there when the outcome failed).
        """
        template = self.task.template
        move = template.oracle.get(route)
        if move is None:
            done = route == template.outcome.route
            return Action.complete() if done else Action.press("BACK")
        root = hierarchy.parse(xml)
        if move.fill is not None:
            action = self._fill(root, *move.fill)
            if action is not None:
                return action
        node = self._element(root, move)
        if node is None:
            return Action.swipe("UP")  # the target lies further down the list
        x, y = center(node.bounds)
        return Action.long_click(x, y) if move.long else Action.click(x, y)

    def _element(self, root: Node, move: Move) -> Node | None:
        """The node ``move`` taps on this screen, or ``None`` when it is not on it.

        In a dump without entity ids, a target's control that shows nothing of it (a like
        button) is the screen's only such control, on a screen that shows the target.
        """
        scope = [root]
        if move.within == "record":
            scope = [n for n in root.walk() if n.entity == self.task.record]
        matching = (node for top in scope for node in top.walk()
                    if matches(node, resource_id=move.resource_id, desc=move.desc))
        if not move.target:
            return next(matching, None)
        found, target = list(matching), self.task.target
        shown = next((n for n in found if target.shown_in(n)), None)
        if shown is not None or len(found) != 1 or found[0].entity is not None:
            return shown
        return found[0] if target.shown_by(None, shown_texts(root)) else None

    def _fill(self, root: Node, field_id: str, text: str) -> Action | None:
        field = next((n for n in root.walk() if matches(n, resource_id=field_id)), None)
        if field is None or field.text == text:
            return None
        if not field.focused:
            return Action.click(*center(field.bounds))
        return Action.type_text(text)
