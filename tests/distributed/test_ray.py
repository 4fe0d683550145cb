"""Rollouts on a real local Ray cluster: equal to one process, and to a run that lost an actor."""

import contextlib
import dataclasses
import functools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import warnings

import cloudpickle
import gymnasium as gym
import numpy as np
import pytest

from mobileintent_gym.agents import AGENTS, RandomAgent
from mobileintent_gym.cli import main
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.rollouts import episodes, evaluate, run
from mobileintent_gym.users import PairConfig
from mobileintent_gym.users.profile import builtin_profiles_dir
from tests.helpers import python_c, write_agent_with_helper

ray = pytest.importorskip("ray", reason="needs the [distributed] extra (ray)")

from mobileintent_gym.distributed import (  # noqa: E402
    ActorsLostError,
    RolloutError,
    RolloutPool,
    check_address,
    evaluate_ray,
    group_episodes,
    rollout_groups,
)

# Instruction-only observations and the lexical encoder keep the actors light.
ENV_KWARGS = {"observation": ("instruction",), "pair": PairConfig(encoder="lexical")}
USERS = ["demo-ana", "demo-ben"]
TASKS = ["G-SPT-02:personal:implicit", "G-WCT-02:common:explicit", "G-SPT-03:common:explicit"]
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actors cannot import tests


class SlowRandomAgent(RandomAgent):
    """A random agent that thinks 5 ms per action, so that episodes are in flight."""

    def act(self, observation, info):
        time.sleep(0.005)
        return super().act(observation, info)


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def single_process():
    env = gym.make("Act2Intent-Execute-v0", **ENV_KWARGS)
    yield env
    env.close()


@pytest.mark.parametrize("agent", ["oracle", "random"])
def test_evaluate_ray_equals_the_single_process_evaluation(cluster, single_process, agent):
    expected = evaluate(single_process, AGENTS[agent], USERS, TASKS, seed=3)
    got = evaluate_ray(ENV_KWARGS, AGENTS[agent], USERS, TASKS, seed=3, num_actors=2,
                       progress=False)
    assert [(r.result, r.actions) for r in got] == expected
    assert ray.is_initialized()  # the pool leaves a session it did not start running


def test_a_killed_actor_loses_no_episode_and_repeats_none(cluster, single_process):
    work = episodes(USERS * 2, TASKS, seed=5)  # 18 episodes, each user twice
    expected = [run(single_process, SlowRandomAgent, e) for e in work]
    with RolloutPool(2, env_kwargs=ENV_KWARGS, progress=False) as pool:
        before = pool.pids()
        seen, killed = {}, False
        for index, result in pool.stream(work, SlowRandomAgent):
            assert index not in seen
            seen[index] = result
            if not killed:  # both actors are in the middle of an episode now
                os.kill(before[0], signal.SIGKILL)
                killed = True
        after = pool.pids()
    assert after[0] != before[0] and after[1] == before[1]  # Ray restarted the killed one
    assert [seen[i] for i in range(len(work))] == expected


def test_an_actor_that_dies_beyond_its_restarts_is_one_line_and_no_mistake(cluster):
    # The message held Ray's whole multi-line error, and the command line gave it the
    # status of a user's mistake (2).
    work = episodes(USERS, TASKS, seed=5)
    with RolloutPool(1, env_kwargs=ENV_KWARGS, progress=False, max_restarts=0) as pool:
        pid = pool.pids()[0]
        with pytest.raises(ActorsLostError) as caught:
            for _ in pool.stream(work, SlowRandomAgent):
                os.kill(pid, signal.SIGKILL)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(
        "an actor died more than its restarts allow (") and message.endswith(")")
    assert isinstance(caught.value, RolloutError) and caught.value.exit_status == 1


