"""The official Akin Legends set (fixtures/legends_official.json) follows every catalogue rule."""

import io
import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from django.core.management import call_command

from cardsdb.models import Card, CardSet
from legends.engine.protectors import parse_protector_effect
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard
from tests.conftest import official_fixture_files

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "legends_official.json"


def all_cards():
    for model in (Spirit, Protector, DefenseCard, SummoningCard):
        yield from model.objects.all()


def test_the_four_official_elements(catalogue):
    assert list(Element.objects.values_list("slug", "name", "order")) == [
        ("fire", "Fire", 1), ("water", "Water", 2), ("earth", "Earth", 3), ("air", "Air", 4),
    ]
    for element in Element.objects.all():
        element.full_clean()
        assert element.icon and element.color.startswith("#")


def test_both_spirits(catalogue):
    assert sorted(Spirit.objects.values_list("slug", flat=True)) == ["akin", "yulin"]


def test_protectors_are_distinct_runnable_effects_including_spy(catalogue):
    protectors = list(Protector.objects.all())
    assert len(protectors) >= 6
    effects = [parse_protector_effect(p.effect, elements=set(Element.objects.values_list("slug", flat=True)))
               for p in protectors]
    assert len(set(effects)) == len(effects), "two protectors share one effect"
    assert len({effect.kind for effect in effects}) >= 6
    spy = Protector.objects.get(slug="spy")
    assert spy.duel_legal is False and spy.effect["kind"] == "reveal_facedown"
    assert list(Protector.objects.filter(duel_legal=False)) == [spy]
    assert all(p.rules_text for p in protectors)


def test_defenses_cover_every_pair_of_different_elements(catalogue):
    defenses = list(DefenseCard.objects.select_related("element_1", "element_2"))
    assert len(defenses) >= 12
    pairs = Counter(frozenset((d.element_1.slug, d.element_2.slug)) for d in defenses)
    assert all(len(pair) == 2 for pair in pairs)
    slugs = Element.objects.values_list("slug", flat=True)
    assert set(pairs) == {frozenset(pair) for pair in combinations(slugs, 2)}
    assert set(pairs.values()) == {2}


def test_the_summoning_deck_is_large_and_balanced(catalogue):
    cards = list(SummoningCard.objects.select_related("attack_1", "attack_2", "effect_element"))
    deck = sum(card.copies for card in cards)
    assert deck >= 60 and deck == 72
    attack_faces: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    effect_elements: Counter[str] = Counter()
    effects: Counter[tuple[str, str]] = Counter()
    doubles = 0
    for card in cards:
        attack_faces[card.attack_1.slug] += card.copies
        attack_faces[card.attack_2.slug] += card.copies
        kinds[card.effect_kind] += card.copies
        effect_elements[card.effect_element.slug] += card.copies
        effects[(card.effect_kind, card.effect_element.slug)] += card.copies
        doubles += card.copies if card.attack_1_id == card.attack_2_id else 0
    # The table in docs/legends-catalogue.md.
    assert attack_faces == {"fire": 36, "water": 36, "earth": 36, "air": 36}
    assert kinds == {"defense": 24, "healing": 24, "boost": 24}
    assert effect_elements == {"fire": 18, "water": 18, "earth": 18, "air": 18}
    assert set(effects.values()) == {6} and len(effects) == 12
    assert doubles == 24


def test_every_card_passes_the_model_rules_and_prints_its_own_text(catalogue):
    legends_set = CardSet.objects.get(code="al-eotp")
    cards = list(all_cards())
    assert len(cards) == Card.objects.filter(game="legends").count() == 2 + 9 + 12 + 60
    for card in cards:
        card.full_clean()
        assert card.game == "legends" and card.rarity_id is None and card.card_set == legends_set
        composed = card.compose_rules_text()
        assert composed is None or composed == card.rules_text, card.slug


def test_fixture_rows_are_complete_for_loaddata():
    # loaddata does not run save(): every shared field and time stamp is written out.
    rows = json.loads(FIXTURE.read_text())
    cards = [row for row in rows if row["model"] == "cardsdb.card"]
    children = {row["pk"]: row["model"] for row in rows if row["model"].startswith("legends.") and
                row["model"] != "legends.element"}
    assert {row["pk"] for row in cards} == set(children)
    assert min(children) >= 2001
    for row in cards:
        fields = row["fields"]
        assert fields["game"] == "legends" and fields["card_set"] == 2 and fields["rarity"] is None
        assert fields["image"] == "" and fields["thumbnail"] == ""
        assert fields["created_at"] == fields["updated_at"] == "2026-01-01T00:00:00Z"


def test_loading_twice_changes_nothing(db):
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    first = list(Card.objects.order_by("pk").values())
    legends_first = list(SummoningCard.objects.order_by("pk").values())
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    assert list(Card.objects.order_by("pk").values()) == first
    assert list(SummoningCard.objects.order_by("pk").values()) == legends_first


# ------------------------------------------------------------------ the Wanderer's text, reprinted

PREVIOUS_WANDERER = "A player of the team who redraws may discard and draw up to 5 cards instead of 3."
WANDERER = "A player of the team who redraws may discard and draw 3 to 5 cards instead of exactly 3."


def previous_release(tmp_path: Path) -> list[str]:
    """The official fixtures as the release before printed the Wanderer ("up to 5": never 1 or 2)."""
    folder = tmp_path / "previous"
    folder.mkdir()
    paths = []
    for path in map(Path, official_fixture_files()):
        rows = json.loads(path.read_text())
        for row in rows:
            if row["model"] == "cardsdb.card" and row["fields"].get("slug") == "wanderer":
                row["fields"]["rules_text"] = PREVIOUS_WANDERER
        (folder / path.name).write_text(json.dumps(rows, indent=1, ensure_ascii=False))
        paths.append(str(folder / path.name))
    return paths


def update_official() -> str:
    out = io.StringIO()
    call_command("update_official", "--apply", stdout=out)  # this release: the project's fixtures
    return out.getvalue()


def test_an_update_reprints_an_unedited_wanderer(tmp_path):
    call_command("load_official", *previous_release(tmp_path), verbosity=0)
    assert Protector.objects.get(slug="wanderer").rules_text == PREVIOUS_WANDERER
    out = update_official()
    lines = out.splitlines()
    assert lines[0] == "update    cardsdb.card 2010 (Wanderer)"
    assert lines[1].startswith("    rules_text: 'A player of the team who redraws may discard and draw up to 5")
    assert "-> 'A player of the team who redraws may discard and draw 3 to 5" in lines[1]  # long texts are cut
    assert "Applied: 1 rows updated, 0 created; 0 conflicts" in out
    wanderer = Protector.objects.get(slug="wanderer")
    assert wanderer.rules_text == WANDERER == wanderer.compose_rules_text()


def test_an_update_keeps_a_wanderer_staff_edited(tmp_path):
    call_command("load_official", *previous_release(tmp_path), verbosity=0)
    wanderer = Protector.objects.get(slug="wanderer")
    wanderer.flavor_text = "Staff wording."
    wanderer.full_clean()
    wanderer.save()  # as the admin saves it: the printed text is composed again from the spec
    out = update_official()
    assert "conflict  cardsdb.card 2010 (Wanderer): edited since it was loaded; kept as it is" in out.splitlines()
    wanderer.refresh_from_db()
    assert (wanderer.flavor_text, wanderer.rules_text) == ("Staff wording.", WANDERER)
