"""``test EXPRESSION`` and ``[ EXPRESSION ]``, after Android's sh (mksh).

Status 0 when the expression is true, 1 when false, 2 for one it cannot read
(``/system/bin/sh: [: missing ]``). Up to four arguments are read by POSIX's rules for
their count (so ``[ "(" = ")" ]`` compares two strings and ``[ ! = x ]`` too); longer
expressions by precedence: ``-o`` < ``-a`` < ``!`` < ``( … )`` < the tests:

- files on the device: ``-e``/``-a`` exists, ``-f`` a file, ``-d`` a folder, ``-s`` not
  empty, ``-r``/``-w``/``-x`` by its mode's bits; links, devices, pipes and sockets are
  none here (``-L -h -H -b -c -p -S`` false), as are ``-u -g -k -O -G`` and ``-t FD``;
  ``-nt``/``-ot`` compare the times files were written, ``-ef`` names the same file; a
  path that is empty, or names a file with a ``/`` after it, is none;
- strings: ``-z`` empty, ``-n`` not, ``=``/``==``/``!=``, ``<``/``>`` in byte order;
  ``-o OPTION`` and ``-v VARIABLE`` are false (no shell option or variable is set);
- integers: ``-eq -ne -lt -le -gt -ge``, each operand an integer in base 10 or
  ``BASE#DIGITS``, with 32-bit wraparound as mksh's arithmetic, an empty one or a name 0;
  another is ``/system/bin/sh: X: bad number 'X'`` (mksh's arithmetic error: no
  ``1+1`` here).

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
_FILE_PAIRS = frozenset({"-nt", "-ot", "-ef"})
_BINARY = frozenset(_STRING_TESTS) | frozenset(_NUMBER_TESTS) | _FILE_PAIRS
_UNARY = frozenset(f"-{letter}" for letter in "eafdsrwxLhHbcpSugkOGtznov")
_INTEGER = re.compile(r"\s*([+-]?)\s*(?:(\d+)#)?([0-9A-Za-z]+)\s*", re.ASCII)
_NAME = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*\s*", re.ASCII)
_DEEPEST = 100  # nested ( and ! a line may hold (mksh has no such limit; Python's stack)


class _Unreadable(ValueError):
    """An expression test cannot read: its message (``prefixed``: after ``[:``)."""

    def __init__(self, message: str, prefixed: bool = True) -> None:
        super().__init__(message)
        self.prefixed = prefixed


class _Expression:
    """One expression's words, read by recursive descent (``-o`` < ``-a`` < ``!``)."""

    def __init__(self, words: list[str], fs: MemoryFileSystem) -> None:
        self.words, self.at, self.fs, self.depth = words, 0, fs, 0

    def value(self) -> bool:
        """The whole expression's truth.

        Raises:
            _Unreadable: For words left over, or any the grammar cannot place.
        """
        by_count = self._by_count(self.words)
        if by_count is not None:
            return by_count
        result = self._or()
        if self.at < len(self.words):
            raise _Unreadable(f"{self.words[self.at]}: unexpected operator/operand")
        return result

    def _by_count(self, words: list[str]) -> bool | None:
        """POSIX's reading of up to four arguments; ``None`` when it has none for them."""
        count = len(words)
        if count == 0:
            return False
        if count == 1:
            return words[0] != ""
        if count == 2 and words[0] == "!":
            return words[1] == ""
        if count == 2 and words[0] in _UNARY:
            return self._unary(words[0][1], words[1])
        if count == 3 and words[1] in _BINARY:
            return self._binary(*words)
        if count in (3, 4) and words[0] == "!":
            inner = self._by_count(words[1:])
            return None if inner is None else not inner
        if count in (3, 4) and words[0] == "(" and words[-1] == ")":
            return self._by_count(words[1:-1])
        return None

    def _next(self) -> str | None:
        return self.words[self.at] if self.at < len(self.words) else None

    def _or(self) -> bool:
        return self._joined("-o", self._and, any)

    def _and(self) -> bool:
        return self._joined("-a", self._not, all)

    def _joined(self, operator_word: str, operand: Callable[[], bool],
                combine: Callable[[list[bool]], bool]) -> bool:
        """Operands joined by ``operator_word``, each read (and evaluated), combined."""
        values = [operand()]
        while self._next() == operator_word:
            self.at += 1
            values.append(operand())
        return combine(values)

    def _not(self) -> bool:
        negated = False
        while self._next() == "!" and self.at + 1 < len(self.words):
            self.at += 1
            negated = not negated
        return self._primary() != negated

    def _primary(self) -> bool:
        word = self._next()
        if word is None:
            raise _Unreadable("expression expected")
        if word == "(":
            return self._group()
        after = self.words[self.at + 1] if self.at + 1 < len(self.words) else None
        if after in _BINARY:
            if self.at + 2 >= len(self.words):
                raise _Unreadable(f"{after}: missing second argument")
            self.at += 3
            return self._binary(word, after, self.words[self.at - 1])
        if word in _UNARY and after is not None:
            self.at += 2
            return self._unary(word[1], after)
        self.at += 1
        return word != ""

    def _group(self) -> bool:
        """A ``( … )`` group at the current word."""
        self.depth += 1
        if self.depth > _DEEPEST:
            raise _Unreadable("expression too deeply nested")
        self.at += 1
        result = self._or()
        if self._next() != ")":
            raise _Unreadable("missing )")
        self.at += 1
        self.depth -= 1
        return result

    def _unary(self, test: str, operand: str) -> bool:
        if test in "zn":
            return (operand == "") == (test == "z")
        if test in "ovt":  # no shell option or variable is set, no descriptor a terminal
            return False
        found = self._stat(operand)
        if found is None:
            return False
        mode, size, _ = found
        folder = stat.S_ISDIR(mode)
        bits = {"r": 0o444, "w": 0o222, "x": 0o111}
        if test in bits:
            return bool(mode & bits[test])
        return {"e": True, "a": True, "f": not folder, "d": folder, "s": size > 0}.get(test,
                                                                                     False)

    def _stat(self, path: str) -> tuple[int, int, int] | None:
        """``path``'s mode, size and time; ``None`` when it names nothing.

        An empty path names nothing, nor one that passes through a file (``a.txt/``,
        ``a.txt/..``), as the phone's stat() finds.
        """
        if not path:
            return None
        parts = path.rstrip("/").split("/")
        for end in range(1, len(parts)):  # each folder it passes through is one
            found = self.fs.stat("/".join(parts[:end]) or "/")
            if found is None or not stat.S_ISDIR(found[0]):
                return None
        found = self.fs.stat(path)
        if found is not None and path.endswith("/") and not stat.S_ISDIR(found[0]):
            return None
        return found

    def _binary(self, left: str, test: str, right: str) -> bool:
        if test in _STRING_TESTS:
            return _STRING_TESTS[test](left, right)
        if test in _NUMBER_TESTS:
            return _NUMBER_TESTS[test](_number(left), _number(right))
        first, second = self._stat(left), self._stat(right)
        if test == "-ef":
            return bool(first and second) and self.fs.resolve(left) == self.fs.resolve(right)
        if test == "-nt":
            return bool(first) and (second is None or first[2] > second[2])
        return bool(second) and (first is None or first[2] < second[2])


def _number(word: str) -> int:
    """``word`` as mksh's arithmetic reads an integer operand, wrapped to 32 bits.

    Raises:
        _Unreadable: When it is none (mksh's arithmetic error, not ``[``'s).
    """
    if not word.strip() or _NAME.fullmatch(word):
        return 0  # empty, or a variable that is not set
    match = _INTEGER.fullmatch(word)
    try:
        sign, base, digits = match.groups() if match else ("", None, "")
        number = int(digits, int(base) if base else 10)
    except ValueError:
        raise _Unreadable(f"{word.strip()}: bad number '{word.strip()}'", prefixed=False) from None
    number = -number if sign == "-" else number
    return (number + 2**31) % 2**32 - 2**31


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
            said = f"{name}: {err}" if err.prefixed else str(err)
            return Output(stderr=f"/system/bin/sh: {said}\n".encode(), code=2)

    return {"test": run, "[": run}