def test_rollout_groups_hold_each_users_rollouts_with_their_advantages(cluster,
                                                                       single_process):
    specs = [("G-SPT-02:personal:implicit", USERS), ("G-WCT-01:common:explicit", USERS)]
    with RolloutPool(2, env_kwargs=ENV_KWARGS, progress=False) as pool:
        on_pool = functools.partial(pool.run, make_agent=AGENTS["random"])
        groups = rollout_groups(on_pool, specs, per_user=2, seed=9)
    for (task, users), group in zip(specs, groups, strict=True):
        planned = group_episodes(task, users, 2, seed=9)
        assert len({e.seed for e in planned}) == 4  # a user's two rollouts differ
        assert group.users == ("demo-ana", "demo-ana", "demo-ben", "demo-ben")
        assert list(group.records) == [run(single_process, AGENTS["random"], e) for e in planned]
        advantages = group.advantages()
        assert advantages.shape == (4,) and np.isclose(advantages.sum(), 0.0)


def test_more_actors_than_the_cluster_has_cpus_share_them(cluster, single_process):
    # Each asking for a whole CPU, the third actor would never start and the episodes sent
    # to it would wait for ever.
    work = episodes(USERS, TASKS[:2], seed=2)
    with pytest.warns(UserWarning, match="2 CPUs for 3 actors: each asks for 0.667 of one"):
        pool = RolloutPool(3, env_kwargs=ENV_KWARGS, progress=False)
    with pool:
        assert pool.run(work, AGENTS["random"]) == [
            run(single_process, AGENTS["random"], e) for e in work]
        assert len(set(pool.pids())) == 3


@pytest.mark.parametrize(("env_id", "kwargs", "error"), [
    ("Act2Intent-Execute-v0", {"bogus": 1}, "TypeError: .*unexpected keyword argument 'bogus'"),
    ("Act2Intent-Exec-v0", {}, "gymnasium.error.NameNotFound: Environment `Act2Intent-Exec` ")])
def test_an_env_the_actors_cannot_build_is_named_in_one_line(cluster, env_id, kwargs, error):
    # The actor used to die in its creation: Ray printed its traceback, retried the
    # episodes three times and printed each retry's (some 90 lines for one error).
    work = episodes(USERS[:1], TASKS[:2], seed=0)
    named = rf"an actor could not build its env \(gym.make\('{env_id}', \*\*env_kwargs\)\): {error}"
    with RolloutPool(1, env_id, {**ENV_KWARGS, **kwargs}, progress=False) as pool:
        with pytest.raises(RolloutError, match=named) as caught:
            pool.run(work, AGENTS["random"])
        first = pool.pids()
        with pytest.raises(RolloutError, match=named):
            pool.run(work, AGENTS["random"])
        assert pool.pids() == first  # the actor lived on: not restarted, no retries
    assert "\n" not in str(caught.value)


def test_an_env_error_of_several_lines_is_named_in_one():
    # An error of several lines (an adb device's, say) came back as it was, lines and
    # all, and "builtins." was cut from wherever it first stood in the text.
    from gymnasium.error import NameNotFound

    from mobileintent_gym.distributed.pool import _one_line

    assert _one_line(RuntimeError("adb: device offline\n  - waiting\n\n")) == (
        "RuntimeError: adb: device offline; - waiting")
    assert _one_line(NameNotFound("see builtins.open")) == (
        "gymnasium.error.NameNotFound: see builtins.open")


def test_an_agent_files_helpers_travel_to_the_actors(cluster, tmp_path, monkeypatch):
    # The agent file went by value, but a helper module beside it by reference: an actor
    # without the file's folder on its path could not import it (ModuleNotFoundError).
    from mobileintent_gym.agents.resolve import parse_agent

    agent = write_agent_with_helper(tmp_path, "beside_helpers_r")
    monkeypatch.chdir(tmp_path)
    spec = parse_agent(agent)
    try:
        with RolloutPool(1, env_kwargs=ENV_KWARGS, progress=False) as pool:
            (record,) = pool.run(episodes(USERS[:1], TASKS[:1], seed=0), spec.factory())
        assert list(record.actions) == ["COMPLETE"]
    finally:
        sys.modules.pop("beside_helpers_r", None)


class Marked(gym.Env):
    """A tiny env that leaves a file in ``folder`` when closed (its process id)."""

    observation_space = gym.spaces.Discrete(1)
    action_space = gym.spaces.Discrete(1)

    def __init__(self, folder):
        self.folder = folder

    def close(self):
        open(os.path.join(self.folder, str(os.getpid())), "w").close()


