"""Users: PersonaLens profiles, sentence encoders and the PAIR content pipeline.

``build_user_content(resolve_profile("demo-ana"))`` gives a user's phone state (every app's
lists filled with content ranked by their tastes) with, per UI context, the common and
personal entity ids, their on-screen labels and implicit cues. Apps declare their pools and
contexts with :class:`Pool` and :class:`ContextSpec`. The built-in users come in named sets
(``train``, ``val``, ``test``, ``demo``, ``all``); :func:`resolve_users` turns any ``users``
argument (sets, names, paths) into user names.
"""

from __future__ import annotations

from mobileintent_gym.users.contexts import ContextSpec, Pool
from mobileintent_gym.users.encoders import (
    Encoder,
    LexicalEncoder,
    SentenceEncoder,
    make_encoder,
)
from mobileintent_gym.users.entities import Entity, keys_of, match_key
from mobileintent_gym.users.pair import (
    CONTEXTS,
    ContextItems,
    PairConfig,
    UserContent,
    build_user_content,
    load_user_content,
)
from mobileintent_gym.users.profile import (
    UnknownProfileError,
    UserProfile,
    builtin_users,
    load_profile,
    profile_names,
    resolve_profile,
)
from mobileintent_gym.users.ranking import preference_values, rank_entities, score_entities
from mobileintent_gym.users.sets import (
    USER_SETS,
    distinct_users,
    pick_user,
    resolve_users,
    set_names,
    user_set,
)

__all__ = [
    "CONTEXTS",
    "USER_SETS",
    "ContextItems",
    "ContextSpec",
    "Encoder",
    "Entity",
    "LexicalEncoder",
    "PairConfig",
    "Pool",
    "SentenceEncoder",
    "UnknownProfileError",
    "UserContent",
    "UserProfile",
    "build_user_content",
    "builtin_users",
    "distinct_users",
    "keys_of",
    "load_profile",
    "load_user_content",
    "make_encoder",
    "match_key",
    "pick_user",
    "preference_values",
    "profile_names",
    "rank_entities",
    "resolve_profile",
    "resolve_users",
    "score_entities",
    "set_names",
    "user_set",
]
