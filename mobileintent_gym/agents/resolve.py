"""Agents named on the command line (``evaluate --agent SPEC``).

A spec is one of:

* a built-in name: ``oracle``, ``random``;
* ``module:Factory`` or ``path/to/file.py:Factory``: a class or function of your own that
  takes ``(env, seed)`` and returns an agent (anything with ``act(observation, info)``);
  modules are looked up from the current folder first, as ``python -m`` does;
* ``hf`` or ``hf:<hub id or local path>``: a Hugging Face language model, built by
  ``mobileintent_gym.agents.hf.hf_agent(model)`` (``model`` is ``None`` for plain ``hf``:
  the default model) — a factory ``(env, seed)``, or one agent for every episode
  (extra ``[llm]``).

:func:`parse_agent` checks a spec without loading any model (it imports your module);
:meth:`AgentSpec.factory` builds the agent factory, which may load one.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym

from mobileintent_gym.agents import AGENTS
from mobileintent_gym.agents.base import Agent, AgentFactory, checked_agent
from mobileintent_gym.agents.lm import default_model, local_name, written_as_path
from mobileintent_gym.errors import DependencyNotInstalled, MobileIntentError

HF_MODULE = "mobileintent_gym.agents.hf"
SPEC_HELP = "oracle, random, module:Factory, path/to/file.py:Factory, hf or hf:<model>"


class AgentSpecError(MobileIntentError, ValueError):
    """An ``--agent`` value that names no agent; the message says what to write instead."""


@dataclass(frozen=True)
class AgentSpec:
    """A checked agent spec.

    Attributes:
        text: The spec as written.
        build: Returns the factory ``(env, seed) -> agent`` (may load a model).
        names: What it names wherever it is read: the text, a file's path made absolute
            (``path/to/file.py:Factory`` names another file from another folder).
        source: For your own factory, a hash of its code (see :func:`_source`; a run's
            record keeps it, so that a resumed run is the same code); else ``None``.
    """

    text: str
    build: Callable[[], AgentFactory]
    names: str
    source: str | None = None

    def factory(self) -> AgentFactory:
        """The factory ``(env, seed) -> agent``; each agent it makes is checked to act."""
        make = self.build()

        def checked(env: gym.Env, seed: int) -> Agent:
            return checked_agent(make(env, seed), f"--agent {self.text}", AgentSpecError)

        return checked


def parse_agent(text: str) -> AgentSpec:
    """Check ``text`` (see the module notes) and return its spec; no model is loaded.

    Raises:
        AgentSpecError: For a spec that names nothing, or a module or attribute not found.
        DependencyNotInstalled: For ``hf`` without the ``[llm]`` extra.
    """
    if text in AGENTS:
        return AgentSpec(text, lambda: AGENTS[text], text)
    if str(text) == "hf:":  # hf:$MODEL with the variable unset ran the default model
        raise AgentSpecError("--agent hf: names no model after 'hf:'; give hf alone for the "
                             "default model")
    if str(text) == "hf" or str(text).startswith("hf:"):
        return _hf_spec(text, str(text)[3:] or None)
    # The last colon: a Windows path holds one after its drive letter (C:\\a\\agent.py:Name).
    kind, sep, rest = str(text).rpartition(":")
    if not (sep and kind and rest):
        raise AgentSpecError(f"--agent {text!r} names no agent; use {SPEC_HELP}")
    module = _load_module(kind, text)
    factory = _attribute(module, rest, text)
    if not callable(factory):
        raise AgentSpecError(f"--agent {text}: {rest!r} is not a class or function")
    _check_call(factory, text, rest)
    names = f"{Path(kind).resolve()}:{rest}" if kind.endswith(".py") else text
    return AgentSpec(text, lambda: factory, names, _source(module, factory))


def _source(module: ModuleType, factory: Callable[..., Any]) -> str | None:
    """A hash of the files your agent is read from (``None`` where there are none).

    The module named, the one that defines the factory (a package's submodule), and for
    an agent file the modules beside it that it imported; by their bytes alone, so the
    same files elsewhere give the same hash.
    """
    own = _file(module)
    files = {own, _file(inspect.getmodule(factory)), *_BESIDE.get(str(own), ())}
    hashes = sorted(hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
                    for path in files if path is not None)
    if not hashes:
        return None
    return hashlib.blake2b("".join(hashes).encode(), digest_size=16).hexdigest()


def _file(module: ModuleType | None) -> Path | None:
    """The file ``module`` was read from, if it was read from one."""
    path = getattr(module, "__file__", None)
    return Path(path).resolve() if path and Path(path).is_file() else None


def _check_call(factory: Callable[..., Any], text: str, name: str) -> None:
    """Refuse a factory that cannot be called as ``factory(env, seed)`` (before any run).

    Raises:
        AgentSpecError: Naming the factory and why Python would refuse the call.
    """
    try:
        inspect.signature(factory).bind(None, 0)
    except TypeError as err:
        raise AgentSpecError(f"--agent {text}: {name} cannot be called as {name}(env, seed) "
                             f"({err}); an agent factory takes the env and a seed") from err
    except ValueError:  # no signature to read (a builtin): the call will tell
        pass


def _hf_spec(text: str, model: str | None) -> AgentSpec:
    if not _installed("transformers"):
        raise DependencyNotInstalled(
            f"--agent {text} needs transformers; run: pip install 'mobileintent-gym[llm]'")
    try:
        module = importlib.import_module(HF_MODULE)
    except ModuleNotFoundError as err:
        if err.name != HF_MODULE:
            raise DependencyNotInstalled(
                f"--agent {text} needs {err.name}; run: pip install 'mobileintent-gym[llm]'"
            ) from err
        raise AgentSpecError(f"--agent {text}: this installation has no Hugging Face agent "
                             f"({HF_MODULE}); update mobileintent-gym") from err
    if model is None:  # the model loaded is named (and loaded) by the run: hub or package
        model = default_model()
    names = f"hf:{model}"
    if Path(model).expanduser().exists():
        names = f"hf:{local_name(model)}"  # the same model wherever the run is read
    elif written_as_path(model):
        raise AgentSpecError(f"--agent {text}: no model folder or .gguf file {model!r}; "
                             "give a path that exists, or a hub id")
    return AgentSpec(text, lambda: _as_factory(module.hf_agent(model)), names)


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _as_factory(made: Any) -> AgentFactory:
    """A factory from what ``hf_agent`` returns: a factory, or one agent shared by all."""
    if callable(getattr(made, "act", None)):
        return lambda env, seed: made
    return made


def _run_file(path: Path) -> Any:
    """The module of the file at ``path``.

    It runs with its own folder first on ``sys.path``, as ``python file.py`` would, so it
    imports the modules beside it. Registered while it runs, because ``dataclasses`` looks
    a class's module up in ``sys.modules`` (string annotations), under a prefixed name, so
    that a file named like another module (``random.py``) does not take its place;
    unregistered after, so that its agents are pickled by value for processes that cannot
    import it (Ray actors).
    """
    spec = importlib.util.spec_from_file_location(f"_agent_file_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    folder = str(path.resolve().parent)  # its own folder first, as `python file.py` has it
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    before = set(sys.modules)
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
        if added:
            sys.path.remove(folder)
    imported = set(sys.modules) - before
    _FILE_NEIGHBOURS.update(_neighbours({n.partition(".")[0] for n in imported}))
    _BESIDE.setdefault(str(path.resolve()), set()).update(_beside(imported, Path(folder)))
    return module


def _beside(names: set[str], folder: Path) -> tuple[Path, ...]:
    """The files of the modules ``names`` that lie under ``folder``.

    Those are an agent file's own helpers and their submodules, whatever else could
    import them; this package's modules are left to its own hash.
    """
    package = __package__.partition(".")[0]
    files = (_file(sys.modules.get(name)) for name in names
             if name.partition(".")[0] != package)
    return tuple(sorted(path for path in files if path is not None and path.is_relative_to(folder)))


_FILE_NEIGHBOURS: dict[str, ModuleType] = {}
# Per agent file: the files it imported from its folder, hashed as its code. Kept for the
# process: read again, the file finds its helpers imported already.
_BESIDE: dict[str, set[Path]] = {}


def _neighbours(names: set[str]) -> dict[str, ModuleType]:
    """The modules of ``names`` that only an agent file's folder made importable.

    Those are imported beside the file (its helpers), not installed: no other path finds
    them, so a process without the folder (a Ray actor) cannot import them.
    """
    return {name: sys.modules[name] for name in sorted(names) if name in sys.modules
            and importlib.machinery.PathFinder.find_spec(name, sys.path) is None}


def agent_file_modules() -> tuple[ModuleType, ...]:
    """The modules that agent files imported from their own folders.

    A process that sends such an agent elsewhere (Ray) pickles these by value, as it does
    the file itself: the other side has no folder to import them from.
    """
    return tuple(module for name, module in _FILE_NEIGHBOURS.items()
                 if sys.modules.get(name) is module)  # one unloaded since is gone


def _load_module(name: str, text: str) -> Any:
    if name.endswith(".py"):
        path = Path(name)
        if not path.is_file():
            raise AgentSpecError(f"--agent {text}: no file {name!r}")
        return _run_file(path)
    if name.startswith("."):
        raise AgentSpecError(f"--agent {text}: {name!r} is a relative module name; give the "
                             "module's full name, or the path of its .py file")
    if os.getcwd() not in sys.path:  # as `python -m` does: your folder's modules come first
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is None or not (name == err.name or name.startswith(f"{err.name}.")):
            raise  # the module exists and imports something missing: its own error
        raise AgentSpecError(f"--agent {text}: no module {name!r}; run from the folder that "
                             "holds it, or give the path of its .py file") from err


def _attribute(module: Any, name: str, text: str) -> Any:
    try:
        return getattr(module, name)
    except AttributeError:
        public = sorted(k for k in vars(module) if not k.startswith("_"))
        raise AgentSpecError(f"--agent {text}: {module.__name__!r} has no {name!r}; it has "
                             f"{public}") from None
