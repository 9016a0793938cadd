"""Rules as data: every preset reads and validates, user files read, bad files say what is wrong."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarot_analysis.errors import RulesError
from tarot_analysis.game.rules import (
    DEFAULT_PRESET,
    Contract,
    Rules,
    format_rules,
    list_presets,
    load_rules,
    rules_to_dict,
    rules_to_toml,
)

PRESETS = [
    "fft-3",
    "fft-4",
    "fft-5",
    "legacy-3",
    "legacy-4",
    "legacy-5",
    "legacy-6",
    "six-king-queen",
    "tarocco",
    "trumps-broken-4",
]


def preset_text(name: str) -> str:
    """The shipped TOML of a preset, as a user would copy it."""
    return (resources.files("tarot_analysis.game") / "presets" / f"{name}.toml").read_text("utf-8")


def changed(text: str, old: str, new: str) -> str:
    """``text`` with the one line ``old`` replaced by ``new``."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write ``my.toml`` in the current folder and return its load error, or its rules."""
    monkeypatch.chdir(tmp_path)

    def write(text: str, name: str = "my.toml") -> str:
        Path(name).write_text(text, encoding="utf-8")
        return name

    return write


def error_of(name: str) -> str:
    with pytest.raises(RulesError) as caught:
        load_rules(name)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


def test_the_presets_are_the_ones_shipped() -> None:
    assert list_presets() == sorted(PRESETS)
    assert DEFAULT_PRESET in list_presets()


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_reads_and_deals_the_whole_pack(name: str) -> None:
    rules = load_rules(name)
    assert rules.name == name
    assert rules.description and rules.source
    assert rules.players * rules.hand_size + rules.dog_size == rules.deck_size == 78
    assert rules.seats == rules.players
    assert rules.hand_size % rules.packet_size == 0


@pytest.mark.parametrize("name", PRESETS)
def test_shipped_presets_are_complete(name: str) -> None:
    assert "extends" not in preset_text(name)


@pytest.mark.parametrize(
    ("name", "players", "hand", "dog", "packet", "thresholds", "call"),
    [
        ("fft-3", 3, 24, 6, 4, (13, 15, 18), "none"),
        ("fft-4", 4, 18, 6, 3, (10, 13, 15), "none"),
        ("fft-5", 5, 15, 3, 3, (8, 10, 13), "king"),
        ("six-king-queen", 6, 12, 6, 3, (7, 9, 11), "king_queen"),
        ("legacy-3", 3, 24, 6, 4, (13, 15, 18), "none"),
        ("legacy-4", 4, 18, 6, 3, (10, 13, 15), "none"),
        ("legacy-5", 5, 15, 3, 3, (8, 10, 13), "king"),
        ("legacy-6", 6, 12, 6, 3, (7, 9, 11), "king_queen"),
        ("trumps-broken-4", 4, 18, 6, 3, (10, 13, 15), "none"),
        ("tarocco", 3, 24, 6, 1, (13, 15, 18), "none"),
    ],
)
def test_preset_table(
    name: str,
    players: int,
    hand: int,
    dog: int,
    packet: int,
    thresholds: tuple[int, int, int],
    call: str,
) -> None:
    rules = load_rules(name)
    assert (rules.players, rules.hand_size, rules.dog_size, rules.packet_size) == (
        players,
        hand,
        dog,
        packet,
    )
    assert rules.poignee.thresholds == thresholds
    assert rules.call == call
    assert rules.shares.alone == players - 1


