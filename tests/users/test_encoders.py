import functools
import http.server
import os
import socket
import sys
import threading
import types
import urllib.request
from typing import ClassVar

import numpy as np
import pytest

from mobileintent_gym.errors import DependencyNotInstalled
from mobileintent_gym.users import (
    LexicalEncoder,
    PairConfig,
    build_user_content,
    encoders,
    make_encoder,
    pair,
    resolve_profile,
)
from mobileintent_gym.users.encoders import PACKAGED_MODEL, STUDY_MODEL
from tests.helpers import python_c


def cos(rows, i, j):
    return float(rows[i] @ rows[j])


def test_lexical_rows_are_normalised_deterministic_and_spelling_aware():
    encoder = LexicalEncoder()
    texts = ["Amapiano night out", "an amapiano party night", "string quartet", ""]
    rows = encoder.encode(texts)
    assert rows.dtype == np.float32 and rows.shape == (4, encoder.dim)
    assert np.allclose(np.linalg.norm(rows[:3], axis=1), 1) and not rows[3].any()
    assert np.array_equal(rows, LexicalEncoder().encode(texts))
    assert cos(rows, 0, 1) > 0.4 > cos(rows, 0, 2)


@pytest.fixture
def no_sentence_transformers(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    monkeypatch.setattr(encoders, "_load", functools.cache(encoders._load.__wrapped__))
    make_encoder.cache_clear()
    encoders.warn_lexical.cache_clear()
    pair._CACHE.clear()  # content built with the encoder 'auto' stood for before
    yield
    make_encoder.cache_clear()
    encoders.warn_lexical.cache_clear()
    pair._CACHE.clear()


def test_without_sentence_transformers_auto_is_lexical_and_says_so(no_sentence_transformers):
    with pytest.warns(UserWarning, match=r"differs from the study's.*'sentence_transformers' "
                      r"is not installed.*mobileintent-gym\[embed\]"):
        encoder = make_encoder("auto")
    assert isinstance(encoder, LexicalEncoder) and encoder.name == "lexical"
    assert make_encoder("auto") is encoder  # one warning per process
    with pytest.raises(DependencyNotInstalled, match=r"mobileintent-gym\[embed\]"):
        make_encoder("sentence")
    content = build_user_content(resolve_profile("demo-ana"), PairConfig(encoder="auto"))
    assert content.encoder == "lexical" and len(content.contexts["music:liked"].personal) == 18


def test_lexical_content_read_from_the_disk_cache_warns_as_building_it_does(
        no_sentence_transformers, tmp_path, monkeypatch):
    # A later process reads the content from disk and makes no encoder: it was told
    # nothing, and went on with content that differs from the study's.
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    config, profile = PairConfig(encoder="auto"), resolve_profile("demo-ben")
    with pytest.warns(UserWarning, match="ranked with the lexical encoder"):
        built = build_user_content(profile, config)
    make_encoder.cache_clear()
    encoders.warn_lexical.cache_clear()  # as in a new process
    pair._CACHE.clear()
    with pytest.warns(UserWarning, match=r"ranked with the lexical encoder and differs from "
                      r"the study's \(no sentence encoder: .*sentence_transformers"):
        read = build_user_content(profile, config)
    assert read.encoder == built.encoder == "lexical" and read.labels == built.labels
    assert make_encoder.cache_info().currsize == 0  # read, not built


def test_a_command_announces_the_lexical_fallback_and_why(no_sentence_transformers):
    import io
    import warnings

    from mobileintent_gym.console import UsageError, run_encoder

    stream = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the announcement replaces the library's warning
        encoder = run_encoder(stream=stream)
    assert encoder.fallback_reason.startswith("no sentence encoder: 'sentence_transformers'")
    assert stream.getvalue() == f"encoder: lexical (FALLBACK: {encoder.fallback_reason})\n"
    with pytest.raises(UsageError, match="paraphrase-multilingual-MiniLM-L12-v2 but lexical"):
        run_encoder("paraphrase-multilingual-MiniLM-L12-v2", stream=stream)


def test_an_encoder_that_gives_nan_is_named_not_scored_zero():
    # A NaN row scored as a zero row: Acc-S 0 for a broken encoder, without a word.
    from mobileintent_gym.metrics.text import pair_similarities
    from mobileintent_gym.users.encoders import unit_rows
    from mobileintent_gym.users.ranking import score_entities

    class Broken:
        name = "broken"

        def encode(self, texts):
            return np.full((len(texts), 4), np.nan, dtype=np.float32)

    assert np.allclose(unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])), [[0.6, 0.8], [0, 0]])
    with pytest.raises(ValueError, match=r"1 of 2 embedding rows hold NaN or infinite"):
        unit_rows(np.array([[1.0, 0.0], [np.inf, 0.0]]))
    with pytest.raises(ValueError, match=r"1 of 1 embedding rows hold NaN"):
        pair_similarities(["a"], ["b"], Broken())
    with pytest.raises(ValueError, match="hold NaN"):  # content ranked by NaN scores too
        score_entities(["jazz"], list(pair.CONTEXTS["music:liked"].pool.entities())[:3], Broken())


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="'bert'"):
        make_encoder("bert")


