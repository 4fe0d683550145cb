"""User profiles in the PersonaLens format, validated, and where to find them by name.

A profile is a JSON object::

    {"user_id": "demo-ana",                      # or demographics.user_id, or the file name
     "demographics": {"name": "Ana Ferreira",     # optional: the name the phone shows
                      "age": "25-34 years old", ...},
     "interests": {"Music": 1, "Books": 0, ...},  # 0/1 per domain
     "affinities": {"Music": {"Preferred Genres": ["amapiano", "hip-hop"], ...}, ...},
     "interactions": {"Music": "The user ...", ...}}

``resolve_profile`` looks a name up in an explicit folder, then in the folder named by the
``MOBILEINTENT_GYM_PROFILES`` environment variable (PersonaLens layouts ``userN.json`` and
``userN/profile.json`` both work), then among the built-in profiles (which come in named
sets: :mod:`.sets`).

The owner's name that the apps show (chat's Me page, the pay account, the meeting Me page …)
is ``demographics.name``; PersonaLens profiles have none, so without it the name is made of
the user id (:func:`name_from_id`: ``user12`` → ``User 12``, ``demo-ana`` → ``Demo Ana``).

Anything wrong with a profile, or with the name or path given for it, is an
:class:`~mobileintent_gym.errors.InvalidProfileError` naming the problem: a user id or
profile name over 255 characters (a user id: bytes in UTF-8), a user id that cannot be a
file name (it names the user's output folders: one line of visible text, no slash or
backslash, no space at its ends, not only dots), demographics nested deeper than 16 levels
or holding non-JSON values or numbers JSON cannot carry, a key given twice in a file, a
file nested too deeply to parse, a profile name that is not a string, a
``demographics.name`` that is not one line of visible text.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mobileintent_gym.checks import MAX_DIGITS, is_integer, unique_keys, xml_safe
from mobileintent_gym.errors import InvalidProfileError, MobileIntentError, brief
from mobileintent_gym.vocabulary import DOMAINS

PROFILES_ENV = "MOBILEINTENT_GYM_PROFILES"
MAX_NAME = 255  # a file name's limit: characters of a profile name, UTF-8 bytes of a user id
MAX_DEPTH = 16  # nesting of the free-form demographics
MAX_WHERE = 120  # characters of a place in the data that an error message shows
_FIELDS = ("user_id", "demographics", "interests", "affinities", "interactions")


class UnknownProfileError(MobileIntentError, LookupError):
    """A profile name found in none of the places searched; the message lists them."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class UserProfile:
    """One user in the PersonaLens format, read-only at every depth.

    Loading an unchanged file again gives the same object back, so no caller may change
    it for the others: its mappings are read-only and its lists are tuples. For a variant,
    edit ``to_dict()``'s plain copy and read it back with ``from_dict``.

    Attributes:
        user_id: Stable identifier, e.g. ``user3`` or ``demo-ana``.
        demographics: Free-form facts (age, country, employment ...); an optional
            ``name`` is the user's own name (see ``name``).
        interests: Domain → 1 when the user is interested in it, else 0.
        affinities: Domain → attribute → one value or a list of values.
        interactions: Domain → text describing the user's past requests there.
    """

    user_id: str
    demographics: Mapping[str, Any]
    interests: Mapping[str, int]
    affinities: Mapping[str, Mapping[str, str | tuple[str, ...]]]
    interactions: Mapping[str, str]

    def __post_init__(self) -> None:
        for name in _FIELDS[1:]:
            object.__setattr__(self, name, _read_only(getattr(self, name)))

    @classmethod
    def from_dict(cls, data: Any, user_id: str | None = None) -> UserProfile:
        """Validate a decoded PersonaLens profile.

        Args:
            data: The decoded JSON object.
            user_id: Used when the object names no ``user_id`` (neither at the top nor in
                ``demographics``), e.g. the file's name.

        Raises:
            InvalidProfileError: Naming the first bad field and its value.
        """
        if not isinstance(data, Mapping):
            raise InvalidProfileError(f"a profile must be a JSON object, got {_kind(data)}")
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise InvalidProfileError(f"unknown profile fields {unknown}; known: {list(_FIELDS)}")
        _check_text(data)
        demographics = _mapping(data.get("demographics", {}), "demographics")
        _json_values(demographics, "demographics")
        uid = data.get("user_id", demographics.get("user_id", user_id))
        _check_user_id(uid)
        if "name" in demographics:
            _check_name(demographics["name"])
        if "interests" not in data or "affinities" not in data:
            missing = [f for f in ("interests", "affinities") if f not in data]
            raise InvalidProfileError(f"profile {uid!r} lacks the fields {missing}")
        return cls(uid, dict(demographics), _interests(data["interests"]),
                   _affinities(data["affinities"]),
                   _interactions(data.get("interactions", {})))

    def to_dict(self) -> dict[str, Any]:
        """The profile as a JSON-ready object (``from_dict`` reads it back equal)."""
        return {"user_id": self.user_id, **{name: _plain(getattr(self, name))
                                            for name in _FIELDS[1:]}}

    @functools.cached_property
    def json_text(self) -> str:
        """``to_dict()`` as JSON text, its key order kept.

        Made once (the profile is read-only): content is looked up by it at every reset.
        """
        return json.dumps(self.to_dict(), ensure_ascii=False)

    def unknown_domains(self) -> list[str]:
        """Domains of ``interests`` or ``affinities`` that are none of :data:`DOMAINS`."""
        return sorted((set(self.interests) | set(self.affinities)) - set(DOMAINS))

    @property
    def name(self) -> str:
        """The name the phone shows for its owner.

        ``demographics.name`` (stripped), else one made of the user id
        (:func:`name_from_id`).
        """
        given = self.demographics.get("name")
        return given.strip() if given else name_from_id(self.user_id)

    def active_domains(self) -> tuple[str, ...]:
        """Domains the user is interested in (``interests == 1``), in profile order."""
        return tuple(domain for domain, flag in self.interests.items() if flag == 1)