def test_fft_4_is_the_federation_game() -> None:
    rules = load_rules("fft-4")
    points = rules.card_points
    assert (points.bout, points.king, points.queen, points.knight, points.jack, points.other) == (
        4.5,
        4.5,
        3.5,
        2.5,
        1.5,
        0.5,
    )
    assert points.total == 91
    assert rules.bouts_required == (56, 51, 41, 36)
    assert [(c.name, c.multiplier, c.dog) for c in rules.contracts] == [
        ("prise", 1, "taker"),
        ("garde", 2, "taker"),
        ("garde_sans", 4, "taker_unseen"),
        ("garde_contre", 6, "defence"),
    ]
    assert rules.base_score == 25
    assert rules.poignee.bonuses == (20, 30, 40)
    assert (rules.poignee.who, rules.poignee.scoring) == ("any", "winner")
    assert rules.petit_au_bout == dataclasses.replace(
        rules.petit_au_bout, value=10, multiplied=True, personal=False
    )
    chelem = rules.chelem
    assert (chelem.announced_made, chelem.announced_failed) == (400, -200)
    assert (chelem.unannounced_made, chelem.defence) == (200, 200)
    # Halves arise in 4 players only when a side that took no trick kept the Excuse.
    assert rules.half_point_rounding == "away_from_requirement"
    assert rules.petit_sec_redeal and rules.bidding
    assert rules.tarocco is None
    assert not rules.trumps_must_be_broken


def test_three_and_five_players_round_half_points() -> None:
    assert load_rules("fft-3").half_point_rounding == "away_from_requirement"
    assert load_rules("fft-5").half_point_rounding == "away_from_requirement"


def test_shares_with_partners() -> None:
    five = load_rules("fft-5").shares
    assert five.partner_fractions == (Fraction(1, 3),)
    assert five.taker_fraction([True]) * 3 == 2  # taker 2×, partner 1× of 3 defenders' score
    six = load_rules("six-king-queen").shares
    assert six.alone == 5
    assert six.taker_fraction([True, True]) == Fraction(1, 2)  # two partners: 3/6, 2/6, 1/6
    assert six.taker_fraction([True, False]) == Fraction(2, 3)
    assert six.taker_fraction([False, True]) == Fraction(5, 6)
    # One partner holding both called cards: the king's share (the online rules page's
    # 2/3-1/3), or the other split, or both shares, as the rules say.
    assert six.taker_fraction([True, True], one_partner=True) == Fraction(2, 3)
    for both, taker in (("second_share", Fraction(5, 6)), ("both_shares", Fraction(1, 2))):
        other = dataclasses.replace(six, both_calls_one_partner=both)
        assert other.taker_fraction([True, True], one_partner=True) == taker


def test_the_excuse_at_the_last_trick_follows_each_source() -> None:
    for name in list_presets():
        rules = load_rules(name)
        if rules.tarocco is None:
            expected = "trick_winner" if name == "trumps-broken-4" else "changes_sides"
            assert rules.excuse_last_trick == expected, name
    with pytest.raises(RulesError, match="excuse_last_trick must be one of"):
        dataclasses.replace(load_rules("fft-4"), excuse_last_trick="winner")


def test_any_card_on_a_trump_lead_needs_the_duty_to_overtrump() -> None:
    tarocco = load_rules("tarocco")
    assert dataclasses.replace(tarocco, trump_lead_unable_to_beat="any_card")
    with pytest.raises(RulesError, match="needs must_overtrump_on_trump_lead"):
        dataclasses.replace(
            tarocco, trump_lead_unable_to_beat="any_card", must_overtrump_on_trump_lead=False
        )


@pytest.mark.parametrize("name", ["legacy-3", "legacy-4", "legacy-5", "legacy-6"])
def test_legacy_presets_differ_from_fft_as_seed_000(name: str) -> None:
    legacy = load_rules(name)
    fft = load_rules(
        {"legacy-3": "fft-3", "legacy-4": "fft-4", "legacy-5": "fft-5"}.get(name, "six-king-queen")
    )
    assert (legacy.poignee.who, legacy.poignee.scoring) == ("taker", "with_contract")
    assert legacy.poignee.shown == "count_highest_lowest"  # the count, highest and lowest
    assert legacy.petit_au_bout.personal and not legacy.petit_au_bout.multiplied
    assert legacy.first_lead_called_suit_forbidden == (legacy.call != "none")
    # Holding all four kings, five and six players call any non-trump card (the Tarocco
    # rule text).
    assert legacy.call_holding_all_kings == ("queen" if legacy.players < 5 else "any_suit_card")
    # Kings, trumps and the Excuse go to the écart only when nothing else can; unseen.
    assert (legacy.ecart.kings, legacy.ecart.bouts, legacy.ecart.trumps) == ("if_forced",) * 3
    assert not legacy.ecart.trumps_shown
    assert legacy.excuse_last_trick == "changes_sides"
    assert any("petit_au_bout_penultimate = false" in text for text in legacy.assumptions)
    same = dataclasses.replace(
        legacy,
        name=fft.name,
        description=fft.description,
        source=fft.source,
        assumptions=fft.assumptions,
        poignee=fft.poignee,
        petit_au_bout=fft.petit_au_bout,
        ecart=fft.ecart,
        call_holding_all_kings=fft.call_holding_all_kings,
    )
    assert same == fft


