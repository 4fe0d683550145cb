"""The one table from task templates to the Act2Intention event classes.

Every intention a simulated user carries out is a task instance of a template; its event
class (one of the 20 classes of the Act2Intention prediction task) and the PersonaLens
domains that make a user want it come from :data:`TEMPLATE_INTENTS`, keyed by template id.
The table covers all 30 templates of the cross-user study; a template is reachable once the
phone has its app (it is in :data:`mobileintent_gym.tasks.TEMPLATES`), so new apps' templates
join the routines with no change here.

The study's apps map to classes as: Alipay's billing history → Financial management and
its message list → Message; Bilibili → Gaming community; Maps → Check map; RedBook, Reddit,
WeChat Moments and X's interest feed → Community; Spotify → Listen music; Tencent Meeting →
Office chat; WeChat chats → Chatting; WeChat Reading → Read e-books; X's news and topic
feeds → Watch news and Knowledge acquisition.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.act2intent import EVENT_CLASSES
from mobileintent_gym.tasks import TEMPLATES


@dataclass(frozen=True, slots=True)
class TemplateIntent:
    """What a template means to a user.

    Attributes:
        event: The Act2Intention event class of its intentions.
        domains: PersonaLens domains whose interest makes a user do it more often.
        purpose: Why a user does it, ending the intention's text (``to hear it again``).
    """

    event: str
    domains: tuple[str, ...]
    purpose: str


def _table() -> dict[str, TemplateIntent]:
    classes = {
        ("G-ALI-01",): ("Financial management", ("Finance", "Shopping")),
        ("G-ALI-02", "G-ALI-03"): ("Message", ("Finance", "Messaging")),
        ("G-BIL-01", "G-BIL-02", "G-BIL-03"): ("Gaming community", ("Games", "Media", "Movies")),
        ("G-MAP-01", "G-MAP-02", "G-MAP-03"): ("Check map", ("Travel", "Restaurants")),
        ("G-RBK-01", "G-RBK-02", "G-RBK-03"): ("Community",
                                               ("Shopping", "Restaurants", "Travel")),
        ("G-RDT-01", "G-RDT-02", "G-RDT-03"): ("Community", ("Games", "Sports", "Media")),
        ("G-SPT-01", "G-SPT-02", "G-SPT-03"): ("Listen music", ("Music",)),
        ("G-MTG-01", "G-MTG-02", "G-MTG-03"): ("Office chat", ("Calendar", "Messaging")),
        ("G-WCT-01", "G-WCT-02"): ("Chatting", ("Messaging",)),
        ("G-WCT-03",): ("Community", ("Events", "Movies", "Restaurants", "Travel")),
        ("G-WRE-01", "G-WRE-02", "G-WRE-03"): ("Read e-books", ("Books",)),
        ("G-X-01",): ("Community", ("Sports", "Events", "Media")),
        ("G-X-02",): ("Watch news", ("Events", "Media")),
        ("G-X-03",): ("Knowledge acquisition", ("Books", "Media")),
    }
    purposes = {
        "G-ALI-01": "to check what was paid", "G-ALI-02": "to read the latest notice",
        "G-ALI-03": "to confirm it was read", "G-BIL-01": "to support the creator",
        "G-BIL-02": "to watch something new", "G-BIL-03": "to watch it again",
        "G-MAP-01": "to look the place up again", "G-MAP-02": "to find the way there",
        "G-MAP-03": "to check the place's details", "G-RBK-01": "to revisit a saved idea",
        "G-RBK-02": "to look at it again", "G-RBK-03": "to keep it for later",
        "G-RDT-01": "to catch up on the discussion", "G-RDT-02": "to thank the poster",
        "G-RDT-03": "to read the thread", "G-SPT-01": "to keep it for rainy evenings",
        "G-SPT-02": "to hear it again", "G-SPT-03": "to pick music for the moment",
        "G-MTG-01": "to review a past meeting", "G-MTG-02": "to prepare for the meeting",
        "G-MTG-03": "to look up the meeting notes", "G-WCT-01": "to read the latest messages",
        "G-WCT-02": "to confirm the message", "G-WCT-03": "to see who shared the post",
        "G-WRE-01": "to continue reading", "G-WRE-02": "to keep the book in the list",
        "G-WRE-03": "to try a recommended book", "G-X-01": "to follow an interest",
        "G-X-02": "to keep up with the news", "G-X-03": "to learn about the topic",
    }
    return {tid: TemplateIntent(event, domains, purposes[tid])
            for ids, (event, domains) in classes.items() for tid in ids}


TEMPLATE_INTENTS: MappingProxyType[str, TemplateIntent] = MappingProxyType(_table())


def event_class(template_id: str) -> str:
    """The event class of intentions made from ``template_id``.

    Raises:
        MobileIntentError: Naming a template the table does not list.
    """
    try:
        return TEMPLATE_INTENTS[template_id].event
    except KeyError:
        raise MobileIntentError(f"no event class for template {template_id!r}; the table "
                                f"lists {sorted(TEMPLATE_INTENTS)}") from None


def reachable_templates() -> tuple[str, ...]:
    """Ids of the templates the phone can execute today that the table classifies."""
    return tuple(t for t in TEMPLATES if t in TEMPLATE_INTENTS)


def reachable_classes() -> tuple[str, ...]:
    """Event classes of :func:`reachable_templates`, in the study's order."""
    found = {TEMPLATE_INTENTS[t].event for t in reachable_templates()}
    return tuple(c for c in EVENT_CLASSES if c in found)