def test_closing_the_pool_closes_each_actors_env(cluster, tmp_path):
    # The actors were killed at once: an env holding a device or a session never closed.
    from gymnasium.envs.registration import EnvSpec

    spec = EnvSpec("Marked-v0", entry_point=Marked, disable_env_checker=True)
    with RolloutPool(2, spec, {"folder": str(tmp_path)}, progress=False) as pool:
        pids = pool.pids()
    assert sorted(os.listdir(tmp_path)) == sorted(str(pid) for pid in pids)


def test_a_cluster_with_no_cpus_yet_is_asked_for_one_per_actor(recwarn):
    # An autoscaling cluster whose head takes no work adds nodes for what actors ask.
    from mobileintent_gym.distributed.pool import _cpu_share

    assert _cpu_share(0.0, 4) == 1.0 and _cpu_share(8.0, 4) == 1.0 and not recwarn.list
    assert _cpu_share(2.0, 4) == 0.5 and len(recwarn.list) == 1


def actors_in_a_child(setup: str, count: str = "None", address: str = "None") -> int:
    """How many actors ``RolloutPool(count, address=...)`` starts in a new process, after
    ``setup``."""
    code = (f"{setup}\nfrom mobileintent_gym.distributed import RolloutPool\n"
            f"with RolloutPool({count}, env_id='CartPole-v1', address={address},\n"
            "                 progress=False) as pool:\n"
            "    print(len(pool.pids()))")
    ran = python_c(code)
    assert ran.returncode == 0, ran.stderr[-2000:]
    return int(ran.stdout.split()[-1])


def test_a_numpy_actor_count_starts_ray_too():
    # In a process with no Ray session: ray.init(num_cpus=np.int64(1)) fails Ray's check.
    assert actors_in_a_child("import numpy as np", "np.int64(1)") == 1


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs a CPU affinity mask of two CPUs or more")
@pytest.mark.parametrize("address", ["None", "'local'"])
def test_a_new_local_cluster_has_one_actor_per_cpu_this_process_may_use(address):
    # Ray's own count is every CPU of the machine, whatever taskset allowed; the address
    # "local" (a new local cluster too) took Ray's count.
    assert actors_in_a_child("import os\n"
                             "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})",
                             address=address) == 1


def test_a_new_local_cluster_keeps_to_a_cpu_quota():
    # Passing the affinity count to ray.init overrode Ray's own count, which follows a
    # container's CPU quota. No cgroup quota can be set here: Ray's reading of one is
    # replaced by a stand-in giving 1 CPU, in the child process only.
    assert actors_in_a_child("from ray._private import utils\n"
                             "utils._get_docker_cpus = lambda *a, **k: 1.0") == 1


def test_a_pool_whose_cpus_other_actors_hold_says_why_it_waits(cluster):
    # A second pool in a session whose CPUs a first pool held waited for ever, silently.
    with RolloutPool(2, env_kwargs=ENV_KWARGS, progress=False) as first:
        first.pids()  # both actors up, holding the cluster's two CPUs
        with pytest.warns(UserWarning, match=r"the pool's actors ask for 1 CPUs in all and "
                                             r"0 of the Ray cluster's 2 CPUs are free"):
            second = RolloutPool(1, env_kwargs=ENV_KWARGS, progress=False)
        second.close()


def test_a_pool_after_a_closed_one_finds_its_cpus_free(cluster):
    # Ray frees a killed actor's CPUs a moment later: the next pool warned that other
    # actors held them.
    with RolloutPool(2, env_kwargs=ENV_KWARGS, progress=False) as first:
        first.pids()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RolloutPool(2, env_kwargs=ENV_KWARGS, progress=False).close()


