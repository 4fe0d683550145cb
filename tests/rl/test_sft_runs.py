"""SFT runs keep checkpoints, stop on Ctrl-C with what they trained, and resume as one run."""

import copy
import csv
import signal
import warnings

import pytest

from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.rl import sft as sft_module
from mobileintent_gym.rl.sft import SftConfig, train_sft

torch = pytest.importorskip("torch", reason="needs the [llm] extra")
pytest.importorskip("peft", reason="needs the [llm] extra")
load_file = pytest.importorskip("safetensors.torch", reason="needs the [llm] extra").load_file

# 3 + 4 oracle steps: 7 examples, batches of 2, two epochs: 8 optimiser steps.
TASKS = ("G-SPT-02:personal:implicit", "G-WCT-02:common:explicit")
TIMING = ("tokens_per_s", "seconds")  # the only columns a rerun may change


def settings(out, **changed):
    return SftConfig(**{"out": str(out), "users": ("demo-ana",), "tasks": TASKS, "epochs": 2,
                        "batch_size": 2, "max_elements": 4, "checkpoint_every": 3, **changed})


def untimed_log(out):
    with (out / "log.csv").open(newline="") as handle:
        return [{k: v for k, v in row.items() if k not in TIMING}
                for row in csv.DictReader(handle)]


def adapters(folder):
    return load_file(str(folder / "adapter_model.safetensors"))


def interrupt_at_call(monkeypatch, call):
    """A real SIGINT in the forward pass of the ``call``-th batch."""
    real, calls = sft_module.response_logprobs, []

    def forward(*args):
        calls.append(args)
        if len(calls) == call:
            signal.raise_signal(signal.SIGINT)
        return real(*args)

    monkeypatch.setattr(sft_module, "response_logprobs", forward)


def test_a_run_stopped_by_ctrl_c_and_resumed_trains_what_one_run_does(tiny_lm, tmp_path,
                                                                       monkeypatch):
    # SFT kept no checkpoints: a Ctrl-C (or a lost machine) lost every step taken.
    whole = tmp_path / "whole"
    train_sft(settings(whole), copy.deepcopy(tiny_lm), progress=False)
    assert sorted(p.name for p in whole.glob("checkpoint-*")) == [
        "checkpoint-3", "checkpoint-6", "checkpoint-8"]  # every 3 steps, and the last
    out = tmp_path / "stopped"
    interrupt_at_call(monkeypatch, 5)  # four steps done, checkpoint-3 behind them
    with pytest.warns(UserWarning, match="stopped after update 4, saved as checkpoint-4"), \
            pytest.raises(KeyboardInterrupt):
        train_sft(settings(out), copy.deepcopy(tiny_lm), progress=False)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-3", "checkpoint-4"]
    assert not (out / "adapters").exists() and len(untimed_log(out)) == 4
    with pytest.raises(MobileIntentError, match="already holds a run; continue it with "
                                                "--resume"):
        train_sft(settings(out), copy.deepcopy(tiny_lm), progress=False)
    monkeypatch.undo()
    train_sft(settings(out), copy.deepcopy(tiny_lm), progress=False, resume=True)
    assert untimed_log(out) == untimed_log(whole)
    assert [row["update"] for row in untimed_log(out)] == [str(n) for n in range(1, 9)]
    first, second = adapters(whole / "adapters"), adapters(out / "adapters")
    assert first.keys() == second.keys()
    assert all(torch.equal(first[name], second[name]) for name in first)
    start = adapters(whole / "checkpoint-3")
    assert any(not torch.equal(first[name], start[name]) for name in first)  # it learnt
    # Resumed once more, the run has all its steps: nothing trains, the adapters stay.
    train_sft(settings(out), copy.deepcopy(tiny_lm), progress=False, resume=True)
    assert untimed_log(out) == untimed_log(whole)
    assert all(torch.equal(adapters(out / "adapters")[name], first[name]) for name in first)


