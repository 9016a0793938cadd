# The two commands of the README: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEALS ?= 1000000
SEED ?= 1

.PHONY: setup run test lint bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,plots,notebooks]'
	touch $@

# The main job: hand statistics of the default preset, saved under data/.
run: setup
	$(BIN)/tarot-analysis hands --rules fft-4 --deals $(DEALS) --seed $(SEED) \
		--out data/hands-fft-4.parquet

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/bench_deal.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
