"""The rules of play written out plainly, to check the compiled engine against.

Everything here works on plain Python sets and lists of card ids (see ``tarot_analysis.game.cards``:
suit cards ``suit * 14 + rank_index``, the Excuse 56, trump n ``56 + n``). Suits and ranks are
worked out from the ids with plain arithmetic rather than read from the lookup tables, so that
a mistake in those tables cannot hide behind the same mistake here. Speed does not matter;
each rule of docs/rules.md is one readable step.

Rule choices where the rule texts leave room (docs/rules.md marks them as assumptions) are
marked "Reading:" in the comments; those that the engine shares are named in
:data:`READINGS`, so that a reader sees where the two could agree on a mistake.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from tarot_analysis.game.cards import EXCUSE, PETIT, TWENTY_ONE
from tarot_analysis.game.rules import CardPoints, Rules

__all__ = [
    "READINGS",
    "PetitAtTheEnd",
    "ReferenceScore",
    "allowed_first_calls",
    "allowed_second_calls",
    "card_half_points",
    "ecart_allowance",
    "excuse_at_last_trick_to_attack",
    "is_legal_ecart",
    "is_suit_card",
    "is_trump",
    "led_card",
    "legal_cards",
    "legal_ecart",
    "legal_leads",
    "rank_in_suit",
    "score_deal",
    "suit_of",
    "trick_points_half",
    "trick_winner",
    "trump_number",
]

CARDS_PER_SUIT = 14
JACK_RANK = 10
KNIGHT_RANK = 11
QUEEN_RANK = 12
KING_RANK = 13
BOUTS = frozenset({PETIT, TWENTY_ONE, EXCUSE})


# --------------------------------------------------------------------------------------------
# What a card is
# --------------------------------------------------------------------------------------------


def is_trump(card: int) -> bool:
    """Whether ``card`` is one of the 21 trumps (the Excuse is not a trump)."""
    return card > EXCUSE


def is_suit_card(card: int) -> bool:
    """Whether ``card`` belongs to one of the four suits."""
    return card < EXCUSE


def suit_of(card: int) -> int:
    """The suit (0 spades, 1 hearts, 2 diamonds, 3 clubs) of a suit card."""
    assert is_suit_card(card), f"card {card} has no suit"
    return card // CARDS_PER_SUIT


def rank_in_suit(card: int) -> int:
    """0 for the ace (lowest) up to 13 for the king, for a suit card."""
    assert is_suit_card(card), f"card {card} has no rank in a suit"
    return card % CARDS_PER_SUIT


def trump_number(card: int) -> int:
    """1 for the Petit up to 21, for a trump."""
    assert is_trump(card), f"card {card} is not a trump"
    return card - EXCUSE


def trumps_in(cards: Iterable[int]) -> set[int]:
    """The trumps among ``cards``."""
    return {card for card in cards if is_trump(card)}


def cards_of_suit(cards: Iterable[int], suit: int) -> set[int]:
    """The cards of ``suit`` among ``cards``."""
    return {card for card in cards if is_suit_card(card) and suit_of(card) == suit}


def led_card(trick: list[int]) -> int | None:
    """The card that sets what must be followed: the first card that is not the Excuse.

    ``None`` while nothing but the Excuse (or nothing at all) has been played: the next player
    then leads freely (docs/rules.md#play: "When the Excuse is led, the next card played sets
    the suit").
    """
    for card in trick:
        if card != EXCUSE:
            return card
    return None


# --------------------------------------------------------------------------------------------
# Which card may be played
# --------------------------------------------------------------------------------------------


def legal_cards(
    hand: set[int],
    trick: list[int],
    rules: Rules,
    *,
    first_trick: bool = False,
    called_cards: tuple[int, ...] = (),
    trumps_broken: bool = True,
) -> set[int]:
    """The cards of ``hand`` that may be played to ``trick`` (the cards already played, in order).

    docs/rules.md#play: follow the suit led; void in it, trump (over the highest trump in the
    trick if able, when ``rules.must_overtrump_when_void``); no trump either, any card. On a trump
    lead, a higher trump if able (when ``rules.must_overtrump_on_trump_lead``), else any trump
    (or, when ``rules.trump_lead_unable_to_beat`` is ``"any_card"``, any card), else any card.
    The Excuse may always be played instead.

    ``first_trick``, ``called_cards`` and ``trumps_broken`` matter only to a leader: see
    :func:`legal_leads`.
    """
    excuse = hand & {EXCUSE}
    led = led_card(trick)
    if led is None:
        # Reading: a player who follows a led Excuse sets the suit of the trick, so he is the
        # leader in all but name, and the lead restrictions (called suit at the first trick,
        # trumps not yet broken) bind him too. Otherwise leading the Excuse would be a way
        # round them for the partner who plays next.
        return legal_leads(
            hand,
            rules,
            first_trick=first_trick,
            called_cards=called_cards,
            trumps_broken=trumps_broken,
        )

    trumps = trumps_in(hand)
    highest_trump_played = max(trumps_in(trick), default=None)

    if is_trump(led):
        if not trumps:
            return set(hand)
        if rules.must_overtrump_on_trump_lead:
            assert highest_trump_played is not None  # the led card is a trump
            higher = {card for card in trumps if card > highest_trump_played}
            if higher:
                return higher | excuse
            if rules.trump_lead_unable_to_beat == "any_card":
                # docs/rules.md#tarocco: "if this is impossible, any card may be played".
                return set(hand)
        return trumps | excuse

    following = cards_of_suit(hand, suit_of(led))
    if following:
        # Following suit, any card of it will do: there is no duty to beat the card led.
        return following | excuse
    if not trumps:
        return set(hand)
    if rules.must_overtrump_when_void and highest_trump_played is not None:
        # Over the highest trump in the trick, whoever played it (even a partner).
        higher = {card for card in trumps if card > highest_trump_played}
        if higher:
            return higher | excuse
    return trumps | excuse


def legal_leads(
    hand: set[int],
    rules: Rules,
    *,
    first_trick: bool = False,
    called_cards: tuple[int, ...] = (),
    trumps_broken: bool = True,
) -> set[int]:
    """The cards of ``hand`` that may lead a trick (or follow a led Excuse, which is the same).

    Any card, except:

    * at the first trick, when ``rules.first_lead_called_suit_forbidden``: no card of a called
      card's suit, unless it is the called card itself
      (docs/rules.md#calling-a-partner-five-and-six-players). Called trumps have no suit to
      forbid.
    * when ``rules.trumps_must_be_broken`` and ``trumps_broken`` is false: no trump, unless the
      hand holds only trumps and the Excuse (docs/rules.md#trumps-broken-4).

    The Excuse may always lead.
    """
    allowed = set(hand)

    if first_trick and rules.first_lead_called_suit_forbidden:
        for called in called_cards:
            if is_suit_card(called):
                allowed -= cards_of_suit(hand, suit_of(called)) - {called}

    # Reading: "holds only trumps and the Excuse" looks at the suit cards the leader may still
    # lead. When the only suit cards left are of a called suit, forbidden at the first lead, a
    # trump may lead (no preset has both rules; this keeps a card to play).
    may_lead_a_suit_card = any(is_suit_card(card) for card in allowed)
    if rules.trumps_must_be_broken and not trumps_broken and may_lead_a_suit_card:
        allowed -= trumps_in(hand)

    if not allowed:
        # Reading: every card is of a called suit (possible with six players, twelve cards and
        # two called suits). A rule that leaves no card to play cannot bind: any card may lead.
        return set(hand)
    return allowed


# --------------------------------------------------------------------------------------------
# Who wins a trick
# --------------------------------------------------------------------------------------------


def trick_winner(
    trick: list[int],
    *,
    last_trick_chelem_excuse: bool = False,
    excuse_is_lowest_trump: bool = False,
) -> int:
    """The index in ``trick`` of the card that wins it.

    The highest trump if a trump was played, else the highest card of the suit led (set by the
    first card that is not the Excuse). A card of another suit never wins; the Excuse never
    wins, except under a chelem when it was led to the last trick: pass
    ``last_trick_chelem_excuse=True`` for that trick (docs/rules.md#chelem, ``rules.chelem``).

    ``excuse_is_lowest_trump``: Tarocco's last trick, where the Fool is played as the lowest
    tarocco, below the Magician (docs/rules.md#tarocco,
    ``rules.tarocco.fool_lowest_at_last_trick``).
    A Fool shown instead of played is no card of the trick and is left out of ``trick``.
    """
    if not trick:
        raise ValueError("an empty trick has no winner")
    if last_trick_chelem_excuse and trick[0] == EXCUSE:
        return 0

    trumps_played = {
        position: strength
        for position, card in enumerate(trick)
        if (strength := _trump_strength(card, excuse_is_lowest_trump)) is not None
    }
    if trumps_played:
        return max(trumps_played, key=lambda position: trumps_played[position])

    led = led_card(trick)
    if led is None:
        # Only the Excuse was played: nothing else can take the trick.
        return trick.index(EXCUSE)
    suit = suit_of(led)
    following = [i for i, card in enumerate(trick) if is_suit_card(card) and suit_of(card) == suit]
    return max(following, key=lambda i: rank_in_suit(trick[i]))


def _trump_strength(card: int, excuse_is_lowest_trump: bool) -> int | None:
    """How high ``card`` ranks as a trump in a trick, or ``None`` if it is no trump there."""
    if is_trump(card):
        return trump_number(card)
    if card == EXCUSE and excuse_is_lowest_trump:
        return 0  # below the Magician, trump 1
    return None


# --------------------------------------------------------------------------------------------
# The écart
# --------------------------------------------------------------------------------------------


def ecart_allowance(card: int, rules: Rules) -> str:
    """How ``rules.ecart`` treats ``card``: "allowed", "if_forced" or "forbidden".

    The kinds of card do not overlap (as ``Ecart.forbidden_count`` counts them): the bouts are
    the Petit, the 21 and the Excuse; the trumps are the other nineteen, 2 to 20; the kings are
    the four suit kings. Every other card (queens, knights, jacks, low suit cards) is always
    allowed.
    """
    if card in BOUTS:
        return rules.ecart.bouts
    if is_trump(card):
        return rules.ecart.trumps
    if rank_in_suit(card) == KING_RANK:
        return rules.ecart.kings
    return "allowed"


def legal_ecart(hand_with_dog: set[int], rules: Rules) -> tuple[set[int], set[int]]:
    """The cards of ``hand_with_dog`` that may be discarded: ``(free, only_if_forced)``.

    ``free`` may always go to the écart. ``only_if_forced`` (FFT: trumps) may go only when
    there are not enough free cards to make up the écart. Forbidden cards (FFT: kings and
    bouts; Tarocco: kings and the honours XXI, I and the Fool) are in neither set.
    """
    free = {card for card in hand_with_dog if ecart_allowance(card, rules) == "allowed"}
    forced = {card for card in hand_with_dog if ecart_allowance(card, rules) == "if_forced"}
    return free, forced


def is_legal_ecart(hand_with_dog: set[int], ecart: set[int], rules: Rules) -> bool:
    """Whether ``ecart`` may be discarded from ``hand_with_dog`` under ``rules.ecart``.

    It must be ``rules.dog_size`` cards of the hand, none forbidden, and hold a card allowed
    only if forced just when the free cards are too few: as many free cards as possible go
    first.
    """
    if len(ecart) != rules.dog_size or not ecart <= hand_with_dog:
        return False
    free, forced = legal_ecart(hand_with_dog, rules)
    if not ecart <= free | forced:
        return False
    forced_needed = max(0, rules.dog_size - len(free))
    return len(ecart & forced) <= forced_needed


# --------------------------------------------------------------------------------------------
# Card points
# --------------------------------------------------------------------------------------------


def card_half_points(card: int, points: CardPoints) -> int:
    """Twice the points of ``card`` under ``points`` (whole numbers: values are halves)."""
    if card in BOUTS:
        value = points.bout
    elif is_trump(card):
        value = points.other
    else:
        value = {
            KING_RANK: points.king,
            QUEEN_RANK: points.queen,
            KNIGHT_RANK: points.knight,
            JACK_RANK: points.jack,
        }.get(rank_in_suit(card), points.other)
    doubled = 2 * value
    assert doubled == int(doubled), f"card points must be halves, got {value}"
    return int(doubled)


def trick_points_half(cards: list[int], rules: Rules) -> int:
    """Twice the card points of ``cards`` (a trick, a pile, an écart) with ``rules.card_points``."""
    return sum(card_half_points(card, rules.card_points) for card in cards)


# --------------------------------------------------------------------------------------------
# Calling partners (docs/rules.md#calling-a-partner-five-and-six-players)
# --------------------------------------------------------------------------------------------

KINGS = frozenset(suit * CARDS_PER_SUIT + KING_RANK for suit in range(4))
QUEENS = frozenset(suit * CARDS_PER_SUIT + QUEEN_RANK for suit in range(4))
KNIGHTS = frozenset(suit * CARDS_PER_SUIT + KNIGHT_RANK for suit in range(4))
JACKS = frozenset(suit * CARDS_PER_SUIT + JACK_RANK for suit in range(4))
SUIT_CARDS = frozenset(range(EXCUSE))


def allowed_first_calls(hand: set[int], rules: Rules) -> set[int]:
    """The cards a taker holding ``hand`` may call first: a king; holding all four kings a
    queen, then (all four queens too) a knight, then a jack
    (docs/rules.md#calling-a-partner-five-and-six-players). A card of the taker's own hand may be
    called.

    Under the older 5-player rule (``rules.call_holding_all_kings == "any_suit_card"``,
    docs/rules.md#legacy-5) a taker holding all four kings may call any non-trump card.
    Reading: any_call_is_a_suit_card.
    """
    if KINGS <= hand and rules.call_holding_all_kings == "any_suit_card":
        return set(SUIT_CARDS)
    for rank in (KINGS, QUEENS, KNIGHTS):
        if not rank <= hand:
            return set(rank)
    return set(JACKS)


def allowed_second_calls(hand: set[int], first: int) -> set[int]:
    """The cards a six-player taker may call beside ``first``
    (docs/rules.md#calling-a-partner-five-and-six-players): a queen, never the first card
    again; holding all four queens, one of its own queens or any other suit card not already
    called.

    Reading (second_call_any_other): "any other card" is a suit card, never a king ("calling
    another king is forbidden").
    """
    if QUEENS <= hand:
        return set(SUIT_CARDS - KINGS - {first})
    return set(QUEENS - {first})


def excuse_at_last_trick_to_attack(
    owner_in_attack: bool, winner_in_attack: bool, rules: Rules
) -> bool:
    """Whether the attack takes the Excuse played to the last trick outside a chelem
    (docs/rules.md#the-excuse): it changes sides, going to the opponents of the side that
    played it whoever wins the trick (FFT, the online rules page), or, under
    ``rules.excuse_last_trick == "trick_winner"`` (the 2014 four-player rules),
    it goes with the trick.
    """
    if rules.excuse_last_trick == "changes_sides":
        return not owner_in_attack
    return winner_in_attack


# --------------------------------------------------------------------------------------------
# Scoring (docs/rules.md#the-score, #chelem, #legacy-4, #trumps-broken-4)
# --------------------------------------------------------------------------------------------

#: The readings that this referee and the engine share where the rule texts leave room
#: (docs/rules.md marks them as assumptions). Where both read a rule the same wrong way, they
#: agree on the mistake: these are the places to look.
READINGS: dict[str, str] = {
    "half_point_rounding": (
        "A half point of the attack is rounded away from the requirement (40.5 with 41 needed "
        "fails by 1, 41.5 makes by 1) whenever the rules round, in 4 and 6 players too, where "
        "it arises only when a side that took no trick kept the Excuse "
        "(docs/rules.md#points-and-the-contract)."
    ),
    "petit_au_bout_multiplied_whatever_the_result": (
        "The side's Petit au bout (FFT) is ±value × multiplier on its own, added whether or not "
        "the contract is made: it is not given the sign of the contract "
        "(docs/rules.md#petit-au-bout)."
    ),
    "poignee_with_contract_is_the_takers": (
        "Under the older rules (poignee.scoring = with_contract) only the taker's poignée "
        "counts; the taker alone wins or pays it to each defender, and the partner's share is "
        "taken from the rest of the score (docs/rules.md#legacy-4)."
    ),
    "failed_announcement_and_defence_chelem_both_count": (
        "An announced chelem that fails while the defence takes every trick scores both the "
        "failed announcement and the defence's chelem (docs/rules.md#chelem)."
    ),
    "chelem_petit_must_win": (
        "Under a chelem, the Petit at the trick before the Excuse's last trick is au bout for "
        "its side as at the last trick; a personal bonus (older rules) needs the Petit itself "
        "to win that trick, as the personal rule asks of the last trick "
        "(docs/rules.md#chelem, #legacy-4)."
    ),
    "chelem_excuse_led": (
        "The Excuse wins the last trick under a chelem only when it leads that trick and its "
        "side took every other trick (docs/rules.md#chelem)."
    ),
    "any_call_is_a_suit_card": (
        "Older 5-player rules, all four kings held: 'any non-trump card' is any suit card, a "
        "king included (calling one's own king is playing alone); the Excuse is never called "
        "(docs/rules.md#legacy-5)."
    ),
    "second_call_any_other": (
        "Six players holding all four queens: the second call is one of the taker's own queens "
        "or any other suit card not called already, never a king "
        "(docs/rules.md#calling-a-partner-five-and-six-players)."
    ),
    "partner_with_both_calls": (
        "A six-player partner holding both called cards takes the share "
        "shares.both_calls_one_partner names: the king's, 1/3, in the presets "
        "(docs/rules.md#the-score)."
    ),
}


@dataclass(frozen=True)
class PetitAtTheEnd:
    """Where the Petit ended the deal, as the scoring of docs/rules.md#the-score, #chelem and
    #legacy-4 needs it.

    ``side_is_attack``: the side that took the Petit au bout (``None``: nobody did);
    ``seat``: who played it; ``won_its_trick``: the Petit itself won that trick.
    """

    side_is_attack: bool | None = None
    seat: int = -1
    won_its_trick: bool = False


@dataclass(frozen=True)
class ReferenceScore:
    """A deal scored by :func:`score_deal`: the parts for each defender and every seat's score."""

    margin: float
    made: bool
    base: Fraction
    petit_au_bout: Fraction
    poignee: Fraction
    chelem: Fraction
    scores: tuple[Fraction, ...]

    @property
    def per_defender(self) -> Fraction:
        return self.base + self.petit_au_bout + self.poignee + self.chelem


def score_deal(
    rules: Rules,
    *,
    taker: int,
    contract: int,
    partners: tuple[int | None, ...],
    attack_half_points: int,
    attack_bouts: int,
    attack_took_every_trick: bool,
    defence_took_every_trick: bool,
    petit: PetitAtTheEnd,
    poignees: tuple[int, ...],
    chelem_announced: bool,
) -> ReferenceScore:
    """Score one played deal step by step as docs/rules.md states it, in exact fractions.

    ``partners[i]`` is the seat holding called card ``i`` when another player holds it, else
    ``None``; ``poignees[seat]`` the level (0–3) each seat showed.
    """
    players = rules.players
    attack = {taker} | {seat for seat in partners if seat is not None}
    defenders = [seat for seat in range(players) if seat not in attack]
    multiplier = rules.contracts[contract].multiplier

    # Points against the requirement of the attack's bouts; "juste fait" at 0 is made.
    difference = Fraction(attack_half_points, 2) - Fraction(rules.bouts_required[attack_bouts])
    if rules.half_point_rounding == "away_from_requirement" and difference.denominator != 1:
        # Reading: half_point_rounding.
        away = math.ceil(abs(difference))
        difference = Fraction(away if difference > 0 else -away)
    made = difference >= 0
    sign = 1 if made else -1
    base = sign * (rules.base_score + abs(difference)) * multiplier

    # The side's Petit au bout, multiplied if the rules say so.
    # Reading: petit_au_bout_multiplied_whatever_the_result.
    petit_au_bout = Fraction(0)
    petit_rule = rules.petit_au_bout
    if not petit_rule.personal and petit.side_is_attack is not None:
        petit_au_bout = Fraction(petit_rule.value * (multiplier if petit_rule.multiplied else 1))
        if not petit.side_is_attack:
            petit_au_bout = -petit_au_bout

    # Poignées: the bonus of each one shown by a seat allowed to show one, to the winner.
    def bonus(level: int) -> int:
        return 0 if level == 0 else rules.poignee.bonuses[level - 1]

    if rules.poignee.who == "taker":
        shown = bonus(poignees[taker])
    else:
        shown = sum(bonus(level) for level in poignees)
    poignee = Fraction(sign * shown)

    # Chelem (docs/rules.md#chelem). Reading: failed_announcement_and_defence_chelem_both_count.
    chelem_rule = rules.chelem
    chelem = Fraction(0)
    if chelem_announced:
        chelem += (
            chelem_rule.announced_made if attack_took_every_trick else chelem_rule.announced_failed
        )
    elif attack_took_every_trick:
        chelem += chelem_rule.unannounced_made
    if defence_took_every_trick:
        chelem -= chelem_rule.defence

    per_defender = base + petit_au_bout + poignee + chelem
    scores = [Fraction(0)] * players
    for seat in defenders:
        scores[seat] -= per_defender
    # What the taker alone wins from each defender (Reading: poignee_with_contract_is_the_takers);
    # the rest goes to the attack and is shared.
    takers_own = poignee if rules.poignee.scoring == "with_contract" else Fraction(0)
    attack_total = (per_defender - takers_own) * len(defenders)
    scores[taker] += takers_own * len(defenders)
    if len(attack) == 1:
        scores[taker] += attack_total
    else:
        # Reading: partner_with_both_calls.
        fractions = list(rules.shares.partner_fractions)
        if len(partners) == 2 and partners[0] is not None and partners[0] == partners[1]:
            both = rules.shares.both_calls_one_partner
            if both == "first_share":
                fractions[1] = Fraction(0)
            elif both == "second_share":
                fractions[0] = Fraction(0)
        rest = attack_total
        for fraction, seat in zip(fractions, partners, strict=False):
            if seat is not None:
                scores[seat] += attack_total * fraction
                rest -= attack_total * fraction
        scores[taker] += rest

    # The personal Petit au bout of the older rules: every other player pays its player.
    if petit_rule.personal and petit_rule.value and petit.won_its_trick and petit.seat >= 0:
        for seat in range(players):
            if seat != petit.seat:
                scores[seat] -= petit_rule.value
                scores[petit.seat] += petit_rule.value

    return ReferenceScore(
        margin=float(difference),
        made=made,
        base=Fraction(base),
        petit_au_bout=petit_au_bout,
        poignee=poignee,
        chelem=chelem,
        scores=tuple(scores),
    )