def test_an_address_other_than_the_running_sessions_is_said(cluster):
    # The pool joined the running session and dropped the address without a word.
    with pytest.warns(UserWarning, match=r"this process is in a Ray session at \S+: the pool "
                                         r"runs there, not at 192\.0\.2\.2:6379"):
        pool = RolloutPool(1, env_kwargs=ENV_KWARGS, address="192.0.2.2:6379",
                           progress=False)
    pool.close()
    here = ray.get_runtime_context().gcs_address
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RolloutPool(1, env_kwargs=ENV_KWARGS, address=here, progress=False).close()


def test_closing_a_closed_pool_starts_no_cluster():
    # The second close (every `with` block whose body closed the pool) asked Ray for the
    # actors' answers: Ray started a new local cluster (7-8 s), and left it running when
    # the pool had joined a session the user had shut down meanwhile.
    code = ("import ray\n"
            "from mobileintent_gym.distributed import RolloutPool\n"
            "pool = RolloutPool(1, env_id='CartPole-v1', progress=False)\n"
            "pool.close(); pool.close()\n"
            "owned = ray.is_initialized()\n"
            "ray.init(num_cpus=1, include_dashboard=False)\n"
            "pool = RolloutPool(1, env_id='CartPole-v1', progress=False)\n"
            "pool.close(); ray.shutdown(); pool.close()\n"
            "print(owned, ray.is_initialized())")
    ran = python_c(code)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split("\n")[-2] == "False False"  # no cluster left in either case


def test_bad_pool_and_group_arguments_are_named():
    with pytest.raises(ValueError, match="num_actors must be a positive integer, got 0"):
        RolloutPool(0)
    for users in (["demo-ana"], ["demo-ana", "demo-ana", "demo-ben"]):
        with pytest.raises(ValueError, match=rf"two different users .*{re.escape(str(users))}"):
            group_episodes("G-SPT-02:common:explicit", users, 2)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_actors_start_with_the_worker_thread_limits(cluster, monkeypatch):
    monkeypatch.setenv("MOBILEINTENT_GYM_WORKER_THREADS", "2")
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):  # a count set here would win
        monkeypatch.delenv(name, raising=False)
    with RolloutPool(1, env_kwargs=ENV_KWARGS, progress=False) as pool:
        (pid,) = pool.pids()
        with open(f"/proc/{pid}/environ") as file:
            environ = dict(item.split("=", 1) for item in file.read().split("\0") if item)
    assert environ["OPENBLAS_NUM_THREADS"] == "2" and environ["OMP_NUM_THREADS"] == "2"


def _evaluate(tmp_path, name, *args):
    out = tmp_path / f"{name}.json"
    assert main(["evaluate", "--agent", "random", "--seed", "4", "--users", *USERS,
                 "--tasks", *TASKS, "--out", str(out), *args]) == 0
    return json.loads(out.read_text())


def test_evaluate_on_ray_writes_what_one_process_writes(cluster, tmp_path):
    alone = _evaluate(tmp_path, "alone")
    on_ray = _evaluate(tmp_path, "ray", "--ray", "2")
    assert on_ray["episodes"] == alone["episodes"] and on_ray["scores"] == alone["scores"]
    assert len(on_ray["episodes"]) == len(USERS) * len(TASKS)


def test_an_agent_from_a_file_runs_on_ray_actors(cluster, tmp_path):
    # Its module is registered under a name the actors cannot import: it is pickled by value.
    (tmp_path / "my_agent.py").write_text(
        "class Done:\n"
        "    def __init__(self, env, seed):\n"
        "        pass\n\n"
        "    def act(self, observation, info):\n"
        "        return 'COMPLETE'\n")
    out = tmp_path / "run.json"
    assert main(["evaluate", "--agent", f"{tmp_path / 'my_agent.py'}:Done", "--users",
                 USERS[0], "--tasks", TASKS[0], "--ray", "1", "--out", str(out)]) == 0
    steps = json.loads(out.read_text())["episodes"][0]["steps"]
    assert [s["action"] for s in steps] == ["COMPLETE"]


