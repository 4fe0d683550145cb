import os

import pytest

from mobileintent_gym.distributed import THREAD_VARIABLES, worker_environment, worker_thread_env
from mobileintent_gym.errors import MobileIntentError


def test_unset_variables_get_the_default_and_set_ones_keep_their_value():
    limits = worker_thread_env({"MKL_NUM_THREADS": "4"})
    assert set(limits) == set(THREAD_VARIABLES)
    assert limits["MKL_NUM_THREADS"] == "4" and limits["OMP_NUM_THREADS"] == "1"
    assert worker_thread_env({"MOBILEINTENT_GYM_WORKER_THREADS": "3"})["OMP_NUM_THREADS"] == "3"


@pytest.mark.parametrize("value", ["0", "two", "-1", "", "²"])
def test_a_bad_thread_count_is_named(value):
    with pytest.raises(MobileIntentError, match=repr(value.strip())):
        worker_thread_env({"MOBILEINTENT_GYM_WORKER_THREADS": value})


def test_the_environment_is_restored_after_starting_workers(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    with worker_environment():
        assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["OMP_NUM_THREADS"] == "5"
    assert "OPENBLAS_NUM_THREADS" not in os.environ and os.environ["OMP_NUM_THREADS"] == "5"


def test_environments_opened_by_two_threads_restore_the_variables_as_they_were(monkeypatch):
    # Each restored what it found: the first to close put back nothing set, the second
    # the 1s the first had set, which then held every later process to one thread.
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    first, second = worker_environment(), worker_environment()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert os.environ["OMP_NUM_THREADS"] == "1"  # the second is still open
    second.__exit__(None, None, None)
    assert "OMP_NUM_THREADS" not in os.environ
