"""The chat app's social pages: Moments, a contact's profile card and the Me page.

:class:`~mobileintent_gym.apps.chat.app.ChatApp` takes them as a mixin (they use
``App.scroll`` and the app's tab frame).
"""

from __future__ import annotations

from mobileintent_gym.apps.chat import icon
from mobileintent_gym.apps.chat.ids import Rid, Route
from mobileintent_gym.apps.chat.state import ME, ChatState, Contact, Moment
from mobileintent_gym.apps.plugin import user_handle
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Fill, Icon, text_width
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_LINK = (87, 107, 149)  # names and actions in WeChat's blue-grey
_ME_ROWS = ((("Services", "check", (7, 193, 96)),),
            (("Favorites", "heart", (250, 157, 59)), ("Moments", "aperture", (45, 140, 240)),
             ("Cards & Offers", "album", (45, 140, 240)), ("Sticker Gallery", "smile",
                                                          (250, 157, 59))),
            (("Settings", "settings", (45, 140, 240)),))


class SocialScreens:
    """Moments, profile and Me pages (a mixin of the chat app)."""

    @staticmethod
    def _avatar(contact: Contact, under: tuple) -> Avatar:
        """A person's avatar: their colour and initials."""
        return Avatar(contact.id, contact.name, under)


    def moments_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """Moments: posts with their author's avatar and name, which open the profile."""
        root, col = widgets.page(ctx, "moments")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Moments",
                                 actions=[("camera", "Post", ("noop",))]))
        items = [(self._moment_height(ctx, m), lambda r, m=m: self._moment(ctx, r, m, state))
                 for m in state.moments]
        root.add(self.scroll(entry, col.rest(), Rid.FEED, items))
        return root

    @staticmethod
    def _moment_text(ctx: Ctx) -> int:
        """The width of a post's text: the row less the avatar and the padding."""
        return ctx.width - 3 * ctx.dp(14) - ctx.dp(44)

    def _moment_height(self, ctx: Ctx, moment: Moment) -> int:
        """A post's height: name, its whole text (up to six lines), time and likes."""
        text = widgets.text_height(ctx, moment.text, 15, self._moment_text(ctx), lines=6)
        return 2 * ctx.dp(14) + ctx.dp(28) + text + ctx.dp(32)

    def _moment(self, ctx: Ctx, rect: Rect, moment: Moment, state: ChatState) -> Node:
        t = ctx.theme
        author = state.contacts[moment.author]
        profile = ("open", Route.PROFILE, (("id", author.id),))
        post = Node(ui.LINEAR, rect, paint=Fill(t.background), entity=moment.id,
                    resource_id=ctx.rid(Rid.MOMENT))
        pad, side = ctx.dp(14), ctx.dp(44)
        post.add(Node(ui.IMAGE_VIEW, (rect[0] + pad, rect[1] + pad, rect[0] + pad + side,
                                      rect[1] + pad + side), desc=author.name,
                      resource_id=ctx.rid(Rid.AVATAR), entity=author.id,
                      on_click=profile, paint=self._avatar(author, t.background)))
        body = Column((rect[0] + 2 * pad + side, rect[1] + pad, rect[2] - pad, rect[3] - pad))
        post.add(widgets.text(ctx, body.take(ctx.dp(28)), author.name, 15, bold=True,
                              color=_LINK, rid=Rid.AUTHOR,
                              entity=author.id, on_click=profile))
        content = widgets.paragraph(ctx, body.rest(), moment.text, 15, lines=6, rid=Rid.CONTENT)
        body.take(content.frame[3] - content.frame[1] + ctx.dp(8))
        likes = widgets.counted(moment.likes, "like")
        post.add(content, widgets.text(ctx, body.take(ctx.dp(24)), f"{moment.time} · {likes}",
                                       12, color=t.muted))
        return post.add(widgets.divider(ctx, rect))

    def profile_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """A contact's card: name, id and region; signature and latest post; Messages, Call."""
        t = ctx.theme
        contact = state.contacts[entry.param("id")]
        root, col = widgets.page(ctx, "profile", t.bar)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "",
                                 actions=[("more", "More", ("noop",))]))
        root.add(self._card(ctx, col.take(ctx.dp(128)), contact, Rid.PROFILE_HEADER))
        col.take(ctx.dp(8))
        latest = next((m.text for m in state.moments if m.author == contact.id), "No posts")
        for title, value, intent in (("What's Up", contact.signature or "-", None),
                                     ("Moments", latest, ("open", Route.MOMENTS))):
            row = widgets.list_row(ctx, col.take(ctx.dp(72)), title, value, on_click=intent,
                                   rid="info", trailing=None if intent is None else (
                                       "chevron_right", f"Open {title}", intent))
            root.add(row.add(widgets.divider(ctx, row.frame)))
        col.take(ctx.dp(8))
        root.add(self._action(ctx, col.take(ctx.dp(56)), icon.draw, "Messages",
                              ("message", contact.id), Rid.MESSAGES))
        root.add(self._action(ctx, col.take(ctx.dp(56)), "mic", "Voice or Video Call",
                              ("noop",), "call"))
        return root

    def _card(self, ctx: Ctx, rect: Rect, contact: Contact, rid: str) -> Node:
        """A person's header: a large avatar, the name, the chat id and the region."""
        t = ctx.theme
        card = Node(ui.LINEAR, rect, resource_id=ctx.rid(rid), entity=contact.id,
                    paint=Fill(t.background))
        side, pad = ctx.dp(64), ctx.dp(20)
        top = rect[1] + (rect[3] - rect[1] - side) // 2
        card.add(Node(ui.IMAGE_VIEW, (rect[0] + pad, top, rect[0] + pad + side, top + side),
                      desc=contact.name, paint=self._avatar(contact, t.background)))
        body = Column((rect[0] + 2 * pad + side, top - ctx.dp(4), rect[2] - pad, rect[3]))
        card.add(widgets.text(ctx, body.take(ctx.dp(30)), contact.name, 21, bold=True,
                              rid=widgets.TITLE),
                 widgets.text(ctx, body.take(ctx.dp(22)),
                              f"Chat ID: {user_handle(contact.name)}", 13.5, color=t.muted,
                              rid=widgets.SUBTITLE),
                 widgets.text(ctx, body.take(ctx.dp(22)),
                              f"Region: {contact.region}" if contact.region else "", 13.5,
                              color=t.muted))
        return card

    def _action(self, ctx: Ctx, rect: Rect, glyph: Glyph, label: str, intent: tuple,
                rid: str) -> Node:
        """A full-width action: an icon and a label in the app's link colour, centred."""
        t = ctx.theme
        button = Node(ui.BUTTON, rect, text=label, resource_id=ctx.rid(rid), on_click=intent,
                      paint=Fill(t.background))
        width = ctx.dp(28) + text_width(label, ctx.dp(16), True)
        left = (rect[0] + rect[2] - width) // 2
        button.add(Node(ui.IMAGE_VIEW, (left, rect[1], left + ctx.dp(24), rect[3]),
                        paint=Icon(glyph, _LINK, t.background, ctx.dp(22))),
                   widgets.text(ctx, (left + ctx.dp(28), rect[1], rect[2], rect[3]), label, 16,
                                bold=True, color=_LINK))
        return button.add(widgets.divider(ctx, rect))

    def me_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """The user's own page: their card and the app's services, favourites and settings."""
        root, col = self._tab_root(ctx, state, 3, "Me")
        root.paint = Fill(ctx.theme.bar)
        root.add(self._card(ctx, col.take(ctx.dp(128)), Contact(ME, state.me, "", ""), Rid.ME))
        for group in _ME_ROWS:
            col.take(ctx.dp(8))
            for label, glyph, color in group:
                row = widgets.list_row(ctx, col.take(ctx.dp(56)), label, thumb=Avatar(
                    label, label, ctx.theme.background, glyph=glyph, color=color),
                    on_click=("noop",), rid="me_" + label.split()[0].lower())
                root.add(row.add(widgets.divider(ctx, row.frame)))
        return root