@pytest.mark.parametrize(("held", "named"), [
    ("threading.Lock()", ["it holds HELD (", "reached as make -> act -> HELD", "_thread.lock"]),
    ("ctypes.pointer(ctypes.c_int(1))", ["it holds an object, which cannot be pickled",
                                         "ctypes objects containing pointers"]),
])
def test_an_agent_that_cannot_be_pickled_is_named_in_one_line(cluster, tmp_path, capsys, held,
                                                              named):
    # Ray's own error was a page of its serialisation check, and the exit status 1 (Ray
    # wraps a TypeError; cloudpickle's ValueError came through as it was).
    (tmp_path / "held_agent.py").write_text(
        "import ctypes\nimport threading\n\n"
        f"HELD = {held}\n\n"
        "class Holding:\n"
        "    def __init__(self, env, seed):\n"
        "        pass\n\n"
        "    def act(self, observation, info):\n"
        "        return 'COMPLETE' if HELD else 'COMPLETE'\n")
    assert main(["evaluate", "--agent", f"{tmp_path / 'held_agent.py'}:Holding", "--users",
                 USERS[0], "--tasks", TASKS[0], "--ray", "1"]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("mobileintent-gym evaluate: the agent cannot be sent to Ray's actors: ")
    assert all(part in said for part in named), said


def test_resuming_a_finished_run_on_ray_starts_no_actors(cluster, tmp_path, monkeypatch):
    finished = _evaluate(tmp_path, "ray", "--ray", "2")

    def no_pool(*args, **kwargs):
        raise AssertionError("a finished run needs no Ray actors")

    monkeypatch.setattr("mobileintent_gym.distributed.pool.RolloutPool", no_pool)
    assert _evaluate(tmp_path, "ray", "--ray", "2", "--resume") == finished


def _closed_port():
    with socket.socket() as sock:  # bound, never listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_address_where_no_cluster_answers_is_named(monkeypatch):
    # Ray itself retries such an address for about twenty minutes.
    port = _closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}", "no-such-host.invalid:6379"):
        with pytest.raises(RolloutError, match=f"no Ray cluster answers at '{address}' "):
            check_address(address)
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    with pytest.raises(RolloutError, match=f"answers at '127.0.0.1:{port}'"):
        check_address(None)
    monkeypatch.delenv("RAY_ADDRESS")
    for left_to_ray in (None, "auto", "local"):
        check_address(left_to_ray)
    # A URL's scheme, a port past 65535 and an empty address were taken for host:port
    # (the first two then failed as unreachable; "" started a new local cluster).
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    for garbage in ("garbage", "localhost:abc", ":6379", "ray://", "http://127.0.0.1:80",
                    "127.0.0.1:99999", "127.0.0.1:0", ""):
        with pytest.raises(RolloutError, match=f"'{re.escape(garbage)}' is no Ray address"):
            check_address(garbage)


def test_an_address_where_something_else_answers_is_named(cluster):
    # A web server's port passed the check; Ray then retried it for twenty minutes.
    import http.server
    import threading

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(RolloutError, match=f"something answers at '{address}', but not "
                           "as a Ray cluster does"):
            check_address(address)
    finally:
        server.shutdown()
        server.server_close()
    check_address(ray.get_runtime_context().gcs_address)  # the cluster's own GCS passes


