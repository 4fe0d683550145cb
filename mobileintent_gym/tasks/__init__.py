"""Tasks as data: PAIR templates, their instances per user, the judge and the oracle."""

from mobileintent_gym.tasks.instances import (
    INSTRUCTION_TYPES,
    TARGET_TYPES,
    TaskInstance,
    UnknownTaskError,
    chosen_tasks,
    instantiate,
    parse_task_id,
    task_ids,
)
from mobileintent_gym.tasks.judge import Judge, Verdict
from mobileintent_gym.tasks.oracle import Oracle
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    Target,
    TaskTemplate,
)
from mobileintent_gym.tasks.templates import TEMPLATES, get_template

__all__ = [
    "INSTRUCTION_TYPES",
    "TARGET_TYPES",
    "TEMPLATES",
    "Click",
    "Judge",
    "Move",
    "NodeCheck",
    "Oracle",
    "Outcome",
    "Subgoal",
    "Target",
    "TaskInstance",
    "TaskTemplate",
    "UnknownTaskError",
    "Verdict",
    "chosen_tasks",
    "get_template",
    "instantiate",
    "parse_task_id",
    "task_ids",
]
