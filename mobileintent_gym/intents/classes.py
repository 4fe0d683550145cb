"""Task templates' event classes, domains and purposes: what simulated users want of them.

Every intention a simulated user carries out is a task instance of a template; its event
class (one of the 20 classes of the Act2Intention prediction task), the PersonaLens
domains that make a user want it and its purpose are the template's own
(:class:`~mobileintent_gym.tasks.spec.TemplateIntent`, declared beside it in its app), so
a new app's templates join the routines with no change here.

The study's apps map to classes as: Alipay's billing history → Financial management and
its message list → Message; Bilibili → Gaming community; Maps → Check map; RedBook, Reddit,
WeChat Moments and X's interest feed → Community; Spotify → Listen music; Tencent Meeting →
Office chat; WeChat chats → Chatting; WeChat Reading → Read e-books; X's news and topic
feeds → Watch news and Knowledge acquisition.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import InvalidAppError, MobileIntentError
from mobileintent_gym.metrics.act2intent import EVENT_CLASSES
from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.tasks.spec import TaskTemplate, TemplateIntent
from mobileintent_gym.users.profile import DOMAINS, domain_hint


@functools.cache
def _intents() -> Mapping[str, TemplateIntent]:
    """Every registered template's intent (checked with its app's bundle)."""
    return MappingProxyType({tid: template.intent for tid, template in TEMPLATES.items()})


def check_intent(template: TaskTemplate) -> None:
    """Raise unless routines can place ``template``'s intent (part of ``AppBundle.check``).

    Raises:
        InvalidAppError: Naming an intent that is no TemplateIntent, an event class that is
            none of :data:`EVENT_CLASSES`, a domain none of
            :data:`~mobileintent_gym.users.profile.DOMAINS`, no domains or no purpose.
    """
    intent = template.intent
    if not isinstance(intent, TemplateIntent):
        raise InvalidAppError(f"template {template.id}: intent must be a TemplateIntent, "
                              f"got {type(intent).__name__}")
    bad = [] if intent.event in EVENT_CLASSES else [
        f"event {intent.event!r} (one of {list(EVENT_CLASSES)})"]
    if isinstance(intent.domains, str) or not intent.domains:
        bad.append(f"domains {intent.domains!r} (a tuple of one domain or more)")
    else:
        bad += [f"domain {d!r}{domain_hint(d)} (one of {list(DOMAINS)})"
                for d in intent.domains if d not in DOMAINS]
    if not isinstance(intent.purpose, str) or not intent.purpose.strip():
        bad.append(f"purpose {intent.purpose!r} (words that end the intention: 'to ...')")
    if bad:
        raise InvalidAppError(f"template {template.id}'s intent: " + "; ".join(bad))


TEMPLATE_INTENTS: Mapping[str, TemplateIntent] = registry.View(_intents)
"""Template id → what it means to a user, for every registered template."""


def event_class(template_id: str) -> str:
    """The event class of intentions made from ``template_id``.

    Raises:
        MobileIntentError: Naming a template no registered app has.
    """
    try:
        return TEMPLATE_INTENTS[template_id].event
    except KeyError:
        raise MobileIntentError(f"no template {template_id!r}; the registered apps have "
                                f"{sorted(TEMPLATE_INTENTS)}") from None


def reachable_templates() -> tuple[str, ...]:
    """Ids of the templates the phone can execute: those of every registered app."""
    return tuple(TEMPLATES)


def reachable_classes() -> tuple[str, ...]:
    """Event classes of :func:`reachable_templates`, in the study's order."""
    found = {TEMPLATE_INTENTS[t].event for t in reachable_templates()}
    return tuple(c for c in EVENT_CLASSES if c in found)