@contextlib.contextmanager
def ray_head(env: dict, cwd=None):
    """A Ray cluster started in a process of its own (as ``ray start`` starts one), with
    ``env`` in ``cwd``, until the block ends: its address."""
    head = subprocess.Popen(
        [sys.executable, "-c", "import ray, sys\n"
         "ray.init(num_cpus=1, include_dashboard=False)\n"
         "print(ray.get_runtime_context().gcs_address, flush=True)\nsys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=cwd)
    try:
        address = head.stdout.readline().strip()
        # None read: $RAY_ADDRESS empty, and the driver would start a cluster of its own.
        assert address, "the Ray head did not start"
        yield address
    finally:
        head.communicate("", timeout=120)


def test_ray_address_from_the_environment_joins_that_cluster(tmp_path):
    # With $RAY_ADDRESS set, Ray refuses a CPU count: the pool used to pass one and crash.
    # One authentication mode for both: where ~/.ray/auth_token exists, a new head turns
    # token authentication on while a process joining it does not (Ray 2.60).
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    code = ("from mobileintent_gym.distributed import RolloutPool\n"
            "with RolloutPool(1, env_id='CartPole-v1', progress=False) as pool:\n"
            "    print(len(pool.pids()))")
    with ray_head(env) as address:
        ran = python_c(code, env={**env, "RAY_ADDRESS": address})
    assert ran.returncode == 0 and ran.stdout.split()[-1] == "1", ran.stderr[-2000:]


def test_actors_of_a_cluster_started_elsewhere_find_the_drivers_profiles(tmp_path):
    # Actors of a cluster started before run in its node's folder and environment: a
    # relative profiles_dir, $MOBILEINTENT_GYM_PROFILES and a profile's relative path
    # named nothing there ("no user profile 'zed'").
    here, node = tmp_path / "here", tmp_path / "node"
    ana = json.loads((builtin_profiles_dir() / "demo-ana.json").read_text())
    for folder, user in (("profs", "zed"), ("env_profs", "yan"), ("paths", "kim")):
        (here / folder).mkdir(parents=True)
        (here / folder / f"{user}.json").write_text(json.dumps({**ana, "user_id": user}))
    node.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MOBILEINTENT_GYM_PROFILES"}
    env["RAY_AUTH_MODE"] = "disabled"  # as ray_head's cluster
    code = ("from mobileintent_gym.agents import RandomAgent\n"
            "from mobileintent_gym.distributed import evaluate_ray\n"
            "from mobileintent_gym.users import PairConfig\n"
            "kwargs = {'observation': ('instruction',), 'profiles_dir': 'profs',\n"
            "          'pair': PairConfig(encoder='lexical')}\n"
            "users = ['zed', 'yan', 'paths/kim.json']\n"
            f"records = evaluate_ray(kwargs, RandomAgent, users, {TASKS[2]!r},\n"
            "                       num_actors=1, progress=False)\n"
            "print(*[r.result.user for r in records])")
    with ray_head(env, cwd=node) as address:
        ran = python_c(code, cwd=here, env={**env, "RAY_ADDRESS": address,
                                            "MOBILEINTENT_GYM_PROFILES": "env_profs"})
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split() == ["zed", "yan", "paths/kim.json"]  # as given


def test_actors_get_the_drivers_profiles_variable_even_where_it_is_unset():
    # Unset here, a node's own folder would put other profiles in place of those the
    # driver looked up, hashed and drew seeds from.
    from mobileintent_gym.distributed.pool import _driver_profiles

    assert _driver_profiles({}) == {"MOBILEINTENT_GYM_PROFILES": ""}
    assert _driver_profiles({"MOBILEINTENT_GYM_PROFILES": "profs"}) == {
        "MOBILEINTENT_GYM_PROFILES": os.path.abspath("profs")}


def test_a_bad_thread_setting_is_named_before_ray_starts(monkeypatch):
    code = ("import ray\nfrom mobileintent_gym.distributed import RolloutPool\n"
            "try:\n    RolloutPool(1, env_id='CartPole-v1')\n"
            "except Exception as err:\n    print(type(err).__name__, err)\n"
            "print('ray running:', ray.is_initialized())")
    ran = python_c(code, timeout=120,
                   env={**os.environ, "MOBILEINTENT_GYM_WORKER_THREADS": "0"})
    lines = ran.stdout.splitlines()
    assert "MOBILEINTENT_GYM_WORKER_THREADS must be a positive integer" in lines[0]
    assert lines[1] == "ray running: False", ran.stderr[-2000:]


class TokenFactory:
    """An agent factory that, like ``hf_agent``, loads something once per process: here a
    token drawn when it is unpickled, which its agents type."""

    def __setstate__(self, state):
        self.token = os.urandom(4).hex()

    def __reduce__(self):
        return TokenFactory, (), {}

    def __call__(self, env, seed):
        token = self.token

        class Typist:
            def act(self, observation, info):
                return f"TYPE[{token}]" if info.get("steps", 0) == 0 else "COMPLETE"

        return Typist()


def test_an_actor_unpickles_the_agent_factory_once_for_all_its_episodes(cluster):
    # Unpickled per episode, a factory that loads a model on first use loaded it each time.
    work = episodes(USERS, TASKS, seed=1)
    with RolloutPool(1, env_kwargs=ENV_KWARGS, progress=False) as pool:
        records = pool.run(work, TokenFactory())
    typed = {record.actions[0] for record in records}
    assert len(records) == 6 and len(typed) == 1 and next(iter(typed)).startswith("TYPE[")


def refusing(env, seed):
    """An agent factory that names why it cannot make an agent (as a bad --agent does)."""
    raise MobileIntentError("no agent for this env: a one-line reason")


def test_an_error_an_episode_raises_is_the_agents_own_one_line(cluster):
    # It came out as Ray's many-line, colour-coded traceback of the actor.
    with (RolloutPool(1, env_kwargs=ENV_KWARGS, progress=False) as pool,
          pytest.raises(MobileIntentError) as caught):
        pool.run(episodes(USERS[:1], TASKS[:1], seed=0), refusing)
    assert not isinstance(caught.value, ray.exceptions.RayTaskError)
    assert str(caught.value) == "no agent for this env: a one-line reason"


def test_an_actor_whose_first_episode_names_a_bad_task_runs_the_next_ones(cluster,
                                                                         single_process):
    # Gymnasium's checker marked the refused first reset as checked: every later step of
    # the actor's env failed with "cannot unpack non-iterable NoneType object". (The
    # package's envs leave the checker out unless asked; here it is asked for.)
    typo = [e._replace(task="G-SPT-03:common:explict") for e in episodes(USERS[:1], TASKS[:1])]
    work = episodes(USERS[:1], TASKS[:2], seed=1)
    with RolloutPool(1, env_kwargs={**ENV_KWARGS, "disable_env_checker": False},
                     progress=False) as pool:
        with pytest.raises(MobileIntentError, match="target type must be one of"):
            pool.run(typo, AGENTS["oracle"])
        got = pool.run(work, AGENTS["oracle"])
    assert got == [run(single_process, AGENTS["oracle"], e) for e in work]
    assert all(record.result.success for record in got)


def test_a_pool_and_evaluate_check_the_address_before_connecting(capsys):
    address = f"127.0.0.1:{_closed_port()}"
    code = ("from mobileintent_gym.distributed import RolloutPool\n"
            f"RolloutPool(1, address={address!r})")
    ran = python_c(code, timeout=120)
    assert ran.returncode == 1
    assert f"RolloutError: no Ray cluster answers at '{address}'" in ran.stderr
    assert main(["evaluate", "--ray-address", address]) == 2
    assert f"no Ray cluster answers at '{address}'" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "says"), [
    (["--ray", "0"], "--ray takes a number of actors of 1 or more, got 0"),
    (["--ray", "2", "--teacher-forced"], "--teacher-forced needs the single-process run"),
    (["--ray", "2", "--device", "adb:emulator-5554"], "a real --device needs"),
])
def test_what_ray_actors_cannot_do_is_refused_first(capsys, args, says):
    assert main(["evaluate", *args]) == 2
    assert says in capsys.readouterr().err


