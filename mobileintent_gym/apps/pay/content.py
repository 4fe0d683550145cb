"""The pay app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/bills.jsonl`` (``bl000``…: a merchant or counterparty with its category,
tags, item, amount in cents and payment method) and ``data/conversations.jsonl``
(``pm00``…: a service, merchant or friend with its tags, topic and messages as
``[sender, text]`` pairs). Timing: the billing history is newest first, each transaction
3 to 30 hours before the one above it; the message list likewise, 20 minutes to 10 hours
apart, with messages three minutes apart. ``{earned}`` in a message is what the user's
savings fund earned yesterday, as the home page says it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from mobileintent_gym.apps.pay.ids import Pair
from mobileintent_gym.apps.pay.state import (
    THEM,
    Bill,
    Conversation,
    Message,
    PayState,
    money,
    order_number,
)
from mobileintent_gym.apps.plugin import since_owner
from mobileintent_gym.apps.records import Record
from mobileintent_gym.phone.state import minutes_ago
from mobileintent_gym.users.contexts import ContextSpec, Pool

BILL_GAP_MINUTES = (180, 1800)
CHAT_GAP_MINUTES = (20, 600)
MESSAGE_SPACING_MINUTES = 3
MAX_UNREAD = 3
# The account's balance and savings fund, in cents: 10 to the power of a number drawn in
# each range (about 30 to 6,300, and 1,000 to 50,000).
BALANCE_EXPONENTS, SAVINGS_EXPONENTS = (3.5, 5.8), (5.0, 6.7)
MAX_CARDS = 4
EARNED = "{earned}"  # in a message's text: what the savings fund earned yesterday (+1.25)
UNREAD_SHARE = 0.3  # of conversations whose last message is theirs
# PersonaLens domains whose tastes show in what a person pays for.
SPENDING_DOMAINS = ("Restaurants", "Shopping", "Events", "Movies", "Music", "Sports", "Games",
                    "Books", "Media", "Travel", "Hotels", "Flights", "Train", "Buses",
                    "Rental Cars", "Services", "Finance")
MESSAGE_DOMAINS = ("Messaging", "Finance", "Restaurants", "Shopping", "Events", "Services",
                   "Travel", "Sports", "Games")


def _describe_bill(r: Record) -> str:
    return f"{r.label}: {r['item']}, a {r['category']} payment ({', '.join(r['tags'])})"


def _describe_conversation(r: Record) -> str:
    return (f"{r['kind']} {r.label} ({', '.join(r['tags'])}) about {r['topic']}: "
            f"{r['messages'][-1][1]}")


BILLS = Pool(__package__, "bills", _describe_bill, ("tags", "category"))
CONVERSATIONS = Pool(__package__, "conversations", _describe_conversation, ("label", "tags"))

CONTEXTS = (
    ContextSpec(Pair.BILLS, BILLS, SPENDING_DOMAINS, ("bl000", "bl001")),
    ContextSpec(Pair.MESSAGES, CONVERSATIONS, MESSAGE_DOMAINS, ("pm00", "pm42")),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> PayState:
    """A pay state with PAIR's billing history and message list, newest first.

    Args:
        lists: The transactions and the conversations, in screen order.
        rng: Source of times, order numbers, unread counts and the account's balance,
            savings and cards.
        owner: The owner's name, on the My page's account card.
    """
    bills, ago = [], int(rng.integers(25, 240))
    for r in lists[Pair.BILLS]:
        time = minutes_ago(ago)
        order = order_number(time, f"{int(rng.integers(10**11, 10**12))}")
        bills.append(Bill(r.id, r.label, r["category"], r["item"], r["amount"], r["method"],
                          time, order))
        ago += int(rng.integers(*BILL_GAP_MINUTES))
    conversations, ago = [], int(rng.integers(2, 30))
    for r in lists[Pair.MESSAGES]:
        unread = int(rng.integers(1, MAX_UNREAD + 1)) if rng.random() < UNREAD_SHARE else 0
        conversations.append(_timed(r, ago, unread))
        ago += int(rng.integers(*CHAT_GAP_MINUTES))
    balance, savings = (int(10 ** rng.uniform(*e)) for e in (BALANCE_EXPONENTS, SAVINGS_EXPONENTS))
    state = PayState(bills, conversations, me=owner, balance=balance, savings=savings,
                     cards=int(rng.integers(1, MAX_CARDS + 1)))
    return replace(state, conversations=[_with_earnings(c, money(state.earned))
                                         for c in conversations])


def _with_earnings(conversation: Conversation, earned: str) -> Conversation:
    """``conversation`` with :data:`EARNED` in its messages written as ``earned``."""
    return replace(conversation, messages=tuple(replace(m, text=m.text.replace(EARNED, earned))
                                                for m in conversation.messages))


def _timed(record: Record, ago: int, unread: int) -> Conversation:
    """A conversation whose last message was ``ago`` minutes before the phone's clock."""
    lines = record["messages"]
    last = len(lines) - 1
    messages = tuple(Message(sender, text,
                             minutes_ago(ago + MESSAGE_SPACING_MINUTES * (last - k)))
                     for k, (sender, text) in enumerate(lines))
    # Unread are at most their messages since the owner's last.
    theirs = since_owner([m.sender for m in messages], THEM)
    return Conversation(record.id, record.label, record["kind"], messages, min(unread, theirs))
