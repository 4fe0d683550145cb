"""App-specific generators: turn PAIR's ordered selections into complete app states.

They add what ranking does not decide, from a seeded generator: times, unread counts and
likes. Timing follows the built-in content (``apps.chat.state.default_state``): the chat
list is newest first, chat n ending 37n minutes before 09:40 with messages two minutes
apart; post k of Moments is k + 1 hours old.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mobileintent_gym.apps.chat.state import ME, Chat, ChatState, Message, Moment, clock_text
from mobileintent_gym.apps.music.state import MusicState, Playlist, Track
from mobileintent_gym.users.catalogs import ChatSeed, Entity, MomentSeed, contacts, tracks

LAST_MESSAGE_MINUTE = 9 * 60 + 40
CHAT_SPACING_MINUTES = 37
MAX_UNREAD = 3
MAX_LIKES = 29


def music_state(liked: Sequence[Entity[Track]], recent: Sequence[Entity[Track]],
                home: Sequence[Entity[Playlist]]) -> MusicState:
    """A music state showing these lists in this order.

    The catalog holds exactly the tracks used: liked, recent and the home playlists' tracks.

    Args:
        liked: Liked Songs, most recent first.
        recent: Recently played, most recent first.
        home: Playlists on the home screen.
    """
    pool = {e.id: e.record for e in (*liked, *recent)}
    wanted = {t for p in home for t in p.record.tracks}
    pool.update({e.id: e.record for e in tracks() if e.id in wanted})
    return MusicState(tracks=pool, playlists={p.id: p.record for p in home},
                      home=[p.id for p in home], liked=[e.id for e in liked],
                      recent=[e.id for e in recent])


def chat_state(chat_list: Sequence[Entity[ChatSeed]], posts: Sequence[Entity[MomentSeed]],
               rng: np.random.Generator) -> ChatState:
    """A chat state with this chat list and these Moments, newest first.

    Contacts are the people of the chats and the authors of the posts.

    Args:
        chat_list: Conversations, most recent first.
        posts: Moments posts, newest first.
        rng: Source of unread counts (for chats whose last message is the contact's) and
            like counts.
    """
    chats = [_timed_chat(e.id, e.record, n, int(rng.integers(0, MAX_UNREAD + 1)))
             for n, e in enumerate(chat_list)]
    moments = [Moment(e.id, e.record.author, e.record.text, f"{k + 1} h ago",
                      int(rng.integers(0, MAX_LIKES + 1))) for k, e in enumerate(posts)]
    people = {c.contact for c in chats} | {m.author for m in moments}
    return ChatState({cid: c for cid, c in contacts().items() if cid in people}, chats,
                     moments)


def _timed_chat(chat_id: str, seed: ChatSeed, n: int, unread: int) -> Chat:
    ends = LAST_MESSAGE_MINUTE - CHAT_SPACING_MINUTES * n
    last = len(seed.lines) - 1
    messages = tuple(
        Message(seed.contact.id if k % 2 == 0 else ME, text, clock_text(ends - 2 * (last - k)))
        for k, text in enumerate(seed.lines))
    # Only a conversation whose last word is the contact's can hold unread messages.
    return Chat(chat_id, seed.contact.id, messages, unread if last % 2 == 0 else 0)