def test_six_players_mark_their_poignee_assumption() -> None:
    for name in ("six-king-queen", "legacy-6"):
        assert any("7 / 9 / 11" in text for text in load_rules(name).assumptions)


def test_trumps_broken_is_fft_4_but_for_leading_trumps() -> None:
    broken = load_rules("trumps-broken-4")
    fft = load_rules("fft-4")
    assert broken.trumps_must_be_broken
    assert (
        dataclasses.replace(
            broken,
            name=fft.name,
            description=fft.description,
            source=fft.source,
            assumptions=fft.assumptions,
            trumps_must_be_broken=False,
            excuse_last_trick="changes_sides",
            chelem=fft.chelem,
        )
        == fft
    )
    # The 2014 four-player rules: the Excuse stays with the last trick's winner;
    # no first lead for a chelem.
    assert broken.excuse_last_trick == "trick_winner"
    assert not broken.chelem.announcer_leads


def test_tarocco() -> None:
    rules = load_rules("tarocco")
    assert rules.tarocco is not None
    assert not rules.bidding and rules.contracts == ()
    assert rules.first_leader == "dealer"
    assert rules.suit_names == ("wands", "cups", "swords", "coins")
    points = rules.card_points
    assert (points.bout, points.king, points.queen, points.knight, points.jack, points.other) == (
        4.5,
        4.5,
        3.5,
        1.5,
        0.5,
        0.5,
    )
    assert rules.must_overtrump_on_trump_lead and not rules.must_overtrump_when_void
    assert (rules.ecart.kings, rules.ecart.bouts) == ("forbidden", "forbidden")
    assert not (rules.has_poignee or rules.has_petit_au_bout or rules.has_chelem)
    tarocco = rules.tarocco
    assert tarocco.dog_to_dealer and tarocco.fool_excused
    assert (tarocco.magician_last_trick, tarocco.magician_lost_last_trick) == (10, -10)
    assert (tarocco.tarocchi_premium_count, tarocco.tarocchi_premium) == (15, 10)
    assert tarocco.all_tricks_premium == 20
    assert tarocco.match_deals == 3
    assert not tarocco.buying_cards
    marked = " ".join(rules.assumptions)
    assert "low card" in marked and "usually" in marked and "Buying" in marked


@pytest.mark.parametrize(
    "alias", ["fft-4", "FFT-4", "fft4", "fft_4", " Fft 4 ", "default", "DEFAULT", "fft", "4"]
)
def test_aliases(alias: str) -> None:
    assert load_rules(alias) is load_rules("fft-4")


def test_more_aliases() -> None:
    assert load_rules("six").name == "six-king-queen"
    assert load_rules("legacy").name == "legacy-4"
    assert load_rules("Trumps_Broken").name == "trumps-broken-4"
    assert load_rules("TAROCCHI").name == "tarocco"


def test_contract_lookup() -> None:
    rules = load_rules("fft-4")
    assert rules.contract("garde") == Contract("garde", 2, "taker")
    assert rules.contract("Garde contre").dog == "defence"
    assert rules.contract("garde-sans").multiplier == 4
    assert rules.contract("prise").taker_takes_dog
    assert not rules.contract("garde_contre").dog_counts_for_taker
    with pytest.raises(RulesError, match=r"no contract 'pousse'.*prise, garde"):
        rules.contract("pousse")


