# The two commands of the README: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEALS ?= 1000000
SEED ?= 1
BOTS ?= heuristic

.PHONY: setup browser run hands test lint bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,plots,notebooks,dask,env]'
	touch $@

# Debian's Chromium opens the report in the tests (and prints PDFs); installed when missing
# and possible. Where it cannot be, the browser test says so and is skipped.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 \
		|| echo "chromium could not be installed: the browser check of the report will be skipped"; }

# The main job: the strategy report of the default preset (HTML in reports/, runs in data/).
run: setup browser
	$(BIN)/tarot-analysis report --rules fft-4 --deals $(DEALS) --seed $(SEED) --bots $(BOTS) \
		--out reports/ --data data/ --pdf

# The hand statistics alone, with every hand's features saved.
hands: setup
	$(BIN)/tarot-analysis hands --rules fft-4 --deals $(DEALS) --seed $(SEED) \
		--out data/hands-fft-4.parquet

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint browser
	$(BIN)/pytest -n 2

bench: setup
	$(BIN)/python benchmarks/bench_deal.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
