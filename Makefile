# Fencepost: `make run` serves it locally, `make test` proves it. Every target installs what it needs first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# Two sets of Python packages: what `make run` (and the admin targets) need, requirements/run.txt; everything `make
# test` needs, requirements/dev.txt (run.txt's pins, and the test, lint, CDK and scan tools). Installing dev.txt
# installs run.txt too, so its stamp marks both.
VENV_STAMP := $(VENV)/.created
RUN_STAMP := $(VENV)/.installed-run
PY_STAMP := $(VENV)/.installed
# checkov pins libraries the project's own cannot share: it has a virtual environment of its own (infra/scan.py)
SCAN_VENV := .venv-scan
SCAN_STAMP := $(SCAN_VENV)/.installed
# npm likewise: DynamoDB Local for `make run` (package.json's dependencies), the CDK CLI too for the rest.
NODE_RUN_STAMP := node_modules/.installed-run
NODE_STAMP := node_modules/.installed
# The web console's JavaScript (ES modules, served as written): prettier formats it, eslint lints it (package.json)
CONSOLE := lambdas/fencepost/http/console
PIP := $(BIN)/pip install --quiet --disable-pip-version-check --no-compile
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: help install mmdblookup run-install lint fmt test test-quick test-slow run rollback fetch bench fuzz plan enrich sql clean

help:
	@echo "make run        run the whole service locally (DynamoDB Local, local S3/SQS, loader, HTTP API)"
	@echo "                TABLE=disk keeps the table in var/ (restarts in seconds) instead of rebuilding it"
	@echo "                CAPACITY=on-demand-new CAPACITY_SCALE=0.1 emulates DynamoDB's partitions in front of it"
	@echo "                FAULTS=dynamodb.error=0.02,dynamodb.reset=0.01,dynamodb.slow=0.05@500ms,s3.error=0.01,s3.cut=0.01,loader.kill=1"
	@echo "                injects faults on purpose (FAULTS_SEED=n repeats a run's decisions; docs/development.md)"
	@echo "make test       install what is needed, then run the test suite, lint and type-check beside it"
	@echo "make test-quick lint, type-check and the unit tests: the edit loop (TEST_WORKERS=n sets the parallelism)"
	@echo "make test-slow  the tests that load the full shared data files"
	@echo "make bench      speed, memory and cost benchmarks, and a soak under injected faults (results in bench-results/)"
	@echo "make fuzz       fuzz the API from its OpenAPI document (longer than make test)"
	@echo "make plan FILE=path [FILE=...]  what loading these files (and LOOKUPS=<per second>) will do on AWS"
	@echo "make enrich FILE=access.log.gz DATASET=geo[,asn] [OUT=out.csv.gz] [ARGS='--format alb --time log']"
	@echo "                each row with the datasets' answers (the local stack, a stack on AWS, or RANGES=<file>)"
	@echo "make sql [QUERY='SELECT ...'] [FORMAT=csv] [DATASET=geo,asn]  DuckDB with every dataset as a table"
	@echo "                (from the local stack, a stack on AWS, or RANGES=<file>, as make enrich finds them)"
	@echo "make synth      synthesize the CloudFormation template (no AWS account needed)"
	@echo "make lint-template  cfn-lint (with serverless rules) and checkov over the synthesized templates"
	@echo "make deploy     deploy to the AWS account of your current credentials (see docs/deploy.md)"
	@echo "make rollback DATASET=name   serve the previous version of a dataset again (local stack)"
	@echo "make fetch DATASET=name      check the dataset's source (_source.json) now (local stack)"

$(VENV_STAMP):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed as python3")'
	$(PYTHON) -m venv $(VENV)
	@# Make the service's packages importable from the venv (lambdas/ for fencepost, the root for local and infra).
	$(PY) -c 'import pathlib, site; pathlib.Path(site.getsitepackages()[0], "fencepost-dev.pth").write_text("$(CURDIR)/lambdas\n$(CURDIR)\n")'
	@touch $@

# --no-compile: modules are compiled when first imported, not every one at install (run.txt: 26 s of CPU, not 46)
$(RUN_STAMP): requirements/run.txt | $(VENV_STAMP)
	$(PIP) -r requirements/run.txt
	@touch $@

$(PY_STAMP): requirements/dev.txt requirements/run.txt | $(VENV_STAMP)
	$(PIP) -r requirements/dev.txt
	@touch $@ $(RUN_STAMP)

