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
# # Hand distributions
#
# What the deal alone decides: how many bouts and trumps a hand holds, how often a poignée
# or a Petit sec turns up, and what the dog brings. Every simulated rate is shown beside its
# exact (hypergeometric) value, with its count and Wilson 95% interval.

# %% tags=["parameters"]
deals = 1_000_000
seed = 1
presets = ["fft-3", "fft-4", "fft-5", "six-king-queen"]

# %%
# %matplotlib inline
import pandas as pd

from tarot_analysis.deals.hand_stats import run_hands
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report import plots

stats = {name: run_hands(load_rules(name), deals, seed) for name in presets}
across = f"{', '.join(stats)} · deal only, no bots · {deals:,} deals each"
print(f"{across}, seed {seed}")

# %% [markdown]
# ## Bouts per hand, four players

# %%
four = stats["fft-4"] if "fft-4" in stats else next(iter(stats.values()))
run = f"{four.rules.name} · deal only, no bots · {deals:,} deals"
bouts = four.table("bouts")
bouts

# %%
plots.distribution(bouts, title=f"Bouts per hand\n{run}", xlabel="Bouts in the hand")

# %% [markdown]
# ## Trumps per hand

# %%
plots.distribution(four.table("trumps"), title=f"Trumps per hand\n{run}", xlabel="Trumps held")

# %% [markdown]
# ## Poignée and Petit sec across presets
#
# A poignée per hand, and per deal ("someone at the table can show one"); the Petit sec makes
# the deal void under the FFT rules.

# %%
poignee = {name: s.poignee() for name, s in stats.items()}
pd.concat(poignee, names=["preset"])

# %%
figure = plots.poignee_by_preset(poignee)
figure.suptitle(f"Poignées by preset\n{across}")
figure

# %%
figure = plots.petit_sec_by_preset({name: s.petit_sec() for name, s in stats.items()})
figure.suptitle(across)
figure

# %% [markdown]
# ## What the dog holds

# %%
four.table("bouts", dog=True)
