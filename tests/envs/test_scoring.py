"""The scoring encoder: known texts' rows kept on disk, the model loaded only when needed.

Real encoder throughout (all-MiniLM-L6-v2 from the ``[embed]`` extra's package); the
processes are real interpreters sharing one cache folder.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mobileintent_gym.envs.scoring import USED, CachedEncoder, RowStore
from mobileintent_gym.users import cache
from tests.helpers import side_by_side

pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
ROOT = Path(__file__).resolve().parents[2]
KNOWN = ["Play \"Yellow\" from your recently played songs", "Reply \"Understood\" to Mum"]

# demo-ana's episodes: a Session day's start with guidance, then answered with the truth an
# Understand window, a day of Predict, a day of Proactive (gold proposed, nothing on noise),
# in that order (Proactive's known intentions hold the others' texts). What they scored,
# the known intentions' rows, and whether torch had been imported after each.
SCRIPT = """
import hashlib, json, sys
import gymnasium as gym
import mobileintent_gym
from mobileintent_gym.envs.proposals import answer
USER = {"user": "demo-ana"}


def played(env, said):
    rewards, done = [], False
    while not done:
        _, reward, terminated, truncated, info = env.step(said(env.unwrapped))
        rewards.append(reward)
        done = terminated or truncated
    return rewards, info


session = gym.make("Act2Intent-Session-v0", users=["demo-ana"], guidance=True)
guidance = session.reset(seed=0, options={**USER, "day": 0})[0]["guidance"]
torch = ["torch" in sys.modules]
understand = gym.make("Act2Intent-Understand-v0", users=["demo-ana"], days=2)
understand.reset(seed=0, options=USER)
_, segmented = played(understand, lambda env: json.dumps(dict(env.truth)))
torch.append("torch" in sys.modules)
predict = gym.make("Act2Intent-Predict-v0", users=["demo-ana"], history_days=2,
                   predict_days=1)
predict.reset(seed=0, options=USER)
predicted, _ = played(predict, lambda env: json.dumps({"Event": env.truth().event,
                                                       "Behaviour": env.truth().behaviour}))
torch.append("torch" in sys.modules)
proactive = gym.make("Act2Intent-Proactive-v0", users=["demo-ana"], history_days=1,
                     play_days=1)
proactive.reset(seed=0, options={**USER, "day": 0})
rewards, _ = played(proactive, lambda env: answer(env.truth().intent, env.truth().memory))
torch.append("torch" in sys.modules)
rows = proactive.unwrapped.matcher._rows
print(json.dumps({"rewards": rewards, "outcomes": proactive.unwrapped.outcomes,
                  "rows": hashlib.sha256(rows.tobytes()).hexdigest(), "shape": rows.shape,
                  "understand": [segmented[k] for k in ("acc_g", "acc_s", "bleu4")],
                  "predict": predicted, "guidance": guidance, "torch": torch}))
"""


@pytest.fixture(scope="module")
def built_content(tmp_path_factory):
    """A cache's ``content`` folder holding demo-ana's content, built by a process of its own
    (this one may hold the content already, and would write nothing)."""
    folder = tmp_path_factory.mktemp("built")
    build = "from mobileintent_gym.users import load_user_content\nload_user_content('demo-ana')"
    side_by_side({"args": [sys.executable, "-c", build], "cwd": ROOT,
                  "env": {**os.environ, "PYTHONPATH": str(ROOT),
                          "MOBILEINTENT_GYM_CACHE": str(folder)}})
    assert list((folder / "content").glob("*.pkl"))  # what is left to embed is the rows
    return folder / "content"


def day(folder):
    env = {**os.environ, "MOBILEINTENT_GYM_CACHE": str(folder), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=ROOT, text=True,
                          capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_episodes_whose_known_texts_were_embedded_before_run_without_torch(built_content,
                                                                          tmp_path):
    shutil.copytree(built_content, tmp_path / "content")  # the rows are left to embed
    first, again = day(tmp_path), day(tmp_path)
    assert first["torch"][0] and again["torch"] == [False] * 4  # embedded once, by the first
    assert again == {**first, "torch": again["torch"]}  # same rows to the bit, same scores
    assert first["shape"][0] > 50 and "tp" in first["outcomes"]
    assert sum(first["rewards"]) > 0
    assert first["understand"] == [1.0, 1.0, 1.0] and "CLICK[" in first["guidance"]
    assert len(first["predict"]) > 3 and set(first["predict"]) == {1.0}


@pytest.fixture(scope="module")
def minilm():
    from mobileintent_gym.metrics.text import acc_s_encoder

    return acc_s_encoder()


def files(folder):
    """The row files under ``folder`` (not the marks of use)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != USED)


