"""Named sets of built-in users, and the one resolver every ``users`` argument goes through.

The built-in profiles (``users/profiles/*.json``) are people invented for this project. They
come in the PAIR study's split, :data:`USER_SETS` ``train`` (8 users), ``val`` (2) and
``test`` (10), beside the four small profiles of the examples (``demo``); ``all`` names
every built-in profile. The README's "Built-in users" table describes each person.

Wherever users are taken — the env's ``users=``, ``evaluate --users``, ``generate --users``
— a set name stands for its users and may be mixed with profile names and paths
(``["val", "user3", "me.json"]``); an env's ``user`` reset option may name a set too (one of
its users is drawn, :func:`pick_user`). Set names come first: a profile that happens to be named
like a set is given by its path. A set's members are names like any other: a profile of
one's own of a member's name stands for it, with a warning.
"""

from __future__ import annotations

import contextlib
import os
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType

import gymnasium as gym
import numpy as np

from mobileintent_gym.checks import ordered
from mobileintent_gym.errors import (
    InvalidOptionsError,
    InvalidProfileError,
    MobileIntentError,
    brief,
)
from mobileintent_gym.users.profile import (
    UnknownProfileError,
    builtin_users,
    first_profile_file,
    own_folders,
    resolve_profile,
)

USER_SETS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "train": ("amara", "bruno", "greta", "ivan", "jun", "olga", "pedro", "rania"),
    "val": ("elif", "tomas"),
    "test": ("chiara", "dev", "farid", "hana", "kwame", "lucia", "mei", "noah", "quinn",
             "sipho"),
    "demo": ("demo-ana", "demo-ben", "demo-chen", "demo-dara"),
})
"""The named sets of built-in users; ``all`` (every built-in profile) is named too."""
ALL = "all"
DEFAULT_SET = "test"

UserSpec = str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None
"""A set name, a profile name or path, a list of them, or ``None`` (the test set)."""


def set_names() -> tuple[str, ...]:
    """The names that stand for sets of users: those of :data:`USER_SETS`, then ``all``."""
    return (*USER_SETS, ALL)


def user_set(name: str) -> tuple[str, ...] | None:
    """The users of set ``name``, or ``None`` when ``name`` names no set."""
    if name == ALL:
        return builtin_users()
    return USER_SETS.get(name)


def resolve_users(users: UserSpec = None,
                  profiles_dir: str | os.PathLike[str] | None = None) -> tuple[str, ...]:
    """The user names (and paths) that ``users`` stands for, each checked to exist.

    Args:
        users: A set name (``"test"``), a profile name or path, or a list mixing them;
            ``None`` is the test set.
        profiles_dir: Where profile names are looked up first (see ``resolve_profile``).

    Returns:
        Set names expanded to their users, profiles kept as given, without repeats, in
        order.

    Raises:
        UnknownProfileError: Naming the first name that is neither a set nor a profile,
            the sets and the places searched for profiles.
        InvalidProfileError: When a profile found is not valid, ``users`` is empty, or
            an item is not a name or path.
    """
    names: list[str] = []
    for item in _items(users):
        members = user_set(item) if isinstance(item, str) else None
        if members is None:
            _check_profile(item, profiles_dir)
            members = (os.fspath(item),)
        else:
            _warn_if_replaced(item, members, profiles_dir)
        names.extend(m for m in members if m not in names)
    return tuple(names)


def _warn_if_replaced(name: str, members: tuple[str, ...],
                      profiles_dir: str | os.PathLike[str] | None) -> None:
    """Warn when profiles of one's own stand for built-in members of set ``name``."""
    folders = own_folders(profiles_dir)
    if not folders:  # the usual case: nothing to look for (a reset option may name a set)
        return
    own = {m: found for m in members if (found := first_profile_file(folders, m)) is not None}
    if own:
        listed = ", ".join(f"{m} ({path})" for m, path in own.items())
        gym.logger.warn(f"set {name!r} runs profiles of your own in place of its built-in "
                        f"users: {listed}; its scores are not the built-in set's")


def distinct_users(users: Iterable[str | os.PathLike[str]],
                   profiles_dir: str | os.PathLike[str] | None = None,
                   why: str = "") -> dict[str, str | os.PathLike[str]]:
    """Each user's id, mapped to the user as given (a name or a profile's path).

    Args:
        users: The users (names or profile paths, not sets).
        profiles_dir: The folder searched first for names.
        why: What two users of one id would do wrong (for the message).

    Raises:
        MobileIntentError: When two of them are one user (a name and the path of its
            profile, say), or their ids name one output folder on macOS (ids that differ
            in case or in how an accent is written) or Windows (in case), naming both.
    """
    ids: dict[str, str | os.PathLike[str]] = {}
    folded: dict[str, str] = {}  # as a disk that ignores case and normalises names sees it
    for user in users:
        user_id = resolve_profile(user, profiles_dir).user_id
        first = folded.setdefault(_folder_key(user_id), user_id)
        if user_id in ids:
            raise MobileIntentError(f"users {str(ids[user_id])!r} and {str(user)!r} are both "
                                    f"user {user_id!r}{why}; give one")
        if first != user_id:
            raise MobileIntentError(
                f"users {str(ids[first])!r} and {str(user)!r} have the ids {first!r} and "
                f"{user_id!r}, which name one folder where file names ignore case (macOS, "
                "Windows) or how an accent is written (macOS); give one, or change one's "
                "user_id")
        ids[user_id] = user
    return ids


