"""One played deal told trick by trick, so that a player can check the engine by eye.

Every preset's deal is told by :func:`describe` and :func:`record`; a Tarocco deal has its
dealer's discard and its count instead of an auction and a contract."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tarot_analysis.engine.outcome import OUTCOME_COLUMNS, REDEAL_ALL_PASSED, REDEAL_PETIT_SEC
from tarot_analysis.game import cards

if TYPE_CHECKING:
    from tarot_analysis.table.play import PlayResult

__all__ = ["describe", "record", "seats_text"]

COLUMN = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}
LEVELS = ("", "simple", "double", "triple")


def _hand(lo: int, hi: int) -> str:
    return cards.format_cards(cards.from_mask(int(lo), int(hi))) or "—"


def describe(result: PlayResult, row: int = 0, *, deal_number: int | None = None) -> str:
    """Deal ``row`` of ``result`` (played with ``keep_tricks``) as text: hands, bids, call,
    dog and écart, poignées, every trick and its winner, and the score in its parts; in
    Tarocco the dealer's discard, every trick and each player's count."""
    if result.rules.tarocco is not None:
        return _describe_tarocco(result, row, deal_number=deal_number)
    rules = result.rules
    players = rules.players
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None and result.bids is not None
    out = result.outcomes[row]
    lines = _heading(result, row, deal_number)
    lines.append(
        f"Hands as dealt (seat 0 speaks and leads first; the dealer is seat {players - 1}):"
    )
    for seat in range(players):
        lo, hi = result.masks[row, seat]
        lines.append(f"  seat {seat}: {_hand(lo, hi)}")
    dog_lo, dog_hi = result.masks[row, players]
    lines.append(f"  dog:    {_hand(dog_lo, dog_hi)}")

    if out[COLUMN["redeal"]] == REDEAL_PETIT_SEC:
        return "\n".join([*lines, "", "A player holds the Petit sec: the deal is void."])
    names = [contract.name for contract in rules.contracts]
    said = [
        f"seat {seat} {'pass' if bid < 0 else names[bid]}"
        for seat, bid in enumerate(result.bids[row])
        if bid > -2
    ]
    if said:
        lines += ["", "Bids: " + ", ".join(said)]
    if out[COLUMN["redeal"]] == REDEAL_ALL_PASSED:
        return "\n".join([*lines, "Everyone passed: the deal is void."])
    lines += _contract_lines(result, row)
    lines.append("")
    attack = _attack(out)
    for t in range(rules.hand_size):
        leader = int(result.leaders[row, t])
        next_leader = int(result.leaders[row, t + 1])  # the winner of trick t
        played = ", ".join(
            f"{(leader + k) % players}:{cards.card_name(int(result.tricks[row, t, k]))}"
            for k in range(players)
        )
        side = "attack" if next_leader in attack else "defence"
        lines.append(f"Trick {t + 1:>2}: {played}  → seat {next_leader} ({side})")
    return "\n".join(lines + _score_lines(result, row, attack))


def _heading(result: PlayResult, row: int, deal_number: int | None) -> list[str]:
    """The first lines of a told deal: the rules, the deal's number, seed, chunks and bots."""
    number = result.metadata.get("deal", row) if deal_number is None else deal_number
    bots = (
        result.bots[0] + " at every seat" if len(set(result.bots)) == 1 else ", ".join(result.bots)
    )
    return [
        f"{result.rules.name}, deal {number} (seed "
        f"{result.metadata.get('seed', result.seed.entropy)}, chunks of {result.chunk_size:,}; "
        f"bots: {bots})",
        "",
    ]


def seats_text(seats: Iterable[int]) -> str:
    """The seats in words: ``seat 0``, ``seats 0 and 2``, ``seats 0, 2 and 4``.

    >>> seats_text({2, 0})
    'seats 0 and 2'
    """
    names = [str(seat) for seat in sorted(seats)]
    if len(names) == 1:
        return f"seat {names[0]}"
    return f"seats {', '.join(names[:-1])} and {names[-1]}"


