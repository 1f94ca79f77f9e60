"""The protector effect spec: every kind parses, every mistake is reported with its path."""

from typing import Any

import pytest

from legends.engine.protectors import (
    HOOKS,
    KINDS,
    ProtectorEffect,
    SpecError,
    describe_protector_effect,
    parse_protector_effect,
)

ELEMENTS = {"fire", "water", "earth", "air"}
NAMES = {"fire": "Fire", "water": "Water", "earth": "Earth", "air": "Air"}

# One valid spec per kind, and the plain words each one prints.
VALID: dict[str, tuple[dict[str, Any], str]] = {
    "reveal_facedown": (
        {"kind": "reveal_facedown", "when": "before_second_turns"},
        "Once per round, during the face-down turns, the team looks at one face-down card an opponent played "
        "this round, before its own next face-down card. Teams mode only.",
    ),
    "heal_marker": (
        {"kind": "heal_marker", "when": "round_start", "count": 2, "element": "water"},
        "At the start of each round, remove 2 Water markers from the team's defenses.",
    ),
    "boost_first_attack": (
        {"kind": "boost_first_attack", "when": "showdown_boosts", "amount": 1, "element": "fire"},
        "In each showdown, the team's first Fire attack (in turn order) gets +1 strength.",
    ),
    "cancel_attack": (
        {"kind": "cancel_attack", "when": "showdown_defenses", "count": 1, "element": "any"},
        "In each showdown, cancel 1 strength point of the opposing team's attacks of any element, "
        "like a free defense card.",
    ),
    "extra_draw": (
        {"kind": "extra_draw", "when": "round_end", "count": 1, "max_hand": 8},
        "At the end of each round, each player of the team draws 1 extra card, without going above 8 cards in hand.",
    ),
    "redraw_size": (
        {"kind": "redraw_size", "when": "redraw", "count": 5},
        "A player of the team who redraws may discard and draw 3 to 5 cards instead of exactly 3.",
    ),
    "pierce_defense": (
        {"kind": "pierce_defense", "when": "showdown_defenses", "count": 2, "element": "earth"},
        "In each showdown, the first 2 opposing Earth defense cards that would cancel a strength point of the "
        "team's attacks cancel nothing.",
    ),
}


def errors_of(raw, elements=ELEMENTS) -> dict[str, str]:
    with pytest.raises(SpecError) as info:
        parse_protector_effect(raw, elements=elements)
    return dict(info.value.errors)


def test_every_kind_has_a_valid_example_and_a_hook():
    assert set(VALID) == set(KINDS)
    assert {spec.when for spec in KINDS.values()} <= set(HOOKS)


@pytest.mark.parametrize("kind", sorted(VALID))
def test_each_kind_parses_and_is_described_in_plain_words(kind):
    raw, text = VALID[kind]
    effect = parse_protector_effect(raw, elements=ELEMENTS)
    assert isinstance(effect, ProtectorEffect)
    assert effect.kind == kind and effect.when == raw["when"]
    assert describe_protector_effect(effect, NAMES) == text


def test_parsed_values_are_kept():
    effect = parse_protector_effect(VALID["extra_draw"][0])
    assert (effect.count, effect.max_hand, effect.amount, effect.element) == (1, 8, 0, "")
    boost = parse_protector_effect(VALID["boost_first_attack"][0])
    assert boost.amount == 1 and boost.element == "fire"
    assert boost.matches("fire") and not boost.matches("water")
    assert parse_protector_effect(VALID["cancel_attack"][0]).matches("water")


def test_only_the_spy_effect_is_teams_only():
    teams_only = {kind for kind, (raw, _) in VALID.items() if parse_protector_effect(raw).teams_only}
    assert teams_only == {"reveal_facedown"}


@pytest.mark.parametrize("raw", [None, [], "reveal_facedown", 3])
def test_a_spec_must_be_an_object(raw):
    assert errors_of(raw) == {"effect": "must be an object"}


def test_kind_is_required_and_must_be_known():
    assert errors_of({"when": "round_start"}) == {"effect.kind": "is required"}
    assert "must be one of" in errors_of({"kind": "fireball", "when": "round_start"})["effect.kind"]


def test_every_problem_is_reported_at_once_with_its_path():
    errors = errors_of({"kind": "extra_draw", "when": "round_start", "count": "one", "colour": "red"})
    assert errors == {
        "effect.colour": "is not a known field",
        "effect.when": "the extra_draw effect runs at round_end (got 'round_start')",
        "effect.count": "must be an integer",
        "effect.max_hand": "is required",
    }


def test_hook_must_exist():
    errors = errors_of({"kind": "redraw_size", "when": "teatime", "count": 5})
    assert errors["effect.when"].startswith("must be one of round_start")
    assert errors_of({"kind": "redraw_size", "count": 5}) == {"effect.when": "is required"}


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("count", 0, "must be between 4 and 7"),
        ("count", 8, "must be between 4 and 7"),
        ("count", True, "must be an integer"),
        ("count", 4.5, "must be an integer"),
    ],
)
def test_integer_bounds(field, value, reason):
    raw = {"kind": "redraw_size", "when": "redraw", field: value}
    assert errors_of(raw) == {f"effect.{field}": reason}


def test_elements_are_checked_against_the_catalogue():
    raw = {"kind": "heal_marker", "when": "round_start", "count": 1, "element": "lightning"}
    assert errors_of(raw)["effect.element"].startswith("unknown element 'lightning'")
    # Without a catalogue any slug passes (the engine checks shapes only).
    assert parse_protector_effect(raw).element == "lightning"
    assert errors_of({**raw, "element": ""})["effect.element"] == "must be an element slug or 'any'"
    assert errors_of({**raw, "element": 7})["effect.element"] == "must be an element slug or 'any'"
    missing = {key: value for key, value in raw.items() if key != "element"}
    assert errors_of(missing) == {"effect.element": "is required"}


def test_element_is_not_a_field_of_kinds_without_one():
    raw = {**VALID["reveal_facedown"][0], "element": "fire"}
    assert errors_of(raw) == {"effect.element": "is not a known field"}


def test_custom_path_prefixes_errors():
    with pytest.raises(SpecError) as info:
        parse_protector_effect({"kind": "pierce_defense", "when": "showdown_defenses", "element": "any"},
                               path="cards[2].effect")
    assert info.value.errors == [("cards[2].effect.count", "is required")]
    assert "cards[2].effect.count: is required" in str(info.value)


def test_the_spy_looks_at_one_card_so_a_count_is_refused():
    # L13: one face-down card a round. A count (even 1) would pretend it could be more.
    for count in (1, 2):
        assert errors_of({"kind": "reveal_facedown", "when": "before_second_turns", "count": count}) == {
            "effect.count": "is not a parameter: the Spy looks at exactly one face-down card a round (L13)"}


def test_no_effect_kind_runs_at_allocation_or_raises_the_cap():
    # L9 step 4's cap is absolute: no hook at allocation, and the old extra-marker kind is gone.
    assert "allocation" not in HOOKS
    assert all(spec.when != "allocation" for spec in KINDS.values())
    assert "must be one of" in errors_of({"kind": "extra_marker", "when": "allocation", "count": 1})["effect.kind"]
    assert "must be one of" in errors_of({"kind": "pierce_defense", "when": "allocation", "count": 1,
                                          "element": "any"})["effect.when"]