def _read_only(value: Any) -> Any:
    """``value`` with every mapping in it read-only and every list a tuple."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: _read_only(inner) for key, inner in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_read_only(inner) for inner in value)
    return value


def _plain(value: Any) -> Any:
    """A plain JSON-ready copy of a :func:`_read_only` value (dicts and lists)."""
    if isinstance(value, Mapping):
        return {key: _plain(inner) for key, inner in value.items()}
    if isinstance(value, tuple):
        return [_plain(inner) for inner in value]
    return value


def name_from_id(user_id: str) -> str:
    """A name to show for a user whose profile has none, made of their id.

    The id's runs of letters and of digits become words, each with a capital first letter,
    joined by spaces: ``user12`` → ``User 12``, ``demo-ana`` → ``Demo Ana``, ``kwame`` →
    ``Kwame``. A letter's marks are part of it (an accent written apart, as macOS writes
    file names; the vowel signs of Indic scripts). An id without letters or digits is
    shown as it is, stripped.
    """
    text = unicodedata.normalize("NFC", user_id)
    return " ".join(w[:1].title() + w[1:] for w in _id_words(text)) or text.strip()


def _id_words(text: str) -> list[str]:
    """``text``'s runs of letters (with their marks) and of digits, in order."""
    words: list[str] = []
    last = None
    for char in text:
        category = unicodedata.category(char)
        kind = "digit" if category == "Nd" else "letter" if category[0] in "LM" else None
        if kind is not None and kind == last:
            words[-1] += char
        elif kind is not None:
            words.append(char)
        last = kind
    return words


