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

# %% [markdown]
# The best option at each Chavey count, the runner-up and their difference deal by deal (95%
# interval; a tie when it reaches 0), and how often a bootstrap replicate of the deals names
# another best (docs/guidance.md says how each is computed).

# %%
columns = ["n", "best", "runner_up", "difference", "difference_ci_low", "difference_ci_high",
           "tie", "best_changes", "pass_played_mean_score", "pass_taken_share"]  # fmt: skip
tables["by_chavey"][tables["by_chavey"]["n"] >= 200][columns]

# %%
plots.success_by_score(tables["by_chavey"])

# %%
plots.expected_score_by_score(tables["by_chavey"])

# %%
plots.recommended_map(tables["by_bouts_trumps"])

# %% [markdown]
# ## Thresholds, what each rule loses, and a fitted model
#
# The thresholds of a rule that never steps down, fitted to the deals, with bootstrap
# intervals, beside the published ones; then each rule's loss per deal against the best
# contract of each value, in sample and out of sample.

# %%
tables["thresholds"]

# %%
tables["threshold_loss"]

# %%
comparison = compare_evaluators(data, "garde")
{name: comparison[name] for name in ("fitted", "chavey", "fitted_minus_chavey")}

# %%
comparison["coefficients"]

# %%
for caveat in comparison["caveats"]:
    print("-", caveat)

# %%
plots.calibration(comparison["calibration"])