@pytest.mark.parametrize(
    ("name", "trumps", "level"),
    [
        ("fft-4", 9, 0),
        ("fft-4", 10, 1),
        ("fft-4", 12, 1),
        ("fft-4", 13, 2),
        ("fft-4", 15, 3),
        ("fft-4", 18, 3),
        ("fft-3", 12, 0),
        ("fft-3", 13, 1),
        ("fft-3", 18, 3),
        ("fft-5", 8, 1),
        ("fft-5", 10, 2),
        ("fft-5", 13, 3),
        ("six-king-queen", 6, 0),
        ("six-king-queen", 11, 3),
    ],
)
def test_poignee_level(name: str, trumps: int, level: int) -> None:
    assert load_rules(name).poignee_level(trumps) == level


def test_poignee_bonus() -> None:
    poignee = load_rules("fft-4").poignee
    assert [poignee.bonus(level) for level in range(4)] == [0, 20, 30, 40]


@pytest.mark.parametrize("name", PRESETS)
def test_format_rules(name: str) -> None:
    rules = load_rules(name)
    text = format_rules(rules)
    assert text.startswith(f"{name}: ")
    assert rules.source in text
    assert all(assumption in text for assumption in rules.assumptions)
    assert str(rules.hand_size) in text


def test_a_changed_copy_is_validated_again() -> None:
    rules = load_rules("fft-4")
    assert dataclasses.replace(rules, base_score=30).base_score == 30
    with pytest.raises(RulesError, match="dog_size"):
        dataclasses.replace(rules, dog_size=5)


# --------------------------------------------------------------------------------------------
# User files
# --------------------------------------------------------------------------------------------


def test_a_copy_with_one_value_changed(user_file) -> None:
    text = changed(preset_text("fft-4"), "thresholds = [10, 13, 15]", "thresholds = [9, 13, 15]")
    rules = load_rules(user_file(text))
    assert rules.poignee.thresholds == (9, 13, 15)
    fft = load_rules("fft-4")
    assert dataclasses.replace(rules, poignee=fft.poignee, name="fft-4") == fft
    # A changed copy does not pass for the preset in results: it takes its file's name.
    assert rules.name != "fft-4"


def test_a_changed_copy_named_like_a_preset_says_so(tmp_path: Path) -> None:
    text = changed(preset_text("fft-4"), "thresholds = [10, 13, 15]", "thresholds = [9, 13, 15]")
    (tmp_path / "fft-4.toml").write_text(text, encoding="utf-8")
    assert load_rules(tmp_path / "fft-4.toml").name == "fft-4-custom"
    (tmp_path / "same.toml").write_text(preset_text("fft-4"), encoding="utf-8")
    assert load_rules(tmp_path / "same.toml").name == "fft-4"  # an unchanged copy is the preset


def test_a_copy_read_by_path(user_file, tmp_path: Path) -> None:
    text = changed(preset_text("fft-5"), "base_score = 25", "base_score = 30")
    user_file(text, "house.toml")
    assert load_rules(tmp_path / "house.toml").base_score == 30
    assert load_rules(str(tmp_path / "house.toml")).base_score == 30


def test_a_minimal_file_gets_its_name_from_the_file(user_file) -> None:
    text = preset_text("fft-4")
    text = text[text.index("players = 4") :]  # no name, description, source or assumptions
    rules = load_rules(user_file(text, "house-rules.toml"))
    assert rules.name == "house-rules"
    assert rules.source == "house-rules.toml"
    assert rules.assumptions == ()


def test_extends_changes_only_what_it_names(user_file) -> None:
    rules = load_rules(
        user_file('extends = "fft-4"\n\n[poignee]\nthresholds = [9, 12, 15]\n', "nine.toml")
    )
    fft = load_rules("fft-4")
    assert rules.poignee.thresholds == (9, 12, 15)
    assert rules.poignee.bonuses == fft.poignee.bonuses
    assert rules.name == "nine"
    assert "poignee.thresholds" in rules.description
    assert "fft-4" in rules.source
    assert rules.assumptions == fft.assumptions
    assert (
        dataclasses.replace(
            rules,
            name=fft.name,
            description=fft.description,
            source=fft.source,
            poignee=fft.poignee,
        )
        == fft
    )