def _check_user_id(uid: Any) -> None:
    """Check a user id: a name that can be a file's, as the user's output folders are named.

    Not blank, at most :data:`MAX_NAME` bytes in UTF-8 (a file name's limit: 100 CJK
    characters are 300), one line of visible text, no slash or backslash, no space at its
    ends, and not only dots (``.`` or ``..`` would write beside or above the output
    folder); nor what Windows refuses in a file name (``<>:"|?*``, a dot at its end, a
    device name such as ``CON``), so that a profile makes its folders on every system.
    """
    if not isinstance(uid, str) or not uid.strip():
        raise InvalidProfileError(f"user_id must be a non-empty string, got {brief(uid)}")
    size = len(uid.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME:
        raise InvalidProfileError(f"user_id is {size} bytes in UTF-8, more than a file "
                                  f"name's {MAX_NAME}: {uid[:40]!r}...")
    if (not _one_line(uid) or "/" in uid or "\\" in uid or uid.strip(".") == ""
            or uid != uid.strip() or not _visible(uid)):
        raise InvalidProfileError(f"user_id names the user's output folder: it must be a "
                                  f"file name (one line of visible text, no slash or "
                                  f"backslash, no space at its ends, not only dots), "
                                  f"got {brief(uid)}")
    if set(uid) & _NOT_IN_FILE_NAMES or uid.endswith(".") or _DEVICE_NAME.fullmatch(uid):
        raise InvalidProfileError(f"user_id names the user's output folder, a name every "
                                  f"system must take: no < > : \" | ? *, no dot at its end, "
                                  f"not a device name (CON, NUL, COM1 ...), got {brief(uid)}")


_NOT_IN_FILE_NAMES = frozenset('<>:"|?*')
"""Characters Windows refuses in file names (beside the slashes refused everywhere)."""
_DEVICE_NAME = re.compile(r"(?i)(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?")
"""Names Windows keeps for devices, with any extension: no file or folder can have one."""


def _check_name(value: Any) -> None:
    """Check ``demographics.name``: one line of text, not blank, at most :data:`MAX_NAME`."""
    where = "demographics['name']"
    if not isinstance(value, str) or not value.strip():
        raise InvalidProfileError(f"{where} must be a non-empty string, got {_kind(value)}")
    if len(value) > MAX_NAME:
        raise InvalidProfileError(f"{where} is {len(value)} characters, more than {MAX_NAME}: "
                                  f"{value[:40]!r}...")
    if not (_one_line(value) and _visible(value)):
        raise InvalidProfileError(f"{where} must be one line of visible text without control "
                                  f"characters, line separators or direction overrides, got "
                                  f"{value[:80]!r}")


def _one_line(text: str) -> bool:
    """Whether ``text`` is one line that a screen and its XML can carry.

    It holds no control character, line break or direction control. Line breaks are also
    the line and paragraph separators; direction controls are the embeddings, overrides
    and isolates, which turn the text around them. XML cannot carry lone surrogates (a
    file name that is not UTF-8 reads as some) nor U+FFFE and U+FFFF: a screen would draw
    them and its hierarchy drop them.
    """
    return xml_safe(text) and not any(
        unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in _BIDI_CONTROLS for ch in text)


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _visible(text: str) -> bool:
    """Whether ``text`` shows something: a letter, digit, punctuation or symbol."""
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in text)


def _check_text(data: Mapping[str, Any]) -> None:
    r"""Refuse a string (key or value, at any depth) that is not Unicode text.

    A JSON escape such as ``\ud800`` alone decodes to a lone surrogate, which no encoding
    can write: it would fail later, deep in building the user's content.
    """
    pending: list[tuple[Any, str]] = [(data, "the profile")]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidProfileError(f"{where} holds a lone surrogate, which is "
                                          f"not text: {item[:40]!r}") from None
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                pending += [(key, _inside("a key of ", where)),
                            (inner, _inside(where, f"[{str(key)[:40]!r}]"))]
        elif isinstance(item, list):
            pending += [(inner, _inside(where, f"[{i}]")) for i, inner in enumerate(item)]


def _inside(where: str, part: str) -> str:
    """``where`` then ``part``, cut to the :data:`MAX_WHERE` characters a message shows.

    Cut as the walk goes down, so that data nested thousands deep is walked in linear time
    (the whole path of every value made it quadratic: 19 s at 50,000 levels).
    """
    return (where + part)[:MAX_WHERE]


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidProfileError(f"{where} must be an object, got {_kind(value)}")
    for key in value:
        if not isinstance(key, str) or not key:
            raise InvalidProfileError(f"{where} has a bad key {key!r}")
    return value


