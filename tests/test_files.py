"""Files and folders are written whole, with the permissions of any other file."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from mobileintent_gym import files
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.files import atomic_folder, trial_folder, write_atomic
from tests.helpers import written_by_another_process


def test_atomic_folder_appears_only_when_complete(tmp_path):
    target = tmp_path / "checkpoint-1"
    with pytest.raises(RuntimeError), atomic_folder(target) as partial:
        (partial / "weights.bin").write_text("half")
        raise RuntimeError("killed mid-write")
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []  # the partial folder is gone too


def test_a_linked_target_folder_is_replaced_where_it_points_and_a_file_by_the_folder(
        tmp_path):
    # The swap moved the link aside and then failed to remove it (rmtree refuses links):
    # a checkpoint or adapter save raised after writing, a '-old' link left behind.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "stale.txt").write_text("old")
    (tmp_path / "adapters").symlink_to(elsewhere)
    with atomic_folder(tmp_path / "adapters") as partial:
        (partial / "new.txt").write_text("new")
    assert (tmp_path / "adapters").is_symlink()
    assert [p.name for p in (tmp_path / "adapters").iterdir()] == ["new.txt"]
    (tmp_path / "plain").write_text("a file")
    with atomic_folder(tmp_path / "plain") as partial:
        (partial / "x").write_text("x")
    assert (tmp_path / "plain").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adapters", "elsewhere", "plain"]


def test_atomic_folder_replaces_an_old_target(tmp_path):
    target = tmp_path / "adapters"
    target.mkdir()
    (target / "old.bin").write_text("old")
    with atomic_folder(target) as partial:
        (partial / "new.bin").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == ["new.bin"]
    assert [p.name for p in tmp_path.iterdir()] == ["adapters"]


def test_atomic_folder_keeps_a_target_another_writer_finished_first(tmp_path):
    target = tmp_path / "model"
    with atomic_folder(target, keep_existing=True) as first:
        (first / "config.json").write_text("first")
        with atomic_folder(target, keep_existing=True) as second:  # finishes first
            (second / "config.json").write_text("second")
    assert (target / "config.json").read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # the other one is dropped


def test_atomic_folder_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_folder(tmp_path / "checkpoint-2"):
            pass
    finally:
        os.umask(old)
    assert (tmp_path / "checkpoint-2").stat().st_mode & 0o777 == 0o755


def test_write_atomic_replaces_a_file_whole_with_the_umask_permissions(tmp_path):
    target = tmp_path / "deep" / "report.html"
    old = os.umask(0o022)
    try:
        write_atomic(target, b"first")
        write_atomic(target, b"second")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"second" and target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_write_atomic_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    # A file made private (0600) came back 0644 from the umask: a plain write keeps them.
    target = tmp_path / "results.json"
    target.write_bytes(b"first")
    target.chmod(0o600)
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second" and target.stat().st_mode & 0o777 == 0o600


def test_write_atomic_writes_through_a_link_which_stays_one(tmp_path):
    # A "latest.html" pointing into a runs folder: the rename used to replace the link.
    (tmp_path / "runs").mkdir()
    target, link = tmp_path / "runs" / "page.html", tmp_path / "latest.html"
    target.write_bytes(b"old")
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["latest.html", "page.html", "runs"]


def test_a_failed_atomic_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "page.html"
    target.write_bytes(b"old")

    def refuse(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)  # a full disk cannot be made here
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == [
        "page.html"]


def test_the_temporary_of_a_stopped_write_is_known_by_its_name(tmp_path, monkeypatch):
    # The report's pruning recognises half-written screens by write_atomic's own naming.
    from mobileintent_gym import files

    names = []

    def stopped(source, target):
        names.append(os.path.basename(source))
        raise KeyboardInterrupt  # the job stopped before the rename

    monkeypatch.setattr(files.os, "replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "0123456789abcdef.jpg", b"jpeg")
    assert files.partial_of(names[0]) == "0123456789abcdef.jpg"
    assert files.partial_of("0123456789abcdef.jpg") is None


def test_a_trial_folder_is_made_written_and_left_as_it_was(tmp_path):
    deeper = tmp_path / "a" / "b"
    with trial_folder(deeper):
        assert deeper.is_dir() and not list(deeper.iterdir())  # the trial file is gone
    assert not (tmp_path / "a").exists()  # the folders it made are removed
    (tmp_path / "kept").mkdir()
    with trial_folder(tmp_path / "kept"):
        pass
    assert (tmp_path / "kept").is_dir()  # a folder that was there stays
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError) as caught, trial_folder(tmp_path / "file" / "c"):
        pass
    assert caught.value.filename == str(tmp_path / "file")


def test_a_held_lock_file_is_not_removed(tmp_path):
    path = tmp_path / "entry.lock"
    held = files.lock_file(path)
    files.remove_lock_file(path)
    assert path.exists()
    files.unlock(held)
    files.remove_lock_file(path)
    assert not path.exists()


def test_removing_a_missing_lock_file_touches_nothing(tmp_path):
    # It made the file (to lock it) and removed it again: a write to the folder, and an
    # error where the folder cannot be written.
    before = tmp_path.stat().st_mtime_ns
    time.sleep(0.01)
    files.remove_lock_file(tmp_path / "never.lock")
    assert tmp_path.stat().st_mtime_ns == before and not list(tmp_path.iterdir())


def _descriptors_of(path):
    """How many of this process's open files are ``path`` (Linux' /proc)."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in os.listdir(fds) if os.path.realpath(fds / fd) == str(path))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir() or files.fcntl is None,
                    reason="needs flock and Linux' /proc")