def test_sentence_encoder_records_the_model_it_loaded(sentence_encoder):
    assert sentence_encoder.name in (STUDY_MODEL, PACKAGED_MODEL)
    if sentence_encoder.name == PACKAGED_MODEL:  # offline, the study's model is not cached
        assert sentence_encoder.source.endswith("model")
    assert sentence_encoder._model.max_seq_length == 96
    rows = sentence_encoder.encode(["hip-hop", "a rap song with heavy beats", "a string quartet"])
    assert rows.dtype == np.float32 and rows.shape == (3, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1, atol=1e-5)
    assert cos(rows, 0, 1) > cos(rows, 0, 2) + 0.1
    assert sentence_encoder.encode([]).shape == (0, 384)


class FakeModel:
    """A loaded model whose tokenizer knows its whole vocabulary (of 3 tokens)."""

    max_seq_length = 512
    tokenizer = ("[CLS]", "[SEP]", "word")

    def __getitem__(self, index):
        config = types.SimpleNamespace(vocab_size=3)
        return types.SimpleNamespace(auto_model=types.SimpleNamespace(config=config))


def fake_sentence_transformers(calls, cached):
    def load(path, device=None, local_files_only=False):
        calls.append((path, local_files_only))
        if local_files_only and not cached:
            raise OSError("not in the cache\nmore detail")
        return FakeModel()

    return types.SimpleNamespace(SentenceTransformer=load)


@pytest.mark.parametrize("cached", [True, False])
def test_loading_order_cache_then_hub_then_fallback(tmp_path, monkeypatch, cached):
    (tmp_path / "modules.json").write_text("[]")
    calls = []
    monkeypatch.setitem(sys.modules, "sentence_transformers",
                        fake_sentence_transformers(calls, cached))
    model_id = f"fake/model-{cached}"
    name, source, model, fallback_reason = encoders._load(model_id, str(tmp_path), 64, "cpu")
    if cached:
        assert (name, source, calls) == (model_id, "cache", [(model_id, True)])
        assert fallback_reason is None
    else:  # offline: the hub is skipped, the fallback folder is loaded, and says why
        assert (name, source) == (str(tmp_path), str(tmp_path))
        assert calls == [(model_id, True), (str(tmp_path), False)]
        assert fallback_reason == (f"{model_id} could not be loaded from the cache: OSError: "
                                   "not in the cache; the hub: offline, or it did not confirm the "
                                   "model in time")
    assert model.max_seq_length == 64


def test_a_missing_dependency_of_the_model_is_raised_not_fallen_back_from(monkeypatch,
                                                                          tmp_path):
    # Any error of a source moved on to the next: an ImportError of this machine's (a
    # package the model needs) was a silent fallback to another model.
    (tmp_path / "modules.json").write_text("[]")

    def load(path, device=None, local_files_only=False):
        if path == str(tmp_path):
            return FakeModel()  # the fallback would load
        raise ImportError("the model needs the 'einops' package")

    monkeypatch.setitem(sys.modules, "sentence_transformers",
                        types.SimpleNamespace(SentenceTransformer=load))
    with pytest.raises(ImportError, match="einops"):
        encoders._load("fake/needs-einops", str(tmp_path), 64, "cpu")


def test_a_model_whose_first_module_is_no_transformer_is_not_refused():
    # A static-embedding model has no transformer config: len() of its tokenizer raised
    # TypeError, and the model fell back to another.
    class Static:
        tokenizer = object()  # no len()

    model = type("Model", (), {"__getitem__": lambda self, i: Static()})()
    assert encoders.check_tokenizer(model) is model


def test_without_a_fallback_the_error_says_what_was_tried(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake_sentence_transformers([], False))
    with pytest.raises(encoders.MobileIntentError) as err:
        encoders._load("fake/none", None, 64, "cpu")
    assert "'fake/none'" in str(err.value)
    assert "the cache: OSError: not in the cache" in str(err.value)
    assert "the hub: offline" in str(err.value)
    with pytest.raises(encoders.MobileIntentError, match="holds no sentence-transformers model"):
        encoders._load("fake/none", str(tmp_path), 64, "cpu")


def test_offline_means_no_hub_check(monkeypatch):
    probes = []
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: probes.append(a))
    assert encoders.hub_allowed("any/model") is False and probes == []


