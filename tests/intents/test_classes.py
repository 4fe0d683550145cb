"""Templates' intents: every PAIR template, only the study's classes, checked."""

import dataclasses

import pytest

from mobileintent_gym.apps.plugin import check_intent
from mobileintent_gym.errors import InvalidAppError, MobileIntentError
from mobileintent_gym.intents import TEMPLATE_INTENTS, event_class, reachable_templates
from mobileintent_gym.intents.classes import reachable_classes
from mobileintent_gym.metrics.act2intent import EVENT_CLASSES
from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.tasks.spec import TemplateIntent
from mobileintent_gym.users.profile import builtin_users, resolve_profile

PAIR_TEMPLATES = (
    [f"G-{app}-0{i}" for app in ("ALI", "BIL", "MAP", "RBK", "RDT", "SPT", "MTG", "WCT", "WRE")
     for i in (1, 2, 3)] + ["G-X-01", "G-X-02", "G-X-03"])


def test_the_table_covers_the_30_templates_of_the_study_with_its_20_classes():
    assert sorted(TEMPLATE_INTENTS) == sorted(PAIR_TEMPLATES) and len(PAIR_TEMPLATES) == 30
    assert {m.event for m in TEMPLATE_INTENTS.values()} <= set(EVENT_CLASSES)
    assert event_class("G-SPT-02") == "Listen music" and event_class("G-WCT-02") == "Chatting"
    assert TEMPLATE_INTENTS["G-X-02"] == TemplateIntent("Watch news", ("Events", "Media"),
                                                        "to keep up with the news")
    assert all(TEMPLATE_INTENTS[t] is TEMPLATES[t].intent for t in TEMPLATES)


@pytest.mark.parametrize(("intent", "named"), [
    (TemplateIntent("Dancing", ("Music",), "to dance"), "event 'Dancing' (one of ["),
    (TemplateIntent("Listen music", ("Music", "Zorblax"), "to dance"), "domain 'Zorblax'"),
    (TemplateIntent("Listen music", "Music", "to dance"), "domains 'Music' (a tuple"),
    (TemplateIntent("Listen music", (), "to dance"), "domains () (a tuple"),
    (TemplateIntent("Listen music", ("Music",), " "), "purpose ' '"),
    ("Listen music", "intent must be a TemplateIntent, got str"),
])
def test_an_intent_routines_cannot_place_is_named(intent, named):
    # A template of a new app that the old hard-coded table did not list was left out of
    # every routine without a word.
    template = dataclasses.replace(TEMPLATES["G-SPT-02"], intent=intent)
    with pytest.raises(InvalidAppError, match="G-SPT-02") as raised:
        check_intent(template)
    assert named in str(raised.value)


def test_every_template_the_phone_has_is_reachable():
    assert reachable_templates() == tuple(TEMPLATES) == tuple(TEMPLATE_INTENTS)
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
