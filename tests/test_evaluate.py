"""``mobileintent-gym evaluate``: scores, the record of a run, reproducibility, SSR."""

import json
import sys

import gymnasium as gym
import pytest

import mobileintent_gym
from mobileintent_gym.cli import main
from mobileintent_gym.users import make_encoder
from mobileintent_gym.users.encoders import HUB_SKIPPED, STUDY_MODEL
from tests.helpers import write_agents


def evaluate(tmp_path, *args):
    out = tmp_path / f"{len(list(tmp_path.iterdir()))}.json"
    assert main(["evaluate", *args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


def actions(episode):
    return [s["action"] for s in episode["steps"]]


def test_the_oracle_scores_one_on_every_score(tmp_path, capsys):
    report = evaluate(tmp_path, "--agent", "oracle", "--templates", "G-SPT-03", "G-WCT-02",
                      "--users", "demo-ana", "demo-ben")
    assert set(report["scores"].values()) == {1.0}
    episodes = report["episodes"]
    assert len(episodes) == 2 * 2 * 4
    assert {e["task"].split(":")[0] for e in episodes} == {"G-SPT-03", "G-WCT-02"}
    wct = next(e for e in episodes if e["task"] == "G-WCT-02:common:explicit")
    assert wct["contexts"] == ["UC", "UA"] and "TYPE[Understood]" in actions(wct)
    out = capsys.readouterr().out
    assert "task_sr=1.000 all_success=1.000" in out
    assert [line.split() for line in out.splitlines() if "solved" in line] == [
        ["demo-ana", "solved", "8/8", "tasks"], ["demo-ben", "solved", "8/8", "tasks"]]


def test_the_record_names_where_a_run_came_from_and_every_step(tmp_path):
    report = evaluate(tmp_path, "--tasks", "G-WCT-02:personal:implicit", "--users", "demo-chen",
                      "--seed", "3", "--device", "sim:540x1200")
    prov = report["provenance"]
    encoder = make_encoder("auto")
    assert prov["version"] == mobileintent_gym.__version__
    assert prov["gymnasium"] == gym.__version__
    assert (prov["agent"], prov["seed"], prov["device"], prov["screen"]) == (
        "oracle", 3, "sim:540x1200", [540, 1200])
    assert prov["encoder"] == encoder.name  # the model that ranked the content
    if encoder.name == STUDY_MODEL:
        assert prov["encoder_fallback"] is None
    else:  # this machine's Hugging Face cache lacks the study's model; the hub is offline
        assert prov["encoder_fallback"] == (f"{STUDY_MODEL} could not be loaded from the "
                                            f"cache: no complete snapshot of it there; "
                                            f"{HUB_SKIPPED}")
    assert prov["pair"]["seed"] == 0 and prov["pair"]["top_k"] == 20
    assert (prov["users"], prov["tasks"]) == (["demo-chen"], ["G-WCT-02:personal:implicit"])
    [episode] = report["episodes"]
    assert episode["instruction"].startswith("In Chat")
    assert episode["subgoals"] == ["open the conversation", "enter and send"]
    steps = episode["steps"]
    assert steps[0]["route_before"] == "chat/chats"
    opened = next(i for i, s in enumerate(steps) if s["route_after"] == "chat/conversation")
    rest = len(steps) - opened - 2  # the conversation may need scrolling to first
    assert [s["reward"] for s in steps] == [0.0] * opened + [1.0] + [0.0] * rest + [1.0]
    assert all(s["invalid"] is None for s in steps)
    assert sum(s["reward"] for s in steps) == sum(episode["rewards"]) == 2


def test_a_second_run_with_the_same_arguments_writes_the_same_file(tmp_path):
    args = ["evaluate", "--agent", "random", "--templates", "G-SPT-02", "G-WCT-01",
            "--seed", "5"]
    files = []
    for name in ("a.json", "b.json"):
        assert main([*args, "--out", str(tmp_path / name)]) == 0
        text = (tmp_path / name).read_text()
        started = json.loads(text)["provenance"]["started"]
        files.append(text.replace(started, "<started>"))
    assert files[0] == files[1]
    first = json.loads(files[0])
    assert first["scores"]["task_sr"] < 1.0
    # Rollouts get their own seeds, so they do not all repeat one action list.
    assert len({tuple(actions(e)) for e in first["episodes"]}) > 1


def test_a_score_with_nothing_to_count_is_undefined_not_zero(tmp_path, capsys):
    report = evaluate(tmp_path, "--templates", "G-SPT-03", "--users", "demo-ben", "--episodes")
    assert report["scores"]["sar_ua"] is None  # G-SPT-03 has no UA subgoal
    assert report["scores"]["sar_uc"] == 1.0
    out = capsys.readouterr().out
    assert "sar_ua=n/a" in out
    # --episodes: a line per episode, its subgoals' rewards ("." where not reached)
    lines = [line.split() for line in out.splitlines() if " success=" in line]
    assert [line[1] for line in lines] == [e["task"] for e in report["episodes"]]
    assert all(line[2:4] == ["success=1", "subgoals=1"] for line in lines), lines


def test_the_running_scores_equal_the_scores_of_every_prefix_of_the_run(tmp_path):
    # The file's scores were recomputed over the whole run after every episode; they are
    # kept up to date one episode at a time now, and must stay the same numbers.
    from mobileintent_gym.evaluate import RunningScores, scores
    from mobileintent_gym.results import read_run

    out = tmp_path / "run.json"
    assert main(["evaluate", "--agent", "random", "--users", "demo-ana", "demo-ben",
                 "--templates", "G-SPT-01", "G-WCT-02", "--out", str(out)]) == 0
    episodes = read_run(out).episodes
    running = RunningScores()
    for count in range(len(episodes) + 1):
        assert running(episodes[:count]) == scores(episodes[:count], finished=False)
    forced = [{**e, "teacher_forced": [True, False][: 1 + e["index"] % 2]} for e in episodes]
    assert RunningScores()(forced) == scores(forced, finished=False)  # SSR included
    assert running(episodes[:3]) == scores(episodes[:3], finished=False)  # counted afresh
    # All-success needs every planned user in each group: a user with no episode is named.
    assert scores(episodes, ["demo-ana", "demo-ben"]) == scores(episodes)
    with pytest.raises(ValueError, match=r"no rollout for user\(s\) \['demo-chen'\]"):
        scores(episodes, ["demo-ana", "demo-ben", "demo-chen"])


def test_a_refused_first_reset_leaves_the_env_usable_for_the_next_episodes():
    # Gymnasium's checker marked the refused first reset as checked, so every later step
    # failed inside it: a mistyped task id broke the env for good. (The package's envs
    # leave the checker out unless asked; here it is asked for.)
    from mobileintent_gym.agents import AGENTS
    from mobileintent_gym.rollouts import Episode, evaluate, run
    from mobileintent_gym.tasks import UnknownTaskError

    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",),
                   disable_env_checker=False)
    with pytest.raises(UnknownTaskError, match="explict"):  # the rollouts name it sooner
        run(env, AGENTS["oracle"], Episode("demo-ana", "G-SPT-03:common:explict", 0))
    (record,) = evaluate(env, AGENTS["oracle"], ["demo-ana"], ["G-SPT-03:common:explicit"])
    assert record[0].success
    env.close()


def test_the_python_loop_names_a_bad_seed_or_agent_and_takes_one_task_id():
    # A task id given alone was read letter by letter ("got 'G'"); a make_agent returning
    # None failed inside the loop; seed None or "7" ran the seeds of other integers.
    from mobileintent_gym.agents import OracleAgent
    from mobileintent_gym.errors import InvalidArgumentError
    from mobileintent_gym.rollouts import episodes, evaluate, run_episodes, teacher_forced
    from mobileintent_gym.tasks import UnknownTaskError

    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", observation=("instruction",))
    task = "G-SPT-03:common:explicit"
    (record,) = evaluate(env, OracleAgent, "demo-ana", task)  # the class is a make_agent
    assert record[0].success and record[0].task == task
    for seed in (None, "7", 1.0):
        with pytest.raises(InvalidArgumentError, match=f"seed must be an integer, got {seed!r}"):
            list(run_episodes(env, OracleAgent, "demo-ana", task, seed=seed))
    with pytest.raises(InvalidArgumentError, match="made None, which has no act"):
        list(run_episodes(env, lambda env, seed: None, "demo-ana", task))
    with pytest.raises(InvalidArgumentError, match="made None, which has no act"):
        teacher_forced(env, lambda env, seed: None, "demo-ana", task)
    with pytest.raises(InvalidArgumentError, match="seed must be an integer, got None"):
        teacher_forced(env, OracleAgent, "demo-ana", task, seed=None)
    assert len(episodes(["demo-ana", "demo-ben"], iter([task]))) == 2  # not spent by one
    assert len(episodes(["demo-ana"], [task, task])) == 1  # ran, and was counted, twice
    # A set's name was read one letter at a time ("no user profile 't'"), a text as skip
    # failed deep inside ("'in <string>' requires string as left operand").
    with pytest.raises(InvalidArgumentError, match=r"users must be a list .* got str 'test'"):
        episodes("test", task)
    with pytest.raises(InvalidArgumentError, match=r"skip must be a list .* got str 'x'"):
        episodes(["demo-ana"], task, skip="x")
    assert episodes(["demo-ana"], task, skip={("demo-ana", task)}) == []
    # A set's order differs between processes: so would the episodes'.
    with pytest.raises(InvalidArgumentError, match=r"users must be .* got set"):
        episodes({"demo-ana", "demo-ben"}, task)
    with pytest.raises(UnknownTaskError, match="explict"):  # named before any episode ran
        next(run_episodes(env, OracleAgent, "demo-ana", [task, "G-SPT-03:common:explict"]))
    # An agent's own seed: True ran as 1; -1 and "x" failed inside Gymnasium and NumPy.
    from mobileintent_gym.agents import RandomAgent
    from mobileintent_gym.agents.predict import RandomPredictor
    from mobileintent_gym.agents.understand import RandomSegmenter

    for make in (RandomAgent, RandomSegmenter, RandomPredictor):
        for seed in (True, -1, "x"):
            with pytest.raises(InvalidArgumentError, match=f"seed must be an integer of at "
                                                           f"least 0, got {seed!r}"):
                make(env, seed)
    env.close()


def test_teacher_forcing_scores_each_reference_step_from_its_own_screen():
    import gymnasium as gym

    from mobileintent_gym.actions import Action
    from mobileintent_gym.agents import OracleAgent, RandomAgent
    from mobileintent_gym.rollouts import reference_steps, teacher_forced

    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",))
    task = "G-SPT-01:personal:explicit"
    reference = reference_steps(env, "demo-chen", task)
    n = len(reference)
    typing = [s.action for s in reference].index(Action.type_text("Rainy Night"))
    assert n >= 8 and typing == n - 2
    oracle = teacher_forced(env, lambda e, seed: OracleAgent(e), "demo-chen", task)
    assert oracle == [True] * n

    seen = []

    class Recorder:
        """Types the task's text; records the screen it was asked on."""

        def act(self, obs, info):
            seen.append((env.unwrapped.device.route(), info["steps"]))
            return "TYPE[Rainy Night]"

    typist = teacher_forced(env, lambda e, seed: Recorder(), "demo-chen", task)
    assert typist == [False] * (n - 2) + [True, False]
    # Step t is asked after exactly t replayed steps, on the reference's screen before it.
    assert seen == [(s.event.route_before, t) for t, s in enumerate(reference)]
    assert teacher_forced(env, lambda e, seed: type("Bad", (), {
        "act": lambda self, o, i: "CLICK[oops]"})(), "demo-chen", task) == [False] * n

    seeds = []
    teacher_forced(env, lambda e, seed: seeds.append(seed) or RandomAgent(e, seed),
                   "demo-chen", task, seed=3)
    assert len(set(seeds)) == n  # a seeded agent gets its own seed at every step
    env.close()


def test_a_replay_that_leaves_the_reference_path_is_refused():
    """A device that keeps its content cannot be teacher-forced; a SimPhone that ignores
    the state it is given at reset stands in for one (no real such device exists here)."""
    import gymnasium as gym
    import pytest

    from mobileintent_gym.agents import OracleAgent
    from mobileintent_gym.phone import SimPhone
    from mobileintent_gym.rollouts import ReplayDivergedError, teacher_forced
    from mobileintent_gym.users import load_user_content

    class Keeps(SimPhone):
        """Keeps its content across resets, as a real phone does: a reset only goes home."""

        started = False

        def reset(self, state=None, seed=None):
            if not self.started:
                return super().reset(state, seed)
            self.act("PRESS[HOME]")
            self.events = []
            return None

    phone = Keeps()
    phone.reset(load_user_content("demo-ana").state)
    phone.started = True
    env = gym.make("Act2Intent-Execute-v0", device=phone, observation=("instruction",),
                   load_state=False)
    with pytest.raises(ReplayDivergedError, match="G-SPT-02"):
        teacher_forced(env, lambda e, seed: OracleAgent(e), "demo-ana",
                       "G-SPT-02:personal:explicit")


def test_teacher_forced_ssr_is_recorded_per_episode_and_scored_per_task(tmp_path, monkeypatch):
    # The scripted agent matches every step of the explicit task (it is the oracle there)
    # and none of the implicit one's, whose reference is shorter: the mean over tasks is
    # 0.5, the share of all steps would be more.
    tasks = ("--users", "demo-ana", "--tasks", "G-SPT-01:common:explicit",
             "G-WCT-01:personal:implicit")
    oracle = evaluate(tmp_path, *tasks)["episodes"]
    monkeypatch.syspath_prepend(str(tmp_path))
    module = write_agents(tmp_path)
    try:
        report = evaluate(tmp_path, "--agent", f"{module}:Scripted", "--teacher-forced", *tasks)
    finally:
        sys.modules.pop(module, None)
    matches = [e["teacher_forced"] for e in report["episodes"]]
    # One verdict per step of the oracle's trajectory.
    assert [len(m) for m in matches] == [len(e["steps"]) for e in oracle]
    assert [set(m) for m in matches] == [{True}, {False}] and len(matches[0]) > len(matches[1])
    assert report["scores"]["ssr"] == 0.5


def test_any_integer_seed_teacher_forces(tmp_path):
    # The run's seed went to env.reset as it was: -1 was Gymnasium's error, a traceback
    # after the first episode, and nothing written.
    report = evaluate(tmp_path, "--agent", "oracle", "--teacher-forced", "--seed", "-1",
                      "--users", "demo-ana", "--tasks", "G-SPT-01:common:explicit")
    assert report["scores"]["ssr"] == 1.0 and all(report["episodes"][0]["teacher_forced"])


def test_a_profiles_folder_without_users_evaluates_every_profile_in_it(tmp_path,
                                                                       monkeypatch):
    import shutil

    from mobileintent_gym.users.profile import builtin_profiles_dir

    folder = tmp_path / "profiles"
    (folder / "user10").mkdir(parents=True)
    shutil.copy(builtin_profiles_dir() / "demo-ben.json", folder / "user2.json")
    shutil.copy(builtin_profiles_dir() / "demo-ana.json", folder / "user10" / "profile.json")
    report = evaluate(tmp_path, "--profiles", str(folder), "--templates", "G-SPT-03")
    assert [e["user"] for e in report["episodes"]] == ["user2"] * 4 + ["user10"] * 4
    monkeypatch.chdir(tmp_path)  # a relative folder is recorded as the absolute one
    report = evaluate(tmp_path, "--profiles", "profiles", "--templates", "G-SPT-03")
    assert report["provenance"]["profiles"] == str(folder.resolve())


def test_a_profile_in_the_folder_named_like_a_set_is_that_profile(tmp_path):
    # "test.json" in --profiles ran the ten built-in test users in its place.
    import shutil

    from mobileintent_gym.users.profile import builtin_profiles_dir

    folder = tmp_path / "profiles"
    folder.mkdir()
    shutil.copy(builtin_profiles_dir() / "demo-ben.json", folder / "mine.json")
    profile = json.loads((builtin_profiles_dir() / "demo-ana.json").read_text())
    del profile["user_id"]  # named by its file: "test"
    (folder / "test.json").write_text(json.dumps(profile))
    report = evaluate(tmp_path, "--profiles", str(folder), "--templates", "G-SPT-03")
    users = [e["user"] for e in report["episodes"]]
    assert users == ["mine"] * 4 + [str(folder.resolve() / "test.json")] * 4


def test_a_user_given_by_a_relative_path_is_recorded_so_any_folder_reads_the_run(
        tmp_path, monkeypatch):
    # It was stored as typed: view (and --resume) from another folder found no profile.
    import shutil

    from mobileintent_gym.users.profile import builtin_profiles_dir

    (tmp_path / "prof").mkdir()
    shutil.copy(builtin_profiles_dir() / "demo-ana.json", tmp_path / "prof" / "alice.json")
    monkeypatch.chdir(tmp_path)
    report = evaluate(tmp_path, "--users", "prof/alice.json", "--tasks",
                      "G-SPT-02:common:explicit")
    absolute = str(tmp_path / "prof" / "alice.json")
    assert report["provenance"]["users"] == [absolute]
    assert [e["user"] for e in report["episodes"]] == [absolute]
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    (run,) = [p for p in tmp_path.glob("*.json")]
    assert main(["view", str(run), "--html", "run.html"]) == 0
    assert "cannot be rebuilt" not in (tmp_path / "elsewhere" / "run.html").read_text()


def test_a_user_set_stands_for_its_users_on_the_command_line_and_in_rollouts(tmp_path):
    from mobileintent_gym.agents import OracleAgent
    from mobileintent_gym.rollouts import evaluate as rollouts
    from mobileintent_gym.users import USER_SETS

    task = "G-SPT-02:common:explicit"
    report = evaluate(tmp_path, "--agent", "oracle", "--users", "val", "demo-ana", "--tasks", task)
    assert [e["user"] for e in report["episodes"]] == [*USER_SETS["val"], "demo-ana"]
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",), users="demo")
    results = rollouts(env, lambda e, seed: OracleAgent(e), "val", [task])
    assert [(r.user, r.success) for r, _ in results] == [(u, True) for u in USER_SETS["val"]]
    env.close()


def test_an_episode_the_scores_would_misread_is_a_results_file_error_naming_it():
    # A hand-edited episode (a task id without its target type) raised IndexError deep in
    # the scores; a missing field raised a bare KeyError.
    from mobileintent_gym.results import ResultsFileError, episode_result

    episode = {"index": 3, "task": "G-ALI-01", "user": "u", "success": True,
               "rewards": [1.0], "contexts": ["UC"], "reached": [True]}
    with pytest.raises(ResultsFileError, match="episode 3: the result of 'G-ALI-01'"):
        episode_result(episode)
    with pytest.raises(ResultsFileError, match="episode 3 has no 'reached'"):
        episode_result({k: v for k, v in episode.items() if k != "reached"})


def test_the_writability_check_leaves_no_folder_behind(tmp_path):
    # The folders it made to try a write stayed when the run was refused later (an
    # unwritable --html after --out), though it promises to leave nothing.
    from mobileintent_gym.results import check_writable

    (tmp_path / "kept").mkdir()
    check_writable(tmp_path / "kept" / "a" / "b" / "run.json", "--out")
    assert [p.name for p in tmp_path.rglob("*")] == ["kept"]
