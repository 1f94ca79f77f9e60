"""Army legality (R1–R5), the Formation Round's per-step legality (R6) and army codes.

Pure Python: callers pass what they know of the catalogue as `ArmyCard` values.
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from realms.engine.formation import deployment_problems, line_allows
from realms.engine.vocabulary import ARMY_SIZE, LINE_CAPACITY, LINES, RARITY_QUOTA

CODE_VERSION = 3  # built from card codes (ER-CORE-017), in army order: what every code is written as
CANONICAL_CODE_VERSION = 2  # card codes in canonical order (order lost): still decoded
LEGACY_CODE_VERSION = 1  # built from database keys, in the order written: still decoded
READ_VERSIONS = (LEGACY_CODE_VERSION, CANONICAL_CODE_VERSION, CODE_VERSION)
MAX_ARMY_CODE_LENGTH = 200
MAX_CODE_SLOTS = 50
# Card ids are 64-bit database keys; a code naming a larger one is not an army code.
MAX_CARD_ID = 2**63 - 1


@dataclass(frozen=True)
class ArmyCard:
    """What army rules need to know of a character card."""

    id: int
    slug: str
    rarity: str
    position: str  # vanguard | rearguard | flex
    code: str = ""  # the card's public code (ER-CORE-017), what army codes (versions 2 and 3) name


@dataclass(frozen=True)
class Slot:
    card: str  # slug
    line: str


@dataclass
class Violation:
    code: str
    message: str
    slot: int | None = None
    card: str | None = None
    expected: int | None = None
    actual: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        for key in ("slot", "card", "expected", "actual"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        data.update(self.extra)
        return data


def cards_of(count: int, rarity: str) -> str:
    """`count` cards of a rarity, in words: "1 legendary card", "3 common cards"."""
    return f"{count} {rarity} card{'' if count == 1 else 's'}"


def army_counts(slots: list[Slot], cards: dict[str, ArmyCard]) -> dict[str, Any]:
    """Cards per rarity (known cards only) and per line."""
    rarity = Counter(cards[s.card].rarity for s in slots if s.card in cards)
    line = Counter(s.line for s in slots)
    return {
        "rarity": {name: rarity.get(name, 0) for name in RARITY_QUOTA},
        "line": {name: line.get(name, 0) for name in LINES},
    }


def validate_army(
    slots: list[Slot], cards: dict[str, ArmyCard], owned: dict[str, int] | None = None
) -> list[Violation]:
    """Every violation of R1–R4 in an army, in a stable order (R5: never only the first)."""
    violations: list[Violation] = []
    if len(slots) != ARMY_SIZE:
        violations.append(Violation(
            "army_size", f"An army has exactly {ARMY_SIZE} characters; this one has {len(slots)}.",
            expected=ARMY_SIZE, actual=len(slots),
        ))
    seen: dict[str, int] = {}
    for index, slot in enumerate(slots):
        card = cards.get(slot.card)
        if card is None:
            violations.append(Violation("unknown_card", f"No character card '{slot.card}'.", slot=index, card=slot.card))
            continue
        if slot.card in seen:
            violations.append(Violation(
                "duplicate_card",
                f"'{slot.card}' is already in the army (number {seen[slot.card] + 1} in army order); each card is a "
                "unique unit.",
                slot=index, card=slot.card,
            ))
        else:
            seen[slot.card] = index
        if not line_allows(card.position, slot.line):
            violations.append(Violation(
                "wrong_line", f"'{slot.card}' is a {card.position} card and cannot stand in the {slot.line}.",
                slot=index, card=slot.card,
            ))
        if owned is not None and owned.get(slot.card, 0) < 1:
            violations.append(Violation(
                "not_owned", f"'{slot.card}' is not in the collection.", slot=index, card=slot.card,
            ))
    counts = army_counts(slots, cards)
    for rarity, expected in RARITY_QUOTA.items():
        actual = counts["rarity"][rarity]
        if actual != expected:
            violations.append(Violation(
                "rarity_count", f"An army has {cards_of(expected, rarity)}; this one has {actual}.",
                expected=expected, actual=actual, extra={"rarity": rarity},
            ))
    for line in LINES:
        actual = counts["line"][line]
        if actual > LINE_CAPACITY:
            violations.append(Violation(
                "line_full", f"The {line} holds at most {LINE_CAPACITY} characters; this one has {actual}.",
                expected=LINE_CAPACITY, actual=actual, extra={"line": line},
            ))
    return violations


@dataclass(frozen=True)
class Deployment:
    player: str
    card: str
    line: str


@dataclass
class FormationStep:
    index: int
    deployment: Deployment
    violations: list[Violation]

    @property
    def legal(self) -> bool:
        return not self.violations


def _deployment_violation(code: str, army: list[_Deployed], slot: Slot, card: ArmyCard) -> Violation:
    """The violation a Formation Round code stands for, with its message and counts."""
    if code == "army_size":
        return Violation(code, f"This army already has {ARMY_SIZE} characters.", card=slot.card,
                         expected=ARMY_SIZE, actual=len(army) + 1)
    if code == "rarity_count":
        quota = RARITY_QUOTA.get(card.rarity, 0)
        held = sum(1 for s in army if s.rarity == card.rarity) + 1
        return Violation(code, f"An army has only {cards_of(quota, card.rarity)}; this would be number {held}.",
                         card=slot.card, expected=quota, actual=held, extra={"rarity": card.rarity})
    if code == "line_full":
        in_line = sum(1 for s in army if s.line == slot.line) + 1
        return Violation(code, f"The {slot.line} already holds {LINE_CAPACITY} characters.", card=slot.card,
                         expected=LINE_CAPACITY, actual=in_line, extra={"line": slot.line})
    messages = {
        "wrong_line": f"'{slot.card}' is a {card.position} card and cannot stand in the {slot.line}.",
        "duplicate_card": f"'{slot.card}' is already deployed.",
        "not_owned": f"'{slot.card}' is not in the collection.",
        "cannot_complete": f"With '{slot.card}' in the {slot.line}, the cards left cannot complete a legal army.",
    }
    return Violation(code, messages[code], card=slot.card)


@dataclass(frozen=True)
class _Deployed:
    """A deployed card with its line, as the Formation Round rules see it."""

    card: ArmyCard
    line: str

    @property
    def rarity(self) -> str:
        return self.card.rarity


def deployment_violations(army: list[_Deployed], slot: Slot, card: ArmyCard | None,
                          pool: list[ArmyCard]) -> list[Violation]:
    """R6: every reason deploying `slot` into a partly built army is illegal (`pool`: the player's cards)."""
    if card is None:
        return [Violation("unknown_card", f"No character card '{slot.card}'.", card=slot.card)]
    deployed = [(d.card, d.line) for d in army]
    return [_deployment_violation(code, army, slot, card)
            for code in deployment_problems(deployed, pool, card, slot.line)]


def validate_formation(
    first: str,
    deployments: list[Deployment],
    cards: dict[str, ArmyCard],
    pools: dict[str, list[ArmyCard]],
) -> tuple[list[FormationStep], dict[str, list[Slot]]]:
    """Replay a Formation Round step by step (`pools`: each player's cards); illegal steps are not applied."""
    armies: dict[str, list[_Deployed]] = {"a": [], "b": []}
    turn = first
    steps: list[FormationStep] = []
    for index, deployment in enumerate(deployments):
        violations: list[Violation] = []
        if deployment.player != turn:
            violations.append(Violation(
                "out_of_turn", f"It is player {turn}'s turn to deploy, not player {deployment.player}'s.",
                card=deployment.card,
            ))
        slot = Slot(deployment.card, deployment.line)
        card = cards.get(slot.card)
        violations += deployment_violations(armies[deployment.player], slot, card, pools[deployment.player])
        if not violations and card is not None:
            armies[deployment.player].append(_Deployed(card, slot.line))
            other = "b" if turn == "a" else "a"
            # Alternate; once one player has all seven, the other deploys the rest.
            if len(armies[other]) < ARMY_SIZE:
                turn = other
        steps.append(FormationStep(index, deployment, violations))
    return steps, {player: [Slot(d.card.slug, d.line) for d in army] for player, army in armies.items()}


class ArmyCodeError(ValueError):
    """A string that is not a valid army code."""


def _write_varint(value: int, out: bytearray) -> None:
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ArmyCodeError("The code ends in the middle of a number.")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ArmyCodeError("The code holds a number that is too large.")


def encode_army(entries: list[tuple[int, str]]) -> str:
    """A version-1 code (kept for the codes already shared): version, count, then card id*2+line each."""
    out = bytearray([LEGACY_CODE_VERSION])
    _write_varint(len(entries), out)
    for card_id, line in entries:
        _write_varint(card_id * 2 + LINES.index(line), out)
    return base64.urlsafe_b64encode(bytes(out)).decode().rstrip("=")


def _split_card_code(code: str) -> tuple[str, int]:
    prefix, _, number = code.rpartition("-")
    if not prefix or not number.isdigit() or int(number) < 1 or not prefix.isascii():
        raise ArmyCodeError(f"{code!r} is not a card code (like ER-CORE-017).")
    return prefix, int(number)


def canonical_slots(entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(card code, line) pairs in the order version-2 codes hold: by set prefix, collector number, then line."""
    def key(entry: tuple[str, str]) -> tuple[str, int, int]:
        prefix, number = _split_card_code(entry[0])
        return prefix, number, LINES.index(entry[1])
    return sorted(entries, key=key)


def encode_army_v2(entries: list[tuple[str, str]]) -> str:
    """A version-2 code (no longer written by the service; kept to make the codes already shared): version 2,
    then per set prefix (sorted) its name and its slots as collector number*2+line, in canonical order."""
    groups: dict[str, list[int]] = {}
    for card_code, line in canonical_slots(entries):
        prefix, number = _split_card_code(card_code)
        groups.setdefault(prefix, []).append(number * 2 + LINES.index(line))
    out = bytearray([CANONICAL_CODE_VERSION])
    _write_varint(len(groups), out)
    for prefix, values in groups.items():
        _write_set_name(prefix, out)
        _write_varint(len(values), out)
        for value in values:
            _write_varint(value, out)
    return base64.urlsafe_b64encode(bytes(out)).decode().rstrip("=")


def encode_army_v3(entries: list[tuple[str, str]]) -> str:
    """Encode (card code, line) pairs in army order, the order that settles a player's own SPD ties (R9).

    Version 3, then the set prefixes in the order the army first names them (each its length and ASCII
    name), the number of slots, and each slot in army order as one varint:
    (collector number*2 + line)*number of sets + index of its set. The same army in another order is
    another army, with another code.
    """
    prefixes: dict[str, int] = {}
    values: list[tuple[int, int]] = []
    for card_code, line in entries:
        prefix, number = _split_card_code(card_code)
        values.append((prefixes.setdefault(prefix, len(prefixes)), number * 2 + LINES.index(line)))
    out = bytearray([CODE_VERSION])
    _write_varint(len(prefixes), out)
    for prefix in prefixes:
        _write_set_name(prefix, out)
    _write_varint(len(values), out)
    sets = max(len(prefixes), 1)
    for index, value in values:
        _write_varint(value * sets + index, out)
    return base64.urlsafe_b64encode(bytes(out)).decode().rstrip("=")


def _write_set_name(prefix: str, out: bytearray) -> None:
    name = prefix.encode("ascii")
    _write_varint(len(name), out)
    out += name


def _code_bytes(code: str) -> bytes:
    if not isinstance(code, str) or not code or len(code) > MAX_ARMY_CODE_LENGTH:
        raise ArmyCodeError(f"An army code is a non-empty string of at most {MAX_ARMY_CODE_LENGTH} characters.")
    try:
        data = base64.b64decode(code + "=" * (-len(code) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ArmyCodeError("The code is not valid URL-safe base64.") from exc
    if not data:
        raise ArmyCodeError("The code is empty.")
    if data[0] > CODE_VERSION:
        raise ArmyCodeError(f"The code is of version {data[0]}, newer than this server reads (up to {CODE_VERSION}).")
    if data[0] not in READ_VERSIONS:
        raise ArmyCodeError(f"Unknown army code version {data[0]}.")
    return data


def _read_set_name(data: bytes, pos: int) -> tuple[str, int]:
    length, pos = _read_varint(data, pos)
    name = data[pos:pos + length]
    pos += length
    if len(name) != length or not length:
        raise ArmyCodeError("The code ends in the middle of a set name.")
    try:
        return name.decode("ascii"), pos
    except UnicodeDecodeError as exc:
        raise ArmyCodeError("The code names a set in characters card codes never use.") from exc


def _slot_entry(prefix: str, value: int) -> tuple[str, str]:
    """The (card code, line) a slot's collector number*2+line stands for."""
    if value // 2 < 1:
        raise ArmyCodeError("The code names collector number 0.")
    return f"{prefix}-{value // 2:03d}", LINES[value % 2]


def decode_army_code(code: str) -> tuple[int, list[tuple[int | str, str]]]:
    """The version of an army code and its slots in the order the code holds them: (card id, line) for
    version 1 (the order it was written in), (card code, line) for version 2 (canonical order) and 3 (army
    order)."""
    data = _code_bytes(code)
    if data[0] == LEGACY_CODE_VERSION:
        return LEGACY_CODE_VERSION, list(decode_army(code))
    if data[0] == CANONICAL_CODE_VERSION:
        return CANONICAL_CODE_VERSION, _decode_v2(data)
    return CODE_VERSION, _decode_v3(data)


def _read_count(data: bytes, pos: int, what: str, already: int = 0) -> tuple[int, int]:
    """A count of sets or cards, bounded (with `already` counted before it), and the position after it."""
    count, pos = _read_varint(data, pos)
    if count + already > MAX_CODE_SLOTS:
        raise ArmyCodeError(f"The code claims too many {what}.")
    return count, pos


def _at_end(data: bytes, pos: int) -> None:
    """ArmyCodeError when the code goes on after its last slot."""
    if pos != len(data):
        raise ArmyCodeError("The code has trailing data.")


def _decode_v2(data: bytes) -> list[tuple[int | str, str]]:
    groups, pos = _read_count(data, 1, "sets")
    entries: list[tuple[int | str, str]] = []
    for _ in range(groups):
        prefix, pos = _read_set_name(data, pos)
        count, pos = _read_count(data, pos, "cards", len(entries))
        for _ in range(count):
            value, pos = _read_varint(data, pos)
            entries.append(_slot_entry(prefix, value))
    _at_end(data, pos)
    return entries


def _decode_v3(data: bytes) -> list[tuple[int | str, str]]:
    sets, pos = _read_count(data, 1, "sets")
    prefixes = []
    for _ in range(sets):
        prefix, pos = _read_set_name(data, pos)
        if prefix in prefixes:
            raise ArmyCodeError(f"The code names the set {prefix} twice.")
        prefixes.append(prefix)
    count, pos = _read_count(data, pos, "cards")
    if count and not prefixes:
        raise ArmyCodeError("The code names cards but no set.")
    entries: list[tuple[int | str, str]] = []
    for _ in range(count):
        value, pos = _read_varint(data, pos)
        entries.append(_slot_entry(prefixes[value % sets], value // sets))
    _at_end(data, pos)
    return entries


def decode_army(code: str) -> list[tuple[int, str]]:
    """Decode a version-1 army code into (card id, line) pairs; ArmyCodeError when it is not one."""
    data = _code_bytes(code)
    if data[0] != LEGACY_CODE_VERSION:
        raise ArmyCodeError(f"Not a version-{LEGACY_CODE_VERSION} army code.")
    count, pos = _read_count(data, 1, "cards")
    entries = []
    for _ in range(count):
        value, pos = _read_varint(data, pos)
        if value // 2 > MAX_CARD_ID:
            raise ArmyCodeError(f"The code names a card id larger than {MAX_CARD_ID}.")
        entries.append((value // 2, LINES[value % 2]))
    _at_end(data, pos)
    return entries

