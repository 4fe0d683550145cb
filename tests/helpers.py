"""Helpers shared by the tests: address a screen the way a scripted agent does."""

from mobileintent_gym.phone.query import find_all, tap


def press(phone, **criteria):
    """Tap the first element matching criteria on the phone's current screen."""
    return phone.act(tap(phone.hierarchy(), **criteria))


def texts(phone, resource_id):
    """Texts of every element with that resource id on the current screen."""
    return [n.text for n in find_all(phone.hierarchy(), resource_id=resource_id)]


def nodes(phone, **criteria):
    """Every element matching criteria on the phone's current screen."""
    return list(find_all(phone.hierarchy(), **criteria))


def tap_node(phone, node, long=False):
    """Tap the middle of a node's visible bounds."""
    b = node.bounds
    x, y = (b[0] + b[2]) // 2, (b[1] + b[3]) // 2
    return phone.act(f"{'LONG_CLICK' if long else 'CLICK'}[{x},{y}]")
