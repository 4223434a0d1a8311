# PaperTrail: `make run` installs everything and runs the whole system; `make test` installs and runs all tests.
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.8
UV := .tools/bin/uv
export UV_PYTHON_DOWNLOADS := never

.PHONY: install run demo stack-up stack-down test lint schemas clean

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet uv==$(UV_VERSION)

install: $(UV)
	$(UV) sync --frozen

run: install
	$(UV) run papertrail stack up
	$(UV) run papertrail run

demo: install
	$(UV) run papertrail stack up
	$(UV) run papertrail demo

stack-up: install
	$(UV) run papertrail stack up

stack-down: install
	$(UV) run papertrail stack down

lint: install
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run mypy papertrail schemas services tests bench

test: lint
	$(UV) run pytest

schemas: install
	$(UV) run papertrail schemas export

clean:
	-$(UV) run papertrail stack down
	rm -rf .venv .tools .stack