def test_extends_an_alias_and_replaces_lists_whole(user_file) -> None:
    text = """
extends = "FFT5"
name = "no-contre"
description = "FFT 5 players without Garde contre"

[[contracts]]
name = "prise"
multiplier = 1
dog = "taker"

[[contracts]]
name = "garde"
multiplier = 2
dog = "taker"
"""
    rules = load_rules(user_file(text))
    assert rules.name == "no-contre"
    assert rules.description == "FFT 5 players without Garde contre"
    assert [contract.name for contract in rules.contracts] == ["prise", "garde"]
    assert rules.players == 5


def test_extends_a_file_beside_it(user_file) -> None:
    user_file('extends = "fft-4"\nbase_score = 30\n', "base.toml")
    rules = load_rules(user_file('extends = "base.toml"\n[petit_au_bout]\nvalue = 20\n'))
    assert (rules.base_score, rules.petit_au_bout.value) == (30, 20)


def test_extends_can_add_a_whole_table(user_file) -> None:
    text = 'extends = "fft-4"\n[shares]\nalone = 3\npartner_fractions = []\n'
    assert load_rules(user_file(text)).shares.alone == 3


# --------------------------------------------------------------------------------------------
# Errors name the file and the key
# --------------------------------------------------------------------------------------------


def test_error_thresholds_not_increasing(user_file) -> None:
    text = changed(preset_text("fft-4"), "thresholds = [10, 13, 15]", "thresholds = [10, 9, 15]")
    assert error_of(user_file(text)) == (
        "rules file my.toml: poignee.thresholds must be increasing, got [10, 9, 15]"
    )


def test_error_unknown_key_suggests_the_right_one(user_file) -> None:
    text = changed(preset_text("fft-4"), "dog_size = 6", "dogsize = 6")
    assert error_of(user_file(text)) == (
        "rules file my.toml: unknown key 'dogsize' (did you mean 'dog_size'?)"
    )


def test_error_unknown_key_in_a_table(user_file) -> None:
    message = error_of(user_file('extends = "fft-4"\n[poignee]\ntreshold = [9, 12, 15]\n'))
    assert message == (
        "rules file my.toml: unknown key 'poignee.treshold' (did you mean 'poignee.thresholds'?)"
    )


def test_error_unknown_key_without_a_near_one_lists_the_keys(user_file) -> None:
    message = error_of(user_file('extends = "fft-4"\n[chelem]\nzzz = 1\n'))
    assert "unknown key 'chelem.zzz' in [chelem]; known keys: announced_made" in message


def test_error_wrong_type(user_file) -> None:
    text = changed(preset_text("fft-4"), "players = 4", 'players = "four"')
    assert error_of(user_file(text)) == (
        'rules file my.toml: players must be an integer, got "four"'
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("base_score = true", "base_score must be an integer, got true"),
        ("base_score = 25.5", "base_score must be an integer, got 25.5"),
        ("bidding = 1", "bidding must be true or false, got 1"),
        ('suit_names = ["a", "b"]', 'suit_names must be a list of 4 strings, got ["a", "b"]'),
        ('bouts_required = [56, "x", 41, 36]', 'bouts_required[1] must be a number, got "x"'),
        ("card_points = 3", "card_points must be a table ([card_points]), got 3"),
    ],
)
def test_error_wrong_types(user_file, line: str, message: str) -> None:
    assert error_of(user_file(f'extends = "fft-4"\n{line}\n')) == f"rules file my.toml: {message}"


def test_error_wrong_list_length(user_file) -> None:
    message = error_of(user_file('extends = "fft-4"\n[poignee]\nthresholds = [10, 13]\n'))
    assert message.endswith("poignee.thresholds must be a list of 3 integers, got [10, 13]")