$(SCAN_STAMP): requirements/scan.txt
	$(PYTHON) -m venv $(SCAN_VENV)
	$(SCAN_VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements/scan.txt
	@touch $@

$(NODE_RUN_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js 20+) is needed for DynamoDB Local"; exit 1; }
	npm ci --omit=dev --no-audit --no-fund --loglevel=error
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js 20+) is needed for the CDK CLI and DynamoDB Local"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@ $(NODE_RUN_STAMP)

# mmdblookup (Debian's mmdb-bin: libmaxminddb's own reader) reads the MaxMind DB exports in the tests. Where it is
# missing it is installed with apt-get (as root, or through sudo without a password), or the target stops saying how.
mmdblookup:
	@command -v mmdblookup >/dev/null || { \
	  as_root=""; [ "$$(id -u)" -eq 0 ] || as_root="sudo -n"; \
	  echo "installing mmdblookup (Debian's mmdb-bin) with apt-get"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$as_root apt-get install -y -q mmdb-bin >/dev/null 2>&1 || \
	    { $$as_root apt-get update -q >/dev/null 2>&1 && $$as_root apt-get install -y -q mmdb-bin >/dev/null 2>&1; }; \
	  command -v mmdblookup >/dev/null || { echo "mmdblookup is needed by the tests of MaxMind DB exports and could not be installed: install Debian's mmdb-bin (sudo apt-get install mmdb-bin) or libmaxminddb's mmdblookup, then run make again"; exit 1; }; }

# The bytecode of both environments' packages and of the project, compiled once at install (pip's default, which
# --no-compile leaves out for make run's quick first start) into build/pycache, where the test targets'
# PYTHONPYCACHEPREFIX has Python look for it: otherwise a first run's workers, local stacks and tools each compile
# what they import, side by side. 24 s here (44 s of CPU on 2 cores); an edited module is compiled again when next
# imported. A file some package ships that does not compile is no concern. The test modules are compiled as pytest
# rewrites their asserts by collecting them once (7 s): else each of the first run's workers rewrites them all.
PYCACHE := $(CURDIR)/build/pycache
PYC_STAMP := build/pycache/.compiled
$(PYC_STAMP): $(PY_STAMP) $(SCAN_STAMP)
	@echo "compiling the packages' and the project's bytecode into build/pycache"
	@PYTHONPYCACHEPREFIX=$(PYCACHE) $(PY) -m compileall -q -j0 -x '/(\.git|node_modules|build|cdk\.out|var)/' $(CURDIR) >/dev/null || true
	@PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(PYCACHE) $(BIN)/pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 || \
	  echo "collecting the tests failed: make test will say why"
	@touch $@

# DynamoDB Local's classes archived once for this machine's JVM (local/class_archive.py, 5 s the first time, silent
# after): every later start maps them instead of loading them, about half of its CPU. Without one it starts as before.
CLASS_ARCHIVE = @$(PY) -m local.class_archive
# mypy's cache, made once: a fresh clone's first type-check costs about 18 s of CPU, which make test's lint (beside the
# tests) would otherwise take from them; lint then checks what changed since. Its findings are make lint's to show.
MYPY_CACHE = @[ -d .mypy_cache ] || { echo "Type-checking once, to make mypy's cache (about 20 s)..."; $(BIN)/mypy > /dev/null 2>&1 || true; }

# Everything make test needs; make run installs only its part (run-install). The Lambda assets too (infra/packaging.py:
# 19 s the first time, under 1 s when up to date), which the tests that synthesize the app would otherwise build.
install: $(PY_STAMP) $(NODE_STAMP) $(SCAN_STAMP) $(PYC_STAMP) mmdblookup
	$(CLASS_ARCHIVE)
	$(MYPY_CACHE)
	@$(PY) -m infra.packaging || echo "the Lambda assets were not built (above): the tests that synthesize the app will say why"

run-install: $(RUN_STAMP) $(NODE_RUN_STAMP)
	$(CLASS_ARCHIVE)

