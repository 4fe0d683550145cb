"""Run folders: checkpoints are written whole, with the permissions of any other file."""

from __future__ import annotations

import os

import pytest

from mobileintent_gym.rl.runs import atomic_folder


def test_atomic_folder_appears_only_when_complete(tmp_path):
    target = tmp_path / "checkpoint-1"
    with pytest.raises(RuntimeError), atomic_folder(target) as partial:
        (partial / "weights.bin").write_text("half")
        raise RuntimeError("killed mid-write")
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []  # the partial folder is gone too


def test_atomic_folder_replaces_an_old_target(tmp_path):
    target = tmp_path / "adapters"
    target.mkdir()
    (target / "old.bin").write_text("old")
    with atomic_folder(target) as partial:
        (partial / "new.bin").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == ["new.bin"]
    assert [p.name for p in tmp_path.iterdir()] == ["adapters"]


def test_atomic_folder_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_folder(tmp_path / "checkpoint-2"):
            pass
    finally:
        os.umask(old)
    assert (tmp_path / "checkpoint-2").stat().st_mode & 0o777 == 0o755
