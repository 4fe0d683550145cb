"""Task instances: a template for one user, target type and instruction type.

Each template is instantiated per user × target (``common``: an item every user's phone
holds, so the wording is the same for all; ``personal``: the best-ranked item of this
user's PAIR content) × instruction (``explicit``: names the visible label; ``implicit``: a
contextual cue) — four tasks per template and user, as in the study.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from mobileintent_gym.apps import registry
from mobileintent_gym.checks import ordered
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.pair import TARGET_TYPES
from mobileintent_gym.tasks.spec import Target, TaskTemplate
from mobileintent_gym.tasks.templates import TEMPLATES, get_template

if TYPE_CHECKING:
    from mobileintent_gym.users import UserContent

TargetType = Literal["common", "personal"]
InstructionType = Literal["explicit", "implicit"]
INSTRUCTION_TYPES: tuple[InstructionType, ...] = ("explicit", "implicit")


class UnknownTaskError(MobileIntentError, KeyError):
    """A task id that names no template, target type or instruction type."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class TaskInstance:
    """One task for one user.

    Attributes:
        id: ``<template>:<target type>:<instruction type>``, e.g. ``G-SPT-02:personal:implicit``.
        template: The template.
        user: Id of the user whose phone it runs on.
        target_type: ``common`` or ``personal``.
        instruction_type: ``explicit`` or ``implicit``.
        record: Id of the context record the task is about (a track, chat, post …).
        target: What the agent must act on (the record, or a post's author).
        instruction: The instruction given to the agent.
    """

    id: str
    template: TaskTemplate
    user: str
    target_type: TargetType
    instruction_type: InstructionType
    record: str
    target: Target
    instruction: str


def parse_task_id(task_id: str) -> tuple[TaskTemplate, TargetType, InstructionType]:
    """Split a task id into its template, target type and instruction type.

    Raises:
        UnknownTaskError: Naming the part of ``task_id`` that is wrong.
    """
    parts = task_id.split(":") if isinstance(task_id, str) else []
    if len(parts) != 3:
        hint = (f"; the tasks of template {task_id!r} are {', '.join(task_ids(task_id))}"
                if isinstance(task_id, str) and task_id in TEMPLATES else "")
        raise UnknownTaskError(f"task id must be '<template>:<common|personal>:"
                               f"<explicit|implicit>', got {task_id!r}{hint}")
    template_id, target_type, instruction_type = parts
    if template_id not in TEMPLATES:
        raise UnknownTaskError(f"task {task_id!r}: unknown template {template_id!r}; "
                               f"known: {sorted(TEMPLATES)}")
    if target_type not in TARGET_TYPES or instruction_type not in INSTRUCTION_TYPES:
        raise UnknownTaskError(f"task {task_id!r}: target type must be one of {TARGET_TYPES} "
                               f"and instruction type one of {INSTRUCTION_TYPES}")
    return get_template(template_id), target_type, instruction_type  # type: ignore[return-value]


def chosen_tasks(tasks: str | Iterable[str] | None) -> tuple[str, ...]:
    """``tasks`` as task ids, each checked and each once, in order; ``None``: every task.

    A string is one id (not its letters); a set is sorted (its order differs between
    processes). A task given twice would be drawn or run twice as often.

    Raises:
        UnknownTaskError: Naming a bad id, or for ``tasks`` empty or no collection of ids.
    """
    if tasks is None:
        return task_ids()
    if isinstance(tasks, str):
        chosen: tuple = (tasks,)
    else:  # bytes would be read as numbers, a mapping as its keys
        chosen = ordered(tasks) if isinstance(tasks, Iterable) and not isinstance(
            tasks, bytes | bytearray | Mapping) else ()
    if not chosen:
        raise UnknownTaskError(f"tasks must be task ids (None: every task), got {tasks!r}")
    for task_id in chosen:
        parse_task_id(task_id)
    return tuple(dict.fromkeys(chosen))


def task_ids(templates: Sequence[str] | str | None = None) -> tuple[str, ...]:
    """Every task id of ``templates`` (default: all; one id alone is one template).

    Raises:
        MobileIntentError: Naming an unknown template id.
    """
    if isinstance(templates, str):  # its characters were taken for template ids
        templates = (templates,)
    chosen = tuple(templates or TEMPLATES)
    for template_id in chosen:
        get_template(template_id)
    return tuple(f"{t}:{target}:{kind}" for t in chosen
                 for target in TARGET_TYPES for kind in INSTRUCTION_TYPES)


def _target(template: TaskTemplate, content: UserContent, record: str) -> Target:
    """What the task acts on: the record, or what the context's role names (its author …)."""
    if template.act_on == "record":
        return Target(record, content.labels[record])
    context = registry.contexts()[template.context]
    entity, label = context.roles[template.act_on](record, content.state.apps[context.app])
    return Target(entity, label)


def instantiate(task_id: str, content: UserContent) -> TaskInstance:
    """The task ``task_id`` on the phone built for one user.

    Raises:
        UnknownTaskError: For a malformed or unknown task id.
        MobileIntentError: When the user's content holds no item for the task.
    """
    template, target_type, instruction_type = parse_task_id(task_id)
    items = content.contexts[template.context]
    pool = items.common if target_type == "common" else items.personal
    if not pool:
        raise MobileIntentError(f"user {content.user_id!r} has no {target_type} item in "
                                f"{template.context!r} for task {task_id!r}")
    record = pool[0]
    wording = template.explicit if instruction_type == "explicit" else template.implicit
    instruction = wording.format(label=content.labels[record], cue=content.cues[record])
    return TaskInstance(task_id, template, content.user_id, target_type, instruction_type,
                        record, _target(template, content, record), instruction)
