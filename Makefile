# The two commands of the README: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEALS ?= 1000000
SEED ?= 1
BOTS ?= learned

.PHONY: setup browser run bound hands notebooks test test-fast lint bench clean

setup: $(VENV)/.installed

# pip shows its progress at a terminal. Elsewhere (a log) it says nothing for a minute while it
# unpacks the packages: a line every 5 seconds then counts those in place, until pip ends.
$(VENV)/.installed: pyproject.toml
	@echo "Setting up $(VENV) (1 to 3 minutes the first time): tarot-analysis and numpy, numba, pandas,"
	@echo "  scipy, pyarrow, statsmodels, tqdm; extras plots (matplotlib), notebooks (JupyterLab, jupytext,"
	@echo "  papermill), dask (Dask distributed), env (PettingZoo, Gymnasium), train (JAX, optax),"
	@echo "  dev (pytest, hypothesis, ruff, mypy)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	@[ -t 1 ] || { while sleep 5 && kill -0 $$$$ 2>/dev/null; do \
		echo "  ... $$(ls -d $(VENV)/lib/python*/site-packages/*.dist-info | wc -l) packages in $(VENV)"; \
		done & }; \
	echo "$(BIN)/python -m pip install -e '.[dev,plots,notebooks,dask,env,train]'"; \
	$(BIN)/python -m pip install -e '.[dev,plots,notebooks,dask,env,train]'
	touch $@

# Debian's Chromium opens the report in the tests and prints it to PDF: installed when missing
# and possible (as root, with apt-get), after saying what it adds, and never when the install
# would upgrade or remove a package already installed (scripts/install_chromium.sh). Without
# it the browser test is skipped and the report is HTML only.
browser:
	@sh scripts/install_chromium.sh

# The main job: the strategy report of the default preset (HTML in reports/, runs in data/).
run: setup browser
	$(BIN)/tarot-analysis report --rules fft-4 --deals $(DEALS) --seed $(SEED) --bots $(BOTS) \
		--out reports/ --data data/ --pdf

# The Garde's make rate with every card seen after 10 tricks, beside the heuristic's, the learned
# bot's and the search bot's on the same deals (docs/guidance.md), into data/, where the next
# report finds it (section "A bound no bot's skill enters"). Not part of `run`: about 9 minutes
# for 2,000 deals on two busy cores, and compiling the solver and the search bot adds minutes
# to a first run. The report's section, without such a run, suggests this same command
# (tarot_analysis/report/bound.py, bound_command; tests/test_report_bound.py checks they agree).
BOUND_DEALS ?= 2000
bound: setup
	$(BIN)/tarot-analysis dd-bound --rules fft-4 --deals $(BOUND_DEALS) --after-tricks 10 \
		--bots heuristic learned pimc --every 2 --seed $(SEED) --by chavey bouts \
		--data data/dd-bound-fft-4-seed$(SEED)-$(BOUND_DEALS)

# The hand statistics alone, with every hand's features saved.
hands: setup
	$(BIN)/tarot-analysis hands --rules fft-4 --deals $(DEALS) --seed $(SEED) \
		--out data/hands-fft-4.parquet

# The four notebooks executed with their outputs into reports/notebooks/, with the bots and seed
# of `make run`; the guidance notebook reuses the guidance run of `make run` from data/ when the
# deals match. Each notebook's deals, and both folders, can be set on the command line.
NOTEBOOKS_OUT ?= reports/notebooks
NOTEBOOKS_DATA ?= data
HAND_DEALS ?= 1000000
CONTRACT_DEALS ?= 200000
GUIDANCE_DEALS ?= $(DEALS)
VARIANT_DEALS ?= 200000
# $(call execute,NOTEBOOK,DEALS,MORE PARAMETERS): the percent script read as a notebook, its
# parameters replaced after the cell tagged `parameters`, run in notebooks/ as Jupyter does, by
# a kernel on encrypted channels (scripts/execute_notebook.py).
execute = $(BIN)/python scripts/execute_notebook.py notebooks/$(1).py $(NOTEBOOKS_OUT)/$(1).ipynb \
	-p deals $(2) -p seed $(SEED) $(3)

notebooks: setup
	mkdir -p $(NOTEBOOKS_OUT)
	$(call execute,hand_distributions,$(HAND_DEALS))
	$(call execute,contract_success,$(CONTRACT_DEALS),-r bots $(BOTS))
	$(call execute,bidding_guidance,$(GUIDANCE_DEALS),-r bots $(BOTS) -r data_dir $(NOTEBOOKS_DATA))
	$(call execute,rule_variants,$(VARIANT_DEALS),-r bots $(BOTS) -r data_dir $(NOTEBOOKS_DATA))

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Each test file on one process, in the order tests/conftest.py gives: the search compiled on one
# process while the other runs the files that do without it.
test: lint browser
	$(BIN)/pytest -n 2 --dist loadfile --no-loadscope-reorder

# The suite without the tests marked slow (pyproject.toml), for the edit-and-test loop: about
# a minute on two cores once the compiled code is cached (CONTRIBUTING.md). No lint.
test-fast: setup
	$(BIN)/pytest -n 2 -m "not slow"

bench: setup
	$(BIN)/python benchmarks/bench_deal.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
