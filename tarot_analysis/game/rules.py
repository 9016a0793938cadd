"""The rules of French Tarot and its relatives, as data.

Everything a variant can change lives in one frozen, validated record, :class:`Rules`, read
from a small TOML file. The shipped presets are in ``tarot_analysis/game/presets/``; a user copies
one and changes a number, or writes only the keys they change under ``extends = "fft-4"``.
The TOML keys are the attribute names of the records below: ``[poignee] thresholds`` is
``rules.poignee.thresholds``, ``dog_size`` is ``rules.dog_size``.

>>> rules = load_rules("fft-4")
>>> rules.players, rules.hand_size, rules.dog_size
(4, 18, 6)
>>> rules.contract("garde").multiplier
2
>>> rules.poignee_level(13)
2
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import json
import math
import os
import re
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final, Literal, get_args, get_origin, get_type_hints

from tarot_analysis.errors import RulesError
from tarot_analysis.reader import RULES_BYTES, parse_toml, read_toml

__all__ = [
    "CALLED_CARDS",
    "DECK_SIZE",
    "DEFAULT_PRESET",
    "MAX_CONTRACTS",
    "PRESET_ALIASES",
    "TRUMPS_WITH_EXCUSE",
    "CardPoints",
    "Chelem",
    "Contract",
    "Ecart",
    "PetitAuBout",
    "Poignee",
    "Rules",
    "Shares",
    "Tarocco",
    "check_safe_name",
    "format_rules",
    "is_safe_name",
    "list_presets",
    "load_rules",
    "rules_to_dict",
    "rules_to_toml",
]

# The deck is the same in every preset (docs/rules.md#the-deck-and-its-count); only how it is
# dealt and counted changes.
#: Cards in the pack.
DECK_SIZE = 78
#: Trumps 1 to 21 and the Excuse: the cards a poignée counts.
TRUMPS_WITH_EXCUSE = 22
#: Trump 1 (the Petit), trump 21 and the Excuse.
BOUT_COUNT = 3
#: Kings, queens, knights and jacks: one of each per suit.
HONOURS_PER_RANK = 4
#: Trumps 2 to 20 and the ten pip cards of each suit: the cards worth ``card_points.other``.
LOW_CARD_COUNT = DECK_SIZE - BOUT_COUNT - 4 * HONOURS_PER_RANK
#: Trumps that are not bouts (2 to 20).
PLAIN_TRUMP_COUNT = 19

#: The preset used when none is named.
DEFAULT_PRESET = "fft-4"
#: What a name that goes into file and folder names (a preset's, a contract's) may hold.
SAFE_NAME_TEXT = "ASCII letters, digits, '-', '_' and '.' (not first), at most 64 characters"
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}")


def is_safe_name(text: object) -> bool:
    """Whether ``text`` can stand in a file or folder name as it is (:data:`SAFE_NAME_TEXT`):
    no separator of folders, no ``..``, nothing hidden.

    >>> is_safe_name("fft-4"), is_safe_name("../escaped"), is_safe_name(".hidden")
    (True, False, False)
    """
    return isinstance(text, str) and _SAFE_NAME.fullmatch(text) is not None


def check_safe_name(text: object, what: str) -> None:
    """Refuse ``text`` as ``what`` unless :func:`is_safe_name`: a ``RulesError`` saying what a
    name may hold."""
    if not is_safe_name(text):
        raise RulesError(f"{what} {_show(text)} cannot name files: use {SAFE_NAME_TEXT}")


#: Other names accepted for presets (compared without case, spaces, hyphens or underscores).
PRESET_ALIASES: Mapping[str, str] = types.MappingProxyType(
    {
        "default": DEFAULT_PRESET,
        "fft": "fft-4",
        "french": "fft-4",
        "3": "fft-3",
        "4": "fft-4",
        "5": "fft-5",
        "6": "six-king-queen",
        "six": "six-king-queen",
        "king-queen": "six-king-queen",
        "legacy": "legacy-4",
        "trumps-broken": "trumps-broken-4",
        "tarocchi": "tarocco",
    }
)

Direction = Literal["counter_clockwise", "clockwise"]
FirstLeader = Literal["after_dealer", "dealer"]
Call = Literal["none", "king", "king_queen"]
CallHoldingAllKings = Literal["queen", "any_suit_card"]
ContractDog = Literal["taker", "taker_unseen", "defence"]
Allowance = Literal["allowed", "if_forced", "forbidden"]
PoigneeAnnouncer = Literal["any", "taker"]
PoigneeScoring = Literal["winner", "with_contract"]
HalfPointRounding = Literal["none", "away_from_requirement"]
ExcuseLastTrick = Literal["changes_sides", "trick_winner"]
TrumpLeadUnableToBeat = Literal["any_trump", "any_card"]
PoigneeShown = Literal["every_trump", "count_highest_lowest"]
BothCallsOnePartner = Literal["first_share", "second_share", "both_shares"]

#: The most contracts a preset may list: the engine numbers a bid action for each.
MAX_CONTRACTS: Final = 8

#: How many cards the taker calls under each ``call`` rule.
CALLED_CARDS: Mapping[str, int] = types.MappingProxyType({"none": 0, "king": 1, "king_queen": 2})

_PRESETS_DIR: Traversable = resources.files("tarot_analysis.game") / "presets"


# --------------------------------------------------------------------------------------------
# The records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardPoints:
    """What each kind of card counts at the end of a deal (docs/rules.md#the-deck-and-its-count).

    The French count is 4.5 for a bout or a king, 3.5 queen, 2.5 knight, 1.5 jack and 0.5 for
    every other card, 91 in all.
    """

    bout: float
    king: float
    queen: float
    knight: float
    jack: float
    other: float

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not (math.isfinite(value) and value >= 0):
                raise RulesError(f"{field.name} must be a number ≥ 0, got {_show(value)}")

    @property
    def total(self) -> float:
        """Card points in the whole pack (91 with the French count)."""
        honours = self.king + self.queen + self.knight + self.jack
        return BOUT_COUNT * self.bout + HONOURS_PER_RANK * honours + LOW_CARD_COUNT * self.other


@dataclass(frozen=True, slots=True)
class Contract:
    """One contract a taker can bid, and what happens to the dog under it.

    ``dog`` is ``"taker"`` (the dog is shown, taken, and as many cards are discarded to the
    écart, which counts for the taker), ``"taker_unseen"`` (Garde sans: unseen, counts for the
    taker) or ``"defence"`` (Garde contre: unseen, counts for the defence).
    """

    name: str
    multiplier: int
    dog: ContractDog

    def __post_init__(self) -> None:
        _check_choices(self)
        if not self.name.strip():
            raise RulesError("name must not be empty")
        check_safe_name(self.name, "the contract's name")
        if self.multiplier < 1:
            raise RulesError(f"multiplier must be a positive integer, got {_show(self.multiplier)}")

    @property
    def taker_takes_dog(self) -> bool:
        """Whether the taker shows the dog, takes it and discards an écart."""
        return self.dog == "taker"

    @property
    def dog_counts_for_taker(self) -> bool:
        """Whether the dog (or the écart) ends in the taker's side's pile."""
        return self.dog != "defence"


@dataclass(frozen=True, slots=True)
class Ecart:
    """What may be discarded after taking the dog (or, in Tarocco, the dealer's extra cards).

    Each kind of card is ``"allowed"``, ``"forbidden"`` (never) or ``"if_forced"`` (only when
    nothing else can be discarded). FFT: kings and bouts never, trumps only if forced, and
    discarded trumps are shown.
    """

    kings: Allowance
    bouts: Allowance
    trumps: Allowance
    trumps_shown: bool

    def __post_init__(self) -> None:
        _check_choices(self)

    @property
    def forbidden_count(self) -> int:
        """How many cards of the pack may never be discarded."""
        return (
            HONOURS_PER_RANK * (self.kings == "forbidden")
            + BOUT_COUNT * (self.bouts == "forbidden")
            + PLAIN_TRUMP_COUNT * (self.trumps == "forbidden")
        )


@dataclass(frozen=True, slots=True)
class Poignee:
    """The poignée: a shown hand of many trumps (the Excuse counts beside them).

    ``thresholds`` are the trumps-with-Excuse needed for a simple, double and triple poignée;
    ``bonuses`` what each is worth. ``who`` is ``"any"`` player or only the ``"taker"``.
    ``scoring`` is ``"winner"`` (FFT: the bonus goes to the side that wins the deal, whoever
    showed it, never multiplied) or ``"with_contract"`` (older rules: the taker alone wins it
    from, or pays it to, each defender as the contract is made or lost; a called partner neither
    pays nor receives it). ``shown`` is what the table sees: ``"every_trump"`` (FFT: every
    trump and the Excuse of the hand) or ``"count_highest_lowest"`` (older rules: how many,
    the highest and the lowest trump). Bonuses of 0 mean no poignée.
    """

    thresholds: tuple[int, int, int]
    bonuses: tuple[int, int, int]
    who: PoigneeAnnouncer
    scoring: PoigneeScoring
    shown: PoigneeShown = "every_trump"

    def __post_init__(self) -> None:
        _check_choices(self)
        if self.thresholds[0] < 1 or any(
            low >= high for low, high in itertools.pairwise(self.thresholds)
        ):
            raise RulesError(f"thresholds must be increasing, got {_show(self.thresholds)}")
        if min(self.bonuses) < 0 or any(
            low > high for low, high in itertools.pairwise(self.bonuses)
        ):
            raise RulesError(
                f"bonuses must be ≥ 0 and not decrease from simple to triple, "
                f"got {_show(self.bonuses)}"
            )

    @property
    def is_scored(self) -> bool:
        """Whether a poignée is worth anything under these rules."""
        return any(self.bonuses)

    def level(self, trumps_with_excuse: int) -> int:
        """The poignée a hand can show: 0 none, 1 simple, 2 double, 3 triple.

        >>> Poignee((10, 13, 15), (20, 30, 40), "any", "winner").level(13)
        2
        """
        return sum(trumps_with_excuse >= threshold for threshold in self.thresholds)

    def bonus(self, level: int) -> int:
        """What a poignée of ``level`` (0 to 3) is worth before its sign."""
        return 0 if level == 0 else self.bonuses[level - 1]


@dataclass(frozen=True, slots=True)
class PetitAuBout:
    """The bonus for the Petit (trump 1) in the last trick.

    Not ``personal`` (FFT): ``value`` goes to the side that wins the last trick when it holds
    the Petit, whatever the contract's result, and is multiplied if ``multiplied``.
    ``personal`` (older rules): only if the Petit itself wins the last trick, every other
    player pays its player ``value``, not shared with a partner. A value of 0 means no bonus.
    """

    value: int
    multiplied: bool
    personal: bool

    def __post_init__(self) -> None:
        if self.value < 0:
            raise RulesError(f"value must be ≥ 0, got {_show(self.value)}")

    @property
    def is_scored(self) -> bool:
        """Whether the Petit au bout is worth anything under these rules."""
        return self.value != 0


@dataclass(frozen=True, slots=True)
class Chelem:
    """The chelem (slam): one side taking every trick (docs/rules.md#chelem).

    The values are added to the score for each defender after the multiplier. ``defence`` is
    what each defender gains when the defence takes every trick. ``announcer_leads``: an
    announcing taker leads the first trick. ``excuse_wins_last_trick``: under a chelem the
    Excuse led to the last trick wins it. ``petit_au_bout_penultimate``: under a chelem the
    Petit in the trick before the last counts as au bout. All values 0 means no chelem.
    """

    announced_made: int
    announced_failed: int
    unannounced_made: int
    defence: int
    announcer_leads: bool
    excuse_wins_last_trick: bool
    petit_au_bout_penultimate: bool

    def __post_init__(self) -> None:
        for name in ("announced_made", "unannounced_made", "defence"):
            if getattr(self, name) < 0:
                raise RulesError(f"{name} must be ≥ 0, got {_show(getattr(self, name))}")
        if self.announced_failed > 0:
            raise RulesError(
                "announced_failed must be ≤ 0 (it is what a failed announcement costs), "
                f"got {_show(self.announced_failed)}"
            )

    @property
    def is_scored(self) -> bool:
        """Whether a chelem is worth anything under these rules."""
        return any(
            (self.announced_made, self.announced_failed, self.unannounced_made, self.defence)
        )


@dataclass(frozen=True, slots=True)
class Shares:
    """How the attack's score is shared (docs/rules.md#the-score).

    Every defender wins or loses the same score. A taker alone gets ``alone`` times it (always
    ``players - 1``, so that scores sum to zero). With partners, the attack's total (the score
    times the number of defenders) is split: the holder of each called card gets its fraction
    in ``partner_fractions`` (in call order: king, then queen) and the taker keeps the rest.
    FFT 5 players: ``(1/3,)``, so taker 2×, partner 1×; six players: ``(1/3, 1/6)``.
    ``both_calls_one_partner``: what a partner holding both called cards takes: the first
    called card's fraction (``"first_share"``: 1/3 with six players, taker 2/3), the second's
    (``"second_share"``: 1/6, taker 5/6) or both (``"both_shares"``: 1/2).
    """

    alone: int
    partner_fractions: tuple[Fraction, ...]
    both_calls_one_partner: BothCallsOnePartner = "first_share"

    def __post_init__(self) -> None:
        _check_choices(self)
        if self.alone < 1:
            raise RulesError(f"alone must be a positive integer, got {_show(self.alone)}")
        if any(not 0 < share < 1 for share in self.partner_fractions) or sum(
            self.partner_fractions, Fraction(0)
        ) >= Fraction(1):
            raise RulesError(
                "partner_fractions must each be between 0 and 1 and leave the taker a share, "
                f"got {_show(self.partner_fractions)}"
            )

    def taker_fraction(
        self, called_with_partner: Sequence[bool], one_partner: bool = False
    ) -> Fraction:
        """The taker's fraction of the attack's total.

        ``called_with_partner[i]`` says whether the i-th called card is held by a partner (not
        in the dog nor the taker's hand); ``one_partner``: both are held by the same partner,
        who then takes the share ``both_calls_one_partner`` says.

        >>> Shares(5, (Fraction(1, 3), Fraction(1, 6))).taker_fraction([True, True], True)
        Fraction(2, 3)
        """
        return 1 - sum(self.partner_shares(called_with_partner, one_partner), Fraction(0))

    def partner_shares(
        self, called_with_partner: Sequence[bool], one_partner: bool = False
    ) -> tuple[Fraction, ...]:
        """The fraction of the attack's total that goes with each called card's holder.

        When one partner holds both called cards (``one_partner``), the share of the card it
        does not take is 0 and the taker keeps it.

        >>> Shares(5, (Fraction(1, 3), Fraction(1, 6))).partner_shares([True, True], True)
        (Fraction(1, 3), Fraction(0, 1))
        """
        shares = [
            share if with_partner else Fraction(0)
            for share, with_partner in zip(self.partner_fractions, called_with_partner, strict=True)
        ]
        if one_partner and len(shares) == 2 and self.both_calls_one_partner != "both_shares":
            dropped = 1 if self.both_calls_one_partner == "first_share" else 0
            shares[dropped] = Fraction(0)
        return tuple(shares)


@dataclass(frozen=True, slots=True)
class Tarocco:
    """What Tarocco adds to the French skeleton (docs/rules.md#tarocco); ``None`` in French presets.

    ``dog_to_dealer``: the cards left after the deal (``dog_size`` of them) go to the dealer,
    who then discards as many face down under the ``ecart`` rules; the discard counts for the
    dealer. ``fool_excused``: in any trick but the last the Fool's holder may show it instead
    of playing it; it is set aside with the holder's cards. ``fool_lowest_at_last_trick``: at
    the last trick the Fool is the lowest tarocco and is played normally.
    """

    dog_to_dealer: bool
    fool_excused: bool
    fool_lowest_at_last_trick: bool
    #: Winning the last trick with the Magician (trump I).
    magician_last_trick: int
    #: Playing the Magician to the last trick and losing it.
    magician_lost_last_trick: int
    #: Tarocchi (the Fool included) to hold for the declared premium.
    tarocchi_premium_count: int
    tarocchi_premium: int
    #: Taking every trick.
    all_tricks_premium: int
    #: Deals in a match; each loser pays the winner the difference.
    match_deals: int
    #: Whether a player may buy a card from another before play, for ``card_price`` points.
    buying_cards: bool
    card_price: int

    def __post_init__(self) -> None:
        if not 1 <= self.tarocchi_premium_count <= TRUMPS_WITH_EXCUSE:
            raise RulesError(
                f"tarocchi_premium_count must be between 1 and {TRUMPS_WITH_EXCUSE}, "
                f"got {_show(self.tarocchi_premium_count)}"
            )
        if self.match_deals < 1:
            raise RulesError(f"match_deals must be at least 1, got {_show(self.match_deals)}")
        if self.card_price < 0:
            raise RulesError(f"card_price must be ≥ 0, got {_show(self.card_price)}")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule a preset can change, validated when built.

    The engine reads attributes (``rules.dog_size``, ``contract.multiplier``) and never the
    preset's name. Build one with :func:`load_rules`; ``dataclasses.replace`` gives a changed
    copy and validates it again.

    Deal: ``players`` × ``hand_size`` + ``dog_size`` = 78, dealt ``direction`` in packets of
    ``packet_size``; ``dog_avoids_pack_ends``: a dog card is never the first or last card of
    the pack; ``first_leader`` is the player ``"after_dealer"`` or the ``"dealer"``;
    ``petit_sec_redeal``: a hand whose only trump is the Petit, without the Excuse, voids the
    deal. Counting: ``card_points``, ``bouts_required`` (indexed by the taker's bouts, 0 to
    3) and ``half_point_rounding`` (``"away_from_requirement"``: 40.5 with 2 bouts fails by 1).
    Bidding: ``bidding``, ``contracts`` lowest first, ``call`` (``"none"``, ``"king"``,
    ``"king_queen"``), ``call_holding_all_kings`` (``"queen"``: a taker holding all four kings
    calls a queen, then a knight, then a jack; ``"any_suit_card"``, the older 5-player rule: any
    suit card, a king of its own meaning it plays alone) and ``ecart``. Play:
    ``first_lead_called_suit_forbidden``,
    ``trumps_must_be_broken`` (no trump lead until a trump has been played on a suit lead,
    unless the leader holds only trumps and the Excuse), ``must_overtrump_when_void`` and
    ``must_overtrump_on_trump_lead``, and ``trump_lead_unable_to_beat``: on a trump lead, a
    player who cannot beat the trumps in the trick plays ``"any_trump"`` (FFT), or
    ``"any_card"`` (one reading of Tarocco). ``excuse_last_trick``: the Excuse played to the
    last trick, outside a chelem, ``"changes_sides"`` (FFT and the online rules page:
    it goes to the opponents of the side that played it, whoever wins the trick) or goes to the
    ``"trick_winner"``'s side (the 2014 four-player rules). Score for each
    defender:
    ``(base_score + |points − required| + petit au bout) × multiplier + poignée + chelem``,
    shared by ``shares``.
    """

    name: str
    description: str
    source: str
    assumptions: tuple[str, ...]
    players: int
    hand_size: int
    dog_size: int
    packet_size: int
    direction: Direction
    first_leader: FirstLeader
    dog_avoids_pack_ends: bool
    suit_names: tuple[str, str, str, str]
    petit_sec_redeal: bool
    bidding: bool
    call: Call
    first_lead_called_suit_forbidden: bool
    trumps_must_be_broken: bool
    must_overtrump_when_void: bool
    must_overtrump_on_trump_lead: bool
    bouts_required: tuple[float, float, float, float]
    half_point_rounding: HalfPointRounding
    base_score: int
    card_points: CardPoints
    contracts: tuple[Contract, ...]
    ecart: Ecart
    poignee: Poignee
    petit_au_bout: PetitAuBout
    chelem: Chelem
    shares: Shares
    call_holding_all_kings: CallHoldingAllKings = "queen"
    excuse_last_trick: ExcuseLastTrick = "changes_sides"
    trump_lead_unable_to_beat: TrumpLeadUnableToBeat = "any_trump"
    tarocco: Tarocco | None = None

    def __post_init__(self) -> None:
        _check_choices(self)
        if not self.name.strip():
            raise RulesError("name must not be empty")
        check_safe_name(self.name, "name")  # it names the runs' folders and the reports
        self._check_deal()
        self._check_counting()
        self._check_contracts()
        self._check_call_and_shares()
        self._check_poignee()
        if self.tarocco is not None and self.bidding:
            raise RulesError("bidding must be false with [tarocco]: every player is for themselves")
        if self.trump_lead_unable_to_beat == "any_card" and not self.must_overtrump_on_trump_lead:
            raise RulesError(
                'trump_lead_unable_to_beat = "any_card" needs must_overtrump_on_trump_lead = true '
                "(without it every trump may be played on a trump lead)"
            )

    def _check_deal(self) -> None:
        for name, least in (("players", 2), ("hand_size", 1), ("dog_size", 0), ("packet_size", 1)):
            if getattr(self, name) < least:
                raise RulesError(
                    f"{name} must be at least {least}, got {_show(getattr(self, name))}"
                )
        dealt = self.players * self.hand_size + self.dog_size
        if dealt != DECK_SIZE:
            raise RulesError(
                f"players × hand_size + dog_size = {self.players} × {self.hand_size} + "
                f"{self.dog_size} = {dealt}, must be {DECK_SIZE}"
            )
        if self.hand_size % self.packet_size:
            raise RulesError(
                f"packet_size must divide hand_size {self.hand_size} into whole packets, "
                f"got {self.packet_size}"
            )
        if len(set(self.suit_names)) != len(self.suit_names) or not all(
            name.strip() for name in self.suit_names
        ):
            raise RulesError(
                f"suit_names must be four different names, got {_show(self.suit_names)}"
            )
        if self.dog_size and self.hand_size < self.ecart.forbidden_count:
            raise RulesError(
                f"ecart forbids {self.ecart.forbidden_count} cards, more than a hand of "
                f"{self.hand_size}: a player holding them all could not discard {self.dog_size}"
            )

    def _check_counting(self) -> None:
        total = self.card_points.total
        points = self.card_points
        for name in ("bout", "king", "queen", "knight", "jack", "other"):
            value = getattr(points, name)
            # The compiled core counts whole half points in one byte per hand.
            if not float(2 * value).is_integer():
                raise RulesError(
                    f"card_points.{name} must be a multiple of 0.5, got {_show(value)}"
                )
        if 2 * total > 255:
            raise RulesError(
                f"card_points add up to {_show(total)} for the pack; at most 127.5 can be counted"
            )
        required = self.bouts_required
        if any(not (math.isfinite(points) and 0 <= points <= total) for points in required) or any(
            fewer < more for fewer, more in itertools.pairwise(required)
        ):
            raise RulesError(
                f"bouts_required must be between 0 and {_show(total)} (the pack's points) and "
                f"must not increase with the number of bouts, got {_show(required)}"
            )
        if self.base_score < 0:
            raise RulesError(f"base_score must be ≥ 0, got {_show(self.base_score)}")

    def _check_contracts(self) -> None:
        if self.bidding and not self.contracts:
            raise RulesError("contracts must not be empty when bidding = true")
        if len(self.contracts) > MAX_CONTRACTS:
            raise RulesError(
                f"contracts may hold at most {MAX_CONTRACTS} contracts (the engine numbers a "
                f"bid for each), got {len(self.contracts)}"
            )
        seen: set[str] = set()
        for index, contract in enumerate(self.contracts):
            key = _contract_key(contract.name)
            if key in seen:
                raise RulesError(f"contracts[{index}].name {_show(contract.name)} is used twice")
            seen.add(key)
            if index and contract.multiplier <= self.contracts[index - 1].multiplier:
                raise RulesError(
                    f"contracts[{index}].multiplier must be greater than the one before "
                    f"({self.contracts[index - 1].multiplier}), got {contract.multiplier}: "
                    f"contracts go lowest first, multipliers "
                    f"{_show([c.multiplier for c in self.contracts])}"
                )

    def _check_call_and_shares(self) -> None:
        called = self.called_cards
        if self.players < called + 2:
            raise RulesError(
                f"call = {_show(self.call)} needs at least {called + 2} players, got {self.players}"
            )
        if self.first_lead_called_suit_forbidden and not called:
            raise RulesError(
                'first_lead_called_suit_forbidden = true needs a called card, but call = "none"'
            )
        if self.shares.alone != self.players - 1:
            raise RulesError(
                f"shares.alone must be players − 1 = {self.players - 1} so that scores sum to "
                f"zero, got {self.shares.alone}"
            )
        if len(self.shares.partner_fractions) != called:
            raise RulesError(
                f"shares.partner_fractions must give one fraction per called card ({called} for "
                f"call = {_show(self.call)}), got {_show(self.shares.partner_fractions)}"
            )

    def _check_poignee(self) -> None:
        if self.poignee.shown == "count_highest_lowest" and self.poignee.who != "taker":
            # The search bots deal the hidden trumps of one such poignée, the taker's.
            raise RulesError(
                'poignee.shown = "count_highest_lowest" needs poignee.who = "taker" (the older '
                "rules, where only the taker shows a poignée)"
            )
        most = min(self.hand_size, TRUMPS_WITH_EXCUSE)
        if self.poignee.thresholds[-1] > most:
            raise RulesError(
                f"poignee.thresholds must be at most {most} (a hand of {self.hand_size} cards "
                f"holds at most {most} trumps with the Excuse), "
                f"got {_show(self.poignee.thresholds)}"
            )

    @property
    def seats(self) -> int:
        """Players at the table (the same as ``players``)."""
        return self.players

    @property
    def deck_size(self) -> int:
        """Cards in the pack: 78."""
        return DECK_SIZE

    @property
    def called_cards(self) -> int:
        """How many cards the taker calls for partners: 0, 1 (a king) or 2 (king and queen)."""
        return CALLED_CARDS[self.call]

    @property
    def has_poignee(self) -> bool:
        """Whether a poignée is scored."""
        return self.poignee.is_scored

    @property
    def has_petit_au_bout(self) -> bool:
        """Whether the Petit au bout is scored."""
        return self.petit_au_bout.is_scored

    @property
    def has_chelem(self) -> bool:
        """Whether a chelem is scored."""
        return self.chelem.is_scored

    def contract(self, name: str) -> Contract:
        """The contract called ``name`` (case, spaces and hyphens ignored).

        >>> load_rules("fft-4").contract("Garde sans").multiplier
        4
        """
        key = _contract_key(name)
        for contract in self.contracts:
            if _contract_key(contract.name) == key:
                return contract
        known = ", ".join(contract.name for contract in self.contracts) or "none"
        raise RulesError(f"no contract {name!r} in rules {self.name}; its contracts: {known}")

    def poignee_level(self, trumps_with_excuse: int) -> int:
        """The poignée a hand can show: 0 none, 1 simple, 2 double, 3 triple.

        >>> load_rules("fft-4").poignee_level(9), load_rules("fft-4").poignee_level(15)
        (0, 3)
        """
        return self.poignee.level(trumps_with_excuse)


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def list_presets() -> list[str]:
    """The names of the shipped presets, sorted.

    >>> "fft-4" in list_presets()
    True
    """
    return list(_preset_files())


def load_rules(name_or_path: str | os.PathLike[str]) -> Rules:
    """Read rules from a preset name (aliases accepted, case ignored) or a TOML file.

    A string that names a preset (``"fft-4"``, ``"FFT4"``, ``"default"``) reads the shipped
    preset; anything else is a path. A user file is either complete (a copy of a preset with
    changes) or starts with ``extends = "fft-4"`` (a preset or another file, relative to this
    one) and gives only the keys it changes: tables merge key by key, lists are replaced whole.
    Every problem raises :class:`RulesError` with one line naming the file and the key.

    >>> load_rules("default").name
    'fft-4'
    """
    if not isinstance(name_or_path, str):
        return _load_file(Path(os.fspath(name_or_path)), frozenset())
    preset = _find_preset(name_or_path)
    if preset is not None:
        return _load_preset(preset)
    if _looks_like_path(name_or_path):
        return _load_file(Path(name_or_path), frozenset())
    raise RulesError(
        f"unknown rules preset {name_or_path!r}; known presets: {', '.join(list_presets())} "
        "(or give the path of a .toml rules file)"
    )


def _looks_like_path(text: str) -> bool:
    return text.endswith(".toml") or "/" in text or os.sep in text or Path(text).exists()


def _normalise(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


@cache
def _preset_files() -> dict[str, Traversable]:
    files = [entry for entry in _PRESETS_DIR.iterdir() if entry.name.endswith(".toml")]
    return {entry.name.removesuffix(".toml"): entry for entry in sorted(files, key=_name_of)}


def _name_of(entry: Traversable) -> str:
    return entry.name


def _find_preset(name: str) -> str | None:
    wanted = _normalise(name)
    names = {_normalise(preset): preset for preset in _preset_files()}
    names.update({_normalise(alias): preset for alias, preset in PRESET_ALIASES.items()})
    return names.get(wanted) if wanted else None


@cache
def _load_preset(name: str) -> Rules:
    where = f"rules preset {name}"
    table = _parse_toml(_preset_files()[name].read_text(encoding="utf-8"), where)
    if "extends" in table:
        raise RulesError(f"{where}: a shipped preset must be complete, without 'extends'")
    rules = _rules_from_table(table, where)
    if rules.name != name:
        raise RulesError(f"{where}: name must be {name!r} like its file, got {rules.name!r}")
    return rules


def _load_file(path: Path, reading: frozenset[Path]) -> Rules:
    where = f"rules file {path}"
    resolved = path.resolve()
    if resolved in reading:
        raise RulesError(f"{where}: extends itself (a cycle of 'extends')")
    table = read_toml(path, "rules file", limit=MAX_RULES_FILE_BYTES, error=RulesError)
    defaults: dict[str, Any] = {
        "name": path.stem,
        "description": "",
        "source": str(path),
        "assumptions": [],
    }
    extends = table.pop("extends", None)
    if extends is not None:
        if not isinstance(extends, str):
            raise RulesError(
                f"{where}: extends must be a string (a preset name or a path), got {_show(extends)}"
            )
        base = _load_base(extends, where, path.parent, reading | {resolved})
        base_table = {
            key: value
            for key, value in rules_to_dict(base).items()
            if value is not None and key not in ("name", "description", "source")
        }
        changed = [key for key in _dotted_keys(table) if key not in defaults]
        defaults["description"] = f"{base.name} with {', '.join(changed) or 'nothing'} changed"
        defaults["source"] = f"{path}, extending {base.name} ({base.source})"
        table = _merge(_merge(defaults, base_table), table)
    else:
        table = {**defaults, **table}
    rules = _rules_from_table(table, where)
    # A copy of a preset with a value changed must not pass for the preset in results.
    preset = _find_preset(rules.name)
    if preset is not None and rules != _load_preset(preset):
        clash = _find_preset(path.stem) is not None
        rules = dataclasses.replace(rules, name=f"{path.stem}-custom" if clash else path.stem)
    return rules


def _load_base(extends: str, where: str, folder: Path, reading: frozenset[Path]) -> Rules:
    preset = _find_preset(extends)
    if preset is not None:
        return _load_preset(preset)
    path = Path(extends)
    if not path.is_absolute():
        path = folder / path
    if not (extends.endswith(".toml") or path.exists()):
        raise RulesError(
            f"{where}: extends {extends!r} is neither a preset ({', '.join(list_presets())}) "
            "nor a rules file"
        )
    return _load_file(path, reading)


#: The largest rules file read (1 MiB): a preset is a few kilobytes.
MAX_RULES_FILE_BYTES: Final = RULES_BYTES


def _parse_toml(text: str, where: str) -> dict[str, Any]:
    return parse_toml(text, where, RulesError)


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it: tables merge key by key, anything else replaces."""
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _dotted_keys(table: Mapping[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for key, value in table.items():
        if isinstance(value, dict):
            keys.extend(_dotted_keys(value, f"{prefix}{key}."))
        else:
            keys.append(f"{prefix}{key}")
    return keys


def _rules_from_table(table: Mapping[str, Any], where: str) -> Rules:
    try:
        rules: Rules = _build(Rules, table, "")
    except RulesError as error:
        raise RulesError(f"{where}: {error}") from None
    return rules


# --------------------------------------------------------------------------------------------
# Reading TOML values into the records, by their type hints
# --------------------------------------------------------------------------------------------


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _build(cls: type, table: Mapping[str, Any], prefix: str) -> Any:
    """Build the record ``cls`` from a TOML table whose keys are its field names."""
    hints = _hints(cls)
    names = [field.name for field in fields(cls)]
    for key in table:
        if key not in names:
            raise RulesError(_unknown_key(prefix, key, names))
    values: dict[str, Any] = {}
    for field in fields(cls):
        if field.name in table:
            values[field.name] = _convert(table[field.name], hints[field.name], prefix + field.name)
        elif field.default is dataclasses.MISSING:
            raise RulesError(f"missing key '{prefix}{field.name}'")
    try:
        return cls(**values)
    except RulesError as error:
        # A record names its own fields; put the table's name in front.
        raise RulesError(f"{prefix}{error}") from None


def _unknown_key(prefix: str, key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1)
    if close:
        return f"unknown key '{prefix}{key}' (did you mean '{prefix}{close[0]}'?)"
    where = f" in [{prefix.rstrip('.')}]" if prefix else ""
    return f"unknown key '{prefix}{key}'{where}; known keys: {', '.join(names)}"


def _convert(value: Any, hint: Any, key: str) -> Any:
    """Check a TOML value against a field's type hint and convert it (lists become tuples)."""
    origin = get_origin(hint)
    if origin is types.UnionType:  # ``X | None``: TOML has no null, so a present value is X
        (hint,) = [arg for arg in get_args(hint) if arg is not type(None)]
        origin = get_origin(hint)
    if origin is Literal:
        choices = get_args(hint)
        if value not in choices or not isinstance(value, str):
            raise RulesError(_choice_problem(key, choices, value))
        return value
    if origin is tuple:
        return _convert_list(value, hint, key)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise RulesError(f"{key} must be a table ([{key}]), got {_show(value)}")
        return _build(hint, value, key + ".")
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        value = float(value) if ok else value
    elif hint is str:
        ok = isinstance(value, str)
    elif hint is Fraction:
        return _convert_fraction(value, key)
    else:  # pragma: no cover - a field type this reader does not know
        raise TypeError(f"no TOML reader for {hint!r}")
    if not ok:
        raise RulesError(f"{key} must be {_describe(hint)}, got {_show(value)}")
    return value


def _convert_list(value: Any, hint: Any, key: str) -> tuple[Any, ...]:
    args = get_args(hint)
    variable = len(args) == 2 and args[1] is Ellipsis
    if not isinstance(value, list) or (not variable and len(value) != len(args)):
        raise RulesError(f"{key} must be {_describe(hint)}, got {_show(value)}")
    items = args[:1] * len(value) if variable else args
    return tuple(
        _convert(item, item_hint, f"{key}[{index}]")
        for index, (item, item_hint) in enumerate(zip(value, items, strict=True))
    )


def _convert_fraction(value: Any, key: str) -> Fraction:
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, float) and math.isfinite(value):
        # 0.3333333333333333 in a file means 1/3: shares are simple fractions.
        return Fraction(value).limit_denominator(1000)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            pass
    raise RulesError(f"{key} must be {_describe(Fraction)}, got {_show(value)}")


def _describe(hint: Any, plural: bool = False) -> str:
    """How an error message names the type a key must have."""
    origin = get_origin(hint)
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_describe(args[0], plural=True)}"
        return f"a list of {len(args)} {_describe(args[0], plural=True)}"
    if dataclasses.is_dataclass(hint):
        return "tables" if plural else "a table"
    names = {
        bool: ("true or false", "booleans"),
        int: ("an integer", "integers"),
        float: ("a number", "numbers"),
        str: ("a string", "strings"),
        Fraction: ('a fraction such as "1/3"', 'fractions such as "1/3"'),
    }
    if origin is Literal:
        return "strings" if plural else "a string"
    single, many = names[hint]
    return many if plural else single


def _choice_problem(key: str, choices: tuple[str, ...], value: object) -> str:
    listed = ", ".join(_show(choice) for choice in choices)
    return f"{key} must be one of {listed}, got {_show(value)}"


@cache
def _choice_fields(cls: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    hints = _hints(cls)
    return tuple(
        (field.name, get_args(hints[field.name]))
        for field in fields(cls)
        if get_origin(hints[field.name]) is Literal
    )


def _check_choices(record: Any) -> None:
    """Check the record's text-valued rules against their allowed values."""
    cls: Any = type(record)
    for name, choices in _choice_fields(cls):
        value = getattr(record, name)
        if value not in choices:
            raise RulesError(_choice_problem(name, choices, value))


def _contract_key(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", name.strip().casefold())


def _show(value: object) -> str:
    """A value as it would be written in a rules file, for error messages."""
    return json.dumps(_for_display(value), ensure_ascii=False, default=str)


def _for_display(value: object) -> object:
    if isinstance(value, tuple | list):
        return [_for_display(item) for item in value]
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def rules_to_dict(rules: Rules) -> dict[str, Any]:
    """The rules as plain JSON-able data: the TOML keys, lists for tuples, "1/3" for fractions.

    Recorded as metadata beside every output, so that any deal can be replayed.

    >>> rules_to_dict(load_rules("fft-5"))["shares"]
    {'alone': 4, 'partner_fractions': ['1/3'], 'both_calls_one_partner': 'first_share'}
    """
    plain = _to_plain(rules)
    assert isinstance(plain, dict)
    return plain


def _to_plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _to_plain(getattr(value, field.name)) for field in fields(value)}
    if isinstance(value, tuple | list):
        return [_to_plain(item) for item in value]
    if isinstance(value, Fraction):
        return str(value)
    return value


def rules_to_toml(rules: Rules) -> str:
    """The rules as a complete TOML rules file, which :func:`load_rules` reads back equal."""
    table = rules_to_dict(rules)
    scalars = {
        key: value for key, value in table.items() if not _is_table(value) and value is not None
    }
    tables = {key: value for key, value in table.items() if isinstance(value, dict)}
    arrays = {
        key: value for key, value in table.items() if _is_table(value) and isinstance(value, list)
    }
    lines = [f"# Tarot rules {rules.name}, written by tarot-analysis.", ""]
    lines += [f"{key} = {_toml_value(value)}" for key, value in scalars.items()]
    for key, section in tables.items():
        lines += ["", f"[{key}]"]
        lines += [f"{name} = {_toml_value(value)}" for name, value in section.items()]
    for key, rows in arrays.items():
        for row in rows:
            lines += ["", f"[[{key}]]"]
            lines += [f"{name} = {_toml_value(value)}" for name, value in row.items()]
    return "\n".join(lines) + "\n"


def _is_table(value: object) -> bool:
    """A TOML table, or a non-empty array of tables."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(row, dict) for row in value)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string, but for DEL, which TOML wants escaped.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")  # pragma: no cover


_DOG_WORDS = {
    "taker": "dog shown, taken, écart",
    "taker_unseen": "dog unseen, for the taker",
    "defence": "dog unseen, for the defence",
}


def format_rules(rules: Rules) -> str:
    """The rules as text for people, one rule a line.

    >>> print(format_rules(load_rules("fft-4")).splitlines()[0])
    fft-4: French Tarot, FFT rules, 4 players (the default)
    """
    lines = [
        f"{rules.name}: {rules.description}" if rules.description else rules.name,
        f"source: {rules.source}",
        "",
    ]
    rows = [
        *_deal_rows(rules),
        *_count_rows(rules),
        *_auction_rows(rules),
        *_play_rows(rules),
        *_score_rows(rules),
    ]
    if rules.tarocco is not None:
        rows += _tarocco_rows(rules.tarocco)
    width = max(len(label) for label, _ in rows) + 2
    lines += [f"{label.ljust(width)}{text}" for label, text in rows]
    if rules.assumptions:
        lines += ["", "assumptions:"]
        lines += [f"  - {assumption}" for assumption in rules.assumptions]
    return "\n".join(lines)


def _deal_rows(rules: Rules) -> list[tuple[str, str]]:
    """The lines of :func:`format_rules` on the deal: players, cards, suits, dog, first lead."""
    return [
        (
            "deal",
            f"{rules.players} players, {rules.hand_size} cards each in packets of "
            f"{rules.packet_size}, dog {rules.dog_size}, {rules.direction.replace('_', '-')}",
        ),
        ("suits", ", ".join(rules.suit_names)),
        (
            "first lead",
            "the dealer" if rules.first_leader == "dealer" else "the player after the dealer",
        ),
        ("dog", "never first or last card" if rules.dog_avoids_pack_ends else "the last cards"),
        ("petit sec", "deal void, redealt" if rules.petit_sec_redeal else "played"),
    ]


def _count_rows(rules: Rules) -> list[tuple[str, str]]:
    """The lines of :func:`format_rules` on the count: card points and the points required."""
    points = rules.card_points
    return [
        (
            "card points",
            f"bout {_number(points.bout)}, king {_number(points.king)}, queen "
            f"{_number(points.queen)}, knight {_number(points.knight)}, jack "
            f"{_number(points.jack)}, other {_number(points.other)} "
            f"(total {_number(points.total)})",
        ),
        (
            "bouts required",
            ", ".join(
                f"{bouts}: {_number(points_needed)}"
                for bouts, points_needed in enumerate(rules.bouts_required)
            ),
        ),
        (
            "half points",
            "not rounded"
            if rules.half_point_rounding == "none"
            else "rounded away from the requirement",
        ),
    ]


def _auction_rows(rules: Rules) -> list[tuple[str, str]]:
    """The lines of :func:`format_rules` on the auction: contracts, écart and call."""
    return [
        ("bidding", "yes" if rules.bidding else "none"),
        (
            "contracts",
            "; ".join(
                f"{contract.name} ×{contract.multiplier} ({_DOG_WORDS[contract.dog]})"
                for contract in rules.contracts
            )
            or "none",
        ),
        (
            "écart",
            f"kings {rules.ecart.kings.replace('_', ' ')}, bouts "
            f"{rules.ecart.bouts.replace('_', ' ')}, trumps {rules.ecart.trumps.replace('_', ' ')}"
            + (" (shown)" if rules.ecart.trumps_shown else ""),
        ),
        ("call", rules.call.replace("_", " and ")),
        (
            "call holding 4 kings",
            "a queen (then a knight, a jack)"
            if rules.call_holding_all_kings == "queen"
            else "any suit card",
        ),
    ]


def _play_rows(rules: Rules) -> list[tuple[str, str]]:
    """The lines of :func:`format_rules` on the play of the cards."""
    return [
        (
            "called suit led first",
            "forbidden" if rules.first_lead_called_suit_forbidden else "allowed",
        ),
        ("trumps led", "once broken" if rules.trumps_must_be_broken else "any time"),
        ("overtrump when void", _yes_no(rules.must_overtrump_when_void)),
        ("overtrump on trump lead", _overtrump_on_trump_lead_text(rules)),
        (
            "excuse at last trick",
            "see fool"
            if rules.tarocco is not None
            else "changes sides"
            if rules.excuse_last_trick == "changes_sides"
            else "to the side winning the trick",
        ),
    ]


def _score_rows(rules: Rules) -> list[tuple[str, str]]:
    """The lines of :func:`format_rules` on the score and its shares."""
    return [
        ("base score", str(rules.base_score)),
        ("poignée", _poignee_text(rules.poignee)),
        ("petit au bout", _petit_au_bout_text(rules.petit_au_bout)),
        ("chelem", _chelem_text(rules.chelem)),
        ("shares", _shares_text(rules.shares)),
    ]


def _tarocco_rows(tarocco: Tarocco) -> list[tuple[str, str]]:
    """The lines of :func:`format_rules` that only Tarocco rules have."""
    return [
        ("dealer", "takes the dog, discards as many" if tarocco.dog_to_dealer else "no dog"),
        (
            "fool",
            ("shown instead of played" if tarocco.fool_excused else "played")
            + (", lowest tarocco at the last trick" if tarocco.fool_lowest_at_last_trick else ""),
        ),
        (
            "magician",
            f"last trick won {tarocco.magician_last_trick:+d}, "
            f"lost {tarocco.magician_lost_last_trick:+d}",
        ),
        (
            "premiums",
            f"{tarocco.tarocchi_premium_count} tarocchi {tarocco.tarocchi_premium:+d}, "
            f"every trick {tarocco.all_tricks_premium:+d}",
        ),
        ("match", f"{tarocco.match_deals} deals"),
        (
            "buying cards",
            f"yes, {tarocco.card_price} points" if tarocco.buying_cards else "no",
        ),
    ]


def _poignee_text(poignee: Poignee) -> str:
    if not poignee.is_scored:
        return "none"
    who = "any player" if poignee.who == "any" else "the taker only"
    scoring = (
        "to the side that wins the deal"
        if poignee.scoring == "winner"
        else "won or lost by the taker alone with the contract (a partner has no share)"
    )
    shown = "" if poignee.shown == "every_trump" else " (only the count, highest and lowest)"
    return (
        f"{' / '.join(map(str, poignee.thresholds))} trumps with the Excuse: "
        f"{' / '.join(map(str, poignee.bonuses))}, shown by {who}{shown}, {scoring}"
    )


def _overtrump_on_trump_lead_text(rules: Rules) -> str:
    if not rules.must_overtrump_on_trump_lead:
        return "no"
    if rules.trump_lead_unable_to_beat == "any_card":
        return "yes, else any card"
    return "yes"


def _shares_text(shares: Shares) -> str:
    text = f"alone {shares.alone}× each defender" + "".join(
        f", called card {index + 1}: {share} of the attack"
        for index, share in enumerate(shares.partner_fractions)
    )
    if len(shares.partner_fractions) == 2:
        held = {
            "first_share": "the first card's share",
            "second_share": "the second card's share",
            "both_shares": "both shares",
        }[shares.both_calls_one_partner]
        text += f"; a partner holding both: {held}"
    return text


def _petit_au_bout_text(petit: PetitAuBout) -> str:
    if not petit.is_scored:
        return "none"
    who = "from each other player to the Petit's player" if petit.personal else "to the side"
    return f"{petit.value} {who}, {'multiplied' if petit.multiplied else 'not multiplied'}"


def _chelem_text(chelem: Chelem) -> str:
    if not chelem.is_scored:
        return "none"
    return (
        f"announced and made {chelem.announced_made:+d}, failed {chelem.announced_failed:+d}, "
        f"unannounced {chelem.unannounced_made:+d}, by the defence {chelem.defence:+d}"
    )


def _number(value: float) -> str:
    return f"{value:g}"


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"
