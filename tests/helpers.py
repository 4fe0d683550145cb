"""Helpers shared by the tests: address a screen the way a scripted agent does, a scripted
agent to run from the command line, a phone served over real adb, the oracle over users."""

import contextlib
import copy
import os
import pickle
import random
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from mobileintent_gym.adbd.harness import LocalAdb
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.envs.predict import history_text
from mobileintent_gym.intents.schema import IntentionSegment
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.query import find_all, tap
from mobileintent_gym.rollouts import run_episode
from mobileintent_gym.tasks import TEMPLATES, task_ids

ADB = shutil.which("adb")

# A module of agents for `--agent MODULE:Scripted`: the oracle on explicit tasks; on
# implicit ones an invalid action, then COMPLETE. CALLS keeps the seed of every agent made.
SCRIPTED_AGENTS = '''
from mobileintent_gym.agents import OracleAgent

CALLS = []


class Scripted:
    def __init__(self, env, seed):
        CALLS.append(seed)
        self.oracle, self.steps = OracleAgent(env), 0

    def act(self, obs, info):
        self.steps += 1
        if info["task"].endswith("explicit"):
            return self.oracle.act(obs, info)
        return "CLICK[oops]" if self.steps == 1 else "COMPLETE"


def make(env, seed):
    return Scripted(env, seed)


class Mute:
    def __init__(self, env, seed):
        pass
'''


# Reference data beside the checkout (../shared/data, or $MOBILEINTENT_GYM_SHARED_DATA); a
# fresh clone has none, and the tests that read it skip.
SHARED_DATA = Path(os.environ.get("MOBILEINTENT_GYM_SHARED_DATA")
                   or Path(__file__).resolve().parents[1] / ".." / "shared" / "data")


def shared(*parts: str) -> Path:
    """A path under the reference data, or skip the test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def write_agent_with_helper(folder: Path, helper: str) -> str:
    """An agent file in ``folder/sub`` that answers COMPLETE through ``helper``, a module
    beside it; returns its ``--agent`` spec (relative to ``folder``)."""
    sub = folder / "sub"
    sub.mkdir()
    (sub / f"{helper}.py").write_text("def answer():\n    return 'COMPLETE'\n")
    (sub / "my_agent.py").write_text(
        f"from {helper} import answer\n\n\n"
        "class Agent:\n"
        "    def act(self, observation, info):\n"
        "        return answer()\n\n\n"
        "def make(env, seed):\n"
        "    return Agent()\n")
    return "sub/my_agent.py:make"


def write_agents(folder: Path) -> str:
    """Write :data:`SCRIPTED_AGENTS` as a module in ``folder``; returns its (unique) name."""
    name = f"agents_{abs(hash(str(folder)))}"
    (folder / f"{name}.py").write_text(SCRIPTED_AGENTS)
    return name


def press(phone, **criteria):
    """Tap the first element matching criteria on the phone's current screen."""
    return phone.act(tap(phone.hierarchy(), **criteria))


def texts(phone, resource_id):
    """Texts of every element with that resource id on the current screen."""
    return [n.text for n in find_all(phone.hierarchy(), resource_id=resource_id)]


@contextlib.contextmanager
def served_over_adb(phone: SimPhone, home: Path, user: str | None = None
                    ) -> Iterator[LocalAdb]:
    """``phone`` as a virtual device online on a private adb server (skips without adb).

    The server listens on a port free when it starts: runs of the suite side by side do
    not share it.
    """
    if ADB is None:
        pytest.skip("the adb binary is not installed (apt-get install adb)")
    pytest.importorskip("adbutils", reason="adbutils is not installed (pip install adbutils)")
    from mobileintent_gym.users import load_user_content

    encoder = None if user is None else load_user_content(user).encoder  # as serve-adb says
    with LocalAdb(phone, ADB, free_port(), home=home, user=user, encoder=encoder) as adb:
        assert adb.connect() == "device"
        yield adb


def content_times(apps: dict) -> list[str]:
    """Every time the content of ``apps`` holds, in a fixed order."""
    chat, pay, meeting, notes = apps["chat"], apps["pay"], apps["meeting"], apps["notes"]
    return [*(m.time for c in chat.chats for m in c.messages), *(b.time for b in pay.bills),
            *(m.time for c in pay.conversations for m in c.messages),
            *(m.start for m in (*meeting.scheduled, *meeting.history)), meeting.joined_at,
            *(c.time for c in notes.comments), *(n.posted for n in notes.notes.values())]


def nodes(phone, **criteria):
    """Every element matching criteria on the phone's current screen."""
    return list(find_all(phone.hierarchy(), **criteria))


def tap_node(phone, node, long=False):
    """Tap the middle of a node's visible bounds."""
    b = node.bounds
    x, y = (b[0] + b[2]) // 2, (b[1] + b[3]) // 2
    return phone.act(f"{'LONG_CLICK' if long else 'CLICK'}[{x},{y}]")


def entities(phone, resource_id):
    """Record ids of every element with that resource id on the current screen."""
    return [n.entity for n in nodes(phone, resource_id=resource_id)]


def scrolled_entities(phone, resource_id, swipes=12):
    """Every record id a list shows from where it is to its end, in order."""
    seen = dict.fromkeys(entities(phone, resource_id))
    for _ in range(swipes):
        if not phone.act("SWIPE[UP]").effect:
            break
        seen.update(dict.fromkeys(entities(phone, resource_id)))
    return list(seen)


