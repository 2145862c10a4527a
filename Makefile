# Fencepost: `make run` serves it locally, `make test` proves it. Every target installs what it needs first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: help install lint fmt test test-slow run bench synth deploy clean

help:
	@echo "make run        run the whole service locally (DynamoDB Local, local S3/SQS, loader, HTTP API)"
	@echo "make test       install what is needed, then lint, type-check and run the test suite"
	@echo "make test-slow  the tests that load the full shared data files"
	@echo "make bench      speed, memory and cost benchmarks (results in bench-results/)"
	@echo "make synth      synthesize the CloudFormation template (no AWS account needed)"
	@echo "make deploy     deploy to the AWS account of your current credentials"

$(PY_STAMP): requirements/dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed as python3")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js 20+) is needed for the CDK CLI and DynamoDB Local"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

install: $(PY_STAMP) $(NODE_STAMP)

lint: $(PY_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

fmt: $(PY_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: install lint
	$(BIN)/pytest -m "not slow"

test-slow: install
	$(BIN)/pytest -m slow

clean:
	rm -rf $(VENV) node_modules cdk.out build .mypy_cache .ruff_cache .pytest_cache .hypothesis