def test_error_sizes_do_not_add_up(user_file) -> None:
    text = changed(preset_text("fft-4"), "dog_size = 6", "dog_size = 5")
    assert error_of(user_file(text)) == (
        "rules file my.toml: players × hand_size + dog_size = 4 × 18 + 5 = 77, must be 78"
    )


def test_error_threshold_larger_than_a_hand(user_file) -> None:
    text = changed(preset_text("fft-5"), "thresholds = [8, 10, 13]", "thresholds = [8, 10, 16]")
    message = error_of(user_file(text))
    assert message.startswith("rules file my.toml: poignee.thresholds must be at most 15")
    assert message.endswith("got [8, 10, 16]")


def test_error_multipliers_not_increasing(user_file) -> None:
    text = changed(preset_text("fft-4"), "multiplier = 4", "multiplier = 2")
    message = error_of(user_file(text))
    assert message.startswith(
        "rules file my.toml: contracts[2].multiplier must be greater than the one before (2)"
    )
    assert "[1, 2, 2, 6]" in message


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'call = "none"',
            'call = "queen"',
            'call must be one of "none", "king", "king_queen", got "queen"',
        ),
        (
            'dog = "defence"',
            'dog = "dealer"',
            'contracts[3].dog must be one of "taker", "taker_unseen", "defence", got "dealer"',
        ),
        (
            'scoring = "winner"',
            'scoring = "loser"',
            'poignee.scoring must be one of "winner", "with_contract", got "loser"',
        ),
        (
            'half_point_rounding = "away_from_requirement"',
            'half_point_rounding = "up"',
            'half_point_rounding must be one of "none", "away_from_requirement", got "up"',
        ),
        (
            'trumps = "if_forced"',
            "trumps = 2",
            'ecart.trumps must be one of "allowed", "if_forced", "forbidden", got 2',
        ),
    ],
)
def test_error_unknown_choice(user_file, old: str, new: str, message: str) -> None:
    text = changed(preset_text("fft-4"), old, new)
    assert error_of(user_file(text)) == f"rules file my.toml: {message}"


def test_error_bad_toml_names_the_line(user_file) -> None:
    message = error_of(user_file('extends = "fft-4"\nbase_score = 25\nplayers 4\n'))
    assert message.startswith("rules file my.toml: not valid TOML: ")
    assert "line 3" in message


def test_error_missing_file(user_file) -> None:
    assert error_of("nowhere.toml") == "rules file nowhere.toml: no such file"
    assert error_of("sub/nowhere") == "rules file sub/nowhere: no such file"


def test_error_unknown_preset_lists_the_known_ones() -> None:
    message = error_of("fft-7")
    assert message.startswith("unknown rules preset 'fft-7'; known presets: fft-3, fft-4")
    assert all(name in message for name in PRESETS)


