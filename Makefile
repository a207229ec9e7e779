# Two entry points: `make demo` (the tour on a scratch repo) and `make test` (the suite).
# Both build a local virtualenv in .venv from pyproject.toml; nothing else is needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test smoke provision realhosts bench typecheck clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]' --config-settings editable_mode=compat
	touch $(STAMP)

demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash docs/demo.sh

test: $(STAMP) provision realhosts
	$(PY) -m pytest -n 2 tests

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

# What the report and graph tests need beyond Python: headless Chromium with its driver, and graphviz.
# Installed only when missing and when running as root with apt (CI runs as root); otherwise a warning,
# and those tests skip with the reason (under CI=true they fail instead).
provision:
	@missing=""; for tool in chromium chromedriver dot; do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "provision: installing chromium chromium-driver graphviz (missing:$$missing)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver graphviz >/dev/null; \
	else \
		echo "provision: WARNING: missing$$missing; as root run: apt-get install chromium chromium-driver graphviz"; \
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

# Benchmarks measure gitai as an installed tool would run: with its bytecode compiled
# (this matters where PYTHONDONTWRITEBYTECODE is set and an editable install never writes it).
bench: $(STAMP)
	$(PY) -m compileall -q gitai
	for b in hook_latency agent_hook trace_cost ast_hash blame; do $(PY) benchmarks/$$b.py || exit 1; done

typecheck: $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	$(PY) -m mypy gitai

clean:
	rm -rf $(VENV) build *.egg-info
