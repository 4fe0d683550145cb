import json
import sys

import pytest

from mobileintent_gym.cli import main

# Succeeds on explicit tasks (the oracle's steps), fails on implicit ones: an invalid
# action, then COMPLETE. Runs as `--agent MODULE:Scripted` from the working folder.
SCRIPTED = '''
from mobileintent_gym.agents import OracleAgent


class Scripted:
    def __init__(self, env, seed):
        self.oracle, self.steps = OracleAgent(env), 0

    def act(self, obs, info):
        self.steps += 1
        if info["task"].endswith("explicit"):
            return self.oracle.act(obs, info)
        return "CLICK[oops]" if self.steps == 1 else "COMPLETE"
'''
TASKS = ("G-SPT-02:common:explicit", "G-SPT-02:personal:implicit", "G-WCT-02:personal:explicit")


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory):
    """A run of the scripted agent for two users on three tasks: its results file."""
    folder = tmp_path_factory.mktemp("run")
    name = f"scripted_{abs(hash(str(folder)))}"
    (folder / f"{name}.py").write_text(SCRIPTED)
    sys.path.insert(0, str(folder))
    try:
        out = folder / "run.json"
        assert main(["evaluate", "--agent", f"{name}:Scripted", "--users", "demo-ana",
                     "demo-ben", "--tasks", *TASKS, "--out", str(out)]) == 0
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop(name, None)
    assert [e["success"] for e in json.loads(out.read_text())["episodes"]] == [
        True, False, True] * 2
    return out
