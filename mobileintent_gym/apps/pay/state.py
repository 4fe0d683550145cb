"""The pay app's data: immutable records in an immutable state."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from mobileintent_gym.apps.plugin import DEFAULT_OWNER, user_handle
from mobileintent_gym.phone.state import MINUTE_FORMAT, frozen_fields, month_name, moved, moved_each

ME = "me"
THEM = "them"
TIME_FORMAT = MINUTE_FORMAT
SAVINGS_RATE = 0.04
"""The savings fund's yearly yield."""


@dataclass(frozen=True, slots=True)
class Bill:
    """One transaction of the billing history.

    Attributes:
        id: Its record id.
        title: The merchant or counterparty, as the list shows it.
        category: Its spending category (``Food & Dining``, ``Transfers`` …).
        item: What was bought or why money moved.
        amount: In cents; negative for money spent, positive for money received.
        method: How it was paid (``Balance``, a card …).
        time: When, as ``YYYY-MM-DD HH:MM``.
        order: The order number.
    """

    id: str
    title: str
    category: str
    item: str
    amount: int
    method: str
    time: str
    order: str


@dataclass(frozen=True, slots=True)
class Message:
    """One message; ``sender`` is :data:`ME` or :data:`THEM`."""

    sender: str
    text: str
    time: str


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation of the message list.

    Attributes:
        id: Its record id.
        name: The service, merchant or friend it is with.
        kind: ``service``, ``merchant`` or ``friend``.
        messages: Its messages, oldest first.
        unread: Messages not read yet.
    """

    id: str
    name: str
    kind: str
    messages: tuple[Message, ...]
    unread: int = 0


@dataclass(frozen=True, slots=True)
class PayState:
    """The pay app's data (lists given as lists are kept as tuples).

    Attributes:
        bills: The billing history, newest first.
        conversations: The message list, most recent first.
        me: The owner's name (the profile's ``name``).
        balance: The balance in cents.
        savings: What the savings fund holds, in cents.
        cards: Bank cards linked to the account.
    """

    bills: tuple[Bill, ...]
    conversations: tuple[Conversation, ...]
    me: str = DEFAULT_OWNER
    balance: int = 102_436
    savings: int = 1_137_780
    cards: int = 3

    def __post_init__(self) -> None:
        frozen_fields(self, (), ("bills", "conversations"))

    @property
    def earned(self) -> int:
        """What the savings fund earned yesterday, in cents (:data:`SAVINGS_RATE` a year)."""
        return round(self.savings * SAVINGS_RATE / 365)

    @property
    def account(self) -> str:
        """The account name shown on the My page: the owner's e-mail address, masked.

        ``Alex Morgan`` → ``alex.m•••@mail.com``: the first word of the name and the first
        letter of the next.
        """
        first, _, rest = user_handle(self.me, ".").partition(".")
        return f"{first}.{rest[0]}•••@mail.com" if rest else f"{first}•••@mail.com"

    def bill(self, bill_id: str) -> Bill:
        """The transaction with id ``bill_id``.

        Raises:
            KeyError: When there is no such transaction.
        """
        for bill in self.bills:
            if bill.id == bill_id:
                return bill
        raise KeyError(f"no bill {bill_id!r}")

    def conversation(self, conversation_id: str) -> Conversation:
        """The conversation with id ``conversation_id``.

        Raises:
            KeyError: When there is no such conversation.
        """
        for conversation in self.conversations:
            if conversation.id == conversation_id:
                return conversation
        raise KeyError(f"no conversation {conversation_id!r}")


def money(cents: int, sign: bool = True) -> str:
    """An amount as the app writes it: ``-16.80``, ``+24.50``, ``1,024.36`` (no sign)."""
    text = f"{abs(cents) / 100:,.2f}"
    return (("-" if cents < 0 else "+") + text) if sign else text


def order_number(time: str, serial: str) -> str:
    """The order number of a transaction at ``time``: its day (``YYYYMMDD``), then ``serial``."""
    return f"{time[:10].replace('-', '')}{serial}"


def moved_state(state: PayState, by: timedelta) -> PayState:
    """``state`` with its transactions' and messages' times (and order days) moved by ``by``."""
    bills = [replace(b, time=(time := moved(b.time, by)), order=order_number(time, b.order[8:]))
             for b in state.bills]
    conversations = [replace(c, messages=moved_each(c.messages, by))
                     for c in state.conversations]
    return replace(state, bills=bills, conversations=conversations)


def month_of(time: str) -> str:
    """The month heading of ``time``: ``March 2026``."""
    day = datetime.strptime(time, TIME_FORMAT)
    return f"{month_name(day)} {day:%Y}"
