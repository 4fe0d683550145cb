"""The simulated user: routines, sessions of intention segments, and their data formats.

``generate_sessions("demo-ana", days=7)`` gives a week of one user's sessions on one
simulated phone: intentions drawn from a routine (habits with triggers, interests, chance),
carried out like a person (detours, overshooting scrolls, BACK and retries, corrected typos,
pauses) and judged by each task's judge, with action descriptions in the Act2Intention
format, plus labelled noise. Loaders and exporters read and write the Act2Intention
trajectory JSON (with a PNG folder), its intention CSV and KnowU behaviour logs.
"""

from mobileintent_gym.intents.act2intention import (
    InvalidDataError,
    export_sessions,
    load_intentions_csv,
    load_trajectories,
    write_intentions_csv,
    write_trajectories,
)
from mobileintent_gym.intents.behaviour import Manner
from mobileintent_gym.intents.classes import (
    TEMPLATE_INTENTS,
    event_class,
    reachable_classes,
    reachable_templates,
)
from mobileintent_gym.intents.describe import describe
from mobileintent_gym.intents.generator import (
    GeneratorConfig,
    UserLife,
    generate_sessions,
    intention_text,
)
from mobileintent_gym.intents.knowu import (
    BehaviourEntry,
    behaviour_log,
    load_behaviour_log,
    load_knowu_habits,
    write_behaviour_log,
)
from mobileintent_gym.intents.persona import persona_text
from mobileintent_gym.intents.replay import replay
from mobileintent_gym.intents.routine import Habit, Routine, Trigger, build_routine, plan_day
from mobileintent_gym.intents.schema import (
    NOISE_EVENT,
    NOISE_KINDS,
    Context,
    IntentionSegment,
    Session,
    Step,
)

__all__ = [
    "NOISE_EVENT",
    "NOISE_KINDS",
    "TEMPLATE_INTENTS",
    "BehaviourEntry",
    "Context",
    "GeneratorConfig",
    "Habit",
    "IntentionSegment",
    "InvalidDataError",
    "Manner",
    "Routine",
    "Session",
    "Step",
    "Trigger",
    "UserLife",
    "behaviour_log",
    "build_routine",
    "describe",
    "event_class",
    "export_sessions",
    "generate_sessions",
    "intention_text",
    "load_behaviour_log",
    "load_intentions_csv",
    "load_knowu_habits",
    "load_trajectories",
    "persona_text",
    "plan_day",
    "reachable_classes",
    "reachable_templates",
    "replay",
    "write_behaviour_log",
    "write_intentions_csv",
    "write_trajectories",
]
