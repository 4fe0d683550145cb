"""Pay: a payments app that mirrors Alipay (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pools and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`. In the Act2Intention study's event
classes it stands for Financial management (bills, balance) and Message (service and
merchant notices, friends).
"""

from mobileintent_gym.apps.pay.app import PayApp
from mobileintent_gym.apps.pay.content import CONTEXTS, build_state
from mobileintent_gym.apps.pay.state import ME, Bill, Conversation, Message, PayState
from mobileintent_gym.apps.pay.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(PayApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "ME", "Bill", "Conversation", "Message", "PayApp", "PayState"]
