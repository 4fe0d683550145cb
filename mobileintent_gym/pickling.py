"""Read-only mappings (``MappingProxyType``) made picklable, so envs and phones can be copied.

The package keeps its tables and a user's content in read-only mappings, which pickle
refuses by itself; that made ``copy.deepcopy(env)`` and ``pickle.dumps(env)`` fail (tree
search snapshots an env), and the disk cache needed a pickler of its own. Importing the
package registers a reducer with :mod:`copyreg` that rebuilds such a mapping from a plain
copy of its items; mappings that other code pickles get the same treatment.
"""

from __future__ import annotations

import copyreg
from types import MappingProxyType
from typing import Any


def restore_mapping(items: dict[Any, Any]) -> MappingProxyType:
    """A read-only mapping of ``items`` (what unpickling calls)."""
    return MappingProxyType(items)


def _reduce_mapping(mapping: MappingProxyType) -> tuple[Any, tuple[dict[Any, Any]]]:
    return restore_mapping, (dict(mapping),)


copyreg.pickle(MappingProxyType, _reduce_mapping)