def _attack(out: Any) -> set[int]:
    """The seats of the attack of a raw outcome: the taker and his partners."""
    partners = {int(out[COLUMN[c]]) for c in ("partner_1", "partner_2") if out[COLUMN[c]] >= 0}
    return {int(out[COLUMN["taker"]])} | partners


def _contract_lines(result: PlayResult, row: int) -> list[str]:
    """Who took what, the call, what became of the dog, the poignées and the chelem."""
    rules = result.rules
    assert result.ecarts is not None
    out = result.outcomes[row]
    taker = int(out[COLUMN["taker"]])
    contract = rules.contracts[int(out[COLUMN["contract"]])]
    lines = [f"Seat {taker} takes: {contract.name} (×{contract.multiplier})."]
    for which in ("1", "2"):
        called = int(out[COLUMN["called_" + which]])
        if called >= 0:
            partner = int(out[COLUMN["partner_" + which]])
            where = f"held by seat {partner}" if partner >= 0 else "not held by a partner"
            lines.append(f"Called: {cards.card_long_name(called)} ({where}).")
    if contract.dog == "taker":
        ecart = _hand(*result.ecarts[row])
        lines.append(f"The dog is shown and taken; écart: {ecart}.")
    elif contract.dog == "taker_unseen":
        lines.append("The dog stays unseen and counts for the taker.")
    else:
        lines.append("The dog stays unseen and counts for the defence.")
    for seat in range(rules.players):
        level = int(result.poignees[row, seat])
        if level:
            lines.append(f"Seat {seat} shows a {LEVELS[level]} poignée.")
    if out[COLUMN["chelem_announced"]]:
        lines.append(f"Seat {taker} announces a chelem.")
    return lines


def _score_lines(result: PlayResult, row: int, attack: set[int]) -> list[str]:
    """The score in its parts, and why where it is not plain: a half point, a poignée kept by
    the taker, a personal Petit au bout."""
    rules = result.rules
    players = rules.players
    out = result.outcomes[row]
    taker = int(out[COLUMN["taker"]])
    scores = result.scores().iloc[row]
    lines = [
        "",
        f"The attack ({seats_text(attack)}) took {scores['attack_points']:g} points with "
        f"{int(scores['attack_bouts'])} bout{'' if int(scores['attack_bouts']) == 1 else 's'}, "
        f"{scores['required']:g} needed: {'made' if scores['made'] else 'failed'} by "
        f"{abs(scores['margin']):g}.",
        "Per defender: " + ", ".join(
            f"{part} {scores[part] + 0.0:+g}"  # + 0.0 turns −0 into 0
            for part in ("base", "petit_au_bout", "poignee", "chelem")
        ) + f" = {scores['per_defender']:+g}",
        "Scores: " + ", ".join(
            f"seat {seat} {scores[f'score_{seat}']:+g}" for seat in range(players)
        ),
    ]  # fmt: skip
    points = float(scores["attack_points"])
    if points != int(points):
        rounding = (
            "rounded away from the requirement"
            if rules.half_point_rounding == "away_from_requirement"
            else "not rounded (half_point_rounding = none)"
        )
        took_none = out[COLUMN["attack_tricks"]] == 0 or out[COLUMN["defence_tricks"]] == 0
        why = (
            " (a side that took no trick kept the Excuse and gave nothing for it)"
            if took_none
            else " (the Excuse played to the last trick changed sides)"
            if _excuse_changed_sides(result, row, attack)
            else ""
        )
        lines.append(f"The attack's {points:g} points end in a half{why}: it is {rounding}.")
    if scores["poignee"] and rules.poignee.scoring == "with_contract" and len(attack) > 1:
        lines.append(
            f"The poignée is the taker's alone: seat {taker} "
            f"{'wins' if scores['poignee'] > 0 else 'pays'} {abs(scores['poignee']):g} from each "
            "defender; a partner neither pays nor receives it."
        )
    if scores["petit_personal"]:
        lines.append(
            f"Petit au bout (personal): every player pays {scores['petit_personal']:g} to seat "
            f"{int(scores['petit_personal_seat'])}."
        )
    return lines