def test_the_trainers_groups_are_the_same_episodes_on_ray_as_in_lockstep(cluster,
                                                                        tiny_lm_folder,
                                                                        tmp_path):
    pytest.importorskip("peft", reason="needs the [llm] extra")
    from mobileintent_gym.rl.trainer import RepairConfig, RepairTrainer

    # Greedy decoding: each episode's agent on an actor answers what the batch does here.
    # Each actor loads the model by its folder, as the trainer here does.
    config = RepairConfig(model=str(tiny_lm_folder), out=str(tmp_path / "run"),
                          tasks=("G-WCT-01:common:explicit",), users=USERS, max_steps=2,
                          max_new_tokens=6, max_elements=3, temperature=0.0)
    groups = {}
    for ray_actors in (None, 2):
        trainer = RepairTrainer(dataclasses.replace(config, ray=ray_actors))
        try:
            groups[ray_actors] = trainer.group(1)
        finally:
            trainer.close()
    here, there = groups[None], groups[2]
    assert here.users == ("demo-ana", "demo-ana", "demo-ben", "demo-ben")
    assert [r.seed for r in here.records] == [r.seed for r in there.records]
    assert here.records == there.records  # steps, results and the policy's turns
    assert all(len(r.turns) == len(r.steps) >= 1 for r in here.records)
    assert ray.is_initialized()  # the trainer's pool leaves the session it found


