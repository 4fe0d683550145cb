import json
import sys

import pytest

from mobileintent_gym.cli import main
from tests.helpers import write_agents

TASKS = ("G-SPT-02:common:explicit", "G-SPT-02:personal:implicit", "G-WCT-02:personal:explicit")


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory):
    """A run of the scripted agent for two users on three tasks: its results file."""
    folder = tmp_path_factory.mktemp("run")
    name = write_agents(folder)
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
