"""mobileintent-gym: Gymnasium environments for proactive mobile agents."""

# pickling makes read-only mappings picklable; stamp notes when this process read the
# package's code (before any module below).
from mobileintent_gym import pickling, stamp  # noqa: F401
from mobileintent_gym.actions import Action, ActionType, format_action, parse_action
from mobileintent_gym.envs import register_envs
from mobileintent_gym.errors import DeviceError, InvalidActionError, MobileIntentError
from mobileintent_gym.phone import ActResult, SimPhone, StepEvent

__version__ = "0.1.0"

register_envs()

__all__ = [
    "ActResult",
    "Action",
    "ActionType",
    "DeviceError",
    "InvalidActionError",
    "MobileIntentError",
    "SimPhone",
    "StepEvent",
    "format_action",
    "parse_action",
]