def test_error_missing_key(user_file) -> None:
    text = changed(preset_text("fft-4"), "bonuses = [20, 30, 40]", "")
    assert error_of(user_file(text)) == "rules file my.toml: missing key 'poignee.bonuses'"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ("[shares]\nalone = 4", "shares.alone must be players − 1 = 3 so that scores sum to zero"),
        (
            '[shares]\npartner_fractions = ["1/3"]',
            'shares.partner_fractions must give one fraction per called card (0 for call = "none")',
        ),
        (
            '[shares]\npartner_fractions = ["a third"]',
            "shares.partner_fractions[0] must be a fraction",
        ),
        (
            "first_lead_called_suit_forbidden = true",
            "first_lead_called_suit_forbidden = true needs",
        ),
        ("contracts = []", "contracts must not be empty when bidding = true"),
        ("packet_size = 4", "packet_size must divide hand_size 18 into whole packets, got 4"),
        ("bouts_required = [56, 51, 61, 36]", "bouts_required must be between 0 and 91"),
        ("bouts_required = [56, 51, 41, 100]", "got [56, 51, 41, 100]"),
        ("players = 1", "players must be at least 2, got 1"),
        ("[card_points]\nking = -1", "card_points.king must be a number ≥ 0, got -1"),
        ("[card_points]\nqueen = 3.25", "card_points.queen must be a multiple of 0.5, got 3.25"),
        ("[card_points]\nother = 2", "card_points add up to"),
        ("[poignee]\nbonuses = [20, 10, 40]", "poignee.bonuses must be ≥ 0 and not decrease"),
        ("[petit_au_bout]\nvalue = -10", "petit_au_bout.value must be ≥ 0, got -10"),
        ("[chelem]\nannounced_failed = 200", "chelem.announced_failed must be ≤ 0"),
        ("[ecart]\ntrumps = 'forbidden'", "ecart forbids 26 cards, more than a hand of 18"),
        ('suit_names = ["a", "a", "b", "c"]', "suit_names must be four different names"),
        ('call = "king"', "shares.partner_fractions must give one fraction per called card (1 for"),
        (
            '[[contracts]]\nname = "garde"\nmultiplier = 1\ndog = "taker"\n'
            '[[contracts]]\nname = "Garde"\nmultiplier = 2\ndog = "taker"',
            'contracts[1].name "Garde" is used twice',
        ),
        (
            '[[contracts]]\nname = "garde"\nmultiplier = 0\ndog = "taker"',
            "contracts[0].multiplier must be a positive integer, got 0",
        ),
    ],
)
def test_error_inconsistent_rules(user_file, changes: str, message: str) -> None:
    got = error_of(user_file(f'extends = "fft-4"\n{changes}\n'))
    assert got.startswith("rules file my.toml: ")
    assert message in got


def test_error_call_needs_enough_players(user_file) -> None:
    text = 'extends = "fft-3"\ncall = "king_queen"\n[shares]\npartner_fractions = [0.25, 0.25]\n'
    assert error_of(user_file(text)).endswith('call = "king_queen" needs at least 4 players, got 3')


def test_error_tarocco_has_no_bidding(user_file) -> None:
    text = changed(preset_text("tarocco"), "contracts = []", "") + "\n"
    text = changed(text, "bidding = false", "bidding = true")
    text += '[[contracts]]\nname = "prise"\nmultiplier = 1\ndog = "taker"\n'
    assert error_of(user_file(text)).endswith(
        "bidding must be false with [tarocco]: every player is for themselves"
    )


def test_error_tarocco_table(user_file) -> None:
    message = error_of(user_file('extends = "tarocco"\n[tarocco]\nmatch_deals = 0\n'))
    assert message == "rules file my.toml: tarocco.match_deals must be at least 1, got 0"


@pytest.mark.parametrize(
    ("extends", "message"),
    [
        ("extends = 4", "extends must be a string (a preset name or a path), got 4"),
        ('extends = "fft-9"', "extends 'fft-9' is neither a preset (fft-3, fft-4"),
        ('extends = "my.toml"', "rules file my.toml: extends itself"),
        ('extends = "missing.toml"', "rules file missing.toml: no such file"),
    ],
)
def test_error_extends(user_file, extends: str, message: str) -> None:
    assert message in error_of(user_file(f"{extends}\nbase_score = 30\n"))


def test_error_in_the_extended_file_names_that_file(user_file) -> None:
    user_file('extends = "fft-4"\nbase_score = -1\n', "base.toml")
    message = error_of(user_file('extends = "base.toml"\n'))
    assert message == "rules file base.toml: base_score must be ≥ 0, got -1"


def test_error_a_folder_is_not_a_rules_file(user_file, tmp_path: Path) -> None:
    (tmp_path / "dir.toml").mkdir()
    assert error_of("dir.toml") == "rules file dir.toml: is a folder, not a rules file"


def test_error_not_utf8(user_file, tmp_path: Path) -> None:
    (tmp_path / "latin.toml").write_bytes(b'name = "poign\xe9e"\n')
    assert error_of("latin.toml").startswith("rules file latin.toml: not UTF-8 text")


