"""A generated session played as a stream of screens, cut into turns (the Proactive env's).

The stream's frames are the screens the user's actions were taken on, in order, each
labelled with its segment. Turn t shows the ``window`` frames up to frame
e_t = min((t + 1) · stride, F) − 1 (black frames before the stream's start); its **gold** is
the intention of the segment e_t belongs to, or ``None`` for noise. With the default stride of
1 every frame ends exactly one turn, so noise turns and noise frames are the same count.
Each turn also has the memory operation a tracker of the user's intentions would take:
**CREATE** when a new intention begins, **RESUME** when an interleaved one is taken up
again (its ``part`` 2), **UPDATE** while the same intention goes on, **IDLE** on noise.
Frames are rendered as the turns reach them, by replaying the session on a phone.
"""

from __future__ import annotations

import math
from collections import deque
from datetime import datetime

import numpy as np
from PIL import Image

from mobileintent_gym.intents.replay import replay
from mobileintent_gym.intents.schema import TIME_FORMAT, IntentionSegment, Session
from mobileintent_gym.phone import SimPhone


class ScreenStream:
    """One session's frames, their labels and the turns over them.

    Args:
        session: A generated session (it is replayed for its screens).
        phone: The phone to replay it on (its size must be the session's).
        window: Frames per turn (N).
        stride: Frames the stream advances per turn.
        frame_size: (width, height) of the frames shown.
        hierarchies: Also keep each frame's view hierarchy.
    """

    def __init__(self, session: Session, phone: SimPhone, window: int, stride: int,
                 frame_size: tuple[int, int], hierarchies: bool = False) -> None:
        self.session, self.window, self.stride = session, window, stride
        self.frame_size, self.hierarchies = frame_size, hierarchies
        self.labels: list[int] = []  # segment index of each frame
        self.times: list[datetime] = []  # the clock before each frame's action
        for index, segment in enumerate(session.segments):
            before = segment.time
            for step in segment.steps:
                self.labels.append(index)
                self.times.append(before)
                before = datetime.strptime(step.event.clock, TIME_FORMAT)
        self.turns = math.ceil(len(self.labels) / stride)
        self._replay = replay(session, phone)
        self._phone = phone
        self._shown: deque[tuple[np.ndarray, str]] = deque(maxlen=window)
        self._rendered = 0

    def last_frame(self, turn: int) -> int:
        """Index of the newest frame of ``turn``."""
        return min((turn + 1) * self.stride, len(self.labels)) - 1

    def segment(self, turn: int) -> IntentionSegment:
        """The segment the newest frame of ``turn`` belongs to."""
        return self.session.segments[self.labels[self.last_frame(turn)]]

    def gold(self, turn: int) -> str | None:
        """The intention under way at ``turn``, or ``None`` for noise."""
        segment = self.segment(turn)
        return None if segment.is_noise else segment.intention

    def memory(self, turn: int) -> str:
        """The memory operation of ``turn`` (see the module notes)."""
        segment = self.segment(turn)
        if segment.is_noise:
            return "IDLE"
        if turn > 0 and self.segment(turn - 1) is segment:
            return "UPDATE"
        return "RESUME" if segment.part == 2 else "CREATE"

    def frames(self, turn: int) -> tuple[np.ndarray, tuple[str, ...]]:
        """The ``window`` frames of ``turn`` (oldest first) and their hierarchies.

        Turns are asked for in order; frames are rendered as they are first needed.
        """
        last = self.last_frame(turn)
        while self._rendered <= last:
            next(self._replay)
            image = Image.fromarray(self._phone.screenshot()).resize(self.frame_size)
            dump = self._phone.hierarchy() if self.hierarchies else ""
            self._shown.append((np.asarray(image), dump))
            self._rendered += 1
        width, height = self.frame_size
        blank = self.window - len(self._shown)
        stack = np.zeros((self.window, height, width, 3), np.uint8)
        for i, (frame, _) in enumerate(self._shown):
            stack[blank + i] = frame
        return stack, ("",) * blank + tuple(dump for _, dump in self._shown)