lint: $(PY_STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	npx --no-install prettier --check $(CONSOLE)/*.js
	npx --no-install eslint $(CONSOLE)

fmt: $(PY_STAMP) $(NODE_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	npx --no-install prettier --write $(CONSOLE)/*.js

# The suite runs on two workers a core (pytest-xdist): a test spends about half its time waiting on the local services
# it starts, so one worker a core leaves the cores half idle. Each worker has its own DynamoDB Local and moto server, a
# test file's tests run on one worker (their module fixtures shared), the longest files first
# (tests/support/ordering.py); TEST_WORKERS=1 runs it in one process.
# At most 8: each worker starts its own DynamoDB Local (512 MB of heap) and moto server.
TEST_WORKERS ?= $(shell n=$$(( 2 * $$(nproc 2>/dev/null || echo 1) )); echo $$(( n < 8 ? n : 8 )))
XDIST = $(if $(filter 1,$(TEST_WORKERS)),-p no:xdist,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)

# Compiled bytecode is kept for the tests, under build/pycache (out of the tree): they start many Python processes
# (the local stack, the bench's children) and pytest rewrites every test module's asserts; where the shell sets
# PYTHONDONTWRITEBYTECODE, each of them would compile every module from source every time (collecting the unit tests:
# 25 s instead of 6-9 s here).
test test-quick test-slow: export PYTHONDONTWRITEBYTECODE :=
test test-quick test-slow: export PYTHONPYCACHEPREFIX := $(PYCACHE)
# The tests' JVMs (each worker's DynamoDB Local, each local stack's, Spark's driver) compile with the JIT's first tier
# only and collect with one thread: 34% less of DynamoDB Local's CPU over two integration files, in the same time
# (docs/development.md). TEST_JVM_OPTIONS= keeps the JVM's defaults.
TEST_JVM_OPTIONS ?= -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
test test-quick test-slow: export TEST_JVM_OPTIONS := $(TEST_JVM_OPTIONS)
test test-quick test-slow: export DYNAMODB_LOCAL_JAVA_OPTIONS ?= -Xms512m -Xmx1g $(TEST_JVM_OPTIONS)

# Each test's time is kept in build/test-times.xml (JUnit XML): where a run spends its minutes, test by test.
# Lint and type-check run beside the tests (mypy checks on one core, which the tests would otherwise leave idle):
# their output is shown as soon as they end, among the tests' dots, and either failing fails make test.
# (Through LINT_MAKE, not $(MAKE) itself: make -n test would otherwise run the line, tests and all.)
LINT_MAKE = $(MAKE) --no-print-directory lint
test: install
	@mkdir -p build
	@( $(LINT_MAKE) >build/lint.log 2>&1; echo $$? >build/lint.status; cat build/lint.log ) & \
	$(BIN)/pytest -m "not slow" $(XDIST) --durations=30 --junitxml=build/test-times.xml; tested=$$?; \
	wait; linted=$$(cat build/lint.status); \
	[ "$$linted" = 0 ] || echo "make test: lint or type-check failed (build/lint.log, shown above)"; \
	[ "$$tested" = 0 ] && [ "$$linted" = 0 ]

test-quick: install lint
	$(BIN)/pytest tests/unit -m "not slow" $(XDIST)

test-slow: install
	$(BIN)/pytest -m slow

# Ports can be changed: make run HTTP_PORT=3001 AWS_PORT=4567 DYNAMODB_PORT=8001
# The table is kept in memory and rebuilt from the mirrored objects at each start; TABLE=disk keeps it in var/.
# CAPACITY=on-demand-new (or warm=<WRU>, provisioned=<WCU>, provisioned=<WCU>,then-on-demand) puts the capacity
# emulator in front of DynamoDB Local, CAPACITY_SCALE=0.1 scaling every figure.
# FAULTS=dynamodb.error=0.02,s3.cut=0.01,loader.kill=1 (...) injects faults on purpose, FAULTS_SEED=n repeating a run.
run: run-install
	@command -v java >/dev/null || { echo "Java 17+ is needed for DynamoDB Local: install a JDK (e.g. apt install openjdk-17-jdk-headless; with a JRE alone DynamoDB Local listens on every interface)"; exit 1; }
	$(PY) -m local $(if $(HTTP_PORT),--http-port $(HTTP_PORT)) $(if $(AWS_PORT),--aws-port $(AWS_PORT)) $(if $(DYNAMODB_PORT),--dynamodb-port $(DYNAMODB_PORT)) $(if $(TABLE),--table $(TABLE)) $(if $(CAPACITY),--capacity $(CAPACITY)) $(if $(CAPACITY_SCALE),--capacity-scale $(CAPACITY_SCALE)) $(if $(FAULTS),--faults '$(FAULTS)') $(if $(FAULTS_SEED),--faults-seed $(FAULTS_SEED))

# The API fuzzed from its OpenAPI document for longer than make test does (FUZZ_EXAMPLES per operation and mode).
fuzz: install
	FUZZ_EXAMPLES=$(or $(FUZZ_EXAMPLES),2000) $(BIN)/pytest tests/e2e/test_fuzz.py -p no:cacheprovider

# What a load (and a lookup rate) will do on each table mode on AWS, from the capacity model; STUDY=1: the study's
# loads and reads beside the model's. PLAN_ARGS passes more, e.g. PLAN_ARGS="--json --within 5m".
plan: $(RUN_STAMP)
	@$(PY) -m planner $(if $(STUDY),--study) $(FILE) $(if $(LOOKUPS),--lookups-per-second $(LOOKUPS)) $(PLAN_ARGS)

# A file of addresses enriched with datasets' answers, here (docs/enrichment.md): from the running local stack, the stack
# on AWS that TABLE_NAME and BUCKET_NAME name, or RANGES=<file of ranges> (no service). ARGS passes more options.
comma := ,
enrich: $(RUN_STAMP)
	@test -n "$(FILE)" || { echo "usage: make enrich FILE=<input> DATASET=<name>[,<name>] [OUT=<path>] [RANGES=<file>] [ARGS=...]"; exit 2; }
	@$(PY) -m enrich $(FILE) $(foreach name,$(subst $(comma), ,$(DATASET)),--dataset $(name)) $(if $(RANGES),--ranges $(RANGES)) $(if $(OUT),--out $(OUT)) $(ARGS)

# DuckDB with every dataset's versions as tables (docs/sql.md), from where make enrich finds them (RANGES=<file>[,...]
# without a service; DATASET=<name>[,...] attaches only those); QUERY prints one result (FORMAT=csv or jsonl), exits.
sql: $(RUN_STAMP)
	@$(PY) -m sql $(foreach file,$(subst $(comma), ,$(RANGES)),--ranges $(file)) $(foreach name,$(subst $(comma), ,$(DATASET)),--dataset $(name)) $(if $(QUERY),--query "$$QUERY") $(if $(FORMAT),--format $(FORMAT))

# Speed, memory and cost side by side, and a soak under injected faults; results in bench-results/latest.md.
# Quicker, smaller: make bench BENCH_ARGS="--rows 20000 --lookups 500 --synthetic 1000000 --soak-rows 20000"
# (--soak-rows 0 leaves the soak out; python -m bench.soak --rows 20000 runs it alone).
bench: install
	$(PY) -m bench $(BENCH_ARGS)

# Serve the previous version of a dataset again (run twice to roll forward), on the running local stack: the one
# make run started from var/ (or DATA_DIR), on whatever ports it took (local/state.py); none running, it says so.
# On AWS: TABLE_NAME=<the stack's TableName output> .venv/bin/python -m fencepost.handlers.admin rollback <dataset>
rollback: $(RUN_STAMP)
	@test -n "$(DATASET)" || { echo "usage: make rollback DATASET=<name>"; exit 2; }
	@$(PY) -m local.admin rollback $(DATASET)

# Check a dataset's source (_source.json) now, due or not, on the running local stack: a new release is written into
# its folder (<name>/_fetched/) and built as usual. ACCEPT=1: build what the folder holds now past its gates, once
# (after looking at the refused build's diff). On AWS: TABLE_NAME=<TableName> BUCKET_NAME=<BucketName> (and for
# accept CONTROL_QUEUE_URL, DATA_QUEUE_URL) .venv/bin/python -m fencepost.handlers.admin fetch|accept <dataset>
fetch: $(RUN_STAMP)
	@test -n "$(DATASET)" || { echo "usage: make fetch DATASET=<name> [ACCEPT=1]"; exit 2; }
	@$(PY) -m local.admin $(if $(filter 1,$(ACCEPT)),accept,fetch) $(DATASET)

clean:
	rm -rf $(VENV) $(SCAN_VENV) node_modules cdk.out build .mypy_cache .ruff_cache .pytest_cache .hypothesis

include infra/infra.mk