def test_an_actor_that_cannot_load_the_drivers_kind_of_encoder_fails_the_run(tmp_path):
    # An actor ranked content with the lexical encoder on its own, while the results file
    # recorded the driver's sentence encoder. The actors here cannot import
    # sentence-transformers (a package of that name that raises shadows it), and have no
    # cached content, so they must build it.
    shadow = tmp_path / "shadow" / "sentence_transformers"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not on this node')\n")
    code = ("import os, sys\nfrom mobileintent_gym.cli import main\n"
            "from mobileintent_gym.console import run_encoder\n"
            "assert run_encoder().name != 'lexical'\n"
            f"os.environ['PYTHONPATH'] = {str(shadow.parent)!r}\n"
            f"os.environ['MOBILEINTENT_GYM_CACHE'] = {str(tmp_path / 'cache')!r}\n"
            "sys.exit(main(['evaluate', '--ray', '1', '--users', 'demo-ana', '--tasks', "
            f"'{TASKS[2]}', '--observation', 'instruction', '--out', "
            f"{str(tmp_path / 'run.json')!r}]))")
    ran = python_c(code)
    assert ran.returncode != 0, ran.stdout[-2000:]
    last = ran.stderr.splitlines()[-1]
    assert "was ranked by lexical, not by sentence-transformers/" in last, ran.stderr[-2000:]
    assert not (tmp_path / "run.json").exists()  # no episode recorded: no file written


def test_a_pool_runs_each_runs_own_agent_not_the_first_ones(cluster, single_process):
    # Catches: the actor kept the first agent factory it unpickled for ever (its cache
    # never compared the reference), so a trainer's later updates ran the first policy.
    work = episodes(USERS, TASKS[:2], seed=4)
    with RolloutPool(2, env_kwargs=ENV_KWARGS, progress=False) as pool:
        first = pool.run(work, AGENTS["oracle"])
        second = pool.run(work, AGENTS["random"])
    assert first == [run(single_process, AGENTS["oracle"], e) for e in work]
    assert second == [run(single_process, AGENTS["random"], e) for e in work]
    assert first != second


def test_a_pool_closed_with_episodes_under_way_cancels_them_without_a_word_of_retries():
    # Closed while its actors ran episodes (a stream left, Ctrl-C), the pool killed them:
    # Ray said of each episode and close that it "will be retried", though none was. The
    # stream here is kept (not closed) while one actor is stuck in an episode: close()
    # itself must cancel what runs.
    code = ("import time\n"
            "from mobileintent_gym.distributed import RolloutPool\n"
            "from mobileintent_gym.rollouts import episodes\n"
            "from mobileintent_gym.users import PairConfig\n"
            "work = episodes(['demo-ana'], ['G-SPT-03:common:explicit',\n"
            "                              'G-SPT-03:common:implicit'], 0)\n"
            "quick = work[0].seed\n"
            "class QuickOrStuck:\n"
            "    def __init__(self, env, seed): self.stuck = seed != quick\n"
            "    def act(self, observation, info):\n"
            "        time.sleep(60 if self.stuck else 0)\n"
            "        return 'COMPLETE'\n"
            "pool = RolloutPool(2, env_kwargs={'observation': ('instruction',), 'pair': "
            "PairConfig(encoder='lexical')}, progress=False)\n"
            "kept = pool.stream(work, QuickOrStuck)\n"
            "next(kept)\n"
            "pool.close()\n"
            "print('closed')\n")
    ran = python_c(code)
    said = ran.stdout + ran.stderr
    assert ran.returncode == 0 and "closed" in ran.stdout, said[-3000:]
    assert "retried" not in said, said[-3000:]