def _describe_tarocco(result: PlayResult, row: int, *, deal_number: int | None) -> str:
    """A Tarocco deal (played with ``keep_tricks``) as text: hands, the dealer's discard,
    every trick (a shown Fool marked), and each player's count in its parts."""
    rules = result.rules
    players = rules.players
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None
    number = result.metadata.get("deal", row) if deal_number is None else deal_number
    dealer = int(result.dealers[row])
    lines = [
        f"{rules.name}, deal {number} (seed {result.metadata.get('seed', result.seed.entropy)}, "
        f"chunks of {result.chunk_size:,}; bots: {', '.join(result.bots)})",
        "",
        f"Hands as dealt (seat {dealer} deals, takes the six extra cards and leads):",
    ]
    for seat in range(players):
        lines.append(f"  seat {seat}: {_hand(*result.masks[row, seat])}")
    lines.append(f"  extra:  {_hand(*result.masks[row, players])}")
    lines.append(f"Seat {dealer} discards: {_hand(*result.ecarts[row])}.")
    frame = result.scores().iloc[row]
    fool_trick = int(frame["fool_shown_trick"])
    lines.append("")
    for t in range(rules.hand_size):
        leader = int(result.leaders[row, t])
        shown = []
        for k in range(players):
            card = int(result.tricks[row, t, k])
            seat = (leader + k) % players
            note = " (shown)" if card == cards.EXCUSE and t == fool_trick else ""
            shown.append(f"{seat}:{cards.card_name(card)}{note}")
        winner = int(result.leaders[row, t + 1])
        lines.append(f"Trick {t + 1:>2}: {', '.join(shown)}  → seat {winner}")
    lines.append("")
    for seat in range(players):
        parts = ", ".join(
            f"{part} {frame[f'{part}_{seat}']:+g}"
            for part in ("magician", "tarocchi", "all_tricks")
        )
        lines.append(
            f"Seat {seat}: {frame[f'points_{seat}']:g} card points, {parts}: "
            f"{frame[f'total_{seat}']:g} for the deal"
        )
    return "\n".join(lines)


def _tricks(tricks: Any, leaders: Any) -> list[dict[str, Any]]:
    """A deal's tricks as data: who led, the cards in play order, who won."""
    return [
        {
            "leader": int(leaders[t]),
            "cards": [cards.card_name(int(card)) for card in trick],
            "winner": int(leaders[t + 1]),
        }
        for t, trick in enumerate(tricks)
    ]


