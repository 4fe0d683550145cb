"""Task templates as data: subgoals, what counts as their expected click, the outcome.

A template is a record: id, app, template text, the UI context its target
comes from, ordered subgoals with their entry screens and UC/UA label, the outcome that
decides success, the step limit, the instruction wordings and the oracle's moves. Nothing
here looks at app internals: every predicate reads the event log or a hierarchy dump, which
a real device exposes too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.touch import shown_texts
from mobileintent_gym.phone.ui import Node

Context = Literal["UC", "UA"]


@dataclass(frozen=True, slots=True)
class Target:
    """The record a task instance is about, as the screen shows it.

    Attributes:
        entity: Id of the record the agent must act on (a track, chat, author …).
        label: The text the screen shows for it (used where a device exposes no ids).
    """

    entity: str
    label: str

    def shown_by(self, entity: str | None, texts: Sequence[str]) -> bool:
        """Whether an element showing ``entity`` / ``texts`` shows this target.

        By the entity id where the element carries one, else by a text that
        :func:`says` the label (a device whose dumps carry no ids).
        """
        if entity is not None:
            return entity == self.entity
        return any(says(text, self.label) for text in texts)

    def shown_in(self, node: Node) -> bool:
        """Whether ``node`` shows this target (see :meth:`shown_by`).

        Its subtree's texts are read only where it carries no entity id.
        """
        return self.shown_by(node.entity, shown_texts(node) if node.entity is None else ())


_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """``text``'s words, case-folded, as :func:`says` reads them."""
    return _WORD.findall(text.casefold())


def says(text: str, label: str) -> bool:
    """Whether ``text`` holds ``label``'s words, whole and in order.

    Case, spacing and punctuation between the words do not matter: "Open your LIBRARY"
    says "Your Library"; "The Long Game" does not say "Me".
    """
    found, wanted = words(text), words(label)
    return bool(wanted) and any(found[start:start + len(wanted)] == wanted
                                for start in range(len(found) - len(wanted) + 1))


def unsaid(text: str, label: str) -> str:
    """``text``'s words, case-folded and spaced by one space, each run saying ``label`` left out.

    Runs are found as :func:`says` finds them: 'play "Yellow" again' without "yellow" is
    "play again".
    """
    found, wanted = words(text), words(label)
    kept, start = [], 0
    while start < len(found):
        if wanted and found[start:start + len(wanted)] == wanted:
            start += len(wanted)
        else:
            kept.append(found[start])
            start += 1
    return " ".join(kept)


@dataclass(frozen=True, slots=True)
class Click:
    """An expected click: a control by resource id or label, and/or the target record.

    Attributes:
        resource_id: Resource id suffix the hit element must have (``None``: any).
        label: The control's visible label, which decides where the hit element carries
            no resource id (a device whose dumps have none): a text of it or of its
            children that says the label (:func:`says`) makes it the control. A long
            click on the target without a label is decided there by the target alone (a
            short one could be any of the controls showing it: its row, a button).
        target: The hit element must show the target (its entity id, else its label).
        long: ``True`` for a long click only, ``False`` for a click only, ``None`` for either.
    """

    resource_id: str | None = None
    label: str | None = None
    target: bool = False
    long: bool | None = None

    def matches(self, event: StepEvent, target: Target) -> bool:
        """Whether ``event`` is this click."""
        hit = event.hit
        if hit is None:
            return False
        if self.long is not None and event.action.startswith("LONG_CLICK") != self.long:
            return False
        if not self._is_control(hit.resource_id, hit.texts):
            return False
        return not self.target or target.shown_by(hit.entity, hit.texts)

    def _is_control(self, resource_id: str, texts: Sequence[str]) -> bool:
        if self.resource_id is None and self.label is None:
            return True
        if resource_id and self.resource_id is not None:
            return rid_suffix(resource_id) == self.resource_id
        if self.label is None:  # no resource ids to tell controls apart
            return self.target and self.long is True
        return any(says(t, self.label) for t in texts)


@dataclass(frozen=True, slots=True)
class NodeCheck:
    """A node a screen must show (or must not show).

    Attributes:
        resource_id: Resource id suffix of the node.
        text: Its exact text (``None``: any).
        target: It must show the target (by entity id, else by label).
        which: Which of the nodes with that id is checked: ``first``, ``last`` or ``any``.
        present: ``False`` turns the check around: the screen shows no such node.
        checked: The node's on/off state as a dump shows it (a like or save toggle's
            ``checked``); ``None``: either.
        draft: The node is a text field whose app trims what it sends or saves: its
            text matches ``text`` once spaces around it are removed.
    """

    resource_id: str
    text: str | None = None
    target: bool = False
    which: Literal["first", "last", "any"] = "any"
    present: bool = True
    checked: bool | None = None
    draft: bool = False

    def holds(self, root: Node, target: Target) -> bool:
        """Whether the screen under ``root`` shows such a node (shows none, if not present).

        A node shows the target by its entity id; in a dump without ids (a real device),
        by a text or description in its subtree that :func:`says` the target's label.
        """
        nodes = [n for n in root.walk() if rid_suffix(n.resource_id) == self.resource_id]
        if self.which != "any":
            nodes = nodes[:1] if self.which == "first" else nodes[-1:]
        found = any((self.text is None or (n.text.strip() if self.draft else n.text) == self.text)
                    and (self.checked is None or n.checked == self.checked)
                    and (not self.target or target.shown_in(n)) for n in nodes)
        return found == self.present


