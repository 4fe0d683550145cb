"""Run parsed command lines against the virtual device's commands and file system.

Every command line runs within its :class:`~.limits.ShellLimits`: a
:class:`~.limits.Budget` checked before each command and charged with its output; a command
line over either limit stops there with a message on stderr and a non-zero status.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.limits import (
    UNLIMITED,
    Budget,
    LimitExceeded,
    ShellLimits,
    TimeLimitExceeded,
)
from mobileintent_gym.adbd.shellparse import (
    Command,
    Pipeline,
    Redirect,
    ShellSyntaxError,
    Word,
    parse,
)

BIN_DIRS = ("/system/bin", "/system/xbin", "/bin", "/vendor/bin", "/product/bin")
NOT_FOUND = 127
MAX_SUBSTITUTION_DEPTH = 8
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_EXIT_NUMBER = re.compile(r"\s*[+-]?0*[0-9]{1,10}", re.ASCII)  # what mksh's getn reads
_INT32 = 2**31


@dataclass
class Output:
    """What one command produced.

    ``stdout_first``: it wrote its standard output before its errors, so a client reading
    both streams gets them in that order (by default the errors come first). Streams
    redirected into one (``2>&1``) hold the output first either way.
    """

    stdout: bytes = b""
    stderr: bytes = b""
    code: int = 0
    stdout_first: bool = False


Input = bytes | Callable[[float | None], bytes | None]
"""Standard input: the bytes, or a function that waits up to a timeout (``None``: no limit)
for a client's input to end and returns it (``None`` when it did not end in time)."""


@dataclass
class Invocation:
    """A command's arguments (``argv[0]`` is its name), standard input and budget.

    Attributes:
        source: Where :attr:`stdin` comes from (see :data:`Input`).
    """

    argv: list[str]
    source: Input = b""
    budget: Budget = field(default_factory=lambda: Budget(UNLIMITED))

    @property
    def stdin(self) -> bytes:
        """Standard input; a client's is waited for on first use, within the time limit.

        Raises:
            TimeLimitExceeded: When the client's input did not end in time.
        """
        if callable(self.source):
            data = self.source(self.budget.timeout())
            if data is None:
                raise TimeLimitExceeded(self.budget.limits.time_limit)
            self.source = data
        return self.source


CommandFn = Callable[[Invocation], Output]
# Receives output as it is produced: (fd, data), fd 1 for stdout and 2 for stderr.
Emit = Callable[[int, bytes], None]


@dataclass
class ShellResult:
    """A whole command line's output, in order, as (fd, bytes) chunks; and its exit code.

    ``exited`` says that the line ran ``exit`` outside any ``$(…)``: a line-mode shell ends
    there, as ``sh`` does. ``aborted`` says that an error of a special builtin (``exit``
    with a bad number or two arguments) ended the line, as ``sh`` ends it: a shell reading
    a script ends there too, one on a terminal shows its prompt again.
    """

    chunks: list[tuple[int, bytes]] = field(default_factory=list)
    code: int = 0
    exited: bool = False
    aborted: bool = False

    @property
    def stdout(self) -> bytes:
        """Everything written to fd 1."""
        return b"".join(data for fd, data in self.chunks if fd == 1)

    @property
    def stderr(self) -> bytes:
        """Everything written to fd 2."""
        return b"".join(data for fd, data in self.chunks if fd == 2)


class _Taken:
    """A command line's stdin, which the first command to read it takes, as in sh."""

    def __init__(self, source: Input) -> None:
        self._source = source

    def __call__(self, timeout: float | None) -> bytes | None:
        source, self._source = self._source, b""
        return source(timeout) if callable(source) else source


class _Exit(Exception):
    def __init__(self, code: int, aborted: bool = False) -> None:
        self.code, self.aborted = code, aborted