def record(result: PlayResult, row: int = 0, *, deal_number: int | None = None) -> dict[str, Any]:
    """Deal ``row`` of ``result`` (played with ``keep_tricks``) as JSON-able data: what
    :func:`describe` tells, cards in the hand notation. ``redeal`` is ``""``, ``"petit_sec"``
    or ``"all_passed"`` (then no contract, trick or score). A Tarocco deal has its dealer,
    the extra cards and the discard, the trick the Fool was shown at, and each seat's
    count."""
    if result.rules.tarocco is not None:
        return _record_tarocco(result, row, deal_number=deal_number)
    rules = result.rules
    players = rules.players
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None and result.bids is not None
    out = result.outcomes[row]
    data: dict[str, Any] = {
        "rules": rules.name,
        "deal": int(result.metadata.get("deal", row) if deal_number is None else deal_number),
        "seed": result.metadata.get("seed", result.seed.entropy),
        "chunk_size": result.chunk_size,
        "bots": list(result.bots),
        "hands": [_hand(*result.masks[row, seat]) for seat in range(players)],
        "dog": _hand(*result.masks[row, players]),
        "redeal": {REDEAL_PETIT_SEC: "petit_sec", REDEAL_ALL_PASSED: "all_passed"}.get(
            int(out[COLUMN["redeal"]]), ""
        ),
    }
    if data["redeal"] == "petit_sec":
        return data
    names = [contract.name for contract in rules.contracts]
    data["bids"] = [None if bid < 0 else names[bid] for bid in result.bids[row][:players]]
    if data["redeal"]:
        return data
    taker = int(out[COLUMN["taker"]])
    contract = rules.contracts[int(out[COLUMN["contract"]])]
    called = [int(out[COLUMN[f"called_{k}"]]) for k in ("1", "2")]
    partners = [int(out[COLUMN[f"partner_{k}"]]) for k in ("1", "2")]
    data |= {
        "taker": taker,
        "contract": contract.name,
        "called": [
            {"card": cards.card_name(card), "held_by": partner if partner >= 0 else None}
            for card, partner in zip(called, partners, strict=True)
            if card >= 0
        ],
        "ecart": _hand(*result.ecarts[row]) if contract.dog == "taker" else None,
        "poignees": {
            str(seat): LEVELS[int(level)]
            for seat, level in enumerate(result.poignees[row])
            if level
        },
        "chelem_announced": bool(out[COLUMN["chelem_announced"]]),
        "tricks": _tricks(result.tricks[row], result.leaders[row]),
    }
    scores = result.scores().iloc[row]
    data["score"] = {
        "attack_points": float(scores["attack_points"]),
        "attack_bouts": int(scores["attack_bouts"]),
        "required": float(scores["required"]),
        "made": bool(scores["made"]),
        "margin": float(scores["margin"]),
        "per_defender": float(scores["per_defender"]),
        "parts": {
            part: float(scores[part]) + 0.0
            for part in ("base", "petit_au_bout", "poignee", "chelem")
        },
        "seats": [float(scores[f"score_{seat}"]) for seat in range(players)],
    }
    return data


def _record_tarocco(result: PlayResult, row: int, *, deal_number: int | None) -> dict[str, Any]:
    """A Tarocco deal as JSON-able data: what :func:`_describe_tarocco` tells."""
    rules = result.rules
    players = rules.players
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None
    frame = result.scores().iloc[row]
    return {
        "rules": rules.name,
        "deal": int(result.metadata.get("deal", row) if deal_number is None else deal_number),
        "seed": result.metadata.get("seed", result.seed.entropy),
        "chunk_size": result.chunk_size,
        "bots": list(result.bots),
        "dealer": int(result.dealers[row]),
        "hands": [_hand(*result.masks[row, seat]) for seat in range(players)],
        "extra": _hand(*result.masks[row, players]),
        "discard": _hand(*result.ecarts[row]),
        "fool_shown_trick": int(frame["fool_shown_trick"]),
        "tricks": _tricks(result.tricks[row], result.leaders[row]),
        "seats": [
            {
                "points": float(frame[f"points_{seat}"]),
                **{
                    part: float(frame[f"{part}_{seat}"])
                    for part in ("magician", "tarocchi", "all_tricks")
                },
                "total": float(frame[f"total_{seat}"]),
            }
            for seat in range(players)
        ],
    }


def _excuse_changed_sides(result: PlayResult, row: int, attack: set[int]) -> bool:
    """Whether the Excuse, played to the last trick, went to the side that did not win it
    (docs/rules.md#the-excuse)."""
    rules = result.rules
    assert result.tricks is not None and result.leaders is not None
    last = rules.hand_size - 1
    trick = [int(card) for card in result.tricks[row, last]]
    if rules.excuse_last_trick != "changes_sides" or cards.EXCUSE not in trick:
        return False
    owner = (int(result.leaders[row, last]) + trick.index(cards.EXCUSE)) % rules.players
    winner = int(result.leaders[row, rules.hand_size])
    return owner != winner and (owner in attack) == (winner in attack)
