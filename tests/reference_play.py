"""The rules of play written out plainly, to check the compiled engine against.

Everything here works on plain Python sets and lists of card ids (see ``tarot_analysis.cards``:
suit cards ``suit * 14 + rank_index``, the Excuse 56, trump n ``56 + n``). Suits and ranks are
worked out from the ids with plain arithmetic rather than read from the lookup tables, so that
a mistake in those tables cannot hide behind the same mistake here. Speed does not matter;
each rule of RULES.md is one readable step.

Rule choices where RULES.md leaves room are marked "Reading:" in the comments.
"""

from __future__ import annotations

from collections.abc import Iterable

from tarot_analysis.cards import EXCUSE, PETIT, TWENTY_ONE
from tarot_analysis.rules import CardPoints, Rules

__all__ = [
    "card_half_points",
    "ecart_allowance",
    "is_legal_ecart",
    "is_suit_card",
    "is_trump",
    "led_card",
    "legal_cards",
    "legal_ecart",
    "legal_leads",
    "rank_in_suit",
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
    then leads freely (RULES.md §2, "if the Excuse is led, the next card sets the suit").
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

    RULES.md §2: follow the suit led; void in it, trump (over the highest trump in the trick if
    able, when ``rules.must_overtrump_when_void``); no trump either, any card. On a trump lead,
    a higher trump if able (when ``rules.must_overtrump_on_trump_lead``), else any trump, else
    any card. The Excuse may always be played instead.

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
      card's suit, unless it is the called card itself (RULES.md §2, §4, §5). Called trumps have
      no suit to forbid.
    * when ``rules.trumps_must_be_broken`` and ``trumps_broken`` is false: no trump, unless the
      hand holds only trumps and the Excuse (RULES.md §6).

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
    ``last_trick_chelem_excuse=True`` for that trick (RULES.md §3, ``rules.chelem``).

    ``excuse_is_lowest_trump``: Tarocco's last trick, where the Fool is played as the lowest
    tarocco, below the Magician (RULES.md §7, ``rules.tarocco.fool_lowest_at_last_trick``).
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
