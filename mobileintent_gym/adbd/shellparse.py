"""Parse the virtual device's shell language: a small, honest subset of ``sh``.

Supported: words with single quotes, double quotes and backslashes; ``$NAME``, ``${NAME}``,
``$?``; command substitution ``$(...)`` and backquotes; pipes ``|``; sequencing with ``;``,
newlines, ``&`` (run in order, not in the background), ``&&`` and ``||``; redirections
``>``, ``>>``, ``<``, ``2>``, ``2>&1``; ``#`` comments. Quoting rules are sh's, so text that
a client quotes for a real device means the same here — and text it fails to quote is
executed here too, which is what makes the injection tests meaningful.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mobileintent_gym.checks import is_digits
from mobileintent_gym.errors import MobileIntentError

# A run of characters a word holds as they are: read as one part, where a part each made a
# long word (a long base64 key, say) cost time in the square of its length.
_PLAIN = re.compile(r"[^ \t\r\n;&|<>'\"\\$`]*")
_PLAIN_QUOTED = re.compile(r'[^"\\$`]*')
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME_CHARS = _NAME_START + "0123456789"


class ShellSyntaxError(MobileIntentError, ValueError):
    """A command line the shell cannot parse; the message says where."""


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a word: literal text, a variable, or a command to substitute.

    Attributes:
        kind: ``lit``, ``var`` or ``cmd``.
        value: The text, the variable name, or the command source.
        quoted: Whether it sat inside quotes (quoted expansions are not split).
    """

    kind: str
    value: str
    quoted: bool


Word = tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Redirect:
    """``fd op target``: op is ``>``, ``>>``, ``<`` or ``>&`` (target is then an fd)."""

    fd: int
    op: str
    target: Word


@dataclass
class Command:
    """One simple command: its words and redirections."""

    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    """Commands joined by ``|``; ``connector`` (``;``, ``&&``, ``||``) links it to the last."""

    commands: list[Command]
    connector: str = ";"


REDIRECTS = (">", ">>", "<", ">&")


class _Lexer:
    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0

    def peek(self, size: int = 1) -> str:
        return self.src[self.pos : self.pos + size]

    def tokens(self) -> list[str | Word | int]:
        """Operators (str), words, and file descriptors written against a redirection (int).

        As in sh, ``2>f`` redirects fd 2 while ``echo 2 >f`` writes "2": one digit is an fd
        only right before ``>`` or ``<``, and not as a redirection's own target
        (``echo x 10>f`` writes "x 10").
        """
        out: list[str | Word | int] = []
        while self.pos < len(self.src):
            char = self.peek()
            if char in " \t\r":
                self.pos += 1
            elif char == "#":
                end = self.src.find("\n", self.pos)
                self.pos = len(self.src) if end < 0 else end
            elif op := self._operator():
                out.append(op)
            else:
                word = self._word()
                fd = _fd(word)
                if fd is None or self.peek() not in ("<", ">") or (out and out[-1] in REDIRECTS):
                    out.append(word)
                else:
                    out.append(fd)
        return out

    def _operator(self) -> str | None:
        for op in ("&&", "||", ">>", ">&", ";", "|", "&", "\n", ">", "<"):
            if self.src.startswith(op, self.pos):
                self.pos += len(op)
                return op
        return None

    def _word(self) -> Word:
        parts: list[Part] = []
        while self.pos < len(self.src) and self.peek() not in " \t\r\n;&|<>":
            char = self.peek()
            self.pos += 1
            if char == "'":
                parts.append(Part("lit", self._until("'"), True))
            elif char == '"':
                parts.extend(self._double_quoted())
            elif char == "\\":
                parts.append(Part("lit", self._escaped(), True))
            elif char in "$`":
                parts.append(self._expansion(char, quoted=False))
            else:
                parts.append(Part("lit", char + self._run(_PLAIN), False))
        return tuple(parts)

    def _run(self, plain: re.Pattern[str]) -> str:
        """The characters from here that ``plain`` matches, read."""
        start, self.pos = self.pos, plain.match(self.src, self.pos).end()
        return self.src[start : self.pos]

    def _until(self, end: str) -> str:
        stop = self.src.find(end, self.pos)
        if stop < 0:
            raise ShellSyntaxError(f"unterminated {end} starting at column {self.pos}")
        text, self.pos = self.src[self.pos : stop], stop + 1
        return text

    def _escaped(self) -> str:
        char = self.peek()
        self.pos += 1
        return "" if char == "\n" else char

    def _double_quoted(self) -> list[Part]:
        parts: list[Part] = []
        while True:
            if self.pos >= len(self.src):
                raise ShellSyntaxError('unterminated " in command line')
            char = self.peek()
            self.pos += 1
            if char == '"':  # "" is an empty word's text, as '' is
                return parts or [Part("lit", "", True)]
            if char == "\\" and self.peek() in '$`"\\\n':
                parts.append(Part("lit", self._escaped(), True))
            elif char in "$`":
                parts.append(self._expansion(char, quoted=True))
            else:
                parts.append(Part("lit", char + self._run(_PLAIN_QUOTED), True))

    def _expansion(self, char: str, quoted: bool) -> Part:
        if char == "`":
            return Part("cmd", self._until("`"), quoted)
        if self.peek() == "(":
            self.pos += 1
            return Part("cmd", self._balanced(), quoted)
        if self.peek() == "{":
            self.pos += 1
            return Part("var", self._until("}"), quoted)
        if self.peek() and self.peek() in "?$#":
            self.pos += 1
            return Part("var", self.src[self.pos - 1], quoted)
        start = self.pos
        while self.peek() and self.peek() in (_NAME_CHARS if self.pos > start else _NAME_START):
            self.pos += 1
        name = self.src[start : self.pos]
        return Part("var", name, quoted) if name else Part("lit", "$", quoted)

    def _balanced(self) -> str:
        start, depth, quote = self.pos, 1, ""
        while self.pos < len(self.src):
            char = self.peek()
            self.pos += 1
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return self.src[start : self.pos - 1]
        raise ShellSyntaxError(f"unterminated $( starting at column {start}")


