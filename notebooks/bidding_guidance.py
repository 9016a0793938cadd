# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Bidding guidance
#
# Which contract pays, for which hand? Seat 0 takes every contract on the same deals
# (counterfactual mode); the tables give, per value of a hand evaluation, the success rate and
# the taker's mean score of each contract, and the contract that maximises it.

# %% tags=["parameters"]
deals = 1_000_000
seed = 1
rules_name = "fft-4"
bots = "random"
data_dir = "../data"

# %%
# %matplotlib inline
from pathlib import Path

from tarot_analysis import plots
from tarot_analysis.guidance import compare_evaluators, guidance_tables, run_guidance
from tarot_analysis.rules import load_rules

rules = load_rules(rules_name)
folder = Path(data_dir) / f"guidance-{rules.name}-{bots}-seed{seed}-{deals}"
data = run_guidance(rules, deals, folder, bots=bots, seed=seed)
tables = guidance_tables(data)
print(f"{rules.name}, bots {bots}, counterfactual mode, {len(data.played()):,} deals played")

# %%
plots.success_by_score(tables["by_chavey"])

# %%
plots.expected_score_by_score(tables["by_chavey"])

# %%
plots.recommended_map(tables["by_bouts_trumps"])

# %% [markdown]
# ## What published thresholds lose, and a fitted model

# %%
tables["threshold_loss"]

# %%
comparison = compare_evaluators(data, "garde")
{name: comparison[name] for name in ("fitted", "chavey", "fitted_minus_chavey")}

# %%
plots.calibration(comparison["calibration"])