def test_a_resume_with_other_settings_or_examples_is_refused_and_changes_nothing(
        tiny_lm, tmp_path, monkeypatch):
    out = tmp_path / "run"
    train_sft(settings(out, epochs=1, checkpoint_every=2), copy.deepcopy(tiny_lm),
              progress=False)
    log, kept = untimed_log(out), sorted(p.name for p in out.glob("checkpoint-*"))
    with pytest.raises(MobileIntentError, match=r"other settings \(lr: 0.0002 saved, 0.1 "
                                                r"given\)"):
        train_sft(settings(out, epochs=1, lr=0.1), copy.deepcopy(tiny_lm), progress=False,
                  resume=True)
    # Examples that differ from those trained on (another version of the package) would
    # have trained other batches after the checkpoint without a word: here one answer.
    real = sft_module.demonstrations
    monkeypatch.setattr(sft_module, "demonstrations",
                        lambda *a: [(m, f"{said} ") if not i else (m, said)
                                    for i, (m, said) in enumerate(real(*a))])
    with pytest.raises(MobileIntentError, match="trained on other examples than this run has"):
        train_sft(settings(out, epochs=1), copy.deepcopy(tiny_lm), progress=False,
                  resume=True)
    assert untimed_log(out) == log and kept == ["checkpoint-2", "checkpoint-4"]
    assert sorted(p.name for p in out.glob("checkpoint-*")) == kept
    with pytest.raises(MobileIntentError, match=r"'checkpoint_every': -1"):
        train_sft(settings(out, checkpoint_every=-1), progress=False)
    monkeypatch.undo()
    # How often a checkpoint is kept may change: the run resumes, and has nothing to do
    # (which it did not say).
    with pytest.warns(UserWarning, match="holds all 4 optimiser steps: nothing to run"):
        train_sft(settings(out, epochs=1, checkpoint_every=1), copy.deepcopy(tiny_lm),
                  progress=False, resume=True)
    assert untimed_log(out) == log


def test_a_phone_url_with_a_password_resumes_and_keeps_it_unsaid(tmp_path):
    # The settings saved hide a phone URL's password and were compared with the given
    # ones: every resume was refused, printing the password.
    from mobileintent_gym.rl.runs import run_settings, write_config

    phone = "appium:http://user:secretkey@127.0.0.1:9/wd/hub"
    config = settings(tmp_path / "run", model="not/loaded", phone=phone)
    write_config(config.out, run_settings(config, config.model))
    assert "secretkey" not in (tmp_path / "run" / "config.json").read_text()
    # On to the phone, which is not there (the test extra installs the Appium client).
    with pytest.raises(MobileIntentError, match=r"no Appium session at 'http://\*\*\*@") as err:
        train_sft(config, progress=False, resume=True)
    assert "secretkey" not in str(err.value)


def test_the_command_passes_resume_and_the_checkpoint_interval(tmp_path, monkeypatch):
    from mobileintent_gym.cli import main

    runs = []
    monkeypatch.setattr(sft_module, "train_sft", lambda config, progress, resume: runs.append(
        (config.checkpoint_every, resume)) or tmp_path)
    argv = ["train", "sft", "--out", str(tmp_path / "sft"), "--quiet"]
    assert main(argv) == 0
    assert main([*argv, "--resume", "--checkpoint-every", "0"]) == 0
    assert runs == [(200, False), (0, True)]


@pytest.mark.parametrize(("call", "said"), [
    # Silent before: a stop right after a checkpoint said nothing of where a resume goes
    # on, and one before the first step nothing at all (a resume then said that its
    # "logged updates are dropped": the log held its header only).
    (1, "stopped before its first update: nothing to keep"),
    (4, "stopped after update 3, saved as checkpoint-3: --resume goes on from it"),
])
def test_a_stop_says_where_a_resume_goes_on(tiny_lm, tmp_path, monkeypatch, call, said):
    out = tmp_path / "run"
    interrupt_at_call(monkeypatch, call)
    with pytest.warns(UserWarning, match=said), pytest.raises(KeyboardInterrupt):
        train_sft(settings(out, epochs=1), copy.deepcopy(tiny_lm), progress=False)
    monkeypatch.undo()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train_sft(settings(out, epochs=1), copy.deepcopy(tiny_lm), progress=False, resume=True)
    assert not [w for w in caught if "dropped" in str(w.message)]
    assert [row["update"] for row in untimed_log(out)] == ["1", "2", "3", "4"]


def test_a_flag_that_is_no_bool_is_refused_before_any_work(tmp_path):
    # "no" read as true: gradient checkpointing went on.
    with pytest.raises(MobileIntentError, match="gradient_checkpointing='no': must be True "
                                                "or False"):
        train_sft(settings(tmp_path / "run", gradient_checkpointing="no"), progress=False)
    assert not (tmp_path / "run").exists()
