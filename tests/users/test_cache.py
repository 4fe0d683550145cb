"""Built content on disk: shared by processes, keyed by everything it depends on."""

import errno
import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from mobileintent_gym import files, stamp
from mobileintent_gym.users import PairConfig, build_user_content, encoders, pair, resolve_profile
from mobileintent_gym.users import cache as content_cache

try:
    import fcntl
except ImportError:  # Windows: the cache takes no locks there
    fcntl = None

ROOT = Path(__file__).resolve().parents[2]
STUDY_REPO = "models--" + encoders.STUDY_MODEL.replace("/", "--")
LEXICAL = PairConfig(encoder="lexical")

# A worker: an env for a user, reset and stepped; it reports what it imported.
WORKER = """
import json, sys
import gymnasium as gym
import mobileintent_gym
from mobileintent_gym.users import load_user_content
env = gym.make("Act2Intent-Execute-v0", users=["demo-ana"], device="sim:540x1200")
obs, info = env.reset(seed=0, options={"task": "G-SPT-02:personal:implicit"})
for action in ("PRESS[BACK]", "SWIPE[UP]", "CLICK[100,300]"):
    env.step(action)
content = load_user_content("demo-ana")
print(json.dumps({"torch": "torch" in sys.modules,
                  "sentence_transformers": "sentence_transformers" in sys.modules,
                  "adb_server": "mobileintent_gym.adbd.server" in sys.modules,
                  "asyncio": "asyncio" in sys.modules,
                  "encoder": content.encoder, "instruction": obs["instruction"],
                  "liked": content.contexts["music:liked"].personal}))
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty cache folder, and no content of this process's memory."""
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path / "cache"))
    pair._CACHE.clear()
    yield tmp_path / "cache" / "content"
    pair._CACHE.clear()


def run_python(code: str, *args: str, **env: str) -> tuple[dict, str]:
    """Run ``code`` in a fresh interpreter, offline: its last line as JSON, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
        timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT), **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def run_worker(cache: Path, **env: str) -> dict:
    return run_python(WORKER, MOBILEINTENT_GYM_CACHE=str(cache), **env)[0]


def fake_study_model(root: Path) -> Path:
    """A local Hugging Face cache holding the study model's id (the packaged weights)."""
    repo = root / STUDY_REPO
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    shutil.copytree(packaged_folder(), repo / "snapshots" / "0123abcd", copy_function=os.symlink)
    return repo / "snapshots" / "0123abcd"


def packaged_folder() -> Path:
    return Path(encoders.fallback_path(encoders.PACKAGED_FALLBACK))


