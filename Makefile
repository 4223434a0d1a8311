# PaperTrail: `make run` installs everything and runs the whole system; `make test` installs and runs all tests;
# `make test-fast` runs what needs no server (under a minute).
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.8
UV := .tools/bin/uv
export UV_PYTHON_DOWNLOADS := never
# Python keeps compiled modules: with PYTHONDONTWRITEBYTECODE (some images set it) every process compiles every module
# it imports from source, each time: a service start took 6.5 CPU-s instead of 2.2, a test worker's collection 25.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install system-deps run demo llm titles stack-up stack-down test test-fast lint schemas messages clean

# Debian packages some tests drive: Chromium and a Chinese font (browser tests and their screenshots),
# Prometheus with promtool (alert rules, metrics; the local stack's Prometheus) and Alertmanager, kcat (an outside
# Kafka client). Installed when missing; a test whose tool is still missing is skipped with the reason.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet uv==$(UV_VERSION)

install: $(UV)
	$(UV) sync --frozen --compile-bytecode
	$(UV) run --frozen papertrail assets

system-deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v promtool >/dev/null || missing="$$missing prometheus"; \
	command -v prometheus-alertmanager >/dev/null || missing="$$missing prometheus-alertmanager"; \
	command -v kcat >/dev/null || missing="$$missing kcat"; \
	fc-list 2>/dev/null | grep -qi wqy || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null) \
			|| echo "warning: could not install$$missing; the tests that need them will be skipped"; \
	fi

run: install
	$(UV) run papertrail stack up
	$(UV) run papertrail run

demo: install
	$(UV) run papertrail stack up
	$(UV) run papertrail demo $(DEMO_ARGS)

# A packaged local model for Chinese summaries: builds llama.cpp's server once (~15 min), then serves it on :8090;
# start the services with the OPENAI_* settings it prints (README, "Summaries with no endpoint"). LLM_ARGS: --model …
llm: install
	$(UV) run papertrail llm $(LLM_ARGS)

titles: install
	$(UV) run papertrail llm --titles $(LLM_ARGS)

stack-up: install
	$(UV) run papertrail stack up

stack-down: install
	$(UV) run papertrail stack down

# The message catalogs in step with the code: Babel's extractors (Python, and Jinja2's for the templates) collect every
# message into a template, and `pybabel update` adds the new ones to the Chinese catalog (empty, to be translated) and
# drops the ones nothing uses any more. tests/papertrail/runtime/test_wording.py fails until the
# catalog holds every message, translated. No .mo: papertrail/runtime/wording.py compiles the .po when a process starts.
messages: install
	$(UV) run pybabel extract -F papertrail/runtime/locale/babel.cfg --no-location --sort-output -o .messages.pot .
	$(UV) run pybabel update -i .messages.pot -d papertrail/runtime/locale -l zh --no-fuzzy-matching --ignore-obsolete \
		--width 120
	rm .messages.pot

MYPY_PATHS := papertrail papertrail_ops papertrail_tools schemas services tests bench

lint: install
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run mypy $(MYPY_PATHS)

# The whole suite: unit, in-memory, integration (real Kafka, MongoDB, Meilisearch), browser. Test modules run on
# PYTEST_WORKERS pytest-xdist workers, more than the cores: a run mostly waits for servers and services to answer
# (services start forked from a zygote that imported them once per worker: tests/support/spawning.py).
# --dist loadfile keeps a module on one worker, so its module fixtures (a pipeline, servers of its own) start once;
# (loadgroup would, but pytest-xdist 3.8 cannot mark groups on pytest 9.2's node ids: every test ran apart).
# mypy checks the types while the suite runs (the suite mostly waits); either failing fails make test.
PYTEST_WORKERS ?= 6
test: system-deps install
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run mypy $(MYPY_PATHS) > .mypy.out 2>&1 & types=$$!; \
	$(UV) run pytest -n $(PYTEST_WORKERS) --dist loadfile; tests=$$?; \
	wait $$types; typed=$$?; cat .mypy.out; rm -f .mypy.out; \
	if [ $$tests -ne 0 ]; then exit $$tests; fi; exit $$typed

# The inner loop, no servers: lint and types, the pure tests and the handlers on FastStream's in-memory broker.
test-fast: lint
	$(UV) run pytest -m "not integration"

schemas: install
	$(UV) run papertrail schemas export

clean:
	-$(UV) run papertrail stack down
	rm -rf .venv .tools .stack
