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