def _folder_key(user_id: str) -> str:
    """``user_id`` as macOS compares file names: accents composed, letters one case.

    A letter is put in capitals only where that is one letter, as Windows compares them too
    (``ß`` stays ``ß``: ``strasse`` and ``straße`` are two folders there).
    """
    return "".join(c.upper() if len(c.upper()) == 1 else c
                   for c in unicodedata.normalize("NFC", user_id))


def env_users(users: UserSpec = None,
              profiles_dir: str | os.PathLike[str] | None = None) -> tuple[str, ...]:
    """:func:`resolve_users` for an env, refusing two that are one user.

    Two profiles of one ``user_id`` (a name and a profile of another name that says the
    same id, say) would be one user to whatever keeps users by id: Execute's
    ``info["user"]``, the scores that group rollouts by user.

    Raises:
        MobileIntentError: Naming both, besides what :func:`resolve_users` raises.
    """
    names = resolve_users(users, profiles_dir)
    distinct_users(names, profiles_dir, ", one user to whatever keeps users by id")
    return names


def pick_user(choice: str | os.PathLike[str] | None, users: tuple[str, ...],
              rng: np.random.Generator,
              profiles_dir: str | os.PathLike[str] | None = None,
              refuse: Callable[[str], str | None] | None = None) -> str:
    """The user of an episode: the one a reset option names, else one drawn from ``users``.

    Args:
        choice: The ``user`` reset option: a profile name or path (that user), a set name
            (one of its users, drawn), or ``None`` (one of ``users``, drawn).
        users: The env's users (from :func:`resolve_users`).
        rng: The env's generator (a named profile draws nothing from it).
        profiles_dir: Where profile names are looked up first.
        refuse: Why a user cannot have the episode (``None``: it can). A drawn user it
            refuses is passed over for one drawn from the others left, so that no seed
            fails while another user would do; a named user is returned as it is (the
            caller says why it cannot be).

    Raises:
        InvalidOptionsError: When ``choice`` is no text or path.
        UnknownProfileError: When ``choice`` names neither a set nor a profile.
        MobileIntentError: When ``refuse`` refuses every user there was to draw from.
    """
    if not isinstance(choice, str | os.PathLike | None):
        raise InvalidOptionsError(f"reset option 'user' must be a profile or set name, or a "
                                  f"profile's path; got {type(choice).__name__} "
                                  f"{brief(choice, 60)}")
    if choice is None:
        pool = users
    else:
        pool = resolve_users(choice, profiles_dir)
        if not (isinstance(choice, str) and user_set(choice) is not None):
            return pool[0]
    left = list(pool)
    reasons = []
    while left:
        user = left.pop(int(rng.integers(len(left))))
        reason = refuse(user) if refuse is not None else None
        if reason is None:
            return user
        reasons.append(reason)
    more = f" (and {len(reasons) - 1} more users alike)" if len(reasons) > 1 else ""
    raise MobileIntentError(f"no user to draw from can have this episode: {reasons[0]}{more}")


@contextlib.contextmanager
def refusable_reset(env: gym.Env, seed: int | None) -> Iterator[np.random.Generator]:
    """Seed ``env`` as ``gym.Env.reset`` does and give its generator to draw from.

    When the block raises, the env's random state is as it was before: its generator, the
    seed it was made from and the draws made from it. A reset refused for a bad option,
    caught by the caller, then leaves every later episode as it would have been, whether
    the refused reset named a seed or not.
    """
    rng, rng_seed = env._np_random, env._np_random_seed
    state = None if rng is None else rng.bit_generator.state
    try:
        gym.Env.reset(env, seed=seed)
        yield env.np_random
    except BaseException:
        env._np_random, env._np_random_seed = rng, rng_seed
        if rng is not None:
            rng.bit_generator.state = state
        raise


def _items(users: UserSpec) -> tuple[str | os.PathLike[str], ...]:
    if users is None:
        return (DEFAULT_SET,)
    if isinstance(users, str | os.PathLike):
        return (users,)
    if not isinstance(users, Iterable) or isinstance(users, bytes | Mapping):
        raise InvalidProfileError(f"users must be a set name, a profile name or path, or a "
                                  f"list of them; got {type(users).__name__} {brief(users, 60)}")
    items = ordered(users)
    if not items:
        raise InvalidProfileError(f"users is empty; give a set ({', '.join(set_names())}) "
                                  "or profile names")
    return items


def _check_profile(item: object, profiles_dir: str | os.PathLike[str] | None) -> None:
    try:
        resolve_profile(item, profiles_dir)  # type: ignore[arg-type]  # refused if not a name
    except UnknownProfileError as err:
        sets = ", ".join(f"{name} ({len(user_set(name) or ())})" for name in set_names())
        raise UnknownProfileError(f"{err}; nor is it a user set: {sets}") from err
