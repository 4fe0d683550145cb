"""Baselines of ``Act2Intent-Assist-v0``: who proposes what, and who executes it.

An assistant is a proposer (used while the env watches the user) and an executor (used
while it carries out an accepted intention). :data:`ASSISTANTS` names the baselines:

* ``never`` — never proposes (the user does everything; nothing saved, no false alarm);
* ``history-oracle`` — :class:`HistoryProposer`, executed by the task's oracle;
* ``history-random`` — the same proposals, executed with random actions;
* ``oracle`` — proposes the intention under way as soon as it begins, executed by the
  oracle (the upper bound: every intention's user steps saved, no false alarm).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from mobileintent_gym.agents.oracle import OracleAgent
from mobileintent_gym.agents.predict import history_entries, near_hour
from mobileintent_gym.agents.proactive import NeverPropose
from mobileintent_gym.agents.random import RandomAgent
from mobileintent_gym.envs.assist import EXECUTE
from mobileintent_gym.envs.proposals import NO_ACTION, answer


class HistoryProposer:
    """When the user opens an app, proposes their habitual intention in it at this hour.

    The intention is the most frequent one of the history in that app within two hours of
    the time of day (else at any time), leaving out those accepted earlier in the
    episode. One proposal per visit of an app; none on the home screen.
    """

    def __init__(self) -> None:
        self._app = ""
        self._proposed: str | None = None
        self._accepted: set[str] = set()

    def heard(self, accepted: bool) -> None:
        """The user's verdict on the latest proposal."""
        if accepted and self._proposed is not None:
            self._accepted.add(self._proposed)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """A proposal, or "no action"."""
        app, self._proposed = observation["app"], None
        if app == self._app:
            return NO_ACTION
        self._app = app
        there = [h for h in history_entries(observation)
                 if h.app == app and h.intention not in self._accepted]
        near = near_hour(there, int(observation["context"][11:13])) or there
        if not near:
            return NO_ACTION
        self._proposed = Counter(h.intention for h in near).most_common(1)[0][0]
        return answer(self._proposed)


class TruthProposer:
    """Proposes the intention the user is carrying out (the env's truth) once it begins.

    Args:
        env: The Assist env (wrappers are looked through).
    """

    def __init__(self, env: gym.Env) -> None:
        self.env = env.unwrapped

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The truth, or "no action" when the user would reject any proposal."""
        truth = self.env.truth()
        return NO_ACTION if truth is None else answer(truth)


class Assistant:
    """Proposes with ``proposer`` while watching and acts with ``executor`` while executing.

    Args:
        proposer: Answers the watched steps.
        executor: Acts on the phone after an acceptance (``None``: never needed).
    """

    def __init__(self, proposer: Any, executor: Any = None) -> None:
        self.proposer, self.executor = proposer, executor

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The proposer's answer or the executor's action, by the observation's mode.

        A proposer with a ``heard`` method is told every verdict on its proposals, also
        an acceptance, whose step the executor answers (the phone is handed over).
        """
        if "accepted" in info and hasattr(self.proposer, "heard"):
            self.proposer.heard(bool(info["accepted"]))
        if observation["mode"] == EXECUTE:
            return self.executor.act(observation, info)
        return self.proposer.act(observation, info)


# Name -> factory(env, seed) of the Assist baselines.
ASSISTANTS: dict[str, Callable[[gym.Env, int], Assistant]] = {
    "never": lambda env, seed: Assistant(NeverPropose()),
    "history-oracle": lambda env, seed: Assistant(HistoryProposer(), OracleAgent(env)),
    "history-random": lambda env, seed: Assistant(HistoryProposer(),
                                                  RandomAgent(env.unwrapped.execute, seed)),
    "oracle": lambda env, seed: Assistant(TruthProposer(env), OracleAgent(env)),
}