@dataclass(frozen=True, slots=True)
class ScreenCheck:
    """A screen by its route and nodes it shows (a precondition of the deciding step).

    Attributes:
        route: The screen's route.
        nodes: Nodes it must show.
    """

    route: str
    nodes: tuple[NodeCheck, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """The task judge's verdict: the deciding step, and the screens before and after it.

    A task that changes data names what makes its deciding step (a click on the target, or
    the screen it starts from: a draft holding the text to send), so content left from an
    earlier episode on a device that keeps it never decides the task by itself. Both are
    read from what any device exposes; how the step was taken (a button, ENTER, the
    keyboard's own enter key) does not matter.

    Attributes:
        route: Route the step must lead to (``None``: any).
        nodes: Nodes the screen must show after the step.
        via: The step must be one of these clicks (``()``: any step).
        before: The screen the step must be taken on (``None``: any).
        effect: The step must have changed something.
    """

    route: str | None = None
    nodes: tuple[NodeCheck, ...] = ()
    via: tuple[Click, ...] = ()
    before: ScreenCheck | None = None
    effect: bool = True


@dataclass(frozen=True, slots=True)
class Subgoal:
    """One reference subgoal of a template.

    Attributes:
        name: What it is, in the study's words (``"open library"``).
        screens: Routes of its entry screen (where its action is taken).
        context: ``UC`` (user-conditioned content) or ``UA`` (user-agnostic navigation).
        clicks: Clicks that achieve it, anywhere once its entry screen was observed.
    """

    name: str
    screens: tuple[str, ...]
    context: Context
    clicks: tuple[Click, ...] = ()


@dataclass(frozen=True, slots=True)
class Move:
    """What the oracle does on one screen.

    Attributes:
        resource_id: Resource id suffix of the element to tap.
        desc: Content description of the element to tap.
        target: Tap the element showing the target (inside the target's node when
            ``within`` is set); scroll until it is on screen.
        long: Long click instead of click.
        fill: ``(field resource id, text)``: make the field hold the text first.
        within: Entity role of the node the element must lie in (``"record"``: the
            context record, e.g. the Moments post whose author is tapped).
    """

    resource_id: str | None = None
    desc: str | None = None
    target: bool = False
    long: bool = False
    fill: tuple[str, str] | None = None
    within: str | None = None


@dataclass(frozen=True, slots=True)
class TemplateIntent:
    """What a template means to a user: why and how often simulated users carry it out.

    Attributes:
        event: The Act2Intention event class of its intentions (one of
            :data:`~mobileintent_gym.vocabulary.EVENT_CLASSES`).
        domains: PersonaLens domains whose interest makes a user do it more often (of
            :data:`~mobileintent_gym.vocabulary.DOMAINS`).
        purpose: Why a user does it, ending the intention's text (``to hear it again``).
    """

    event: str
    domains: tuple[str, ...]
    purpose: str


@dataclass(frozen=True, slots=True)
class TaskTemplate:
    """A PAIR task template.

    Attributes:
        id: Template id, e.g. ``G-SPT-02``.
        app: App id the task runs in.
        text: The template in a few words.
        context: PAIR context the target is drawn from (``<app>:<list>``).
        subgoals: Ordered reference subgoals; the last is decided by ``outcome``.
        outcome: The success criterion of the terminal subgoal.
        explicit: Explicit instruction; ``{label}`` is the target's visible label.
        implicit: Implicit instruction; ``{cue}`` is a contextual description.
        step_limit: Steps before the episode is truncated.
        act_on: ``"record"`` when the agent acts on the context record itself,
            ``"author"`` when on the author of it (a Moments post's author).
        picks: Resource id suffixes of the controls that pick a record on the UC
            subgoals' screens (for target exposure).
        oracle: Route → the oracle's move on that screen.
        intent: Its event class, the domains behind it and its purpose: what makes
            simulated users' routines carry it out (keyword only).
    """

    id: str
    app: str
    text: str
    context: str
    subgoals: tuple[Subgoal, ...]
    outcome: Outcome
    explicit: str
    implicit: str
    step_limit: int = 20
    act_on: Literal["record", "author"] = "record"
    picks: tuple[str, ...] = ()
    oracle: Mapping[str, Move] = field(default_factory=dict)
    intent: TemplateIntent = field(kw_only=True)

    def text_to_type(self) -> str | None:
        """The text the task has the agent type (``"Rainy Night"``), if any."""
        return next((move.fill[1] for move in self.oracle.values() if move.fill), None)
