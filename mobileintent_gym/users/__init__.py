"""Users: PersonaLens profiles, sentence encoders and the PAIR content pipeline.

``build_user_content(resolve_profile("demo-ana"))`` gives a user's phone state (music and
chat apps filled with content ranked by their tastes) with, per UI context, the common and
personal entity ids, their on-screen labels and implicit cues.
"""

from __future__ import annotations

from mobileintent_gym.users.encoders import (
    Encoder,
    LexicalEncoder,
    SentenceEncoder,
    make_encoder,
)
from mobileintent_gym.users.pair import (
    CONTEXTS,
    ContextItems,
    ContextSpec,
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

__all__ = [
    "CONTEXTS",
    "ContextItems",
    "ContextSpec",
    "Encoder",
    "LexicalEncoder",
    "PairConfig",
    "SentenceEncoder",
    "UnknownProfileError",
    "UserContent",
    "UserProfile",
    "build_user_content",
    "builtin_users",
    "load_profile",
    "load_user_content",
    "make_encoder",
    "preference_values",
    "profile_names",
    "rank_entities",
    "resolve_profile",
    "score_entities",
]
