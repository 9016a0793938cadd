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
# # Rule variants
#
# What changes when the rules change? Presets with the same table (players, cards each, dog)
# are played on *the same deals* with the same bots' random draws, so their differences are
# paired deal by deal and sharp; presets with other tables are set side by side, unpaired.
# Every difference comes with its 95% interval.

# %% tags=["parameters"]
deals = 200_000
seed = 1
bots = "random"
data_dir = "../data"

# %%
# %matplotlib inline
from pathlib import Path

import pandas as pd

from tarot_analysis import plots
from tarot_analysis.compare import compare_variants
from tarot_analysis.hand_stats import run_hands
from tarot_analysis.rules import load_rules
from tarot_analysis.tarocco import play_tarocco_run

# %% [markdown]
# ## 3, 4, 5 and 6 players: what the deal gives

# %%
tables = ["fft-3", "fft-4", "fft-5", "six-king-queen"]
hands = {name: run_hands(load_rules(name), deals, seed) for name in tables}
plots.poignee_by_preset({name: stats.poignee() for name, stats in hands.items()})

# %% [markdown]
# ## FFT, the older rules, trumps broken, and a changed poignée threshold
#
# The last variant is a rules file that changes one number: a simple poignée from 9 trumps.

# %%
custom = Path(data_dir) / "poignee-9.toml"
custom.parent.mkdir(parents=True, exist_ok=True)
custom.write_text('extends = "fft-4"\n[poignee]\nthresholds = [9, 13, 15]\n', encoding="utf-8")
variants = [load_rules(name) for name in ("fft-4", "legacy-4", "trumps-broken-4")]
variants.append(load_rules(custom))
comparison = compare_variants(variants, deals // 4, bots=bots, seed=seed)
differences = comparison.differences()
differences[differences["excludes_zero"]]

# %%
shown = differences[differences["measure"].isin(["success", "poignee_shown", "petit_au_bout"])]
shown = shown[shown["contract"].isin(["", "garde"])]
table = pd.DataFrame(
    {
        "difference": shown["difference"].to_numpy(),
        "ci_low": shown["ci_low"].to_numpy(),
        "ci_high": shown["ci_high"].to_numpy(),
    },
    index=[
        f"{v}: {m} {c}".strip()
        for v, m, c in zip(shown["variant"], shown["measure"], shown["contract"], strict=True)
    ],
)
plots.variant_differences(table, title="Against fft-4 (paired, 95% intervals)")

# %% [markdown]
# ## Tarocco: the dealer's advantage and the premiums

# %%
tarocco = play_tarocco_run(load_rules("tarocco"), deals - deals % 3, bots=bots, seed=seed)
tarocco.summary()
