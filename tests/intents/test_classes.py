"""The template -> event class table: every PAIR template, only the study's classes."""

import pytest

from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents import TEMPLATE_INTENTS, event_class, reachable_templates
from mobileintent_gym.intents.classes import reachable_classes
from mobileintent_gym.metrics.act2intent import EVENT_CLASSES
from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.users.profile import builtin_users, resolve_profile

PAIR_TEMPLATES = (
    [f"G-{app}-0{i}" for app in ("ALI", "BIL", "MAP", "RBK", "RDT", "SPT", "MTG", "WCT", "WRE")
     for i in (1, 2, 3)] + ["G-X-01", "G-X-02", "G-X-03"])


def test_the_table_covers_the_30_templates_of_the_study_with_its_20_classes():
    assert sorted(TEMPLATE_INTENTS) == sorted(PAIR_TEMPLATES) and len(PAIR_TEMPLATES) == 30
    assert {m.event for m in TEMPLATE_INTENTS.values()} <= set(EVENT_CLASSES)
    assert event_class("G-SPT-02") == "Listen music" and event_class("G-WCT-02") == "Chatting"


def test_templates_become_reachable_when_the_phone_has_them():
    assert set(reachable_templates()) == set(TEMPLATES) & set(TEMPLATE_INTENTS)
    assert set(reachable_classes()) == {event_class(t) for t in reachable_templates()}


def test_every_domain_named_is_a_personalens_domain():
    domains = set(resolve_profile(builtin_users()[0]).interests)
    assert {d for m in TEMPLATE_INTENTS.values() for d in m.domains} <= domains


def test_an_unknown_template_is_named():
    with pytest.raises(MobileIntentError, match="G-NOPE-01"):
        event_class("G-NOPE-01")


def test_reachable_classes_come_in_the_studys_order():
    classes = reachable_classes()
    assert list(classes) == [c for c in EVENT_CLASSES if c in classes]
    assert len(set(classes)) == len(classes)