def serve(handler):
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Answers(http.server.BaseHTTPRequestHandler):
    asked: ClassVar[list[str]] = []  # the paths asked for

    def do_HEAD(self):
        self.asked.append(self.path)
        self.send_response(200 if self.path == "/api/models/org/known" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_hub_is_tried_only_when_it_confirms_the_model(monkeypatch):
    server = serve(Answers)
    monkeypatch.setattr(encoders, "_HUB_ANSWERS", {})
    monkeypatch.setattr(Answers, "asked", [])
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    known, unknown = "/api/models/org/known", "/api/models/org/unknown"
    try:
        assert encoders.hub_allowed("org/known") is True
        assert encoders.hub_allowed("org/unknown") is False
        assert encoders.hub_allowed("org/known") and not encoders.hub_allowed("org/unknown")
        assert Answers.asked == [known, unknown]  # each answer believed for a while
        monkeypatch.setattr(encoders, "HUB_RETRY_SECONDS", 0.0)
        assert not encoders.hub_allowed("org/other") and not encoders.hub_allowed("org/other")
        assert encoders.hub_allowed("org/known")  # a confirmation stays
        other = "/api/models/org/other"
        assert Answers.asked == [known, unknown, other, other]  # a refusal: asked again
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        assert encoders.hub_allowed("org/known") is False  # offline wins over the answer
    finally:
        server.shutdown()


def test_a_hub_that_never_answers_costs_at_most_the_bound(monkeypatch):
    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never replies
    monkeypatch.setattr(encoders, "_HUB_ANSWERS", {})
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{silent.getsockname()[1]}")
    monkeypatch.setattr(encoders, "HUB_CHECK_SECONDS", 0.5)
    try:
        # The hub never answers: only the bound lets the check return. A watchdog far
        # above the bound tells a check that waits for ever from one that returns.
        answers = []
        asking = threading.Thread(target=lambda: answers.append(
            encoders.hub_allowed("org/known")), daemon=True)
        asking.start()
        asking.join(60)
        assert answers == [False]
    finally:
        silent.close()


def test_a_text_embedded_alone_is_the_same_whatever_the_thread_count(sentence_encoder):
    # Workers run torch on one thread, the main process on every core: a text's row moved
    # by about 1e-7, and an Understand reward in a vector env differed from a plain env's.
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    # A long text: a short one's product is not split over threads, and stays the same.
    text = " ".join(["play the jazz playlist I made last week in the kitchen"] * 30)
    try:
        rows = []
        for threads in (1, 2, 4):
            torch.set_num_threads(threads)
            rows.append(sentence_encoder.encode([text]))
            assert torch.get_num_threads() == threads  # the process's count comes back
    finally:
        torch.set_num_threads(before)
    assert rows[0].tobytes() == rows[1].tobytes() == rows[2].tobytes()


def test_two_threads_embedding_alone_leave_torch_s_thread_count_as_it_was(sentence_encoder,
                                                                           monkeypatch):
    # Each restored the count it found: the second found the first's 1, restored it last,
    # and every later thread (and the main one) ran torch on one thread.
    torch = pytest.importorskip("torch")
    model, before = sentence_encoder._model, torch.get_num_threads()
    first_in, second_in, release = threading.Event(), threading.Event(), threading.Event()
    encode = model.encode

    def held(texts, **kwargs):
        if threading.current_thread().name == "first":
            first_in.set()
            release.wait(10)
        else:
            second_in.set()
        return encode(texts, **kwargs)

    torch.set_num_threads(2)
    monkeypatch.setattr(model, "encode", held)
    try:
        first = threading.Thread(target=sentence_encoder.encode, args=(["a"],), name="first")
        second = threading.Thread(target=sentence_encoder.encode, args=(["b"],), name="second")
        first.start()
        assert first_in.wait(10)
        second.start()
        second_in.wait(0.5)  # it waits for the first to finish
        release.set()
        first.join()
        second.join()
        seen = []
        fresh = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
        fresh.start()
        fresh.join()
        assert torch.get_num_threads() == 2 and seen == [2]
    finally:
        torch.set_num_threads(before)


def test_loading_the_sentence_model_draws_no_bar_and_leaves_transformers_bars_on():
    # transformers drew "Loading weights: 100%|…| 103/103" on stderr in every process
    # that ranked content or scored Acc-S, amid a command's results.
    pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
    ran = python_c("from transformers.utils import logging\n"
                   "from mobileintent_gym.users.encoders import SentenceEncoder\n"
                   "rows = SentenceEncoder().encode(['hello'])\n"
                   "print(rows.shape, logging.is_progress_bar_enabled())",
                   env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["(1,", "384)", "True"]
    assert "Loading weights" not in ran.stderr
