"""Helpers shared by the tests: address a screen the way a scripted agent does."""

from mobileintent_gym.phone.query import find_all, tap


def press(phone, **criteria):
    """Tap the first element matching criteria on the phone's current screen."""
    return phone.act(tap(phone.hierarchy(), **criteria))


def texts(phone, resource_id):
    """Texts of every element with that resource id on the current screen."""
    return [n.text for n in find_all(phone.hierarchy(), resource_id=resource_id)]