@pytest.fixture
def study_snapshot(tmp_path, monkeypatch) -> Path:
    """The study model's snapshot in this process's (offline) Hugging Face cache."""
    monkeypatch.setenv("SENTENCE_TRANSFORMERS_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return fake_study_model(tmp_path / "hf")


def damage_weights(snapshot: Path) -> None:
    """Cut the snapshot's weights short (its other files stay complete)."""
    weights = (snapshot / "model.safetensors").read_bytes()[:5000]
    (snapshot / "model.safetensors").unlink()
    (snapshot / "model.safetensors").write_bytes(weights)


def test_workers_read_cached_users_without_torch_and_rebuild_when_the_encoder_changes(
        folder, tmp_path, sentence_encoder):
    built = build_user_content(resolve_profile("demo-ana"))  # this process writes the entry
    assert built.encoder == encoders.PACKAGED_MODEL and len(list(folder.glob("*.pkl"))) == 1
    cached = run_worker(folder.parent)
    assert not cached["torch"] and not cached["sentence_transformers"]
    # Nor the virtual adb device's server (and asyncio): 0.06 s of a 0.6 s cold start.
    assert not cached["adb_server"] and not cached["asyncio"]
    assert cached["encoder"] == built.encoder
    assert cached["liked"] == list(built.contexts["music:liked"].personal)

    fake_study_model(tmp_path / "hf")  # the study's model is now in the local cache
    home = {"SENTENCE_TRANSFORMERS_HOME": str(tmp_path / "hf")}
    rebuilt = run_worker(folder.parent, **home)
    assert rebuilt["torch"] and rebuilt["encoder"] == encoders.STUDY_MODEL
    assert len(list(folder.glob("*.pkl"))) == 2
    again = run_worker(folder.parent, **home)
    assert not again["torch"] and again["encoder"] == encoders.STUDY_MODEL
    assert again["instruction"] == cached["instruction"]


def test_changed_sources_build_new_content_and_unchanged_ones_read_it(folder, monkeypatch):
    profile = resolve_profile("demo-ben")
    first = build_user_content(profile, LEXICAL)
    pair._CACHE.clear()
    with monkeypatch.context() as patch:
        patch.setattr(pair, "_build", lambda *a: pytest.fail("built instead of read"))
        assert build_user_content(profile, LEXICAL).contexts == first.contexts

    monkeypatch.setattr(content_cache, "source_fingerprint", lambda: "an app was edited")
    pair._CACHE.clear()
    built = []
    monkeypatch.setattr(pair, "_build", lambda *a: built.append(a) or first)
    build_user_content(profile, LEXICAL)
    assert len(built) == 1 and len(list(folder.glob("*.pkl"))) == 2


def test_a_process_whose_package_files_changed_since_it_imported_them_stores_nothing(
        folder, monkeypatch):
    # It built with the code it had loaded and filed the content under the fingerprint of
    # the files on disk, which later processes, running those files, then read as theirs.
    profile = resolve_profile("demo-ben")
    monkeypatch.setattr(stamp, "IMPORTED_AT", 0.0)  # every file is newer
    with pytest.warns(UserWarning, match="changed after this process imported it"):
        edited = build_user_content(profile, LEXICAL)
    assert not list(folder.glob("*.pkl"))
    monkeypatch.setattr(stamp, "IMPORTED_AT", time.time())
    pair._CACHE.clear()
    assert build_user_content(profile, LEXICAL).contexts == edited.contexts
    assert len(list(folder.glob("*.pkl"))) == 1


def test_a_process_whose_package_files_changed_since_it_imported_them_reads_nothing(
        folder, monkeypatch):
    # It read the entries of the code on disk (built by a newer process) as its own.
    profile = resolve_profile("demo-ben")
    stored = build_user_content(profile, LEXICAL)
    pair._CACHE.clear()
    monkeypatch.setattr(stamp, "IMPORTED_AT", 0.0)  # every file is newer
    built = []
    monkeypatch.setattr(pair, "_build", lambda *a: built.append(a) or stored)
    with pytest.warns(UserWarning, match="neither read from the cache nor stored"):
        build_user_content(profile, LEXICAL)
    assert len(built) == 1


def test_a_file_copied_with_its_old_date_after_the_import_counts_as_changed(tmp_path,
                                                                            monkeypatch):
    # cp -p, rsync -a and tar set a file's modification time back: a process kept storing
    # its old code's content under the new files' fingerprint, read by every later one.
    source = tmp_path / "pkg"
    source.mkdir()
    monkeypatch.setattr(content_cache, "_source_folders", lambda: (source,))
    monkeypatch.setattr(stamp, "IMPORTED_AT", time.time() - 5)
    assert not content_cache._edited_since_import()
    copied = source / "encoders.py"
    copied.write_text("WEIGHT = 3.0\n")
    hour_ago = time.time() - 3600
    os.utime(copied, (hour_ago, hour_ago))  # as cp -p dates it
    assert content_cache._edited_since_import()


def test_a_folder_where_an_entry_goes_is_replaced_by_the_entry(folder):
    # Every process rebuilt the content, warning to set the cache to a writable folder.
    profile = resolve_profile("demo-ben")
    build_user_content(profile, LEXICAL)
    (entry,) = folder.glob("*.pkl")
    entry.unlink()
    (entry / "inside").mkdir(parents=True)
    pair._CACHE.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_user_content(profile, LEXICAL)
    assert entry.is_file()


def test_files_dated_in_the_future_or_gone_do_not_turn_the_cache_off(folder, monkeypatch):
    # A file whose date was ahead of the clock (skew) read as edited since the import in
    # every process until that time; one gone before it was looked at raised.
    monkeypatch.setattr(stamp, "IMPORTED_AT", 0.0)
    monkeypatch.setattr(content_cache, "time", SimpleNamespace(time=lambda: 1.0))
    content_cache.source_fingerprint()  # taken before the listing below names a lost file
    real = content_cache._source_files
    monkeypatch.setattr(content_cache, "_source_files",
                        lambda root: [root / "gone.py", *real(root)])
    build_user_content(resolve_profile("demo-ben"), LEXICAL)
    assert len(list(folder.glob("*.pkl"))) == 1


def test_the_source_fingerprint_covers_every_app_and_changes_with_any_file(tmp_path,
                                                                           monkeypatch):
    from mobileintent_gym.apps import registry

    app = tmp_path / "apps" / "demo"
    (app / "data").mkdir(parents=True)
    (app / "data" / "items.jsonl").write_text('{"id": "a", "label": "A"}\n')
    (app / "state.py").write_text("X = 1\n")
    before = content_cache.folder_fingerprint([app])
    (app / "data" / "items.jsonl").write_text('{"id": "a", "label": "B"}\n')
    after_data = content_cache.folder_fingerprint([app])
    (app / "state.py").write_text("X = 2\n")
    after_code = content_cache.folder_fingerprint([app])
    assert len({before, after_data, after_code}) == 3
    (app / "__pycache__").mkdir()
    (app / "__pycache__" / "state.pyc").write_bytes(b"\0")  # bytecode does not count
    assert content_cache.folder_fingerprint([app]) == after_code

    seen = []
    real = content_cache.folder_fingerprint
    monkeypatch.setattr(content_cache, "folder_fingerprint",
                        lambda folders: seen.extend(folders) or real(folders))
    content_cache.source_fingerprint.cache_clear()
    content_cache.source_fingerprint()
    content_cache.source_fingerprint.cache_clear()
    # The whole package: app states are built with code outside apps/ and users/ too
    # (the phone's state and clock, the record readers).
    assert seen == [ROOT / "mobileintent_gym"]
    assert all((ROOT / "mobileintent_gym" / "apps" / b.id).is_dir() for b in registry.bundles())


def test_the_key_holds_profile_config_and_encoder_settings(folder):
    ana, ben = resolve_profile("demo-ana"), resolve_profile("demo-ben")
    build_user_content(ana, LEXICAL)
    build_user_content(ben, LEXICAL)
    build_user_content(ana, PairConfig(encoder="lexical", seed=1))
    build_user_content(ana, PairConfig(encoder=encoders.LexicalEncoder(dim=512)))  # an object
    assert len(list(folder.glob("*.pkl"))) == 3
    assert content_cache.encoder_identity("lexical") == "lexical/4096/3"
    assert content_cache.loaded_identity(encoders.LexicalEncoder(dim=512)) == "lexical/512/3"


def test_profiles_whose_order_changes_the_ranked_values_are_kept_apart(folder):
    from mobileintent_gym.users import UserProfile
    from mobileintent_gym.users.ranking import preference_values

    def profile(order):  # two values that differ only in case: the first one is ranked
        values = {"Preferred Genres": ["Straße"], "Favorite Artists": ["STRASSE"]}
        return UserProfile.from_dict({"user_id": "order", "interests": {"Music": 1},
                                      "affinities": {"Music": {k: values[k] for k in order}}})

    first = profile(["Preferred Genres", "Favorite Artists"])
    second = profile(["Favorite Artists", "Preferred Genres"])
    assert preference_values(first, ["Music"]) != preference_values(second, ["Music"])
    build_user_content(first, LEXICAL)
    build_user_content(second, LEXICAL)
    assert len(list(folder.glob("*.pkl"))) == 2


def test_a_model_file_that_changes_changes_the_identity(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights.bin").write_bytes(b"1234")
    before = content_cache._model_identity("org/model", tmp_path / "model")
    (tmp_path / "model" / "weights.bin").write_bytes(b"12345")
    assert content_cache._model_identity("org/model", tmp_path / "model") != before


@pytest.mark.parametrize("library", ["torch", "tokenizers", "sentence-transformers"])
def test_an_upgraded_embedding_library_changes_the_identity(tmp_path, monkeypatch, library):
    # Entries ranked by the old torch or sentence-transformers were served after an upgrade
    # (and by the old tokenizers, which splits the texts, until it was counted too).
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights.bin").write_bytes(b"1234")
    content_cache._library_versions.cache_clear()
    before = content_cache._model_identity("org/model", tmp_path / "model")
    real = content_cache._version
    assert real(library) is not None and real("no-such-dist-xyz") is None
    monkeypatch.setattr(content_cache, "_version",
                        lambda name: "99.0" if name == library else real(name))
    content_cache._library_versions.cache_clear()
    try:
        assert content_cache._model_identity("org/model", tmp_path / "model") != before
    finally:
        content_cache._library_versions.cache_clear()


def test_a_download_cut_short_is_keyed_as_the_fallback_it_loads(study_snapshot):
    # Loading a snapshot without its weights falls back to the packaged model, every time:
    # keyed as the study's model, its content would be rebuilt by every process.
    snapshot = study_snapshot
    assert content_cache.encoder_identity("auto").startswith(encoders.STUDY_MODEL + "@")
    (snapshot / "model.safetensors").unlink()
    packaged = content_cache._model_identity(encoders.PACKAGED_MODEL, packaged_folder())
    assert content_cache.encoder_identity("auto") == packaged
    (snapshot / "modules.json").unlink()  # a link to the packaged model's: not written
    (snapshot / "modules.json").write_text("[{")  # cut short mid-file
    assert content_cache.encoder_identity("auto") == packaged


@pytest.mark.parametrize("damage", ["tokenizer", "weights"])
def test_a_snapshot_without_its_tokenizer_or_with_damaged_weights_falls_back(
        study_snapshot, damage):
    # Without tokenizer files it loaded without a word, with a tokenizer of 5 tokens that
    # read every word as unknown; damaged weights raised SafetensorError out of every reset.
    pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
    snapshot = study_snapshot
    if damage == "tokenizer":
        for name in ("tokenizer.json", "vocab.txt", "tokenizer_config.json",
                     "special_tokens_map.json"):
            (snapshot / name).unlink()
        packaged = content_cache._model_identity(encoders.PACKAGED_MODEL, packaged_folder())
        assert content_cache.encoder_identity("auto") == packaged
        model_id = encoders.STUDY_MODEL
    else:  # as a folder: this process's loaders remember the files of the id's snapshot
        damage_weights(snapshot)
        model_id = str(snapshot)
    name, _, model, reason = encoders._load(model_id, encoders.PACKAGED_FALLBACK, 128, "cpu")
    assert name == encoders.PACKAGED_MODEL and len(model.tokenizer) == 30522
    says = ("its tokenizer knows 5 tokens of a vocabulary of 30522" if damage == "tokenizer"
            else "SafetensorError")
    assert says in reason


@pytest.mark.parametrize(("source", "module", "extra", "message"), [
    # An OSError at import (libcudnn.so missing) escaped make_encoder("auto") and resets.
    ("raise OSError('libcudnn.so.9: cannot open')", "brokenlib", "embed",
     r"'brokenlib' is installed but cannot load \(libcudnn.so.9: cannot open\); reinstall "
     r"it: pip install 'mobileintent-gym\[embed\]'"),
    # sentence-transformers installed without torch was reported "not installed".
    ("import no_such_module_here", "halflib", "embed",
     r"'halflib' is installed but cannot be imported \(No module named "
     r"'no_such_module_here'\); reinstall it: pip install 'mobileintent-gym\[embed\]'"),
    ("from json import no_such_name", "clashlib", "embed",
     r"'clashlib' is installed but cannot be imported \(cannot import name 'no_such_name'"),
    # A module of a package that is missing: the package is not installed.
    (None, "nolib_here.sub", "rl",
     r"'nolib_here\.sub' is not installed; run: pip install 'mobileintent-gym\[rl\]'$"),
])
def test_a_dependency_that_cannot_be_imported_is_named_with_its_extra_and_cause(
        source, module, extra, message, tmp_path, monkeypatch):
    if source is not None:
        (tmp_path / f"{module}.py").write_text(source + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from mobileintent_gym.errors import DependencyNotInstalled, require

    with pytest.raises(DependencyNotInstalled, match="^" + message):
        require(module, extra)


def test_a_snapshot_without_modules_json_is_keyed_as_the_model_it_is(study_snapshot,
                                                                     sentence_encoder):
    # sentence-transformers loads a plain transformers snapshot (no modules.json: what
    # AutoModel downloads) as the study's model; it was predicted as the fallback, so every
    # process missed its content and commands refused it as another model than announced.
    (study_snapshot / "modules.json").unlink()
    assert content_cache.encoder_identity("auto").startswith(encoders.STUDY_MODEL + "@")
    import sentence_transformers

    model = sentence_transformers.SentenceTransformer(str(study_snapshot), device="cpu")
    assert model.encode(["a song"]).shape == (1, sentence_encoder.dim)


def test_a_requirement_for_other_systems_does_not_make_the_prediction_import_torch():
    # Read as missing, it made every prediction import sentence-transformers (5 s) to see.
    code = ("import importlib.metadata as m, json, sys\n"
            "requires = m.requires\n"
            "m.requires = lambda name: [*(requires(name) or []), "
            "'pywin32-none; platform_system == \"Windows\"', 'nothing-here; extra==\"dev\"']\n"
            "from mobileintent_gym.users import cache\n"
            "print(json.dumps([cache.predict_encoder('auto') is not None, "
            "'torch' in sys.modules]))")
    assert run_python(code)[0] == [True, False]


@pytest.mark.parametrize("missing", ["torch", "transformers", "scipy"])
def test_auto_without_what_sentence_transformers_imports_is_keyed_as_lexical(missing):
    # Predicted as a sentence model, it loaded as the lexical encoder. A distribution is
    # taken away here by hiding its module and its metadata (the test cannot uninstall it).
    code = (f"import importlib.metadata as m, json, sys; sys.modules[{missing!r}] = None\n"
            "version = m.version\n"
            f"def hidden(name): return version(name) if name != {missing!r} else "
            "m.version('no-such-distribution')\n"
            "m.version = hidden\n"
            "from mobileintent_gym.users import cache, encoders\n"
            "loaded = cache.EncoderChoice.of(encoders.make_encoder('auto'))\n"
            "print(json.dumps([cache.predict_encoder('auto') == loaded, "
            "cache.predict_encoder('sentence'), loaded.name]))")
    assert run_python(code)[0] == [True, None, "lexical"]


def test_auto_without_sentence_transformers_is_keyed_as_lexical(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    assert content_cache.encoder_identity("auto") == "lexical/4096/3"
    assert content_cache.encoder_identity("sentence") is None  # loading it will say why


def test_an_entry_damaged_where_it_still_unpickles_is_rebuilt(folder):
    # Only "it unpickles and is UserContent" was checked: a flipped byte inside a label
    # was served as the user's content, and kept (its time refreshed by every read).
    profile = resolve_profile("demo-chen")
    first = build_user_content(profile, LEXICAL)
    (entry,) = folder.glob("*.pkl")
    label = next(iter(dict(first.labels).values())).encode()
    data = entry.read_bytes()
    assert data.count(label) >= 1
    entry.write_bytes(data.replace(label, label[:-1] + b"#", 1))
    pair._CACHE.clear()
    assert content_cache._read(entry) is None
    again = build_user_content(profile, LEXICAL)
    assert dict(again.labels) == dict(first.labels) and entry.read_bytes() == data


@pytest.mark.parametrize("damage", [
    lambda data: data[:100],  # as if another version had written it
    # Damaged bytes that make pickle raise OverflowError and MemoryError:
    lambda data: b"\x80\x05\x8d" + (2**63).to_bytes(8, "little"),
    lambda data: b"\x80\x05\x8e" + (2**62).to_bytes(8, "little"),
])
def test_an_unreadable_entry_is_rebuilt_and_replaced(folder, damage):
    profile = resolve_profile("demo-chen")
    first = build_user_content(profile, LEXICAL)
    (entry,) = folder.glob("*.pkl")
    entry.write_bytes(damage(entry.read_bytes()))
    pair._CACHE.clear()
    assert build_user_content(profile, LEXICAL).contexts == first.contexts
    assert content_cache._read(entry) is not None


# A process that builds the built-in users (lexical encoder) once its start is signalled,
# and reports their labels and how many of them it built itself.
BUILDER = """
import json, sys
from mobileintent_gym.users import PairConfig, load_user_content
from mobileintent_gym.users import cache
built, make = [], cache.make_encoder
cache.make_encoder = lambda kind: built.append(kind) or make(kind)
sys.stdin.readline()
labels = [dict(load_user_content(u, PairConfig(encoder="lexical")).labels)
          for u in ("demo-ana", "demo-ben", "demo-chen", "demo-dara")]
print(json.dumps({"labels": labels, "built": len(built)}))
"""


def test_concurrent_processes_build_each_user_once_and_share_its_entry(folder):
    # Started together on an empty cache, they would each build every user (a vector env's
    # workers each importing torch and the encoder); one builds, the others wait and read.
    env = {**os.environ, "MOBILEINTENT_GYM_CACHE": str(folder.parent), "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen([sys.executable, "-c", BUILDER], cwd=ROOT, env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE) for _ in range(3)]
    for run in runs:
        run.stdin.write("go\n")
        run.stdin.flush()
    outputs = [run.communicate(timeout=300) for run in runs]
    assert all(run.returncode == 0 for run in runs), outputs[0][1][-2000:]
    reports = [json.loads(out) for out, _ in outputs]
    assert all(report["labels"] == reports[0]["labels"] for report in reports)
    assert sum(report["built"] for report in reports) == 4
    assert len(list(folder.glob("*.pkl"))) == 4 and not list(folder.glob(".*"))  # no temporaries


@pytest.mark.parametrize("known", [True, False])
def test_an_unusable_folder_is_named_and_off_turns_the_cache_off(tmp_path, monkeypatch, known):
    # known=False: which model the encoder kind loads is only told by loading it.
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(blocker))
    pair._CACHE.clear()
    with monkeypatch.context() as patched:  # named before seconds are spent building
        patched.setattr(content_cache, "make_encoder",
                        lambda kind: pytest.fail("built before the folder was checked"))
        if not known:
            patched.setattr(content_cache, "encoder_identity", lambda kind: None)
        with pytest.raises(content_cache.CacheError, match="a-file"):
            build_user_content(resolve_profile("demo-dara"), LEXICAL)
    assert len(pair._CACHE) == 0  # nothing half-done kept
    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", "off")
    assert content_cache.content_dir() is None
    assert build_user_content(resolve_profile("demo-dara"), LEXICAL).user_id == "demo-dara"
    pair._CACHE.clear()


def test_a_write_that_fails_after_the_build_keeps_the_content(folder, monkeypatch):
    # A disk full after seconds of building raised CacheError and lost what was built.
    # (No full disk can be had here: the write is made to fail as one does.)
    def full(path, data, replace_folder=False):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(content_cache, "write_atomic", full)
    with pytest.warns(UserWarning, match="No space left on device.*stays in this process"):
        built = build_user_content(resolve_profile("demo-dara"), LEXICAL)
    assert built.user_id == "demo-dara" and not list(folder.glob("*.pkl"))


@pytest.mark.skipif(not hasattr(os, "statvfs"), reason="statvfs")
def test_a_read_only_file_system_is_named_as_one(tmp_path, monkeypatch):
    # It was "[Errno 13] not writable", as for a folder's mode. (Mounting one read-only
    # needs root, which CI lacks: statvfs answers as it does for such a mount.)
    monkeypatch.setattr(content_cache.os, "statvfs",
                        lambda path: SimpleNamespace(f_flag=os.ST_RDONLY))
    assert "Read-only file system" in str(content_cache._refusal(tmp_path))
    monkeypatch.setattr(content_cache.os, "statvfs", lambda path: SimpleNamespace(f_flag=0))
    assert "not writable" in str(content_cache._refusal(tmp_path))


@pytest.mark.skipif(fcntl is None, reason="POSIX file locks")
def test_a_file_system_without_locks_builds_without_one(folder, monkeypatch):
    def no_locks(descriptor, operation):
        raise OSError(errno.ENOSYS, "Function not implemented")  # Lustre without flock, say

    monkeypatch.setattr(files.fcntl, "flock", no_locks)
    assert build_user_content(resolve_profile("demo-dara"), LEXICAL).user_id == "demo-dara"
    assert len(list(folder.glob("*.pkl"))) == 1


@pytest.mark.skipif(fcntl is None or not hasattr(os, "fork"), reason="POSIX locks and fork")
def test_a_forked_child_lets_go_of_the_locks_its_parent_holds(folder):
    # Else the child's copy would keep the lock after the parent's release, and any
    # process waiting for the entry (the child itself included) would wait on the child.
    entry = folder / "entry.pkl"
    folder.mkdir(parents=True)
    go_read, go_write = os.pipe()
    with content_cache._building(entry):
        child = os.fork()
        if child == 0:  # the child: once the parent let go, the lock is free
            free = False
            try:
                os.read(go_read, 1)
                descriptor = os.open(entry.with_suffix(".lock"), os.O_RDONLY)
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                free = True
            finally:  # never back into pytest
                os._exit(0 if free else 1)
    os.write(go_write, b"x")
    assert os.waitpid(child, 0)[1] == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG folders are Linux's")
def test_the_platform_folder_is_used_without_the_variable_and_only_warns(monkeypatch,
                                                                        tmp_path):
    monkeypatch.delenv("MOBILEINTENT_GYM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert content_cache.content_dir() == tmp_path / "mobileintent-gym" / "content"
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))
    pair._CACHE.clear()
    with pytest.warns(UserWarning, match="stays in this process"):
        assert build_user_content(resolve_profile("demo-dara"), LEXICAL).user_id == "demo-dara"
    pair._CACHE.clear()


def test_entries_unused_for_a_month_and_leftovers_go_when_one_is_stored(folder):
    # Nothing was ever removed: each edit of the package named new entries, and the old
    # ones, their locks and the partial files of killed writers stayed.
    build_user_content(resolve_profile("demo-chen"), LEXICAL)
    (used,) = folder.glob("*.pkl")
    month = time.time() - 31 * 24 * 3600
    old, orphan, partial = folder / "old.pkl", folder / "gone.lock", folder / f".x.pkl-{'0' * 32}"
    for file in (old, old.with_suffix(".lock"), orphan, partial):
        file.write_bytes(b"")
        os.utime(file, (month, month))
    fresh_orphan = folder / "building.lock"  # an entry being built right now
    fresh_orphan.write_bytes(b"")
    os.utime(used, (month, month))
    pair._CACHE.clear()
    build_user_content(resolve_profile("demo-chen"), LEXICAL)  # read: its time refreshed
    build_user_content(resolve_profile("demo-dara"), LEXICAL)  # stored: the folder pruned
    left = {p.name for p in folder.iterdir()}
    assert not {old.name, old.with_suffix(".lock").name, orphan.name, partial.name} & left
    assert {used.name, fresh_orphan.name} <= left and len(list(folder.glob("*.pkl"))) == 2


def test_the_loaded_encoders_entry_is_read_when_another_model_was_predicted(folder,
                                                                            monkeypatch):
    # A snapshot with damaged weights is predicted but falls back when it loads: every
    # process missed the predicted entry and built the content again.
    profile = resolve_profile("demo-chen")
    first = build_user_content(profile, LEXICAL)
    monkeypatch.setattr(content_cache, "encoder_identity", lambda kind: "some/model@0123")
    again = content_cache.fetch(pair.profile_fingerprint(profile), LEXICAL, lambda encoder: 1 / 0,
                                type(first))
    assert again.contexts == first.contexts


# A command run in a fresh interpreter: its exit code, what it imported, its last line.
COMMAND = """
import json, sys
from mobileintent_gym.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "torch": "torch" in sys.modules,
                  "sentence_transformers": "sentence_transformers" in sys.modules}))
"""


def test_evaluating_cached_users_loads_no_encoder_and_records_the_one_that_ranked(
        folder, tmp_path, sentence_encoder):
    # The command announced (and recorded) its encoder by loading it: 8 s and 430 MB on the
    # 2-core VM before any episode, though the users' content was read from disk.
    built = build_user_content(resolve_profile("demo-ana"))
    out = tmp_path / "run.json"
    report, said = run_python(COMMAND, "evaluate", "--users", "demo-ana", "--tasks",
                              "G-SPT-02:personal:implicit", "--out", str(out),
                              MOBILEINTENT_GYM_CACHE=str(folder.parent))
    assert report == {"code": 0, "torch": False, "sentence_transformers": False}, said
    provenance = json.loads(out.read_text())["provenance"]
    assert provenance["encoder"] == built.encoder == sentence_encoder.name
    reason = provenance["encoder_fallback"]
    assert f"encoder: {built.encoder}{f' (FALLBACK: {reason})' if reason else ''}\n" in said


@pytest.mark.parametrize("command", [
    ["evaluate", "--users", "demo-chen", "--tasks", "G-WCT-01:common:explicit"],
    ["generate", "--users", "demo-chen", "--days", "1"]])
def test_content_ranked_by_another_model_than_announced_is_refused(
        folder, tmp_path, study_snapshot, capsys, sentence_encoder, command):
    # The study's model, complete on disk, is announced; its weights are damaged, so the
    # content is ranked by the fallback (this process's encoder) and must not be recorded
    # under the study's name.
    damage_weights(study_snapshot)
    from mobileintent_gym.cli import main

    assert main([*command, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"encoder: {encoders.STUDY_MODEL}\n" in err
    assert (f"the content of 'demo-chen' was ranked by {encoders.PACKAGED_MODEL}, not by "
            f"{encoders.STUDY_MODEL}") in err


@pytest.mark.parametrize("changes", [
    {"affinities": {}},
    {"affinities": {"Zorblax": {"Preferred Genres": ["jazz"]}}},  # no interest in it
    {"interests": {"Music": 0}},
])
def test_a_profile_with_nothing_to_rank_by_is_warned_about_once(folder, changes):
    # Each was accepted without a word and got the same lists as every such profile.
    from mobileintent_gym.users import UserProfile

    profile = UserProfile.from_dict({"user_id": "blank", "interests": {"Music": 1},
                                     "affinities": {"Music": {"Preferred Genres": ["jazz"]}},
                                     **changes})
    with pytest.warns(UserWarning, match="'blank' holds no preference value"):
        build_user_content(profile, LEXICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_user_content(profile, LEXICAL)  # this process has it: no second warning


@pytest.mark.parametrize(("domain", "hint"), [("music", " (did you mean 'Music'?)"),
                                              ("Music ", " (did you mean 'Music'?)"),
                                              ("Zorblax", "")])
def test_a_domain_of_no_known_name_is_warned_about(folder, domain, hint):
    # "music" or "Music " loaded without a word: its values were ranked only by the
    # all-interests fallback and no routine template was weighed up by it.
    from mobileintent_gym.users import UserProfile

    profile = UserProfile.from_dict({
        "user_id": f"typo-{len(domain)}{domain[0]}", "interests": {domain: 1, "Books": 1},
        "affinities": {domain: {"Preferred Genres": ["jazz"]}, "Books": {"Genre": ["sagas"]}}})
    with pytest.warns(UserWarning, match="domain") as said:
        build_user_content(profile, LEXICAL)
    (message,) = [str(w.message) for w in said]
    assert (f"profile {profile.user_id!r}: domain {domain!r} is none of the known "
            f"ones{hint};") in message


def test_a_profile_with_preferences_builds_without_a_warning(folder):
    from mobileintent_gym.users import UserProfile

    profile = UserProfile.from_dict({"user_id": "jazz", "interests": {"Music": 1},
                                     "affinities": {"Music": {"Preferred Genres": ["jazz"]}}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_user_content(profile, LEXICAL)


def test_hidden_and_backup_files_are_not_part_of_a_folders_fingerprint(tmp_path):
    # An editor's swap or backup file beside the package's code changed the package's hash:
    # built content was rebuilt, and --resume refused the run's own code.
    code = tmp_path / "pkg"
    (code / "sub").mkdir(parents=True)
    (code / "a.py").write_text("A = 1\n")
    (code / "sub" / "data.json").write_text("{}")
    before = content_cache.folder_fingerprint([code])
    for litter in (".a.py.swp", "a.py~", "#a.py#", "a.py.orig"):
        (code / litter).write_text("A = 0\n")
    (code / ".hidden").mkdir()
    (code / ".hidden" / "x.py").write_text("X = 1\n")
    assert content_cache.folder_fingerprint([code]) == before
    (code / "sub" / "data.json").write_text('{"a": 1}')
    assert content_cache.folder_fingerprint([code]) != before


def test_a_folders_fingerprint_skips_what_is_no_file_and_walks_each_folder_once(tmp_path):
    # Following links: a broken link raised, and links back up the tree were walked until
    # the path was too long (one) or for ever (two).
    code = tmp_path / "pkg"
    (code / "data").mkdir(parents=True)
    (code / "a.py").write_text("A = 1\n")
    before = content_cache.folder_fingerprint([code])
    (code / "stale.jsonl").symlink_to(tmp_path / "gone.jsonl")
    os.mkfifo(code / "pipe")
    (code / "data" / "up").symlink_to("..", target_is_directory=True)
    (code / "self").symlink_to(".", target_is_directory=True)
    assert content_cache._source_files(code) == [code / "a.py"]
    assert content_cache.folder_fingerprint([code]) == before


@pytest.mark.parametrize("made_first", ["z", "a"])
def test_a_folder_reached_by_two_paths_is_hashed_under_the_same_one_whatever_the_order(
        tmp_path, made_first):
    # Which path the walk took first followed the file system's listing order: a tmpfs
    # and an ext4 disk fingerprinted one package differently.
    code = tmp_path / "pkg"
    code.mkdir()
    for name in (made_first, "a" if made_first == "z" else "z"):
        if name == "z":
            (code / "z").mkdir()
            (code / "z" / "data.jsonl").write_text("{}")
        else:
            (code / "a").symlink_to("z", target_is_directory=True)
    files = [p.relative_to(code) for p in content_cache._source_files(code)]
    assert files == [Path("a") / "data.jsonl"]


def test_pruning_leaves_the_lock_of_an_entry_being_built(folder):
    # A lock left by a stopped build, an hour old, was removed while a later build held
    # it: a third process then built the same entry beside the second.
    folder.mkdir(parents=True)
    building = folder / "building.lock"
    held = files.lock_file(building)
    hours = time.time() - 2 * 3600
    os.utime(building, (hours, hours))
    content_cache.prune(folder)
    assert building.exists()
    files.unlock(held)
    content_cache.prune(folder)
    assert not building.exists()