# --------------------------------------------------------------------------------------------
# Writing rules out and reading them back
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
def test_rules_to_dict_is_json(name: str) -> None:
    rules = load_rules(name)
    data = json.loads(json.dumps(rules_to_dict(rules)))
    assert data["name"] == name
    assert data["poignee"]["thresholds"] == list(rules.poignee.thresholds)


@pytest.mark.parametrize("name", PRESETS)
def test_rules_to_toml_reads_back_equal(name: str, tmp_path: Path) -> None:
    rules = load_rules(name)
    path = tmp_path / "written.toml"
    path.write_text(rules_to_toml(rules), encoding="utf-8")
    assert load_rules(path) == rules


def _valid_variants() -> st.SearchStrategy[Rules]:
    """Presets with numbers and texts changed within the rules' limits."""

    @st.composite
    def variant(draw: st.DrawFn) -> Rules:
        rules = load_rules(draw(st.sampled_from(PRESETS)))
        most = min(rules.hand_size, 22)
        thresholds = sorted(draw(st.sets(st.integers(1, most), min_size=3, max_size=3)))
        bonuses = sorted(draw(st.lists(st.integers(0, 200), min_size=3, max_size=3)))
        multipliers = sorted(
            draw(
                st.sets(
                    st.integers(1, 50), min_size=len(rules.contracts), max_size=len(rules.contracts)
                )
            )
        )
        required = sorted(
            draw(st.lists(st.integers(0, 150).map(lambda half: half / 2), min_size=4, max_size=4)),
            reverse=True,
        )
        texts = st.text(max_size=40)
        return dataclasses.replace(
            rules,
            description=draw(texts),
            source=draw(texts),
            assumptions=tuple(draw(st.lists(texts, max_size=3))),
            base_score=draw(st.integers(0, 100)),
            bouts_required=(required[0], required[1], required[2], required[3]),
            poignee=dataclasses.replace(
                rules.poignee,
                thresholds=(thresholds[0], thresholds[1], thresholds[2]),
                bonuses=(bonuses[0], bonuses[1], bonuses[2]),
            ),
            contracts=tuple(
                dataclasses.replace(contract, multiplier=multiplier)
                for contract, multiplier in zip(rules.contracts, multipliers, strict=True)
            ),
            card_points=dataclasses.replace(
                rules.card_points, other=draw(st.sampled_from([0.5, 1.0]))
            ),
        )

    return variant()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=_valid_variants())
def test_any_valid_rules_survive_dict_and_toml(rules: Rules, tmp_path: Path) -> None:
    assert json.loads(json.dumps(rules_to_dict(rules))) == rules_to_dict(rules)
    path = tmp_path / "variant.toml"
    path.write_text(rules_to_toml(rules), encoding="utf-8")
    reloaded = load_rules(path)
    assert dataclasses.replace(reloaded, name=rules.name) == rules


@pytest.mark.parametrize(
    "name", ["../../../../escaped", "a/b", ".hidden", "two words", "é-4", "x" * 65, "..", ""]
)
def test_a_name_that_cannot_name_files_is_refused_as_the_file_is_read(user_file, name: str) -> None:
    """A preset's name goes into the names of the runs' folders and the reports' files: only
    a safe part of a file name is read, and the message says what one holds."""
    path = user_file(f'extends = "fft-4"\nname = {json.dumps(name)}\n', "named.toml")
    expected = "must not be empty" if not name else "cannot name files: use ASCII letters, digits"
    with pytest.raises(RulesError, match=expected) as caught:
        load_rules(path)
    assert "\n" not in str(caught.value)
    if name:
        with pytest.raises(RulesError, match="cannot name files"):
            dataclasses.replace(load_rules("fft-4"), name=name)


def test_a_safe_name_and_a_contract_with_a_path_in_its_name(user_file) -> None:
    path = user_file('extends = "fft-4"\nname = "house_rules.v2-4"\n', "house.toml")
    assert load_rules(path).name == "house_rules.v2-4"
    garde = load_rules("fft-4").contracts[1]
    with pytest.raises(RulesError, match=r"the contract's name .* cannot name files"):
        dataclasses.replace(garde, name="../garde")