def parse(source: str) -> list[Pipeline]:
    """Parse a command line into pipelines.

    Raises:
        ShellSyntaxError: Unbalanced quotes, a dangling operator or redirection.
    """
    pipelines: list[Pipeline] = []
    current = Pipeline([Command()])
    tokens = _Lexer(source).tokens()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if isinstance(token, tuple):
            current.commands[-1].words.append(token)
        elif isinstance(token, int):  # the lexer made sure a redirection follows
            index = _redirect(tokens, index + 1, tokens[index], current.commands[-1], token)
        elif token in REDIRECTS:
            index = _redirect(tokens, index, token, current.commands[-1],
                              0 if token == "<" else 1)
        elif token == "|":
            if not current.commands[-1].words:
                raise ShellSyntaxError(f"syntax error: '|' without a command in {source!r}")
            current.commands.append(Command())
        else:
            _close(pipelines, current, token, source)
            current = Pipeline([Command()], ";" if token in (";", "&", "\n") else token)
    _close(pipelines, current, "", source)
    return pipelines


def _fd(word: Word) -> int | None:
    """The fd a word of one unquoted digit names (as sh reads ``2>``), else ``None``."""
    if len(word) == 1 and word[0].kind == "lit" and not word[0].quoted \
            and len(word[0].value) == 1 and is_digits(word[0].value):
        return int(word[0].value)
    return None


def _redirect(tokens: list, index: int, op: str, command: Command, fd: int) -> int:
    if index >= len(tokens) or not isinstance(tokens[index], tuple):
        raise ShellSyntaxError(f"syntax error: '{op}' needs a target")
    command.redirects.append(Redirect(fd, op, tokens[index]))
    return index + 1


def _close(pipelines: list[Pipeline], current: Pipeline, token: str, source: str) -> None:
    if current.commands[-1].words or current.commands[-1].redirects:
        pipelines.append(current)
    elif len(current.commands) > 1 or token in ("&&", "||", "|", ";", "&") \
            or current.connector != ";":  # sh: "syntax error: ';' unexpected" for ';;'
        raise ShellSyntaxError(f"syntax error near {token or 'end of line'!r} in {source!r}")
