"""Pickling the package's types: slotted dataclasses with state functions of their own."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass

import pytest

from mobileintent_gym.phone.events import Hit, StepEvent
from mobileintent_gym.pickling import fast_state

HIT = Hit("com.example:id/row", "android.widget.LinearLayout", "Balance", (31, 923, 1049, 1258),
          "acct-1", ("Balance", "1,024.36"))
EVENT = StepEvent(3, "CLICK[822,1013]", "pay/home", "pay/me", HIT, ("a", "b"), ("c",), "hi",
                  True, "opened", "2026-03-02 09:41:04", "r1", None)


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_events_survive_pickle_and_copy(protocol):
    back = pickle.loads(pickle.dumps(EVENT, protocol=protocol))
    assert back == EVENT and type(back.hit) is Hit and back.hit.texts == HIT.texts
    assert copy.deepcopy(EVENT) == EVENT and copy.copy(HIT) == HIT


def test_state_is_the_field_values_in_order():
    assert HIT.__getstate__() == ("com.example:id/row", "android.widget.LinearLayout",
                                  "Balance", (31, 923, 1049, 1258), "acct-1",
                                  ("Balance", "1,024.36"))
    restored = object.__new__(Hit)
    restored.__setstate__(list(HIT.__getstate__()))  # a list, as dataclasses' own wrote
    assert restored == HIT


@fast_state
@dataclass(frozen=True, slots=True)
class _One:
    value: int


@dataclass(frozen=True, slots=True)
class _Child(_One):
    extra: str = "x"


def test_a_single_field_and_a_slotted_subclass():
    assert _One(5).__getstate__() == (5,)
    assert pickle.loads(pickle.dumps(_One(5))) == _One(5)
    child = pickle.loads(pickle.dumps(_Child(1, "y")))
    assert (type(child), child.value, child.extra) == (_Child, 1, "y")


class _Plain(_One):  # no dataclass, so no slots: a __dict__ beside the inherited slot
    pass


@dataclass(frozen=True)
class _Unslotted(Hit):
    tag: str = "default"


def test_a_subclass_without_slots_keeps_its_own_fields():
    child = _Unslotted("id", "cls", "text", (0, 0, 1, 1), None, (), "mine")
    for back in (pickle.loads(pickle.dumps(child)), copy.deepcopy(child), copy.copy(child)):
        assert type(back) is _Unslotted and back == child and back.tag == "mine"
    assert pickle.loads(pickle.dumps(_Plain(3))).value == 3


def test_a_state_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError):
        object.__new__(_One).__setstate__((1, 2))


PLAIN = dataclass(type("Plain", (), {"__annotations__": {"a": int}}))


@pytest.mark.parametrize("cls", [dict, PLAIN])
def test_only_slotted_dataclasses(cls):
    with pytest.raises(TypeError, match="dataclass with slots"):
        fast_state(cls)
