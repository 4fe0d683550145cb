import copy
import pickle
import random
import threading
import time

from mobileintent_gym.once import once
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
