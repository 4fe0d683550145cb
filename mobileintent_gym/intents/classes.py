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

from collections.abc import Mapping

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.tasks.spec import TemplateIntent
from mobileintent_gym.vocabulary import EVENT_CLASSES


def _intents() -> Mapping[str, TemplateIntent]:
    """Every registered template's intent (checked with its app's bundle).

    Read afresh from the registry's table on each use (30 entries: microseconds), so that
    nothing derived from it is kept to go stale.
    """
    return {tid: template.intent for tid, template in TEMPLATES.items()}


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
