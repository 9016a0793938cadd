"""The contract mix of a bot at its own table and against other defenders
(:mod:`tarot_analysis.table.mix`)."""

from __future__ import annotations

import numpy as np

from tarot_analysis.table.mix import contract_mix


def test_a_bot_against_itself_takes_the_contracts_of_its_own_table() -> None:
    mix = contract_mix("fft-4", 120, "heuristic", "heuristic", seed=3, threads=1)
    own = mix.contracts[mix.contracts["table"] == "own"].reset_index(drop=True)
    mixed = mix.contracts[mix.contracts["table"] == "mixed"].reset_index(drop=True)
    assert own["contracts"].sum() > 40
    assert own["contracts"].tolist() == mixed["contracts"].tolist()
    assert np.allclose(own["made"].fillna(-1), mixed["made"].fillna(-1))
    assert mix.tables["took"].iloc[0] == mix.tables["took"].iloc[1]
    assert mix.tables["passed"].iloc[0] == mix.tables["passed"].iloc[1]
    every = mix.paired.set_index("contract").loc["all"]
    assert every["pairs"] == own["contracts"].sum() and every["difference"] == 0.0


def test_a_bolder_bidder_takes_more_and_random_defenders_let_more_contracts_through() -> None:
    bold = contract_mix("fft-4", 300, "heuristic:-4", "heuristic", seed=1, threads=1)
    tables = bold.tables.set_index("table")
    # At its own table every seat bids boldly: fewer deals passed than where one seat does.
    assert tables.loc["own", "passed"] < tables.loc["mixed", "passed"]
    assert tables.loc["own", "took"] > 0.18
    weak = contract_mix("fft-4", 300, "heuristic", "random", seed=1, threads=1)
    every = weak.paired.set_index("contract").loc["all"]
    # The same contracts from the same seats, defended at random: made more often.
    assert every["pairs"] > 15 and every["low"] > 0.05
    assert every["mixed"] > every["own"]
    shares = weak.contracts.groupby("table")["share"].sum()
    assert np.allclose(shares, 1.0)
