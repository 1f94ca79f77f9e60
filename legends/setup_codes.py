"""Setup codes: a team setup as a URL-safe string built from card codes (AL-EOTP-001), so it means the same
setup on every server: base64url (no padding) of compact JSON `[version, mode, teams]`, each team
`[spirit, [[name, counter], ...], protector, defenses]` with card codes (null where the setup leaves a card
to draw) and its defenses sorted, so the same setup always gives the same code."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from cardsdb.models import Card
from legends.choices import Mode
from legends.engine.setup import SetupFormatError, Team, parse_teams, team_as_dict

SETUP_CODE_VERSION = 1
MAX_SETUP_CODE_LENGTH = 4000
# The packed forms, field by field (the module docstring): a code, one of its teams, one of a team's players.
PACKED_CODE = ("version", "mode", "teams")
PACKED_TEAM = ("spirit", "players", "protector", "defenses")
PACKED_PLAYER = ("name", "counter")


class SetupCodeError(ValueError):
    """A string that is not a setup code of this catalogue."""


def _card_map(*, slugs: Sequence[str] = (), codes: Sequence[str] = ()) -> dict[str, str]:
    rows = Card.objects.filter(game="legends")
    if slugs:
        return dict(rows.filter(slug__in=set(slugs)).values_list("slug", "code"))
    return dict(rows.filter(code__in=set(codes)).values_list("code", "slug"))


def all_card_codes() -> dict[str, str]:
    """Slug to code of every Akin Legends card (one query), to encode many setups with one read."""
    return dict(Card.objects.filter(game="legends").values_list("slug", "code"))


def encode_setup(mode: str, teams: Sequence[Team], card_codes: dict[str, str] | None = None) -> str | None:
    """The setup code, or None while the setup names a card this catalogue does not have."""
    named = [s for t in teams for s in (t.spirit, t.protector, *(t.defenses or ())) if s]
    codes = card_codes if card_codes is not None else _card_map(slugs=named)
    if any(slug not in codes for slug in named):
        return None
    packed = [
        [codes.get(t.spirit) if t.spirit else None, [[p.name, p.counter] for p in t.players],
         codes.get(t.protector) if t.protector else None,
         None if t.defenses is None else sorted(codes[d] for d in t.defenses)]
        for t in teams
    ]
    text = json.dumps([SETUP_CODE_VERSION, mode, packed], separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_setup(code: str) -> tuple[str, tuple[Team, ...]]:
    """The mode and teams a setup code stands for; SetupCodeError when it is not one of this catalogue."""
    mode, packed = _unpacked(_decoded(code))
    named = _card_codes_named(packed)
    slugs = _card_map(codes=named)
    missing = sorted({c for c in named if c not in slugs})
    if missing:
        raise SetupCodeError(f"The code names cards this catalogue does not have: {', '.join(missing)}.")
    try:
        return mode, parse_teams([_team_data(team, slugs) for team in packed])
    except SetupFormatError as exc:
        raise SetupCodeError(f"The code holds a malformed setup: {exc}") from exc


def _decoded(code: str) -> Any:
    """The JSON a code carries (URL-safe base64, padding optional)."""
    if not isinstance(code, str) or not code or len(code) > MAX_SETUP_CODE_LENGTH:
        raise SetupCodeError(f"A setup code is a non-empty string of at most {MAX_SETUP_CODE_LENGTH} characters.")
    try:
        return json.loads(base64.b64decode(code + "=" * (-len(code) % 4), altchars=b"-_", validate=True))
    except (binascii.Error, ValueError, RecursionError) as exc:
        raise SetupCodeError("The code is not a setup code (URL-safe base64 of JSON).") from exc


def _version(data: Any) -> int:
    """The version a decoded code declares (its first item), refused when this server cannot read it."""
    if not isinstance(data, list) or not data or not isinstance(data[0], int) or isinstance(data[0], bool):
        raise SetupCodeError("The code is not a setup code.")
    if data[0] > SETUP_CODE_VERSION:
        raise SetupCodeError(f"The code is of version {data[0]}, newer than this server reads (up to {SETUP_CODE_VERSION}).")
    return data[0]


def _unpacked(data: Any) -> tuple[str, list[Any]]:
    """The mode and packed teams of `[version, mode, teams]`."""
    version = _version(data)
    if version != SETUP_CODE_VERSION or len(data) != len(PACKED_CODE) or not isinstance(data[1], str) or not isinstance(data[2], list):
        raise SetupCodeError("The code is not a setup code of a known version.")
    if data[1] not in Mode.values:
        raise SetupCodeError(f"The code names an unknown mode {data[1]!r}.")
    return data[1], data[2]


def _card_codes_named(packed: list[Any]) -> list[str]:
    """Every card code the packed teams name (spirit, protector, defenses), once each team's shape is checked."""
    named: list[str] = []
    for team in packed:
        if (not isinstance(team, list) or len(team) != len(PACKED_TEAM) or not isinstance(team[1], list)
                or not (team[3] is None or isinstance(team[3], list))):
            raise SetupCodeError("The code holds a team in an unknown shape.")
        for value in (team[0], team[2], *(team[3] or [])):
            if value is not None and not isinstance(value, str):
                raise SetupCodeError("The code names a card by something other than its code.")
            if value:
                named.append(value)
    return named


def _team_data(team: list[Any], slugs: dict[str, str]) -> dict[str, Any]:
    """A packed team `[spirit, [[name, counter], ...], protector, defenses]` as the setup's team dict (slugs)."""
    spirit, players, protector, defenses = team
    return {
        "spirit": slugs.get(spirit) if spirit else None,
        "players": [dict(zip(PACKED_PLAYER, p, strict=True)) if isinstance(p, list) and len(p) == len(PACKED_PLAYER)
                    else p for p in players],
        "protector": slugs.get(protector) if protector else None,
        "defenses": None if defenses is None else [slugs[c] for c in defenses],
    }


def teams_as_dicts(teams: Sequence[Team]) -> list[dict[str, Any]]:
    return [team_as_dict(team) for team in teams]
