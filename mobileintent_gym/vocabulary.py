"""The studies' vocabularies that apps, users and scores share, free of other imports.

The 20 event classes of the Act2Intention prediction task and the 20 interest domains of
PersonaLens profiles: app plugins name them in their templates' intents and contexts, and
checking a plugin needs them before anything else of the gym is loaded.
"""

from __future__ import annotations

import difflib

EVENT_CLASSES = (
    "E-commerce platform", "Community", "Message", "Take photo", "Chatting", "Watch news",
    "Check weather", "Edit media", "Read e-books", "Set Alarm", "Office chat", "Listen music",
    "Check map", "Knowledge acquisition", "Financial management", "Gaming community",
    "Audiobook", "Order takeout", "Buy ticket", "Take notes")
"""The event classes of the Act2Intention prediction task."""

DOMAINS = ("Alarm", "Books", "Buses", "Calendar", "Events", "Finance", "Flights", "Games",
           "Hotels", "Media", "Messaging", "Movies", "Music", "Rental Cars", "Restaurants",
           "Services", "Shopping", "Sports", "Train", "Travel")
"""The PersonaLens domains: what contexts rank by and routines weigh templates with."""


def domain_hint(domain: str) -> str:
    """`` (did you mean 'Music'?)`` for a domain of no known name close to one, else ``""``."""
    close = difflib.get_close_matches(domain.strip().title(), DOMAINS, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
