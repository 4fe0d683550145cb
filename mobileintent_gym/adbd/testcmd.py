"""``test EXPRESSION`` and ``[ EXPRESSION ]``, as Android's sh (mksh) evaluates them.

Status 0 when the expression is true, 1 when false, 2 for an expression it cannot read
(``/system/bin/sh: [: missing ]``, ``… x: bad number``). An expression is built from:

- files on the device: ``-e`` exists, ``-f`` a file, ``-d`` a folder, ``-s`` not empty,
  ``-r``/``-w`` readable/writable (any that exists), ``-x`` a folder (files under /sdcard
  are not executable); links, devices, pipes and sockets are none here (``-L -h -b -c -p
  -S`` are false), as are ``-u -g -k`` and ``-t FD``;
- strings: ``-z`` empty, ``-n`` not, ``=``/``==``/``!=``, ``<``/``>`` in byte order;
- integers: ``-eq -ne -lt -le -gt -ge``;
- ``!``, ``-a`` (binds tighter), ``-o``, ``( … )``.

With one argument it is true when that is not empty, with none false.
"""

from __future__ import annotations

import operator
import re
import stat
from collections.abc import Callable

from mobileintent_gym.adbd.filesystem import MemoryFileSystem
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output

_STRING_TESTS: dict[str, Callable[[str, str], bool]] = {
    "=": operator.eq, "==": operator.eq, "!=": operator.ne,
    "<": lambda a, b: a.encode() < b.encode(), ">": lambda a, b: a.encode() > b.encode()}
_NUMBER_TESTS: dict[str, Callable[[int, int], bool]] = {
    "-eq": operator.eq, "-ne": operator.ne, "-lt": operator.lt, "-le": operator.le,
    "-gt": operator.gt, "-ge": operator.ge}
_FILE_TESTS = frozenset("efdsrwxLhbcpSugkt")
_INTEGER = re.compile(r"\s*[+-]?\d+\s*", re.ASCII)


class _Unreadable(ValueError):
    """An expression test cannot read: its message."""


class _Expression:
    """One expression's words, read by recursive descent (``-o`` < ``-a`` < ``!``)."""

    def __init__(self, words: list[str], fs: MemoryFileSystem) -> None:
        self.words, self.at, self.fs = words, 0, fs

    def value(self) -> bool:
        """The whole expression's truth.

        Raises:
            _Unreadable: For words left over, or any the grammar cannot place.
        """
        if not self.words:
            return False
        result = self._or()
        if self.at < len(self.words):
            raise _Unreadable(f"{self.words[self.at]}: unexpected operator/operand")
        return result

    def _next(self) -> str | None:
        return self.words[self.at] if self.at < len(self.words) else None

    def _or(self) -> bool:
        result = self._and()
        while self._next() == "-o":
            self.at += 1
            result = self._and() or result
        return result

    def _and(self) -> bool:
        result = self._not()
        while self._next() == "-a":
            self.at += 1
            result = self._not() and result
        return result

    def _not(self) -> bool:
        if self._next() == "!" and self.at + 1 < len(self.words):
            self.at += 1
            return not self._not()
        return self._primary()

    def _primary(self) -> bool:
        word = self._next()
        if word is None:
            raise _Unreadable("missing argument")
        if word == "(" and self.at + 1 < len(self.words) and ")" in self.words[self.at + 2:]:
            self.at += 1
            result = self._or()
            if self._next() != ")":
                raise _Unreadable(f"{self._next() or '('}: missing )")
            self.at += 1
            return result
        after = self.words[self.at + 1] if self.at + 1 < len(self.words) else None
        if after is not None and self.at + 2 < len(self.words) and (
                after in _STRING_TESTS or after in _NUMBER_TESTS):
            self.at += 3
            return _binary(word, after, self.words[self.at - 1])
        if after is not None and len(word) == 2 and word[0] == "-" and (
                word[1] in _FILE_TESTS or word[1] in "zn"):
            self.at += 2
            return self._unary(word[1], after)
        self.at += 1
        return word != ""

    def _unary(self, test: str, operand: str) -> bool:
        if test in "zn":
            return (operand == "") == (test == "z")
        found = self.fs.stat(operand)
        if found is None:
            return False
        mode, size, _ = found
        folder = stat.S_ISDIR(mode)
        return {"e": True, "r": True, "w": True, "f": not folder, "d": folder, "x": folder,
                "s": size > 0}.get(test, False)


def _binary(left: str, test: str, right: str) -> bool:
    if test in _STRING_TESTS:
        return _STRING_TESTS[test](left, right)
    return _NUMBER_TESTS[test](_number(left), _number(right))


def _number(word: str) -> int:
    """``word`` as mksh reads an integer operand.

    Raises:
        _Unreadable: When it is none.
    """
    if not _INTEGER.fullmatch(word):
        raise _Unreadable(f"{word}: bad number")
    return int(word)


def condition_commands(fs: MemoryFileSystem) -> dict[str, CommandFn]:
    """``test`` and ``[`` over ``fs``'s files."""

    def run(inv: Invocation) -> Output:
        name, words = inv.argv[0], inv.argv[1:]
        try:
            if name == "[":
                if words[-1:] != ["]"]:
                    raise _Unreadable("missing ]")
                words = words[:-1]
            return Output(code=0 if _Expression(words, fs).value() else 1)
        except _Unreadable as err:
            return Output(stderr=f"/system/bin/sh: {name}: {err}\n".encode(), code=2)

    return {"test": run, "[": run}