def test_a_lock_waited_for_and_removed_meanwhile_is_taken_on_the_file_there_now(tmp_path):
    # The waiter got the lock of the removed file, while a newcomer held the new one's:
    # two processes built one cache entry side by side.
    path = tmp_path / "entry.lock"
    first = files.lock_file(path)
    taken = []
    waiter = threading.Thread(target=lambda: taken.append(files.lock_file(path)))
    waiter.start()
    while _descriptors_of(path) < 2:  # the waiter has opened the file and waits for it
        time.sleep(0.01)
    path.unlink()
    newcomer = files.lock_file(path)
    files.unlock(first)
    files.unlock(newcomer)
    waiter.join(timeout=60)
    assert os.fstat(taken[0]).st_ino == os.stat(path).st_ino
    files.unlock(taken[0])


@pytest.mark.skipif(files.fcntl is None, reason="needs flock")
def test_a_run_another_process_writes_is_refused_and_its_lock_file_goes(tmp_path):
    # Two runs into one --out: one replaced the other's results file (its episodes then
    # went to a file no longer there), or both logged the same update of a training run.
    target = tmp_path / "run"
    with written_by_another_process(target):
        assert (tmp_path / "run.lock").exists()
        with pytest.raises(MobileIntentError) as err, files.sole_writer(target):
            pass
        assert str(err.value) == (f"another process is writing {target} now; wait until it "
                                  "ends, or write elsewhere")
    assert not (tmp_path / "run.lock").exists()
    with files.sole_writer(target):  # free again
        assert (tmp_path / "run.lock").exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(files.fcntl is None, reason="needs flock")
def test_one_run_is_one_lock_however_its_path_is_written(tmp_path, monkeypatch):
    # A link to the run's folder took a lock of its own, and "." (no name) crashed
    # `train --out .` with a ValueError.
    (tmp_path / "run").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "run")
    monkeypatch.chdir(tmp_path / "run")
    with written_by_another_process(tmp_path / "run"):
        for written in ("../alias", "."):
            with pytest.raises(MobileIntentError, match=f"writing {written} now"), \
                    files.sole_writer(written):
                pass
    with files.sole_writer("."):
        assert (tmp_path / "run.lock").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias", "run"]


def test_the_folders_made_for_a_lock_go_with_it_unless_written_into(tmp_path):
    # A run that failed at once left the folders of its --out behind, empty.
    with files.sole_writer(tmp_path / "new" / "sub" / "run.json"):
        assert (tmp_path / "new" / "sub" / "run.json.lock").exists()
    assert list(tmp_path.iterdir()) == []
    with files.sole_writer(tmp_path / "new" / "sub" / "run.json"):
        (tmp_path / "new" / "sub" / "run.json").write_text("{}")
    assert [p.name for p in (tmp_path / "new" / "sub").iterdir()] == ["run.json"]


def test_sealed_data_comes_back_whole_and_damage_or_another_context_reads_as_none():
    raw = files.sealed(b"row bytes", b"text\0")
    assert files.unsealed(raw, b"text\0") == b"row bytes"
    assert files.unsealed(raw, b"other\0") is None  # another text's file
    assert files.unsealed(raw[:-1], b"text\0") is None  # cut short
    flipped = raw[:-1] + bytes([raw[-1] ^ 1])
    assert files.unsealed(flipped, b"text\0") is None
    assert files.unsealed(b"", b"") is None and files.unsealed(files.sealed(b"")) == b""
