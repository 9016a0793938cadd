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
deals = 200_000  # per table; a quarter of them for each rule variant
seed = 1
bots = "learned"  # at every seat, as in the strategy report (the heuristic where no model ships)
data_dir = "data"  # relative to the repository's root, as for `make run`

# %%
# %matplotlib inline
from pathlib import Path

import pandas as pd

from tarot_analysis.analyses.compare import compare_variants
from tarot_analysis.bots.default import playable_bot
from tarot_analysis.deals.hand_stats import run_hands
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report import plots
from tarot_analysis.table.play import play

# A relative folder is taken from the repository's root, wherever the notebook runs from.
here = Path.cwd().resolve()
root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").is_file()), here)

# %% [markdown]
# ## 3, 4, 5 and 6 players: what the deal gives

# %%
tables = ["fft-3", "fft-4", "fft-5", "six-king-queen"]
hands = {name: run_hands(load_rules(name), deals, seed) for name in tables}
dealt = f"{', '.join(tables)} · deal only, no bots · {deals:,} deals each"
figure = plots.poignee_by_preset({name: stats.poignee() for name, stats in hands.items()})
figure.suptitle(f"Poignées by table\n{dealt}")
figure

# %% [markdown]
# ## FFT, the older rules, trumps broken, and a changed poignée threshold
#
# The last variant is a rules file that changes one number: a simple poignée from 9 trumps. The
# same bots play every variant, so that the rules alone differ: the learned bot ships for
# fft-4 alone of them, and the heuristic plays them all.

# %%
custom = root / data_dir / "poignee-9.toml"
custom.parent.mkdir(parents=True, exist_ok=True)
custom.write_text('extends = "fft-4"\n[poignee]\nthresholds = [9, 13, 15]\n', encoding="utf-8")
variants = [load_rules(name) for name in ("fft-4", "legacy-4", "trumps-broken-4")]
variants.append(load_rules(custom))
variant_bots = playable_bot(bots, *variants)
comparison = compare_variants(variants, deals // 4, bots=variant_bots, seed=seed)
run = f"{', '.join(v.name for v in variants)} · {variant_bots} bots · {deals // 4:,} deals, paired"
print(f"{run}, counterfactual mode, seed {seed}")
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
plots.variant_differences(table, title=f"Against fft-4 (95% intervals)\n{run}")

# %% [markdown]
# ## Tarocco: the dealer's advantage and the premiums

# %%
tarocco_rules = load_rules("tarocco")
tarocco_deals = deals - deals % tarocco_rules.tarocco.match_deals  # whole matches
tarocco_bots = playable_bot(bots, tarocco_rules)  # no learned model ships for Tarocco
tarocco = play(tarocco_rules, tarocco_deals, bots=tarocco_bots, seed=seed)
print(f"tarocco · {tarocco_bots} bots · {tarocco_deals:,} deals, seed {seed}")
tarocco.summary()
