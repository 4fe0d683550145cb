"""``evaluate`` from a researcher's side: own agents, resuming, progress and clean errors."""

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import types
from pathlib import Path

import pytest

import mobileintent_gym.users
from mobileintent_gym import console
from mobileintent_gym import evaluate as evaluate_module
from mobileintent_gym.cli import main
from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.users import make_encoder
from tests.helpers import (
    exit_status,
    write_agent_with_helper,
    write_agents,
    written_by_another_process,
)

BUILT_IN = Path(mobileintent_gym.users.__file__).parent / "profiles"
TASKS = ("G-SPT-03:common:explicit", "G-SPT-03:common:implicit", "G-WCT-01:personal:explicit")


@pytest.fixture
def agent_module(tmp_path, monkeypatch):
    """A module of agents in the working folder, under a name unique to the test."""
    name = write_agents(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def run(*args):
    return main(["evaluate", *args])


def test_an_own_agent_class_or_function_runs_from_the_command_line(agent_module, tmp_path):
    for spec in (f"{agent_module}:Scripted", f"{agent_module}:make",
                 f"{tmp_path / agent_module}.py:Scripted"):
        out = tmp_path / "run.json"
        assert run("--agent", spec, "--users", "demo-ana", "--tasks", *TASKS,
                   "--out", str(out)) == 0
        episodes = json.loads(out.read_text())["episodes"]
        assert [e["task"] for e in episodes] == list(TASKS)
        assert [e["success"] for e in episodes] == [True, False, True]
        invalid = episodes[1]["steps"][0]
        assert invalid["action"] == "'CLICK[oops]'" and "oops" in invalid["invalid"]
        assert invalid["route_before"] == invalid["route_after"] == "music/home"
        assert episodes[1]["steps"][1]["action"] == "COMPLETE"


def test_an_agent_file_runs_with_dataclasses_and_takes_no_modules_name(tmp_path):
    # Run without registering its module, a dataclass under string annotations crashed
    # inside dataclasses; registered under its stem, a file named like another module
    # (random.py) would take that module's place.
    (tmp_path / "my_agent.py").write_text(
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\n"
        "class Done:\n"
        "    env: object\n"
        "    seed: int\n\n"
        "    def act(self, observation: dict, info: dict) -> str:\n"
        "        return 'COMPLETE'\n")
    out = tmp_path / "run.json"
    assert run("--agent", f"{tmp_path / 'my_agent.py'}:Done", "--users", "demo-ana", "--tasks",
               TASKS[0], "--out", str(out)) == 0
    assert json.loads(out.read_text())["episodes"][0]["steps"][0]["action"] == "COMPLETE"
    assert "my_agent" not in sys.modules


def test_an_agent_file_whose_path_holds_a_colon_is_read_to_the_last_colon(tmp_path):
    # The spec was cut at its first colon: "C:\\Users\\me\\agent.py:Name" read as module "C".
    from mobileintent_gym.agents.resolve import parse_agent

    folder = tmp_path / "C:" / "agents"
    folder.mkdir(parents=True)
    (folder / "done.py").write_text("def Done(env, seed):\n    return None\n")
    spec = parse_agent(f"{folder / 'done.py'}:Done")
    assert spec.names == f"{(folder / 'done.py').resolve()}:Done"


@pytest.mark.parametrize(("spec", "says"), [
    ("nosuchmodule_x:Agent", "no module 'nosuchmodule_x'"),
    ("{module}:Nope", "has no 'Nope'"),
    ("{module}:CALLS", "is not a class or function"),
    ("justaname", "names no agent"),
    ("missing.py:Agent", "no file 'missing.py'"),
    # Each of these failed only after the encoder loaded and --out was written: a raw
    # TypeError traceback, or an empty run left behind.
    ("mobileintent_gym.agents.assist:TruthProposer",
     "cannot be called as TruthProposer(env, seed)"),
    (".relative:Agent", "'.relative' is a relative module name"),
    ("hf:/no/such/model", "no model folder or .gguf file '/no/such/model'"),
    # hf:$MODEL with the variable unset ran the default model.
    ("hf:", "names no model after 'hf:'; give hf alone for the default model"),
])
def test_a_wrong_agent_spec_is_one_line_naming_the_fix(agent_module, capsys, spec, says):
    assert run("--agent", spec.format(module=agent_module)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and "Traceback" not in err[0]


def test_an_agent_file_imports_the_modules_beside_it(tmp_path, monkeypatch):
    # Run from another folder, "from helpers import ..." raised ModuleNotFoundError, where
    # `python sub/my_agent.py` finds it.
    agent = write_agent_with_helper(tmp_path, "helpers_beside_x")
    monkeypatch.chdir(tmp_path)
    path = list(sys.path)
    try:
        out = tmp_path / "run.json"
        assert run("--agent", agent, "--users", "demo-ana", "--tasks",
                   TASKS[0], "--out", str(out)) == 0
        assert json.loads(out.read_text())["episodes"][0]["steps"][0]["action"] == "COMPLETE"
        assert sys.path == path  # its folder was on the path while it ran only
    finally:
        sys.modules.pop("helpers_beside_x", None)


def test_an_agent_files_source_hash_covers_its_helpers_wherever_it_is_read_from(
        tmp_path, monkeypatch):
    # Helpers found on sys.path already (run from the agent's folder) were left out, a
    # helper package's submodules too, and another agent file loaded first changed it.
    from mobileintent_gym.agents.resolve import parse_agent

    folder = tmp_path / "ag"
    (folder / "helpers_src").mkdir(parents=True)
    (folder / "helpers_src" / "__init__.py").write_text("")
    (folder / "helpers_src" / "util.py").write_text("ACTION = 'COMPLETE'\n")
    (folder / "agent.py").write_text(
        "from helpers_src.util import ACTION\n\n\ndef make(env, seed):\n    return ACTION\n")
    (folder / "other.py").write_text(
        "import other_helper_src\n\n\ndef make(env, seed):\n    return None\n")
    (folder / "other_helper_src.py").write_text("X = 1\n")

    def source(cwd):
        for name in ("helpers_src", "helpers_src.util", "other_helper_src"):
            sys.modules.pop(name, None)
        monkeypatch.chdir(cwd)
        return parse_agent(f"{folder / 'agent.py'}:make").source

    first = source(tmp_path)
    monkeypatch.syspath_prepend(str(folder))  # as `python -m` run from the agent's folder
    assert source(folder) == first
    parse_agent(f"{folder / 'other.py'}:make")  # another agent file loaded before it
    assert parse_agent(f"{folder / 'agent.py'}:make").source == first
    (folder / "helpers_src" / "util.py").write_text("ACTION = 'PRESS[BACK]'\n")
    assert source(tmp_path) != first
    for name in ("helpers_src", "helpers_src.util", "other_helper_src"):
        sys.modules.pop(name, None)


def test_an_agent_module_that_imports_something_missing_raises_its_own_error(
        tmp_path, monkeypatch):
    # "numpyx_agent" starts with "numpyx", the missing import: it used to read as "no
    # module 'numpyx_agent'", hiding the real error.
    (tmp_path / "numpyx_agent.py").write_text("import numpyx\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ModuleNotFoundError, match="numpyx'"):
            run("--agent", "numpyx_agent:Agent")
    finally:
        sys.modules.pop("numpyx_agent", None)


def test_an_agent_without_act_is_refused_when_it_is_made(agent_module, capsys):
    assert run("--agent", f"{agent_module}:Mute", "--tasks", TASKS[0]) == 2
    assert "has no act(observation, info) method" in capsys.readouterr().err


def test_hf_agents_are_delegated_and_name_the_llm_extra(monkeypatch, tmp_path):
    """The Hugging Face agent module is another part of the package; a stand-in module
    takes its place so that the delegation itself is what is tested."""
    from mobileintent_gym.agents import resolve
    from mobileintent_gym.agents.lm import DEFAULT_MODEL, PACKAGED

    made = []
    module = types.ModuleType(resolve.HF_MODULE)
    module.hf_agent = lambda model: made.append(model) or (lambda env, seed: "agent")
    monkeypatch.setitem(sys.modules, resolve.HF_MODULE, module)
    monkeypatch.setattr(resolve, "_installed", lambda name: True)
    spec = resolve.parse_agent("hf:some/model")
    assert made == []  # parsing loads no model
    with pytest.raises(resolve.AgentSpecError, match="no act"):
        spec.factory()(None, 0)
    assert made == ["some/model"]
    # Plain hf names (and loads) the model it resolves to: the hub's, or the packaged one
    # offline. The provenance said "hf" whichever loaded, so a resume mixed the two.
    plain = resolve.parse_agent("hf")
    assert plain.names in (f"hf:{DEFAULT_MODEL}", f"hf:{PACKAGED}")
    assert plain.build() and made[-1] == plain.names[3:]
    # A relative path is recorded absolute, as a file agent's is: the same model from
    # another folder (view, --resume).
    (tmp_path / "mine").mkdir()
    monkeypatch.chdir(tmp_path)
    assert resolve.parse_agent("hf:mine").names == f"hf:{tmp_path / 'mine'}"
    assert resolve.parse_agent("hf:some/model").names == "hf:some/model"  # a hub id
    # Two slashes or more make a path (a hub id is "owner/name"): a missing one is named.
    for missing in ("models/my/model", "a/b/c/d", "./model", "weights.gguf"):
        with pytest.raises(resolve.AgentSpecError, match=r"no model folder or \.gguf file"):
            resolve.parse_agent(f"hf:{missing}")
    monkeypatch.setattr(resolve, "_installed", lambda name: False)
    with pytest.raises(resolve.DependencyNotInstalled, match=r"mobileintent-gym\[llm\]"):
        resolve.parse_agent("hf")


def test_a_run_cut_short_keeps_its_episodes_and_resumes_where_it_stopped(agent_module,
                                                                         tmp_path, monkeypatch):
    module = __import__(agent_module)
    args = ("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "demo-ben",
            "--tasks", *TASKS, "--seed", "4")
    full = tmp_path / "full.json"
    assert run(*args, "--out", str(full)) == 0

    cut = tmp_path / "cut.json"
    real_record = evaluate_module.record_episode
    calls = []

    def stops_at_the_fourth(*a, **k):
        calls.append(a[2:4])
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real_record(*a, **k)

    monkeypatch.setattr(evaluate_module, "record_episode", stops_at_the_fourth)
    assert run(*args, "--out", str(cut)) == 130  # Ctrl-C: one line, no traceback
    kept = json.loads(cut.read_text())  # a whole JSON document after every episode
    assert [e["task"] for e in kept["episodes"]] == list(TASKS)
    assert kept["scores"]["task_sr"] == pytest.approx(2 / 3)

    monkeypatch.setattr(evaluate_module, "record_episode", real_record)
    module.CALLS.clear()
    assert run(*args, "--out", str(cut), "--resume") == 0
    assert len(module.CALLS) == 3  # only demo-ben's episodes ran again
    started = json.loads(full.read_text())["provenance"]["started"]
    resumed = json.loads(cut.read_text())
    resumed["provenance"]["started"] = started
    assert resumed == json.loads(full.read_text())
    module.CALLS.clear()
    assert run(*args, "--out", str(cut), "--resume") == 0  # a finished run: nothing to run
    assert module.CALLS == [] and json.loads(cut.read_text())["episodes"] == resumed["episodes"]


@pytest.mark.parametrize(("change", "named"), [
    ({"rewards": ["a"]}, "rewards are numbers from 0 to 1"),
    ({"contexts": {"UA": 1, "UC": 2}}, "contexts must be a list, one per subgoal"),
    ({"reached": "yes"}, "reached must be a list, one per subgoal"),
    ({"success": "maybe"}, "success must be true or false"),
    ({"seed": "abc"}, "'seed' must be an integer >= 0"),
    ({"steps": "zzz"}, "'steps' must be a list of steps"),
    ({"index": 7}, "its index must be 0"),
    ({"teacher_forced": "yes"}, "'teacher_forced' must be a list of true/false"),
    ({"teacher_forced": [2, 3]}, "'teacher_forced' must be a list of true/false"),  # SSR > 1
    ({"frames": [1]}, "'frames' must be a list of file names"),
])
def test_a_damaged_episode_is_named_by_view_and_resume_and_nothing_is_written(
        agent_module, tmp_path, capsys, change, named):
    # view gave tracebacks; --resume ran and wrote the remaining episodes, then crashed
    # while scoring, or added the scores up wrongly.
    args = ("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "--tasks", *TASKS)
    out = tmp_path / "run.json"
    assert run(*args, "--out", str(out)) == 0
    data = json.loads(out.read_text())
    data["episodes"] = data["episodes"][:2]
    data["episodes"][0].update(change)
    out.write_text(json.dumps(data))
    before = out.read_text()
    capsys.readouterr()
    assert run(*args, "--out", str(out), "--resume") == 2
    assert main(["view", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len([line for line in err if "run.json': episode 0: " in line and named in line]
               ) == 2, err
    assert out.read_text() == before and not out.with_suffix(".html").exists()


def test_a_resume_refuses_episodes_the_run_would_not_have_run(agent_module, tmp_path, capsys):
    # A done episode of another task was kept and scored: 5 episodes for 4 planned.
    args = ("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "--tasks", *TASKS)
    out = tmp_path / "run.json"
    assert run(*args, "--out", str(out)) == 0
    data = json.loads(out.read_text())
    data["episodes"] = data["episodes"][:2]
    data["episodes"][1]["task"] = "G-SPT-02:common:explicit"
    out.write_text(json.dumps(data))
    assert run(*args, "--out", str(out), "--resume") == 2
    assert ("holds episode 1 (demo-ana, G-SPT-02:common:explicit) though the run has no "
            "such episode") in capsys.readouterr().err
    data["episodes"][1]["task"] = data["episodes"][0]["task"]
    out.write_text(json.dumps(data))
    assert run(*args, "--out", str(out), "--resume") == 2
    assert f"(demo-ana, {TASKS[0]}) twice" in capsys.readouterr().err
    out.write_text(json.dumps(data)[:100])  # cut short: it named no fix
    assert run(*args, "--out", str(out), "--resume") == 2
    assert capsys.readouterr().err.strip().endswith(
        "its provenance line is damaged; give the --out of the run to continue, or drop "
        "--resume and choose another --out")


def test_ctrl_c_while_the_scores_are_computed_leaves_the_file_whole(agent_module, tmp_path,
                                                                  monkeypatch, capsys):
    # The episode's line was written over the old tail before the new scores were
    # computed (most of a long run's time): Ctrl-C then left a file that was no JSON.
    real_scores, calls = evaluate_module.RunningScores.__call__, []

    def interrupted_second(self, episodes):
        calls.append(1)
        if len(calls) == 2:  # the first episode's, then the second's (none at the start)
            raise KeyboardInterrupt
        return real_scores(self, episodes)

    monkeypatch.setattr(evaluate_module.RunningScores, "__call__", interrupted_second)
    out = tmp_path / "run.json"
    assert run("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "--tasks",
               *TASKS, "--out", str(out)) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "mobileintent-gym evaluate: interrupted"
    kept = json.loads(out.read_text())
    assert [e["task"] for e in kept["episodes"]] == [TASKS[0]]
    assert kept["scores"]["task_sr"] == float(kept["episodes"][0]["success"])


def test_a_profiles_folder_without_profiles_is_named(tmp_path, capsys):
    # It read "users is empty; give a set (train, val, test, demo, all) or profile names".
    assert run("--profiles", str(tmp_path), "--tasks", TASKS[0]) == 2
    assert capsys.readouterr().err == (f"mobileintent-gym evaluate: --profiles "
                                       f"'{tmp_path}' holds no profile (NAME.json or "
                                       "NAME/profile.json); give --users, or another folder\n")


def test_a_ray_address_without_ray_names_the_extra(monkeypatch, capsys):
    # It said "no Ray cluster answers at …; start one with 'ray start --head'" where Ray
    # itself was missing. Ray is installed here, so its absence is simulated.
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    assert run("--ray-address", "127.0.0.1:1") == 2
    assert capsys.readouterr().err == ("mobileintent-gym evaluate: 'ray' is not installed; run: "
                                       "pip install 'mobileintent-gym[distributed]'\n")


def test_a_resume_with_no_run_at_out_says_it_starts_one(tmp_path, capsys):
    # A misspelt --out started a fresh run without a word (train repair said it).
    out = tmp_path / "new.json"
    assert run("--users", "demo-ana", "--tasks", TASKS[0], "--out", str(out), "--resume") == 0
    assert (f"--resume: {out} holds no run to continue; starting a new run there"
            in capsys.readouterr().err)
    assert len(json.loads(out.read_text())["episodes"]) == 1


def test_a_run_into_an_out_another_evaluate_writes_is_refused(tmp_path, capsys):
    # Both ran: the second replaced the file, and the first's episodes went on into the
    # file it had replaced, no longer there.
    out = tmp_path / "run.json"
    assert run("--users", "demo-ana", "--tasks", TASKS[0], "--out", str(out)) == 0
    before = out.read_bytes()
    with written_by_another_process(out):
        assert run("--users", "demo-ana", "--tasks", *TASKS[:2], "--out", str(out),
                   "--resume") == 2
    assert capsys.readouterr().err.endswith(
        f"mobileintent-gym evaluate: another process is writing {out} now; wait until it "
        "ends, or write elsewhere\n")
    assert out.read_bytes() == before
    # A file a run is writing was read first, and named as a run that stopped part-way.
    out.write_bytes(before[:len(before) // 2])
    with written_by_another_process(out):
        assert run("--users", "demo-ana", "--tasks", TASKS[0], "--out", str(out)) == 2
    assert "another process is writing" in capsys.readouterr().err


def test_a_run_that_stopped_early_or_another_file_is_not_started_over_without_resume(
        tmp_path, capsys):
    # Without --resume, a crashed run's file was replaced by a fresh run: its episodes lost.
    two = ("--users", "demo-ana", "--tasks", *TASKS[:2])
    cut = tmp_path / "cut.json"
    assert run(*two, "--out", str(cut)) == 0
    whole = cut.read_text()
    head, _, _ = whole.rpartition("\n],")  # killed after its episodes, before the scores
    cut.write_text(head.rsplit("\n", 1)[0] + "\n")
    stopped = cut.read_text()
    assert run(*two, "--out", str(cut)) == 2
    err = capsys.readouterr().err
    assert "stopped after 1 of 2 episodes" in err and "--resume" in err
    assert cut.read_text() == stopped
    # The same phone written out, the same fields in another order: refused before as
    # "other settings (device)", "(observation)".
    assert run(*two, "--out", str(cut), "--resume", "--device", "sim:1080x2400",
               "--observation", "hierarchy", "instruction", "hierarchy") == 0
    assert json.loads(cut.read_text())["provenance"]["observation"] == [
        "hierarchy", "instruction"]  # a field given twice is one field
    assert json.loads(cut.read_text())["episodes"] == json.loads(whole)["episodes"]
    assert run(*two, "--out", str(cut)) == 0  # a finished run is replaced

    # A run that did no episode (an agent that failed at once, then fixed) loses nothing.
    none_done = json.loads(whole)
    none_done["episodes"] = []
    cut.write_text(json.dumps(none_done))
    assert run(*two, "--out", str(cut)) == 0

    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": 1}')
    assert run(*two[:3], TASKS[0], "--out", str(notes)) == 2
    assert "not the record of an evaluate run" in capsys.readouterr().err
    assert notes.read_text() == '{"mine": 1}'
    notes.write_text("")
    assert run(*two[:3], TASKS[0], "--out", str(notes)) == 0  # an empty file is no loss


def test_a_run_that_fails_before_its_first_episode_leaves_the_last_runs_file(tmp_path):
    # The file was replaced when the run started: an agent that failed at once (a model
    # id mistyped) left a run of no episode where a finished run's results had been.
    out = tmp_path / "run.json"
    assert run("--users", "demo-ana", "--tasks", TASKS[0], "--out", str(out)) == 0
    finished = out.read_text()
    agent = tmp_path / "broken_agent.py"
    agent.write_text("class A:\n    def __init__(self, env, seed):\n"
                     "        raise OSError('no such model: org/mistyped')\n\n"
                     "    def act(self, observation, info):\n        return 'COMPLETE'\n")
    with pytest.raises(OSError, match="no such model"):
        run("--agent", f"{agent}:A", "--users", "demo-ana", "--tasks", TASKS[0],
            "--out", str(out))
    assert out.read_text() == finished


def test_resuming_an_empty_file_or_one_cut_before_any_episode_runs_every_episode(tmp_path):
    # Both were refused as not a run's record, while a run started anew replaced them.
    out = tmp_path / "run.json"
    args = ("--users", "demo-ana", "--tasks", *TASKS[:2], "--out", str(out))
    assert run(*args) == 0
    whole = json.loads(out.read_text())
    for kept in ("", out.read_text().split("\n")[0] + "\n"):
        out.write_text(kept)
        assert run(*args, "--resume") == 0
        again = json.loads(out.read_text())
        assert again["episodes"] == whole["episodes"] and again["scores"] == whole["scores"]


def test_resuming_with_other_arguments_is_refused_naming_them(tmp_path, capsys):
    out = tmp_path / "run.json"
    assert run("--tasks", TASKS[0], "--out", str(out)) == 0
    before = out.read_text()
    assert run("--tasks", TASKS[0], "--seed", "9", "--out", str(out), "--resume") == 2
    assert "other settings (seed)" in capsys.readouterr().err
    assert out.read_text() == before


def test_a_resume_compares_the_encoder_by_its_model_not_by_how_its_fallback_is_worded(
        tmp_path, capsys):
    # A run written while loading worded the reason for the fallback after what loading
    # raised; one that reads the disk words it after what is there: the resume was refused.
    cut = tmp_path / "cut.json"
    two = ("--users", "demo-ana", "--tasks", *TASKS[:2])
    assert run(*two, "--out", str(cut)) == 0
    record = json.loads(cut.read_text())
    record["episodes"] = record["episodes"][:1]
    prov = record["provenance"]
    fell_back = prov["encoder_fallback"] is not None
    reworded = "worded otherwise" if fell_back else None
    for changes, code in (({"encoder_fallback": reworded}, 0),
                          ({"encoder_fallback": None if fell_back else "a fallback"}, 2),
                          ({"encoder": "org/other-model"}, 2)):
        cut.write_text(json.dumps({**record, "provenance": {**prov, **changes}}))
        assert run(*two, "--out", str(cut), "--resume") == code
        if code:
            assert "other settings (encoder" in capsys.readouterr().err
        else:
            assert len(json.loads(cut.read_text())["episodes"]) == 2


def test_a_resume_from_another_folder_with_another_agent_file_is_refused(tmp_path,
                                                                         monkeypatch, capsys):
    # The spec was stored as typed: 'agent.py:A' from another folder loaded another file,
    # and the run went on with it, mixing two agents' episodes.
    for folder, action in (("one", "COMPLETE"), ("two", "PRESS[BACK]")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "agent.py").write_text(
            "class A:\n    def __init__(self, env, seed):\n        pass\n\n"
            f"    def act(self, observation, info):\n        return {action!r}\n")
    out = tmp_path / "run.json"
    monkeypatch.chdir(tmp_path / "one")
    assert run("--agent", "agent.py:A", "--tasks", TASKS[0], "--out", str(out)) == 0
    provenance = json.loads(out.read_text())["provenance"]
    assert provenance["agent"] == f"{tmp_path / 'one' / 'agent.py'}:A"
    monkeypatch.chdir(tmp_path / "two")
    assert run("--agent", "agent.py:A", "--tasks", TASKS[0], "--out", str(out),
               "--resume") == 2
    assert "other settings (agent, agent_source)" in capsys.readouterr().err


def test_a_resume_with_the_agents_code_a_users_profile_or_the_package_changed_is_refused(
        tmp_path, monkeypatch, capsys):
    # Each was accepted: the file mixed two agents' episodes, or two profiles' content
    # (a profile of the same name found elsewhere, MOBILEINTENT_GYM_PROFILES being unrecorded).
    agent = tmp_path / "agent.py"
    agent.write_text("class A:\n    def __init__(self, env, seed):\n        pass\n\n"
                     "    def act(self, observation, info):\n        return 'COMPLETE'\n")
    out = tmp_path / "run.json"
    args = ("--agent", f"{agent}:A", "--users", "demo-ana", "--tasks", *TASKS[:2])
    monkeypatch.delenv("MOBILEINTENT_GYM_PROFILES", raising=False)
    assert run(*args, "--out", str(out)) == 0
    record = json.loads(out.read_text())
    record["episodes"] = record["episodes"][:1]
    cut = json.dumps(record)
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    profile = json.loads((BUILT_IN / "demo-ana.json").read_text())
    profile["demographics"]["age"] = "45-54 years old"
    (shadow / "demo-ana.json").write_text(json.dumps(profile))

    def edit_agent():
        agent.write_text(agent.read_text() + "# edited\n")

    def change_package():
        out.write_text(cut.replace(record["provenance"]["package_source"], "another-build"))

    for change, named in ((lambda: monkeypatch.setenv("MOBILEINTENT_GYM_PROFILES", str(shadow)),
                           "profiles_content of 'demo-ana'"),
                          (change_package, "package_source"),
                          (edit_agent, "agent_source")):
        out.write_text(cut)
        change()
        assert run(*args, "--out", str(out), "--resume") == 2
        assert (f"--resume: the code or a user's profile changed since {str(out)!r} was "
                f"written ({named})") in capsys.readouterr().err
        monkeypatch.delenv("MOBILEINTENT_GYM_PROFILES", raising=False)
    out.write_text(cut)  # nothing changed since but the agent file's text: refused still
    assert run(*args, "--out", str(out), "--resume") == 2
    # A helper module beside the agent file is its code too.
    helper = tmp_path / "agent_helper.py"
    helper.write_text("ACTION = 'COMPLETE'\n")
    agent.write_text("from agent_helper import ACTION\n\n\nclass A:\n"
                     "    def __init__(self, env, seed):\n        pass\n\n"
                     "    def act(self, observation, info):\n        return ACTION\n")
    out.unlink()
    assert run(*args, "--out", str(out)) == 0
    record = json.loads(out.read_text())
    record["episodes"] = record["episodes"][:1]
    out.write_text(json.dumps(record))
    sys.modules.pop("agent_helper", None)
    helper.write_text("ACTION = 'PRESS[BACK]'\n")
    capsys.readouterr()
    assert run(*args, "--out", str(out), "--resume") == 2
    assert "changed since" in capsys.readouterr().err.split("\n")[-2]


def test_a_resume_with_the_same_profiles_found_elsewhere_continues(tmp_path, monkeypatch):
    # Where the environment pointed for profiles is recorded (view finds users there), but
    # a resume compares the profiles found, not the folder they were found in.
    out = tmp_path / "run.json"
    args = ("--users", "demo-ana", "--tasks", *TASKS[:2], "--out", str(out))
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        shutil.copy(BUILT_IN / "demo-ana.json", tmp_path / name)
    monkeypatch.setenv("MOBILEINTENT_GYM_PROFILES", str(tmp_path / "one"))
    assert run(*args) == 0
    record = json.loads(out.read_text())
    assert record["provenance"]["profiles_env"] == str(tmp_path / "one")
    out.write_text(json.dumps({**record, "episodes": record["episodes"][:1]}))
    monkeypatch.setenv("MOBILEINTENT_GYM_PROFILES", str(tmp_path / "two"))
    assert run(*args, "--resume") == 0
    assert json.loads(out.read_text())["episodes"] == record["episodes"]


@pytest.mark.parametrize("given", ["folder", "file"])
def test_a_resume_after_the_profiles_moved_continues_with_them_where_they_are(tmp_path,
                                                                            given, capsys):
    # --profiles and a profile's path were compared as given: a folder moved (renamed,
    # mounted elsewhere) made a run impossible to resume, though the profiles were the same.
    out = tmp_path / "run.json"

    def users(folder):
        return (("--profiles", str(folder)) if given == "folder"
                else ("--users", str(folder / "demo-ana.json")))

    (tmp_path / "one").mkdir()
    shutil.copy(BUILT_IN / "demo-ana.json", tmp_path / "one")
    assert run(*users(tmp_path / "one"), "--tasks", *TASKS[:2], "--out", str(out)) == 0
    whole = json.loads(out.read_text())
    out.write_text(json.dumps({**whole, "episodes": whole["episodes"][:1]}))
    (tmp_path / "one").rename(tmp_path / "two")
    capsys.readouterr()
    assert run(*users(tmp_path / "two"), "--tasks", *TASKS[:2], "--out", str(out),
               "--resume") == 0
    assert "resuming" in capsys.readouterr().err
    again = json.loads(out.read_text())
    moved = str(tmp_path / "two" / "demo-ana.json") if given == "file" else "demo-ana"
    assert again["provenance"]["users"] == [moved]
    assert [e["user"] for e in again["episodes"]] == [moved, moved]
    assert again["scores"] == whole["scores"]
    fields = ("task", "success", "steps", "seed", "instruction", "target")
    assert ([{k: e[k] for k in fields} for e in again["episodes"]]
            == [{k: e[k] for k in fields} for e in whole["episodes"]])
    if given == "file":  # another profile at the new place is another user
        out.write_text(json.dumps({**whole, "episodes": whole["episodes"][:1]}))
        profile = json.loads((tmp_path / "two" / "demo-ana.json").read_text())
        profile["demographics"]["age"] = "45-54 years old"
        (tmp_path / "two" / "demo-ana.json").write_text(json.dumps(profile))
        assert run(*users(tmp_path / "two"), "--tasks", *TASKS[:2], "--out", str(out),
                   "--resume") == 2
        assert "profiles_content" in capsys.readouterr().err


def test_a_resume_killed_while_it_rewrites_the_file_keeps_every_episode(agent_module,
                                                                       tmp_path, monkeypatch):
    # A resumed run writes its earlier episodes anew; the file used to be emptied first,
    # so a process killed meanwhile lost them.
    from mobileintent_gym import results

    args = ("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "--tasks", *TASKS)
    out = tmp_path / "run.json"
    assert run(*args, "--out", str(out)) == 0
    before = out.read_text()
    dumped = []

    def dies_at_the_second_episode(value, *rest, **options):
        dumped.append(value)
        if len(dumped) == 3:  # the provenance, the first episode, then the second
            raise KeyboardInterrupt
        return json.dumps(value, *rest, **options)

    fake = types.ModuleType("json")
    fake.__dict__.update(json.__dict__)
    fake.dumps = dies_at_the_second_episode
    monkeypatch.setattr(results, "json", fake)
    assert run(*args, "--out", str(out), "--resume") == 130
    assert out.read_text() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_out_that_is_a_link_is_written_through(agent_module, tmp_path):
    # The file is written beside its target and renamed over it; the link used to be
    # replaced by a file of its own, leaving the target untouched.
    (tmp_path / "runs").mkdir()
    target, link = tmp_path / "runs" / "run.json", tmp_path / "latest.json"
    target.write_text("")
    link.symlink_to(target)
    assert run("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "--tasks",
               TASKS[0], "--out", str(link)) == 0
    assert link.is_symlink() and json.loads(target.read_text())["episodes"]


def test_an_unwritable_out_fails_before_any_episode(agent_module, tmp_path, capsys):
    module = __import__(agent_module)
    blocker = tmp_path / "file"
    blocker.write_text("")
    module.CALLS.clear()
    assert run("--agent", f"{agent_module}:Scripted", "--out", str(blocker / "run.json")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write" in err[0] and "choose another --out" in err[0]
    assert f"{str(blocker)!r} is a file, not a folder" in err[0]  # not "File exists"
    assert run("--agent", f"{agent_module}:Scripted", "--html", str(blocker / "r.html")) == 2
    assert "choose another --html" in capsys.readouterr().err
    same = tmp_path / "run.html"  # --html alone puts the report at --out's .html: here, itself
    assert run("--agent", f"{agent_module}:Scripted", "--out", str(same), "--html") == 2
    assert "is the results file of --out" in capsys.readouterr().err
    assert module.CALLS == [] and not same.exists()
    script = tmp_path / f"{agent_module}.py"  # --html overwrote it
    source = script.read_text()
    assert run("--agent", f"{agent_module}:Scripted", "--out", str(tmp_path / "r.json"),
               "--html", str(script)) == 2
    assert "holds a file that is not a report (it is kept)" in capsys.readouterr().err
    assert script.read_text() == source and module.CALLS == []


@pytest.fixture
def closed_folder(tmp_path):
    """A folder that takes no new file while its files stay writable.

    As root (which ignores permission bits) the folder is made immutable instead.
    """
    folder = tmp_path / "closed"
    folder.mkdir()
    (folder / "run.json").write_text("")
    (folder / "run.html").write_text("")
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("root cannot make a folder immutable here (no chattr)")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_folder_that_takes_no_new_file_fails_before_any_episode(agent_module,
                                                                  closed_folder, capsys):
    # Results and reports are written beside their target and renamed over it, so a
    # writable file in a closed folder cannot be written either.
    module = __import__(agent_module)
    module.CALLS.clear()
    for option, name in (("--out", "run.json"), ("--html", "run.html")):
        assert run("--agent", f"{agent_module}:Scripted", "--users", "demo-ana", "--tasks",
                   TASKS[0], option, str(closed_folder / name)) == 2
        err = capsys.readouterr().err
        assert "cannot write" in err and f"choose another {option}" in err
    assert module.CALLS == []
    assert sorted(p.name for p in closed_folder.iterdir()) == ["run.html", "run.json"]


def test_mistakes_are_one_line_each_and_load_no_model(monkeypatch, tmp_path, capsys):
    def no_model(*args, **kwargs):
        raise AssertionError("an encoder was loaded before the arguments were checked")

    monkeypatch.setattr(evaluate_module, "run_encoder", no_model)
    mistakes = {
        ("--users", "nobody"): "no user profile 'nobody'; searched built-in",
        # Run twice and counted twice in every score, all-success groups included.
        ("--users", "demo-ana", str(BUILT_IN / "demo-ana.json")):
            "are both user 'demo-ana', who would be run and scored twice; give one",
        ("--templates", "G-XXX-01"): f"--templates: unknown ['G-XXX-01']; known: "
                                     f"{sorted(TEMPLATES)}",
        ("--tasks", "G-SPT-02:mine:explicit"): "target type must be one of",
        ("--device", "phone"): "use 'sim', 'adb:<serial>'",
        ("--profiles", str(tmp_path / "nowhere")): "is not a folder",
        ("--teacher-forced", "--device-has-state"): "drop one",
        # It played on the phone's built-in content, and the report replayed the user's.
        ("--device", "sim:540x1200", "--device-has-state"): "drop --device-has-state",
        ("--resume",): "give --out",
        ("--frames",): "give --out",
        ("--html",): "needs --out",
        # The run made the folder for --out, then failed to write the report over it.
        ("--out", str(tmp_path / "new" / "x.json"), "--html", str(tmp_path / "new")):
            "is a folder the results file of --out goes in",
    }
    for args, says in mistakes.items():
        assert run(*args) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and says in err[0], (args, err)


def test_serve_adb_mistakes_name_the_fix(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve-adb", "--port", str(port)]) == 2
        assert "choose another --port" in capsys.readouterr().err
    assert main(["serve-adb", "--host", "0.0.0.0"]) == 2
    assert "--allow-remote and --keys" in capsys.readouterr().err
    assert exit_status(["serve-adb", "--size", "big"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_the_encoder_is_announced_once_and_can_be_required(tmp_path, capsys):
    name = make_encoder("auto").name
    assert run("--tasks", TASKS[0], "--require-encoder", name.rpartition("/")[2]) == 0
    assert capsys.readouterr().err.count(f"encoder: {name}") == 1
    assert run("--tasks", TASKS[0], "--require-encoder", "no-such-model",
               "--out", str(tmp_path / "r.json")) == 2
    err = capsys.readouterr().err
    assert f"--require-encoder no-such-model but {name} ranks the content here" in err
    assert not (tmp_path / "r.json").exists()


def test_a_long_run_shows_progress_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert run("--tasks", *TASKS, "--users", "demo-ana") == 0
    bars = screen.getvalue().split("\r")
    assert bars[-1].startswith(f"[{'#' * 20}] 3/3 ") and "task_sr 1.000" in bars[-1]
    assert any(bar.startswith("[") and " 1/3 " in bar and " ep/s " in bar for bar in bars)


def test_episodes_per_second_leave_out_the_time_before_the_first_episode(monkeypatch):
    # The rate ran from the bar's creation: after a 60 s Ray start and two episodes a
    # second apart it said 0.0 ep/s.
    clock = iter([60.0, 61.0, 62.0])
    monkeypatch.setattr(console.time, "perf_counter", lambda: next(clock))
    bar = console.Progress(10)
    bar.update(True)  # at 60 s
    assert " 1/10  - ep/s " in bar.line()
    bar.update(False)  # at 61 s
    assert " 2/10  1.0 ep/s  task_sr 0.500" in bar.line()
    bar.update(True)  # at 62 s
    assert " 3/10  1.0 ep/s " in bar.line()


def test_a_resumed_runs_bar_counts_the_episodes_done_before(tmp_path, monkeypatch):
    # It counted this session's episodes only (2/2 and their rate, not 3/3 and the file's).
    out = tmp_path / "run.json"
    args = ("--tasks", *TASKS, "--users", "demo-ana", "--agent", "random", "--out", str(out))
    assert run(*args) == 0
    record = json.loads(out.read_text())
    record["episodes"][0]["success"] = True  # the random agent solved none
    record["episodes"] = record["episodes"][:1]
    out.write_text(json.dumps(record))

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert run(*args, "--resume") == 0
    bars = screen.getvalue().split("\r")
    assert bars[-1].startswith(f"[{'#' * 20}] 3/3 ") and "task_sr 0.333" in bars[-1]
    assert any(bar.startswith(f"[{'#' * 13}{' ' * 7}] 2/3 ") for bar in bars)


def test_an_error_mid_run_starts_on_a_line_of_its_own_after_the_bar(tmp_path, monkeypatch,
                                                                     capsys):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    (tmp_path / "failing_agent.py").write_text(
        "class Failing:\n"
        "    episodes = 0\n\n"
        "    def __init__(self, env, seed):\n"
        "        Failing.episodes += 1\n"
        "        if Failing.episodes == 2:\n"
        "            raise RuntimeError('the second episode fails')\n\n"
        "    def act(self, observation, info):\n"
        "        return 'COMPLETE'\n")
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with pytest.raises(RuntimeError, match="the second episode fails"):
        run("--agent", f"{tmp_path / 'failing_agent.py'}:Failing", "--tasks", *TASKS,
            "--users", "demo-ana")
    assert screen.getvalue().split("\r")[-1].startswith("[") and " 1/3 " in screen.getvalue()
    assert screen.getvalue().endswith("\n")  # the traceback starts on a line of its own


def test_any_integer_is_an_evaluate_seed():
    # Episode seeds are derived from it, so a negative one works, and runs made with one
    # must stay resumable; the other commands' seeds go to NumPy and must be 0 or more.
    from mobileintent_gym.cli import build_parser
    from mobileintent_gym.rollouts import episodes

    assert build_parser().parse_args(["evaluate", "--seed", "-1"]).seed == -1
    assert [e.seed >= 0 for e in episodes(["demo-ana"], TASKS[:2], -1)] == [True, True]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["generate", "--seed", "-1"])


def test_a_profile_file_gives_the_same_episodes_in_any_folder(tmp_path):
    # The seed hashed the file's absolute path: the same profile in folders a and b gave
    # random runs of task_sr 0.000 and 0.083; a folder name that is not UTF-8 stopped the
    # run with a UnicodeEncodeError before its first episode.
    from mobileintent_gym.rollouts import episodes
    from mobileintent_gym.users.profile import builtin_profiles_dir

    profile = (builtin_profiles_dir() / "demo-ana.json").read_bytes()
    paths = [tmp_path / "a" / "ana.json", tmp_path / "b" / "ana.json",
             tmp_path / os.fsdecode(b"caf\xe9") / "ana.json"]
    runs = []
    for path in paths:
        path.parent.mkdir()
        path.write_bytes(profile)
        assert run("--users", str(path), "--tasks", *TASKS, "--agent", "random",
                   "--out", str(path.parent / "run.json")) == 0
        runs.append(json.loads((path.parent / "run.json").read_text()))
    assert len({json.dumps([e["seed"] for e in r["episodes"]]) for r in runs}) == 1
    assert len({json.dumps(r["scores"]) for r in runs}) == 1
    # The seeds are the built-in user's: the file holds that user id.
    assert [e["seed"] for e in runs[0]["episodes"]] == [e.seed for e in episodes(["demo-ana"],
                                                                                 TASKS)]


def test_a_profile_given_by_name_or_by_path_gives_the_same_episodes(tmp_path):
    # Seeds came from the text of a name but from the user id of a path: a profile
    # ana.json holding user id demo-ana ran other episodes as --users ana than as
    # --users DIR/ana.json, and Ray and RePAIR drew them the same way.
    from mobileintent_gym.distributed.groups import group_episodes
    from mobileintent_gym.rollouts import episodes
    from mobileintent_gym.users.profile import UnknownProfileError, builtin_profiles_dir

    path = tmp_path / "ana.json"
    path.write_bytes((builtin_profiles_dir() / "demo-ana.json").read_bytes())
    by = {}
    for name, given in (("name", ["--profiles", str(tmp_path), "--users", "ana"]),
                        ("path", ["--users", str(path)])):
        out = tmp_path / f"{name}.json"
        assert run(*given, "--tasks", *TASKS, "--agent", "random", "--out", str(out)) == 0
        by[name] = [e["seed"] for e in json.loads(out.read_text())["episodes"]]
    assert by["name"] == by["path"] == [e.seed for e in episodes(["demo-ana"], TASKS)]
    assert ([e.seed for e in group_episodes(TASKS[0], ["ana", "demo-ben"], 2, 3, tmp_path)]
            == [e.seed for e in group_episodes(TASKS[0], [str(path), "demo-ben"], 2, 3)])
    with pytest.raises(UnknownProfileError, match="ana"):  # not looked up there: refused
        episodes(["ana"], TASKS)


@pytest.mark.parametrize("argv", [["evaluate", "--agent", "random", "--users"],
                                  ["evaluate", "--agent", "random", "--templates"],
                                  ["evaluate", "--agent", "random", "--tasks"],
                                  ["train", "repair", "--val-users"]])
def test_an_option_given_no_value_is_refused_not_read_as_the_default(argv, capsys):
    # An empty shell variable ran every task for every test user.
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert f"{argv[-1]}: expected at least one argument" in capsys.readouterr().err


def test_a_task_named_twice_runs_once_and_episodes_mark_unreached_subgoals(tmp_path, capsys):
    # --tasks repeating one of --templates' tasks ran and scored it twice (mutation-tested),
    # and nothing checked that --episodes marks a subgoal never reached with '.'.
    out = tmp_path / "run.json"
    assert run("--agent", "random", "--users", "demo-ana", "--templates", "G-SPT-02",
               "--tasks", "G-SPT-02:personal:implicit", "--out", str(out), "--episodes") == 0
    data = json.loads(out.read_text())
    tasks = [e["task"] for e in data["episodes"]]
    assert len(tasks) == 4 == len(set(tasks)) == len(data["provenance"]["tasks"])
    printed = {line.split()[1]: line.split("subgoals=")[1].split()[0]
               for line in capsys.readouterr().out.splitlines() if "subgoals=" in line}
    for episode in data["episodes"]:
        marks = "".join(str(int(r)) if seen else "."
                        for r, seen in zip(episode["rewards"], episode["reached"], strict=True))
        assert printed[episode["task"]] == marks
    assert any("." in marks for marks in printed.values())  # the random agent misses some
