import copy
import os
import pickle
import random
import signal
import threading
import time
from collections import OrderedDict

import pytest

from mobileintent_gym.once import ForkSafeLock, once
from mobileintent_gym.phone.lru import LRU
from tests.helpers import race


def test_threads_calling_a_function_before_its_first_result_run_it_once():
    # functools.cache let six threads each load their own copy of the sentence model.
    calls = []

    @once
    def load(name):
        calls.append(name)
        time.sleep(0.05)
        return object()

    results = []
    assert race(lambda: results.append(load("model"))) == []
    assert calls == ["model"] and len({id(r) for r in results}) == 1


def test_a_call_may_make_another_of_the_same_function():
    @once
    def make(kind):
        return make("inner") + 1 if kind == "auto" else 1

    assert make("auto") == 2 and make("auto") == 2


def test_an_lru_shared_by_threads_never_raises():
    # A read raced another thread's eviction of the same entry: KeyError in move_to_end.
    cache = LRU(8)

    def churn():
        draw = random.Random(threading.get_ident())
        for _ in range(20_000):
            key = draw.randrange(24)
            if cache.get(key) is None:
                cache.put(key, key)

    assert race(churn) == [] and len(cache) == 8


def test_an_lru_copies_and_pickles_with_its_entries_and_a_lock_of_its_own():
    # Its lock made every env unpicklable: copy.deepcopy(env) raised "cannot pickle
    # '_thread.lock' object".
    cache = LRU(2)
    cache.put("a", 1)
    for copied in (copy.deepcopy(cache), pickle.loads(pickle.dumps(cache))):
        assert copied.get("a") == 1 and copied.size == 2
        copied.put("b", 2)
        copied.put("c", 3)
        assert copied.get("a") is None and cache.get("a") == 1  # apart from the original


def test_a_cached_result_is_returned_while_another_call_is_in_progress():
    # Every call waited behind the one in progress, cached ones included.
    started, release = threading.Event(), threading.Event()

    @once
    def load(name):
        if name == "slow":
            started.set()
            release.wait(30)
        return name

    load("fast")
    slow = threading.Thread(target=load, args=("slow",))
    slow.start()
    assert started.wait(30)
    fast = threading.Thread(target=load, args=("fast",))
    fast.start()
    fast.join(10)
    still_waiting = fast.is_alive()
    release.set()
    slow.join()
    fast.join()
    assert not still_waiting and load.cache_info().currsize == 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # forking with threads
def test_a_child_forked_while_a_thread_holds_a_lock_gets_it_afresh():
    # The child inherited the lock held, by a thread it does not have: it waited for ever.
    lock, held, release = ForkSafeLock(), threading.Event(), threading.Event()

    def hold():
        with lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(30)
    child = os.fork()
    if child == 0:  # the child: takes the lock, or is killed below
        with lock:
            os._exit(0)
    try:
        deadline = time.monotonic() + 30
        while (done := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if done[0] == 0:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        assert done[0] == child and os.waitstatus_to_exitcode(done[1]) == 0
    finally:
        release.set()
        holder.join()


def test_keyword_arguments_are_part_of_the_key_and_hits_are_counted():
    made = once(lambda x=0: [x])
    assert (made(x=1), made(x=2)) == ([1], [2]) and made(x=1) is made(x=1)
    assert made.cache_info()[:2] == (2, 2) and made.cache_info().currsize == 2
    made.cache_clear()
    assert tuple(made.cache_info()) == (0, 0, None, 0)  # as functools.cache's clear


def test_an_lru_evicts_the_least_recently_used_entry():
    cache = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # read: now the most recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def test_a_read_and_an_eviction_of_the_same_entry_at_once_do_not_collide():
    # Deterministic form of the race above: the reader pauses between finding "a" and
    # marking it recent while another thread's put evicts it (KeyError in move_to_end).
    read, evicted, errors = threading.Event(), threading.Event(), []

    class Paused(OrderedDict):
        def get(self, key, default=None):
            value = super().get(key, default)
            if threading.current_thread().name == "reader":
                read.set()
                evicted.wait(0.5)  # the eviction, unless a lock holds it off meanwhile
            return value

    cache = LRU(1)
    cache._items = Paused()
    cache.put("a", 1)

    def reader():
        try:
            cache.get("a")
        except KeyError as err:
            errors.append(err)

    def evicter():
        read.wait(5)
        cache.put("b", 2)
        evicted.set()

    threads = [threading.Thread(target=reader, name="reader"), threading.Thread(target=evicter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and cache.get("b") == 2
