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
#
# The parameters are those of the strategy report (`make run`): learned bots at every seat (the
# heuristic for a preset with no learned model), a million deals. The run is stored in `data/`,
# in the folder the report gives the same run, and resumed from there: after `make run` this
# notebook plays nothing.

# %% tags=["parameters"]
deals = 1_000_000
seed = 1
rules_name = "fft-4"
bots = "learned"  # at every seat
data_dir = "data"  # relative to the repository's root, as for `make run`

# %%
# %matplotlib inline
from pathlib import Path

from tarot_analysis.analyses.guidance import compare_evaluators, guidance_tables, run_guidance
from tarot_analysis.bots.default import playable_bot
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report import GUIDANCE_CHUNK_SIZE, guidance_folder, plots

# A relative folder is taken from the repository's root, wherever the notebook runs from.
here = Path.cwd().resolve()
root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").is_file()), here)
rules = load_rules(rules_name)
bots = playable_bot(bots, rules)  # the learned bot, or the heuristic for a preset with no model
folder = guidance_folder(rules.name, [bots], seed, deals, root / data_dir)
data = run_guidance(rules, deals, folder, bots=bots, seed=seed, chunk_size=GUIDANCE_CHUNK_SIZE)
tables = guidance_tables(data)
run = f"{rules.name} · {bots} bots · {deals:,} deals"
print(run)
print(f"counterfactual mode, seed {seed}, {data.played_deals:,} deals played, from {folder}")

# %% [markdown]
# The best option at each Chavey count, the runner-up and their difference deal by deal (95%
# interval; a tie when it reaches 0), and how often a bootstrap replicate of the deals names
# another best (docs/guidance.md says how each is computed).

# %%
columns = ["n", "best", "runner_up", "difference", "difference_ci_low", "difference_ci_high",
           "tie", "best_changes", "pass_played_mean_score", "pass_taken_share"]  # fmt: skip
tables["by_chavey"][tables["by_chavey"]["n"] >= 200][columns]

# %%
figure = plots.success_by_score(tables["by_chavey"])
figure.suptitle(run)
figure

# %%
figure = plots.expected_score_by_score(tables["by_chavey"])
figure.suptitle(run)
figure

# %%
figure = plots.recommended_map(tables["by_bouts_trumps"])
figure.suptitle(run)
figure

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
plots.calibration(comparison["calibration"], title=f"Calibration of predicted success\n{run}")
