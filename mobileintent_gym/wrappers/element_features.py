"""``ElementFeatures``: the screen's touch targets as a feature vector for MLP policies.

Paired with :class:`~mobileintent_gym.wrappers.ElementActions`, slot i describes the
element that action i clicks (both number :func:`~mobileintent_gym.phone.elements.read_screen`'s
elements in tree order), so a policy can learn "click the element the instruction names"
without reading pixels. Everything comes from what any device exposes: the dump, the route
and the instruction. Words and names are hashed with CRC-32, the same in every process.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mobileintent_gym.checks import positive_integer
from mobileintent_gym.phone.elements import ScreenElement, screen_elements
from mobileintent_gym.wrappers.element_actions import check_screen_task_env, warn_past_slots

KIND_BUCKETS = 16
ROUTE_BUCKETS = 32
WORD_BUCKETS = 64
SLOT_FLAGS = ("present", "named", "holds_quoted", "field", "focused")
_QUOTED = re.compile(r'"([^"]+)"')


def _bucket(text: str, buckets: int) -> int:
    return zlib.crc32(text.encode("utf-8")) % buckets


def _names(text: str, wanted: str) -> bool:
    """Whether ``text`` appears in the case-folded ``wanted`` as whole words.

    Every element's texts are asked about every step: the substring test turns most of
    them away, and only what it finds is matched as words.
    """
    folded = text.casefold()
    return len(text) > 1 and folded in wanted and re.search(
        rf"(?<!\w){re.escape(folded)}(?!\w)", wanted) is not None


def slot_features(element: ScreenElement, instruction: str) -> np.ndarray:
    """One element's features: :data:`SLOT_FLAGS`, then its kind hashed into buckets.

    ``named``: one of its texts (two characters or more) appears in the instruction as
    whole words, case aside, such as the name of the chat to open (the "Me" tab is not
    named by "come"). ``holds_quoted``: one of its texts is a phrase the instruction
    quotes, such as a field already holding "Understood".
    """
    wanted = instruction.casefold()
    quoted = set(_QUOTED.findall(instruction))
    out = np.zeros(len(SLOT_FLAGS) + KIND_BUCKETS, np.float32)
    out[:len(SLOT_FLAGS)] = (1.0, any(_names(t, wanted) for t in element.texts),
                             any(t in quoted for t in element.texts), element.field,
                             element.focused)
    out[len(SLOT_FLAGS) + _bucket(element.kind, KIND_BUCKETS)] = 1.0
    return out


class ElementFeatures(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observe the screen's first ``max_elements`` touch targets, the route and the instruction.

    The observation is a flat ``Box(0, 1)``: per element slot :func:`slot_features`
    (zeros for an empty slot), then the route hashed into :data:`ROUTE_BUCKETS` (one-hot)
    and the instruction's words hashed into :data:`WORD_BUCKETS` (present or not).

    Args:
        env: An Execute or Session env of this package (its device gives dump and route;
            its task the instruction).
        max_elements: Element slots; use the same number as ``ElementActions`` (a warning
            says once per wrapper when a screen has more elements than slots).

    Raises:
        ValueError: When ``max_elements`` is not a positive integer, or ``env`` takes no
            screen actions for a task (see ``check_screen_task_env``).
    """

    def __init__(self, env: gym.Env, max_elements: int = 64) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, max_elements=max_elements)
        gym.ObservationWrapper.__init__(self, env)
        check_screen_task_env(env, "ElementFeatures")
        self.max_elements = positive_integer("max_elements", max_elements)
        self.warned = False
        size = max_elements * (len(SLOT_FLAGS) + KIND_BUCKETS) + ROUTE_BUCKETS + WORD_BUCKETS
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        """The features of the current screen (the wrapped observation is not used)."""
        base = self.env.unwrapped
        instruction = base.task.instruction
        elements = screen_elements(base.screen_dump())
        warn_past_slots(self, len(elements))
        width = len(SLOT_FLAGS) + KIND_BUCKETS
        slots = np.zeros((self.max_elements, width), np.float32)
        for i, element in enumerate(elements[:self.max_elements]):
            slots[i] = slot_features(element, instruction)
        route = np.zeros(ROUTE_BUCKETS, np.float32)
        route[_bucket(base.device.route(), ROUTE_BUCKETS)] = 1.0
        words = np.zeros(WORD_BUCKETS, np.float32)
        words[[_bucket(w, WORD_BUCKETS) for w in re.findall(r"\w+", instruction.casefold())]] = 1
        return np.concatenate([slots.ravel(), route, words])