def test_known_texts_are_kept_and_read_back_agents_texts_are_not(minilm, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    rows = CachedEncoder(minilm, identity="model-a").encode_known(KNOWN)
    assert np.array_equal(rows, np.stack([minilm.encode([t])[0] for t in KNOWN]))
    kept = files(tmp_path)
    assert len(kept) == 2
    CachedEncoder(minilm, identity="model-a").encode(["what an agent said"])
    assert files(tmp_path) == kept  # an agent's text stays in the process

    def unloadable():
        raise AssertionError("loaded the model though every row was on disk")

    lean = CachedEncoder(unloadable, name=minilm.name, identity="model-a")
    assert np.array_equal(lean.encode_known(KNOWN), rows)
    assert np.array_equal(lean.encode(KNOWN[:1])[0], rows[0])  # then from memory
    assert lean.name == minilm.name


def test_another_model_reads_none_of_the_rows(minilm, tmp_path, monkeypatch):
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    CachedEncoder(minilm, identity="model-a").encode_known(KNOWN)
    assert RowStore.of("model-b").get(KNOWN[0]) is None
    assert RowStore.of("model-a").get(KNOWN[0]) is not None
    assert RowStore.of("model-a").folder != RowStore.of("model-b").folder


@pytest.mark.parametrize("damage", ["cut", "flipped", "empty", "other text"])
def test_a_damaged_row_file_reads_as_missing_and_is_embedded_again(minilm, tmp_path,
                                                                   monkeypatch, damage):
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    store = RowStore.of("model-a")
    good = CachedEncoder(minilm, identity="model-a").encode_known(KNOWN)
    path = store._path(KNOWN[0])
    data = path.read_bytes()
    path.write_bytes({"cut": data[:-3], "flipped": data[:-1] + bytes([data[-1] ^ 1]),
                      "empty": b"", "other text": store._path(KNOWN[1]).read_bytes()}[damage])
    assert store.get(KNOWN[0]) is None
    again = CachedEncoder(minilm, identity="model-a").encode_known(KNOWN)
    assert np.array_equal(again, good)
    assert path.read_bytes() == data  # written anew


def test_a_model_other_than_the_one_expected_keeps_its_own_rows(minilm, tmp_path,
                                                                monkeypatch):
    # A snapshot that looked complete may fail to load and fall back to another model:
    # rows read for the expected one are dropped, and new ones kept under the model loaded.
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    stale = RowStore.of("expected")
    stale.put(KNOWN[0], np.ones(384, np.float32))
    scorer = CachedEncoder(lambda: minilm, name=minilm.name, identity="expected")
    assert scorer.encode_known(KNOWN[:1])[0].sum() == 384  # read, the model not loaded
    with pytest.warns(UserWarning, match="not the one expected"):
        row = scorer.encode_known(KNOWN[1:])[0]  # loads it: another model
    assert np.array_equal(row, minilm.encode([KNOWN[1]])[0])
    assert scorer.store.folder == RowStore.of(cache.loaded_identity(minilm)).folder
    assert np.array_equal(scorer.encode(KNOWN[:1])[0], minilm.encode([KNOWN[0]])[0])


def test_with_the_cache_off_rows_stay_in_the_process(minilm, tmp_path, monkeypatch):
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    scorer = CachedEncoder(minilm, identity="model-a")
    assert scorer.store is None
    scorer.encode_known(KNOWN)
    assert not list(tmp_path.iterdir())


def test_an_unwritable_folder_is_said_once_and_scores_go_on(minilm, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(blocked))
    scorer = CachedEncoder(minilm, identity="model-a")
    with pytest.warns(UserWarning, match="kept in this process only") as said:
        rows = scorer.encode_known(KNOWN)
    assert len([w for w in said if "kept in this process" in str(w.message)]) == 1
    assert np.array_equal(rows[1], minilm.encode([KNOWN[1]])[0])


def test_a_loader_without_the_encoders_name_is_refused():
    from mobileintent_gym.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="needs the encoder's name"):
        CachedEncoder(lambda: None)


