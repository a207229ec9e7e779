# Two entry points: `make demo` (the tour on a scratch repo) and `make test` (the suite).
# Both build a local virtualenv in .venv from pyproject.toml; nothing else is needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench typecheck clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]' --config-settings editable_mode=compat
	touch $(STAMP)

demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash docs/demo.sh

test: $(STAMP)
	$(PY) -m pytest -n 2 tests

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
