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
# # Contract success
#
# Deals played to the end by bots. In *auction* mode everyone bids with its bot, so each
# contract is seen on the hands that bid it; in *counterfactual* mode seat 0 takes every
# contract on the same deals. Every rate names its rules, bots, mode, n and interval.

# %% tags=["parameters"]
deals = 200_000  # auction mode, as in the strategy report; a quarter of them counterfactual
seed = 1
rules_name = "fft-4"
bots = "learned"  # at every seat, as in the strategy report (the heuristic where no model ships)

# %%
# %matplotlib inline
from tarot_analysis.analyses.counterfactual import play_every_contract
from tarot_analysis.bots.default import playable_bot
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report import plots
from tarot_analysis.table.play import play

rules = load_rules(rules_name)
bots = playable_bot(bots, rules)  # the learned bot, or the heuristic for a preset with no model
auction = play(rules, deals, bots=bots, seed=seed)
print(f"{rules.name} · {bots} bots · {deals:,} deals, auction mode, seed {seed}")
print("redeals:", auction.redeals())
auction.contracts()

# %% [markdown]
# ## Every contract on the same deals

# %%
every = play_every_contract(rules, deals // 4, bots=bots, seed=seed)
run = f"{rules.name} · {bots} bots · {deals // 4:,} deals"
print(f"{run}, counterfactual mode, seed {seed}")
every.summary()

# %%
figure = plots.taker_points(every.played(), required=rules.bouts_required)
figure.suptitle(run)
figure