def test_stores_of_models_unused_for_a_month_go_when_another_is_first_used(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    old, recent = RowStore.of("old model"), RowStore.of("recent model")
    old.put(KNOWN[0], np.ones(4, np.float32))
    recent.put(KNOWN[0], np.ones(4, np.float32))
    month_ago = time.time() - cache.MAX_AGE - 60
    for path in [*old.folder.rglob("*"), old.folder]:  # every file old, the mark too
        os.utime(path, (month_ago, month_ago))
    os.utime(recent.folder, (month_ago, month_ago))  # its mark is recent: still used
    RowStore.of("a model used now")
    assert not old.folder.exists()
    assert recent.get(KNOWN[0]) is not None


def test_an_answer_that_says_nothing_scores_zero_without_loading_the_model(minilm):
    from mobileintent_gym.metrics.text import pair_similarities

    def unloadable():
        raise AssertionError("loaded the model for texts that say nothing")

    lean = CachedEncoder(unloadable, name=minilm.name)
    assert pair_similarities(["", " \n"], KNOWN, lean).tolist() == [0.0, 0.0]
    mixed = pair_similarities(["", KNOWN[1]], KNOWN, CachedEncoder(minilm))
    assert mixed[0] == 0.0 and mixed[1] == pytest.approx(1.0)


START = """
import hashlib, json, sys
import gymnasium as gym
import mobileintent_gym
env = gym.make("Act2Intent-Proactive-v0", users=["demo-ana"], history_days=1, play_days=1)
env.reset(seed=0, options={"user": "demo-ana", "day": 0})
rows = env.unwrapped.matcher._rows
print(json.dumps([hashlib.sha256(rows.tobytes()).hexdigest(), "torch" in sys.modules]))
"""


def test_workers_starting_together_embed_the_known_texts_once(built_content, tmp_path,
                                                              monkeypatch):
    # Each worker loaded the model and embedded the same texts (35.7 s, 589 and 860 MB for
    # two); one does it now, while the other waits and reads them.
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    shutil.copytree(built_content, tmp_path / "content")  # the rows are left to embed
    process = {"args": [sys.executable, "-c", START], "cwd": ROOT,
               "env": {**os.environ, "PYTHONPATH": str(ROOT)}}
    started = side_by_side(process, process)
    said = [json.loads(out.strip().splitlines()[-1]) for out in started]
    assert said[0][0] == said[1][0]
    assert sorted(torch for _, torch in said) == [False, True]
    assert not list((tmp_path / "rows").rglob("*.lock"))  # each removed by its holder


def test_an_encoder_given_as_an_object_is_not_asked_for_texts_at_reset(minilm):
    # It has no store: a Predict reset embedded the whole history with it, which only the
    # texts' scores may need (an encoder behind an API pays per call).
    import gymnasium as gym

    class Counted:
        name = minilm.name

        def __init__(self):
            self.texts = 0

        def encode(self, texts):
            self.texts += len(texts)
            return minilm.encode(texts)

    counted = Counted()
    env = gym.make("Act2Intent-Predict-v0", users=["demo-ana"], history_days=2,
                   predict_days=1, encoder=counted)
    env.reset(seed=0, options={"user": "demo-ana"})
    assert counted.texts == 0
    truth = env.unwrapped.truth()
    env.step(json.dumps({"Event": truth.event, "Behaviour": truth.behaviour + " soon"}))
    assert counted.texts == 2  # the prediction and the truth, when scored