class Shell:
    """A non-interactive ``sh`` over a table of commands.

    Args:
        commands: Command name to implementation.
        fs: The file system redirections read and write.
        env: Variables visible to ``$NAME``.
        history: Where to record every command's argv (default: a private log).
        limits: What one command line may cost (default: none).
    """

    def __init__(self, commands: Mapping[str, CommandFn], fs: MemoryFileSystem,
                 env: Mapping[str, str], history: deque[tuple[str, ...]] | None = None,
                 limits: ShellLimits = UNLIMITED) -> None:
        self._commands = commands
        self._fs = fs
        self._env = dict(env)
        self._limits = limits
        self._budget = Budget(limits)
        self._emit: Emit = lambda fd, data: None
        self._status = 0
        self._replaced = False  # an `exec CMD` ran: the shell ends with it
        self._depth = 0
        self.history = deque(maxlen=1000) if history is None else history

    def run(self, source: str, stdin: Input = b"", emit: Emit | None = None,
            started: float | None = None) -> ShellResult:
        """Run a command line within the shell's limits; syntax errors give exit code 2.

        Args:
            source: The command line.
            stdin: Standard input, which the first command to read it takes (later ones
                read none); a client's is waited for only then.
            emit: Receives the output as each pipeline produces it; without it the output
                is collected in the result's ``chunks``.
            started: When its time began (``time.monotonic()``; default: now): a line
                that waited its turn has had part of it.

        Returns:
            The exit code, and the output unless ``emit`` took it.
        """
        result = ShellResult()
        self._emit = emit or (lambda fd, data: result.chunks.append((fd, data)))
        self._budget = Budget(self._limits, started)
        self._replaced = False  # an exec of a line stopped by a limit ends that line only
        try:
            result.exited, result.aborted = self._run(parse(source),
                                                      _Taken(stdin) if stdin else b"")
        except ShellSyntaxError as err:
            self._fail(f"{err}", 2)
        except LimitExceeded as err:
            self._fail(str(err), err.code)
        result.code = self._status
        return result

    def _fail(self, message: str, code: int) -> None:
        self._emit(2, f"/system/bin/sh: {message}\n".encode())
        self._status = code

    def _run(self, pipelines: list[Pipeline], stdin: Input) -> tuple[bool, bool]:
        """Run the pipelines; whether ``exit`` (or ``exec CMD``), or an error of one, ended them."""
        try:
            for pipeline in pipelines:
                if (pipeline.connector == "&&" and self._status != 0) or (
                    pipeline.connector == "||" and self._status == 0
                ):
                    continue
                self._status = self._pipeline(pipeline, stdin)
                replaced, self._replaced = self._replaced, False
                if replaced and len(pipeline.commands) == 1:  # exec ran in the shell's place
                    return True, False  # (in a pipeline, as in $(…), it ran in a subshell)
        except _Exit as done:
            self._status = done.code
            return not done.aborted, done.aborted
        return False, False

    def _pipeline(self, pipeline: Pipeline, stdin: Input) -> int:
        data: Input = stdin
        code = 0
        for position, command in enumerate(pipeline.commands):
            out = self._command(command, data)
            last = position == len(pipeline.commands) - 1
            if last and out.stdout and out.stdout_first:
                self._emit(1, out.stdout)
            if out.stderr:
                self._emit(2, out.stderr)
            if last and out.stdout and not out.stdout_first:
                self._emit(1, out.stdout)
            data, code = out.stdout, out.code
        return code

    def _command(self, command: Command, stdin: Input) -> Output:
        argv = [arg for word in command.words for arg in self.expand(word)]
        try:
            stdin = self._read_redirects(command.redirects, stdin)
            where = self._open_redirects(command.redirects)
            out = self._execute(argv, stdin)
            self._budget.spend(len(out.stdout) + len(out.stderr))
            return self._write_redirects(where, out)
        except FileSystemError as err:
            return Output(stderr=f"/system/bin/sh: {err}\n".encode(), code=1)

    def _execute(self, argv: list[str], stdin: Input) -> Output:
        self._budget.check_time()
        if not argv:
            return Output()
        self.history.append(tuple(argv))
        name = argv[0]
        if posixpath.dirname(name) in BIN_DIRS:
            name = posixpath.basename(name)
        if name == "exit":
            return self._exit(argv[1:])
        if name == "exec":  # what `adb logcat` runs: `export …; exec logcat`
            self._replaced = len(argv) > 1  # the command ends the shell, as sh's exec
            return self._execute(argv[1:], stdin)
        if name == "export":
            return self._export(argv[1:])
        command = self._commands.get(name)
        if command is None or "/" in name:
            message = f"/system/bin/sh: {argv[0]}: inaccessible or not found\n"
            return Output(stderr=message.encode(), code=NOT_FOUND)
        return command(Invocation([name, *argv[1:]], stdin, self._budget))

    def _exit(self, args: list[str]) -> Output:
        """``exit [N]`` as Android's sh (mksh) takes it: the shell ends with status N & 255.

        N is an optional sign and decimal digits within a 32-bit int (spaces before it
        allowed); without it, the last command's status. Another N ("bad number"), or a
        second argument, is an error of a special builtin: named, status 1, the line ends
        there (:attr:`ShellResult.aborted`).
        """
        if not args:
            raise _Exit(self._status)
        number = args[0]
        if len(args) == 1 and _EXIT_NUMBER.fullmatch(number) and -_INT32 <= int(number) < _INT32:
            raise _Exit(int(number) & 0xFF)
        self._fail(f"exit: {'too many arguments' if args[1:] else f'bad number: {number}'}", 1)
        raise _Exit(1, aborted=True)

    def _export(self, names: list[str]) -> Output:
        """``export NAME=VALUE …``: the rest of the command line sees ``$NAME``.

        ``export -p`` lists the variables. Each command line runs in a shell of its own
        (an interactive ``adb shell`` too), so a variable lasts for its line.
        """
        if names[:1] == ["-p"]:
            names = names[1:]
            if not names:  # the list, as sh input
                return Output("".join(f"export {k}={shlex.quote(v)}\n"
                                      for k, v in sorted(self._env.items())).encode())
        for name in names:
            key, equals, value = name.partition("=")
            if not _IDENTIFIER.fullmatch(key):
                return Output(stderr=f"/system/bin/sh: export: {key}: is not an identifier\n"
                              .encode(), code=1)
            if equals:
                self._env[key] = value
        return Output()

    def _read_redirects(self, redirects: list[Redirect], stdin: Input) -> Input:
        for redirect in redirects:
            if redirect.op == "<":
                stdin = self._fs.read(self._target(redirect.target))
        return stdin

    def _open_redirects(self, redirects: list[Redirect]) -> dict[int, int | str]:
        """Where stdout (1) and stderr (2) go: the line's own fd 1 or 2, or a file's path.

        As in sh, redirections apply left to right (``>f 2>&1`` sends both to ``f``, while
        ``2>&1 >f`` sends stderr where stdout went before), and before the command runs:
        each file is opened (created; emptied for ``>``) even if nothing is written to it,
        and one that cannot be opened keeps the command from running.

        Raises:
            FileSystemError: For a file that cannot be opened.
        """
        where: dict[int, int | str] = {1: 1, 2: 2}
        for redirect in redirects:
            target = self._target(redirect.target)
            if redirect.op == ">&" and target in ("1", "2"):
                where[redirect.fd] = where[int(target)]
            elif redirect.op in (">", ">>"):
                where[redirect.fd] = target
                if target != "/dev/null":
                    (self._fs.append if redirect.op == ">>" else self._fs.write)(target, b"")
        return where

    def _write_redirects(self, where: dict[int, int | str], out: Output) -> Output:
        """The command's output sent where :meth:`_open_redirects` pointed its fds."""
        streams = {1: b"", 2: b""}
        for fd, data in ((1, out.stdout), (2, out.stderr)):
            if isinstance(where[fd], int):
                streams[where[fd]] += data
            elif data and where[fd] != "/dev/null":
                self._fs.append(where[fd], data)
        return Output(streams[1], streams[2], out.code, out.stdout_first)

    def _target(self, word: Word) -> str:
        values = self.expand(word)
        if len(values) != 1:
            raise FileSystemError(f"{''.join(values) or '(empty)'}: ambiguous redirect")
        return values[0]

    def expand(self, word: Word) -> list[str]:
        """Expand variables and substitutions; unquoted expansions split on whitespace."""
        fields: list[list[str]] = [[]]  # each field's pieces, joined at the end
        keep = [False]

        def split_here() -> None:
            if any(fields[-1]) or keep[-1]:
                fields.append([])
                keep.append(False)

        for part in word:
            if part.kind == "lit":
                value = part.value
            elif part.kind == "var":
                value = self._variable(part.value)
            else:
                value = self._substitute(part.value)
            if part.kind == "lit" or part.quoted:
                fields[-1].append(value)
                keep[-1] = keep[-1] or part.quoted
                continue
            if value[:1].isspace():
                split_here()
            for number, piece in enumerate(value.split()):
                if number:
                    split_here()
                fields[-1].append(piece)
            if value.strip() and value[-1:].isspace():
                split_here()
        texts = ["".join(pieces) for pieces in fields]
        return [text for text, kept in zip(texts, keep, strict=True) if text or kept]

    def _variable(self, name: str) -> str:
        if name == "?":
            return str(self._status)
        return self._env.get(name, "")

    def _substitute(self, source: str) -> str:
        """The stdout of ``source``, run in this command line (its stderr passes through)."""
        if self._depth >= MAX_SUBSTITUTION_DEPTH:
            return ""
        outer, status, replaced = self._emit, self._status, self._replaced
        captured: list[bytes] = []
        self._emit = lambda fd, data: captured.append(data) if fd == 1 else outer(fd, data)
        self._depth += 1
        self._replaced = False  # a subshell: an exec before it is not its own
        try:
            self._run(parse(source), b"")
        except ShellSyntaxError as err:
            outer(2, f"/system/bin/sh: {err}\n".encode())
        finally:
            self._depth -= 1
            self._emit, self._status, self._replaced = outer, status, replaced
        return b"".join(captured).decode("utf-8", errors="replace").rstrip("\n")