def _json_values(value: Any, where: str) -> None:
    """Check free-form data: JSON values only, nested at most :data:`MAX_DEPTH` deep."""
    pending = [(value, where, 0)]
    while pending:
        item, path, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise InvalidProfileError(f"{where} is nested more than {MAX_DEPTH} levels deep "
                                      f"(at {path})")
        if isinstance(item, Mapping):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise InvalidProfileError(f"{path} has a non-string key {key!r}")
                pending.append((inner, _inside(path, f"[{key[:40]!r}]"), depth + 1))
        elif isinstance(item, list):
            pending.extend((inner, _inside(path, f"[{i}]"), depth + 1)
                           for i, inner in enumerate(item))
        elif not (item is None or isinstance(item, str | int | float)):
            raise InvalidProfileError(f"{path} must be a JSON value, got {_kind(item)}")
        elif isinstance(item, int | float) and not _json_number(item):
            raise InvalidProfileError(f"{path} must be a finite number of at most "
                                      f"{MAX_DIGITS} digits, got {_number_text(item)}")


def _number_text(value: int | float) -> str:
    """``value`` as a message shows it; a long integer by its number of digits."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of {value.bit_length() * math.log10(2):.0f} digits"
    return repr(value)


def _json_number(value: int | float) -> bool:
    """Whether JSON (and any reader of the profile's text) carries ``value`` as it is."""
    if isinstance(value, float):
        return math.isfinite(value)
    return -10 ** MAX_DIGITS < value < 10 ** MAX_DIGITS


def _interests(value: Any) -> dict[str, int]:
    for domain, flag in _mapping(value, "interests").items():
        if not is_integer(flag) or flag not in (0, 1):
            raise InvalidProfileError(f"interests[{domain!r}] must be 0 or 1, got {flag!r}")
    return {domain: int(flag) for domain, flag in value.items()}


def _affinities(value: Any) -> dict[str, dict[str, str | list[str]]]:
    result: dict[str, dict[str, str | list[str]]] = {}
    for domain, attributes in _mapping(value, "affinities").items():
        where = f"affinities[{domain!r}]"
        result[domain] = {}
        for attribute, values in _mapping(attributes, where).items():
            result[domain][attribute] = _values(values, f"{where}[{attribute!r}]")
    return result


def _values(values: Any, where: str) -> str | list[str]:
    """A preference's values in NFC.

    A decomposed accent (``e`` + U+0301, as some keyboards and PDFs write it) then
    matches the composed one in the catalog.
    """
    if isinstance(values, str):
        return unicodedata.normalize("NFC", values)
    if not isinstance(values, list):
        raise InvalidProfileError(f"{where} must be a string or a list of strings, "
                                  f"got {_kind(values)}")
    for i, item in enumerate(values):
        if not isinstance(item, str):
            raise InvalidProfileError(f"{where}[{i}] must be a string, got {_kind(item)}")
    return [unicodedata.normalize("NFC", item) for item in values]


def _interactions(value: Any) -> dict[str, str]:
    for domain, text in _mapping(value, "interactions").items():
        if not isinstance(text, str):
            raise InvalidProfileError(f"interactions[{domain!r}] must be a string, "
                                      f"got {_kind(text)}")
    return dict(value)


def load_profile(path: str | os.PathLike[str]) -> UserProfile:
    """Read and validate one profile file.

    A file named ``profile.json`` takes its fallback user id from its folder (the
    PersonaLens layout ``userN/profile.json``), any other from its own name.

    Raises:
        InvalidProfileError: When the file cannot be read, is not JSON (or nested too deeply
            to parse) or is not a valid profile; the message starts with the path.
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as err:
        raise InvalidProfileError(f"{path}: {err}") from err
    return _read_profile(path, stat.st_mtime_ns, stat.st_size, stat.st_ino)


@functools.lru_cache(maxsize=256)
def _read_profile(path: Path, mtime_ns: int, size: int, inode: int) -> UserProfile:
    """The profile in ``path`` as the file is now (its stat is the key: an edit rereads it).

    Envs resolve a user at every reset; reading and validating the file again each time
    cost a quarter of a millisecond. The same unchanged file gives the same object back.
    """
    fallback = path.parent.name if path.name == "profile.json" else path.stem
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"), object_pairs_hook=unique_keys)
    except RecursionError as err:
        raise InvalidProfileError(f"{path}: JSON nested too deeply to read") from err
    except (OSError, ValueError) as err:
        raise InvalidProfileError(f"{path}: {err}") from err
    try:
        return UserProfile.from_dict(data, user_id=fallback)
    except InvalidProfileError as err:
        raise InvalidProfileError(f"{path}: {err}") from err


def resolve_profile(name_or_path: str | os.PathLike[str],
                    profiles_dir: str | os.PathLike[str] | None = None) -> UserProfile:
    """A profile given by file path or by name.

    A ``.json`` path, or one with a folder part (``./alice``), is loaded as a file; any
    other value is a name, even where a file of that name lies in the current folder. A
    name is looked up in ``profiles_dir``, then in the folder of the
    ``MOBILEINTENT_GYM_PROFILES`` environment variable, then among the built-in profiles;
    in a folder as ``NAME.json`` or ``NAME/profile.json``.

    Raises:
        UnknownProfileError: When the name is found nowhere; the message lists the places
            searched and the names available there.
        InvalidProfileError: When the profile found is not valid, or ``name_or_path`` is
            not a usable name or path (not a string, empty, too long, unreadable).
    """
    text = _user_text(name_or_path)
    try:
        return _resolve(text, profiles_dir)
    except OSError as err:
        raise InvalidProfileError(f"cannot look up the profile {text[:60]!r}: "
                                  f"{err.strerror or err}") from err


def _user_text(name_or_path: Any) -> str:
    """A profile name or path as text, or the profile error saying why it is not one."""
    if not isinstance(name_or_path, str | os.PathLike):
        raise InvalidProfileError(f"a user must be a profile name or path, got "
                                  f"{_kind(name_or_path)}")
    text = os.fspath(name_or_path)
    if not isinstance(text, str) or not text.strip() or "\0" in text:
        raise InvalidProfileError(f"a user must be a non-empty name or path, got {brief(text)}")
    if not text.strip("."):  # '..' named the folder above a profiles folder
        raise InvalidProfileError(f"a user must be a profile name or path, got {text!r}")
    if not _looks_like_path(text) and len(text) > MAX_NAME:
        raise InvalidProfileError(f"a user name is at most {MAX_NAME} characters, got "
                                  f"{len(text)}: {text[:40]!r}...")
    return text


def absolute_user(name_or_path: str) -> str:
    """A user as any folder reads it: a profile file's path made absolute, a name as it is.

    What is a path is what :func:`resolve_profile` loads as a file.
    """
    text = os.fspath(name_or_path)
    if _looks_like_path(text):
        return str(Path(text).resolve())
    return text


def seed_name(name_or_path: str,
              profiles_dir: str | os.PathLike[str] | None = None) -> str:
    """What a user's seeds are drawn from: the user id of the profile it stands for.

    A user counts by the profile it names, not by how it is given: a name and the path of
    its profile give the same seeds (also where the file's name is not its user id), and
    the same file gives the same seeds in any folder, on any machine.

    Raises:
        UnknownProfileError: When ``name_or_path`` names no profile (looked up as
            :func:`resolve_profile` does, ``profiles_dir`` first).
    """
    return resolve_profile(name_or_path, profiles_dir).user_id


def _looks_like_path(text: str) -> bool:
    """Whether a user is given as a file: a ``.json`` name, or one with a folder in it.

    A bare name is a name, wherever it is asked: a file of that name in the current
    folder made it another user there (write ``./alice`` for that file).
    """
    return text.endswith(".json") or os.sep in text or "/" in text


def _resolve(text: str, profiles_dir: str | os.PathLike[str] | None) -> UserProfile:
    path = Path(text)
    if _looks_like_path(text):
        if path.is_dir() and (path / "profile.json").is_file():
            path = path / "profile.json"
        if not path.is_file():
            raise UnknownProfileError(f"no profile file {text!r}")
        return load_profile(path)
    folders = _search_folders(profiles_dir)
    found = first_profile_file(folders, text)
    if found is not None:
        return load_profile(found)
    places = "; ".join(f"{label} {folder} ({', '.join(profile_names(folder)) or 'none'})"
                       for label, folder in _described(folders, profiles_dir))
    raise UnknownProfileError(f"no user profile {text!r}; searched {places}")


@functools.cache
def builtin_profiles_dir() -> Path:
    """The folder of the built-in profiles shipped with the package.

    Found once per process: each lookup of a profile by name searches it, and finding it
    through ``importlib.resources`` cost a resetting env more than the rest of the lookup.
    """
    return Path(str(resources.files("mobileintent_gym.users") / "profiles"))


def builtin_users() -> tuple[str, ...]:
    """Names of every built-in profile (the set ``all``), in natural order."""
    return profile_names(builtin_profiles_dir())


def profile_names(folder: str | os.PathLike[str]) -> tuple[str, ...]:
    """Names of the profiles in ``folder`` (``NAME.json`` or ``NAME/profile.json``).

    In natural order (``user2`` before ``user10``); empty when ``folder`` is no folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return ()
    names = {p.stem for p in folder.glob("*.json") if p.is_file()}
    names |= {p.parent.name for p in folder.glob("*/profile.json")}
    return tuple(sorted(names, key=_natural))


def _search_folders(profiles_dir: str | os.PathLike[str] | None) -> list[Path]:
    return [*own_folders(profiles_dir), builtin_profiles_dir()]


def own_folders(profiles_dir: str | os.PathLike[str] | None) -> list[Path]:
    """The folders searched before the built-in profiles: ``profiles_dir``, the variable's.

    Raises:
        InvalidProfileError: When ``profiles_dir`` (or the variable) names no folder: the
            built-in users of the names asked for would otherwise be taken in its
            profiles' place without a word.
    """
    if profiles_dir is not None and not (isinstance(profiles_dir, str | os.PathLike)
                                         and os.fspath(profiles_dir)):
        raise InvalidProfileError(f"profiles_dir must be a folder's path, got "
                                  f"{brief(profiles_dir)}")
    if profiles_dir is not None and not Path(profiles_dir).is_dir():
        raise InvalidProfileError(f"profiles_dir {os.fspath(profiles_dir)!r} is not a folder; "
                                  "give a folder of profiles")
    folders = [Path(profiles_dir)] if profiles_dir is not None else []
    env_folder = env_profiles_dir()
    return folders + ([env_folder] if env_folder is not None else [])


def env_profiles_dir() -> Path | None:
    """The folder ``MOBILEINTENT_GYM_PROFILES`` names; ``None`` when it is unset or empty.

    Raises:
        InvalidProfileError: When it names no folder: the built-in users of the names
            asked for would otherwise be taken in its profiles' place without a word.
    """
    value = os.environ.get(PROFILES_ENV)
    if not value:
        return None
    if not Path(value).is_dir():
        raise InvalidProfileError(f"${PROFILES_ENV} is {value!r}, which is not a folder; "
                                  "unset it or point it at a folder of profiles")
    return Path(value)


def _described(folders: list[Path], profiles_dir: object) -> list[tuple[str, Path]]:
    labels = ["profiles_dir"] if profiles_dir is not None else []
    labels += [f"${PROFILES_ENV}"] if env_profiles_dir() is not None else []
    return list(zip([*labels, "built-in"], folders, strict=True))


def first_profile_file(folders: list[Path], name: str) -> Path | None:
    """The file of profile ``name`` in the first of ``folders`` that has one."""
    return next((found for folder in folders
                 if (found := profile_file(folder, name)) is not None), None)


def profile_file(folder: str | os.PathLike[str], name: str) -> Path | None:
    """The file of profile ``name`` in ``folder`` (``NAME.json``, else ``NAME/profile.json``)."""
    folder = Path(folder)
    for candidate in (folder / f"{name}.json", folder / name / "profile.json"):
        if candidate.is_file():
            return candidate
    return None


def _natural(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]
