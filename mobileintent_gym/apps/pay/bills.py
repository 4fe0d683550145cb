"""The pay app's billing history: transactions by month, and one transaction's details.

:class:`~mobileintent_gym.apps.pay.app.PayApp` takes these screens as a mixin (they use
``App.scroll``).
"""

from __future__ import annotations

from itertools import groupby

from mobileintent_gym.apps.pay import icon
from mobileintent_gym.apps.pay.ids import Rid, Route, Text
from mobileintent_gym.apps.pay.state import Bill, PayState, money, month_of
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Color, Fill
from mobileintent_gym.phone.state import when
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

# Each category's glyph and colour in the list (others: a receipt in grey).
_CATEGORIES = {
    "Food & Dining": (icon.bowl, (255, 120, 60)), "Groceries": (icon.bowl, (80, 170, 60)),
    "Shopping": ("album", (240, 80, 120)), "Transport": (icon.bus, (30, 170, 110)),
    "Travel": ("discover", (40, 160, 220)), "Utilities": (icon.bolt, (250, 170, 30)),
    "Entertainment": ("smile", (150, 90, 230)), "Transfers": (icon.transfer, (22, 119, 255)),
    "Refunds": (icon.transfer, (22, 119, 255)), "Wealth": (icon.coins, (240, 150, 30)),
    "Books": ("library", (140, 100, 60)), "Games": ("play", (90, 90, 220)),
    "Subscriptions": ("queue", (220, 60, 90)), "Sports": ("heart", (40, 150, 90)),
    "Sports & Fitness": ("heart", (40, 150, 90)), "Health": (icon.shield, (30, 160, 170)),
    "Services": ("settings", (110, 120, 140)), "Donations": ("heart", (230, 90, 90)),
}
_GREEN = (20, 150, 80)  # money received


def category_art(bill: Bill, under: Color) -> Avatar:
    """A transaction's icon: its category's glyph on the category's colour."""
    glyph, color = _CATEGORIES.get(bill.category, (icon.receipt, (130, 140, 155)))
    return Avatar(bill.category, bill.category, under, glyph=glyph, color=color)


class BillScreens:
    """The billing history and the transaction details (a mixin of the pay app)."""

    def bills_screen(self, ctx: Ctx, entry: Entry, state: PayState) -> Node:
        """Every transaction, newest first, under a heading per month with its totals."""
        root, col = widgets.page(ctx, Rid.BILLS, ctx.theme.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), Text.BILLS,
                                 actions=[("search", "Search bills", ("noop",)),
                                          ("more", "Bill settings", ("noop",))]))
        items = []
        for month, bills in groupby(state.bills, key=lambda b: month_of(b.time)):
            bills = tuple(bills)
            items.append((ctx.dp(56), lambda r, m=month, b=bills: self._month(ctx, r, m, b)))
            items += [(ctx.dp(72), lambda r, b=b: self._bill_row(ctx, r, b)) for b in bills]
        root.add(self.scroll(entry, col.rest(), Rid.BILL_LIST, items))
        return root

    @staticmethod
    def _month(ctx: Ctx, rect: Rect, month: str, bills: tuple[Bill, ...]) -> Node:
        """A month's heading: its name, what went out and what came in."""
        t = ctx.theme
        head = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.MONTH), paint=Fill(t.surface))
        spent = sum(b.amount for b in bills if b.amount < 0)
        came = sum(b.amount for b in bills if b.amount > 0)
        name, totals = ui.split_row(ui.inset(rect, ctx.dp(16), 0), [ctx.dp(150), None])
        head.add(widgets.text(ctx, name, month, 17, bold=True, under=t.surface),
                 widgets.text(ctx, totals, f"Out {money(spent, False)}  In {money(came, False)}",
                              13, color=t.muted, under=t.surface, align="right"))
        return head

    @staticmethod
    def _bill_row(ctx: Ctx, rect: Rect, bill: Bill) -> Node:
        """A transaction: category icon, title and amount over category and time."""
        t = ctx.theme
        row = Node(ui.VIEW_GROUP, rect, resource_id=ctx.rid(Rid.BILL), paint=Fill(t.background),
                   entity=bill.id, on_click=("open", Route.BILL, (("id", bill.id),)))
        pad = ctx.dp(16)
        art, body = ui.split_row(ui.inset(rect, pad, ctx.dp(14)), [ctx.dp(44), None])
        row.add(Node(ui.IMAGE_VIEW, art, paint=category_art(bill, t.background)))
        lines = Column(ui.inset(body, ctx.dp(12), 0))
        title, amount = ui.split_row(lines.take(ctx.dp(24)), [None, ctx.dp(104)])
        row.add(widgets.text(ctx, title, bill.title, 16, rid=Rid.TITLE),
                widgets.text(ctx, amount, money(bill.amount), 16, bold=True, align="right",
                             color=_GREEN if bill.amount > 0 else t.text, rid=Rid.AMOUNT),
                widgets.text(ctx, lines.rest(),
                             f"{bill.category} · {when(bill.time, ctx.today)}", 13,
                             color=t.muted, rid=Rid.SUBTITLE))
        return row.add(widgets.divider(ctx, (rect[0] + pad + ctx.dp(56), *rect[1:])))

    def bill_screen(self, ctx: Ctx, entry: Entry, state: PayState) -> Node:
        """One transaction: who, how much and its status; then how, what, when and the order."""
        t = ctx.theme
        bill = state.bill(entry.param("id"))
        root, col = widgets.page(ctx, "bill", t.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Bill details", entity=bill.id,
                                 actions=[("more", "More", ("noop",))]))
        head = Node(ui.LINEAR, col.take(ctx.dp(196)), resource_id=ctx.rid(Rid.BILL_HEADER),
                    entity=bill.id, paint=Fill(t.background))
        lines = Column(ui.inset(head.frame, ctx.dp(24), ctx.dp(20)))
        side = ctx.dp(48)
        icon_row = lines.take(side)
        left = (icon_row[0] + icon_row[2] - side) // 2
        head.add(Node(ui.IMAGE_VIEW, (left, icon_row[1], left + side, icon_row[3]),
                      paint=category_art(bill, t.background)),
                 widgets.text(ctx, lines.take(ctx.dp(34)), bill.title, 16, align="center",
                              rid=Rid.TITLE),
                 widgets.text(ctx, lines.take(ctx.dp(48)), money(bill.amount), 32, bold=True,
                              align="center", rid=Rid.AMOUNT),
                 widgets.text(ctx, lines.rest(), "Completed", 14, color=t.muted,
                              align="center"))
        root.add(head)
        col.take(ctx.dp(10))
        fields = (("Payment method", bill.method), ("Item", bill.item),
                  ("Category", bill.category), ("Time", bill.time), ("Order number", bill.order))
        for key, value in fields:
            root.add(widgets.detail_row(ctx, col.take(ctx.dp(52)), key, value, key_dp=128,
                                        rid=Rid.DETAIL))
        col.take(ctx.dp(10))
        for label in ("Tags and notes", "Questions about this bill"):
            row = widgets.list_row(ctx, col.take(ctx.dp(56)), label, on_click=("noop",),
                                   rid="bill_" + label.split()[0].lower(),
                                   trailing=("chevron_right", label, ("noop",)))
            root.add(row.add(widgets.divider(ctx, row.frame)))
        return root