def shown_count(phone, resource_id):
    """(checked, exact count) of a toggle that shows its count (a like or save button)."""
    button = nodes(phone, resource_id=resource_id)[0]
    count = next(n.text for n in button.walk() if n.text)
    return button.checked, int(count.replace(",", ""))


def oracle_runs(env, user, tasks):
    """(task, result, actions) of the oracle's episode of each task for ``user``."""
    return [(task, *run_episode(env, OracleAgent(env), user, task)) for task in tasks]


def oracle_misses(env, user, tasks):
    """The tasks the oracle does not solve for ``user`` with every subgoal earned, by the
    outcome (not by declaring COMPLETE), each with the actions it took."""
    return [(task, actions) for task, result, actions in oracle_runs(env, user, tasks)
            if not result.success or set(result.rewards) != {1.0} or actions[-1] == "COMPLETE"]


def spread_tasks(users, every):
    """A fixed sample of tasks per user: user i gets template j when (i + j) % every == 0,
    the template's four target/instruction variants turning from one such user to the next."""
    templates = sorted(TEMPLATES)
    return {user: [task_ids((t,))[(i + j) // every % 4] for j, t in enumerate(templates)
                   if (i + j) % every == 0] for i, user in enumerate(users)}


COPIES = (copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env)))  # ways to copy an env


def assert_copy_goes_on(env, copy_env, agent, obs, info, steps):
    """A copy of ``env`` taken now, given ``agent``'s next ``steps`` actions on ``env``,
    shows the same observations, rewards and flags."""
    twin = copy_env(env)
    for _ in range(steps):
        action = agent.act(obs, info)
        obs, *ours = env.step(action)
        theirs, *rest = twin.step(action)
        assert obs.keys() == theirs.keys()
        assert all(np.array_equal(obs[key], theirs[key]) for key in obs)
        assert ours[:3] == rest[:3]
    twin.close()


def history(*lines: tuple[str, str, str, str]) -> str:
    """An env's ``history`` text of (``YYYY-MM-DD HH:MM``, app, intention, class) lines."""
    return history_text([IntentionSegment(datetime.strptime(when, "%Y-%m-%d %H:%M"), app,
                                          event, intention)
                         for when, app, intention, event in lines], len(lines))


def frame_bounds_bytes(space) -> int:
    """The memory behind a frame space's bounds and their masks (a few kB for a ``FrameBox``:
    one pixel row each, where a plain ``Box`` holds four arrays of the frame's shape)."""
    def root(array):
        while isinstance(array.base, np.ndarray):
            array = array.base
        return array

    return sum(root(a).nbytes for a in (space.low, space.high, space.bounded_below,
                                         space.bounded_above))


@contextlib.contextmanager
def written_by_another_process(target: Path) -> Iterator[None]:
    """Another process holds :func:`~mobileintent_gym.files.sole_writer` of ``target``."""
    script = ("import sys\nfrom mobileintent_gym.files import sole_writer\n"
              "with sole_writer(sys.argv[1]):\n    print('held', flush=True)\n"
              "    sys.stdin.read()\n")
    holder = subprocess.Popen([sys.executable, "-c", script, str(target)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.communicate(timeout=60)


_PORTS = random.SystemRandom()  # not the random module's state, which a test may seed


def free_port() -> int:
    """A loopback TCP port free a moment ago (nothing listens on it), drawn at random below
    the system's ephemeral ports.

    Port 0 gives an ephemeral port, which a server of another process run side by side
    (pytest-xdist's other worker) may be given next: an adb server started there met that
    server and failed with "protocol fault". The draw starts at 20000, above the ports
    ``ray start`` gives its workers (10002-19999; ``ray.init``'s take ephemeral ones).
    """
    ranges = Path("/proc/sys/net/ipv4/ip_local_port_range")
    low = int(ranges.read_text().split()[0]) if ranges.is_file() else 32768
    while True:
        # No room below the ephemeral ports (a system's own range): one of them.
        port = _PORTS.randrange(20000, low) if low > 21000 else 0
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:  # taken: draw again
                continue
            return probe.getsockname()[1]


def python_c(code: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """``python -c code`` in a fresh interpreter, its output as text; ``kwargs`` go to
    :func:`subprocess.run` (``env``, ``cwd``)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, check=False, **kwargs)


def exit_status(argv: list[str]) -> int:
    """The command line's exit status for ``argv``: what main returns, or argparse's exit."""
    from mobileintent_gym.cli import main

    try:
        return main(argv)
    except SystemExit as exit_:
        return exit_.code


def race(work, threads=6):
    """Run ``work`` in ``threads`` threads at once, switching often; their errors."""
    errors, start = [], threading.Barrier(threads)

    def run():
        start.wait()
        try:
            work()
        except Exception as err:  # any error is the finding
            errors.append(err)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=run) for _ in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    return errors


def side_by_side(*runs: dict, timeout: float = 600) -> list[str]:
    """Start the processes ``runs`` describe (``subprocess.Popen`` keyword arguments each)
    at once, and return their standard outputs once every one has exited 0.

    Tests comparing processes run them side by side: on two cores in about the time of one.
    """
    started = [subprocess.Popen(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                **run) for run in runs]
    said = [process.communicate(timeout=timeout) for process in started]
    for process, (_, err) in zip(started, said, strict=True):
        assert process.returncode == 0, err[-2000:]
    return [out for out, _ in said]
