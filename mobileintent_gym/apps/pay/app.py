"""Pay: a payments app that mirrors Alipay's structure.

Routes (names in :mod:`.ids`): three tabs — ``pay/home`` (search, quick actions and a grid
of services), ``pay/messages`` (the message list: service, merchant and friend
conversations with unread badges) and ``pay/me`` ("My": the account, Bills and the
assets) — then ``pay/bills`` (the billing history, by month) → ``pay/bill?id=`` (a
transaction's details), and ``pay/conversation?id=`` (messages, a text input and Send).
Screens of the billing history are in :mod:`.bills`, of messages in :mod:`.messages`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any, ClassVar

from mobileintent_gym.apps.pay import icon, tour
from mobileintent_gym.apps.pay.bills import BillScreens
from mobileintent_gym.apps.pay.content import CONTEXTS, build_state
from mobileintent_gym.apps.pay.ids import APP, PACKAGE, Desc, Rid, Route, Text
from mobileintent_gym.apps.pay.intents import PayIntents
from mobileintent_gym.apps.pay.messages import MessageScreens
from mobileintent_gym.apps.pay.state import ME, PayState, money, moved_state
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Icon, Paint, Round
from mobileintent_gym.phone.state import month_name
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_BLUE = (22, 119, 255)
_QUICK = (("Scan", icon.scan), ("Pay / Receive", icon.receive), ("Transfer", icon.transfer),
          ("Cards", icon.card))
_SERVICES = (("Top up", icon.phone, (255, 140, 40)), ("Utilities", icon.bolt, (250, 180, 30)),
             ("Transit", icon.bus, (30, 170, 110)), ("Food", icon.bowl, (255, 95, 70)),
             ("Savings", icon.coins, (240, 150, 30)), ("Insurance", icon.shield, _BLUE),
             ("Credit", icon.card, (120, 90, 230)), ("Rewards", "heart", (240, 80, 120)),
             ("Tickets", "album", (40, 160, 220)), ("More", icon.grid, (130, 140, 155)))
_COLUMNS = 5
_SEARCH = "Search services, bills, friends"
_ORANGE = (240, 120, 30)
_OFFERS = (("2.00 off your next transit ride", "Pay by code at the gate", icon.bus,
            (30, 170, 110)),
           ("Cashback on utility bills", "Pay any bill before March 31", icon.bolt,
            (250, 180, 30)),
           ("Double reward points", "This weekend, at every merchant", "heart", (240, 80, 120)))


class PayApp(PayIntents, BillScreens, MessageScreens, App):
    """The pay app."""

    id = APP
    package = PACKAGE
    label = "Pay"
    icon = staticmethod(icon.draw)
    color = _BLUE
    theme = Theme(background=(255, 255, 255), surface=(244, 245, 247), text=(24, 24, 24),
                  muted=(128, 128, 128), accent=_BLUE, bar=(255, 255, 255),
                  divider=(232, 232, 232))
    home = Route.HOME
    state_type = PayState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.MESSAGES: Screen("messages_screen", tab=True),
        Route.ME: Screen("me_screen", tab=True),
        Route.BILLS: Screen("bills_screen"),
        Route.BILL: Screen("bill_screen", params=("id",)),
        Route.CONVERSATION: Screen("conversation_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> PayState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def moved(self, state: PayState, by: timedelta) -> PayState:
        """``state`` with its transactions' and messages' times moved by ``by``."""
        return moved_state(state, by)

    def samples(self, state: PayState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.BILL: {"id": state.bills[0].id},
                Route.CONVERSATION: {"id": state.conversations[0].id}}

    def _tab_root(self, ctx: Ctx, state: PayState, tab: int) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root", ctx.theme.surface)
        unread = sum(c.unread for c in state.conversations)
        items = [(Desc.HOME, "home", ("open", Route.HOME), "", Rid.NAV_HOME),
                 (Desc.MESSAGES, "bubble", ("open", Route.MESSAGES), str(unread or ""),
                  Rid.NAV_MESSAGES),
                 (Desc.ME, "person", ("open", Route.ME), "", Rid.NAV_ME)]
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), items, tab))
        return root, col

    @staticmethod
    def _tile(ctx: Ctx, rect: Rect, label: str, art: Paint, rid: str,
              colors: tuple[Color, Color]) -> Node:
        """A labelled shortcut: its icon (``art``, 44 dp square) over its name."""
        ink, under = colors
        tile = Node(ui.LINEAR, rect, desc=label, resource_id=ctx.rid(rid), on_click=("noop",))
        side, top = ctx.dp(44), rect[1] + ctx.dp(10)
        left = (rect[0] + rect[2] - side) // 2
        tile.add(Node(ui.IMAGE_VIEW, (left, top, left + side, top + side), paint=art),
                 widgets.text(ctx, (rect[0], top + side + ctx.dp(4), rect[2], rect[3]), label,
                              12.5, color=ink, under=under, align="center"))
        return tile

    def home_screen(self, ctx: Ctx, entry: Entry, state: PayState) -> Node:
        """A blue head with search and quick actions; services, balance, spending, offers."""
        t = ctx.theme
        root, col = self._tab_root(ctx, state, 0)
        head = Node(ui.LINEAR, col.take(ctx.dp(150)), paint=Fill(_BLUE))
        parts = Column(head.frame)
        search = ui.inset(parts.take(ctx.dp(60)), ctx.dp(16), ctx.dp(10))
        head.add(Node(ui.TEXT_VIEW, search, text=_SEARCH, resource_id=ctx.rid(Rid.SEARCH),
                      on_click=("noop",), paint=Round((255, 255, 255), _BLUE, ctx.dp(20),
                                                      _SEARCH, t.muted, ctx.dp(14))))
        white = (255, 255, 255)
        for cell, (label, glyph) in zip(ui.split_row(parts.rest(), [None] * len(_QUICK)),
                                        _QUICK, strict=True):
            head.add(self._tile(ctx, cell, label, Icon(glyph, white, _BLUE, ctx.dp(34)),
                                Rid.QUICK_ACTION, (white, _BLUE)))
        rows = [_SERVICES[i:i + _COLUMNS] for i in range(0, len(_SERVICES), _COLUMNS)]
        items = [(ctx.dp(84), lambda r, row=row: self._service_row(ctx, r, row)) for row in rows]
        earned = f"Savings fund earned {money(state.earned)} yesterday"
        items += [(ctx.dp(140), lambda r: self._card(
                      ctx, r, "Balance", money(state.balance, sign=False), earned,
                      ("open", Route.ME), Rid.ASSET)),
                  (ctx.dp(128), lambda r: self._card(
                      ctx, r, f"Spent in {month_name(ctx.today)}", self._spent(state, ctx.today),
                      "See every transaction in Bills", ("open", Route.BILLS), Rid.SPENDING)),
                  (ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Offers for you"))]
        items += [(ctx.dp(72), lambda r, o=offer: self._offer(ctx, r, *o)) for offer in _OFFERS]
        root.add(head, self.scroll(entry, col.rest(), Rid.FEED, items))
        return root

    @staticmethod
    def _spent(state: PayState, today: date) -> str:
        """What went out in the month of ``today``, as the home card shows it."""
        month = f"{today:%Y-%m}"
        return money(sum(b.amount for b in state.bills
                         if b.amount < 0 and b.time.startswith(month)), sign=False)

    def _service_row(self, ctx: Ctx, rect: Rect, services: tuple) -> Node:
        t = ctx.theme
        row = Node(ui.LINEAR, rect, paint=Fill(t.background))
        for cell, (label, glyph, color) in zip(ui.split_row(rect, [None] * _COLUMNS), services,
                                               strict=False):
            art = Avatar(label, label, t.background, glyph=glyph, color=color)
            row.add(self._tile(ctx, cell, label, art, Rid.SERVICE, (t.text, t.background)))
        return row

    @staticmethod
    def _offer(ctx: Ctx, rect: Rect, title: str, note: str, glyph: Glyph, color: Color) -> Node:
        art = Avatar(title, title, ctx.theme.background, glyph=glyph, color=color)
        row = widgets.list_row(ctx, rect, title, note, thumb=art, on_click=("noop",),
                               rid=Rid.OFFER)
        return row.add(widgets.divider(ctx, rect))

    @staticmethod
    def _card(ctx: Ctx, rect: Rect, title: str, figure: str, note: str, intent: tuple,
              rid: str) -> Node:
        """A card on the home feed: a title, a large figure and a note under it."""
        t = ctx.theme
        frame = ui.inset(rect, ctx.dp(12), ctx.dp(6))
        card = Node(ui.LINEAR, frame, resource_id=ctx.rid(rid), on_click=intent, desc=title,
                    paint=Round(t.background, t.surface, ctx.dp(12)))
        lines = Column(ui.inset(frame, ctx.dp(16), ctx.dp(12)))
        return card.add(widgets.text(ctx, lines.take(ctx.dp(24)), title, 14, color=t.muted),
                        widgets.text(ctx, lines.take(ctx.dp(40)), figure, 28, bold=True),
                        widgets.text(ctx, lines.rest(), note, 13, color=_ORANGE))

    def me_screen(self, ctx: Ctx, entry: Entry, state: PayState) -> Node:
        """My: the account card, Bills, what the account holds, cards and settings."""
        t = ctx.theme
        root, col = self._tab_root(ctx, state, 2)
        card = Node(ui.LINEAR, col.take(ctx.dp(112)), resource_id=ctx.rid(Rid.ACCOUNT),
                    paint=Fill(t.background))
        face, body = ui.split_row(ui.inset(card.frame, ctx.dp(20), ctx.dp(24)),
                                  [ctx.dp(64), None])
        card.add(Node(ui.IMAGE_VIEW, face, desc=state.me, paint=Avatar(
            ME, state.me, t.background)))
        text_col = Column(ui.inset(body, ctx.dp(16), 0))
        card.add(widgets.text(ctx, text_col.take(ctx.dp(34)), state.me, 21, bold=True,
                              rid=Rid.TITLE),
                 widgets.text(ctx, text_col.rest(), state.account, 14, color=t.muted,
                              rid=Rid.SUBTITLE))
        root.add(card)
        groups = (((Text.BILLS, icon.receipt, _BLUE, "", ("open", Route.BILLS), Rid.BILLS),
                   ("Total assets", icon.coins, (240, 150, 30),
                    money(state.balance + state.savings, sign=False), ("noop",), "assets"),
                   ("Balance", icon.draw, (255, 140, 40), money(state.balance, sign=False),
                    ("noop",), "balance"),
                   ("Savings fund", icon.coins, (30, 170, 110),
                    money(state.savings, sign=False), ("noop",), "savings")),
                  (("Bank cards", icon.card, (120, 90, 230), widgets.counted(state.cards, "card"),
                    ("noop",), "cards"),
                   ("Insurance", icon.shield, _BLUE, "", ("noop",), "insurance"),
                   ("Settings", "settings", (130, 140, 155), "", ("noop",), "settings")))
        for group in groups:
            col.take(ctx.dp(10))
            for label, glyph, color, value, intent, rid in group:
                row = widgets.list_row(ctx, col.take(ctx.dp(64)), label, value, thumb=Avatar(
                    label, label, t.background, glyph=glyph, color=color), on_click=intent,
                    rid=rid, trailing=("chevron_right", f"Open {label}", intent))
                root.add(row.add(widgets.divider(ctx, row.frame)))
        return root
