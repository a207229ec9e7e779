# Two entry points: `make demo` (the tour on a scratch repo) and `make test` (the suite).
# Both build a local virtualenv in .venv from pyproject.toml; nothing else is needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test smoke provision bench typecheck clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]' --config-settings editable_mode=compat
	touch $(STAMP)

demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash docs/demo.sh

test: $(STAMP) provision
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

# What the report, graph and formatter tests need beyond Python: headless Chromium with its driver,
# graphviz, clang-format (Debian's packages), and the npm tools pinned in tests/formatters (prettier, its
# PHP plugin, the TypeScript compiler; `npm ci` when node_modules is missing). Debian packages are
# installed only when missing and when running as root with apt (CI runs as root); otherwise a warning,
# and those tests skip with the reason (under CI=true they fail instead).
FORMATTER_TOOLS := tests/formatters/node_modules/.package-lock.json
provision: $(FORMATTER_TOOLS)
	@missing=""; for tool in chromium chromedriver dot clang-format; do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "provision: installing chromium chromium-driver graphviz clang-format (missing:$$missing)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver graphviz clang-format >/dev/null; \
	else \
		echo "provision: WARNING: missing$$missing; as root run: apt-get install chromium chromium-driver graphviz clang-format"; \
	fi

$(FORMATTER_TOOLS): tests/formatters/package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --prefix tests/formatters --no-audit --no-fund --silent; \
	else echo "provision: WARNING: npm missing; the prettier and TypeScript oracle tests will not run"; fi

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
