"""Echo Realms card faces: PNG output drawn from a character's data."""

import importlib.util
import io
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import RequestFactory
from PIL import Image, ImageDraw

from cardsdb.models import CardSet, Faction, Rarity
from cardsdb.rendering import (
    CARD_SIZE,
    cached_card_png,
    ellipsize,
    fit_text,
    font,
    hex_to_rgb,
    printable,
    wrap_text,
)
from realms.models import Character, Race
from realms.rendering import (
    ART,
    HEADER,
    STATS,
    TEXT_BOX,
    abilities_layout,
    faction_initials,
    render_character_card,
)
from tests.conftest import official_fixture_files

pytestmark = pytest.mark.django_db

ARCANE = "#7e57c2"
COMMON = "#9e9e9e"
LEGENDARY = "#fb8c00"
ART_COLOUR = (12, 200, 180)
BADGE_POINT = (HEADER[0] + 34, HEADER[1] + 8)  # inside the faction badge, above its initials

RUNE_STORM = {
    "name": "Rune Storm",
    "text": "Deals 130% ATK to every enemy in the target's line.",
    "choose": "enemy",
    "effects": [{"kind": "damage", "target": "target_line", "scale": 1.3}],
}
RUNIC_FOCUS = {
    "name": "Runic Focus",
    "text": "At battle start, reduce own cooldown by 1.",
    "trigger": "battle_start",
    "effects": [{"kind": "cooldown", "target": "self", "amount": -1}],
}


@pytest.fixture
def refs() -> dict:
    return {
        "race": Race.objects.create(slug="human", name="Human"),
        "faction": Faction.objects.create(
            slug="arcane", name="Arcane", icon="🔮", identity="Magic, knowledge, and runes",
            description="Scholars and mages.", color=ARCANE,
        ),
        "common": Rarity.objects.create(slug="common", name="Common", order=1, color=COMMON),
        "legendary": Rarity.objects.create(slug="legendary", name="Legendary", order=4, color=LEGENDARY),
        "card_set": CardSet.objects.create(code="er-test", name="Test set", game="realms", release_date="2026-01-01"),
    }


@pytest.fixture
def make_character(refs):
    counter = iter(range(1, 1000))

    def make(rarity: str = "legendary", **overrides) -> Character:
        n = next(counter)
        fields = {
            "name": "Merlin, Archmage of Runes",
            "slug": f"merlin-{n}",
            "card_set": refs["card_set"],
            "rarity": refs[rarity],
            "race": refs["race"],
            "faction": refs["faction"],
            "character_class": "mage",
            "position": "rearguard",
            "attack": 24,
            "defense": 8,
            "speed": 14,
            "health": 52,
            "cooldown": 2,
            "main_ability": RUNE_STORM,
            "faction_ability": RUNIC_FOCUS,
            "flavor_text": "The runes remember every word ever spoken.",
        }
        fields.update(overrides)
        return Character.objects.create(**fields)

    return make


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image.convert("RGB")


def region(image: Image.Image, box) -> bytes:
    return image.crop(tuple(round(v) for v in box)).tobytes()


def solid_png(color: tuple[int, int, int], size: tuple[int, int] = (300, 400)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def test_renders_a_png_of_card_size(make_character):
    png = render_character_card(make_character())
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.size == CARD_SIZE == (500, 700)
    assert image.mode in ("RGB", "RGBA")


def test_frame_is_drawn_in_the_rarity_colour(make_character):
    legendary = decode(render_character_card(make_character("legendary")))
    common = decode(render_character_card(make_character("common")))
    width, height = CARD_SIZE
    frame_points = [(5, y) for y in range(5, height - 5, 25)] + [(width - 6, 350), (250, 5), (250, height - 6)]
    for point in frame_points:
        assert legendary.getpixel(point) == hex_to_rgb(LEGENDARY), point
        assert common.getpixel(point) == hex_to_rgb(COMMON), point
    assert legendary.getpixel((5, 350)) != common.getpixel((5, 350))


def test_faction_colour_is_the_accent(make_character, refs):
    image = decode(render_character_card(make_character()))
    arcane = hex_to_rgb(ARCANE)
    # The initials badge (left of the name) is filled with it...
    assert image.getpixel(BADGE_POINT) == arcane
    # ...and so are the faction name pill and the faction ability tag: well over a badge's worth of pixels.
    counts = {color: count for count, color in image.getcolors(maxcolors=500_000)}
    assert counts.get(arcane, 0) > 2500

    refs["faction"].color = "#00838f"
    refs["faction"].save()
    recoloured = decode(render_character_card(Character.objects.get(pk=make_character().pk)))
    assert recoloured.getpixel(BADGE_POINT) == (0, 131, 143)
    assert arcane not in {color for _, color in recoloured.getcolors(maxcolors=500_000)}


def test_uploaded_art_is_pasted_into_the_art_box(make_character, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    character = make_character()
    centre = ((ART[0] + ART[2]) // 2, (ART[1] + ART[3]) // 2)
    placeholder = decode(render_character_card(character))
    assert placeholder.getpixel(centre) != ART_COLOUR

    character.image = SimpleUploadedFile("art.png", solid_png(ART_COLOUR), content_type="image/png")
    character.save()
    stored = Character.objects.get(pk=character.pk)
    assert stored.image.name.startswith("cards/")
    image = decode(render_character_card(stored))
    for point in (centre, (ART[0] + 60, ART[1] + 40), (ART[2] - 60, ART[1] + 40)):
        assert image.getpixel(point) == ART_COLOUR, point
    # Outside the art box nothing changed.
    assert region(image, (0, 0, CARD_SIZE[0], ART[1] - 3)) == region(placeholder, (0, 0, CARD_SIZE[0], ART[1] - 3))


def test_missing_art_file_falls_back_to_the_placeholder(make_character, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    character = make_character()
    placeholder = render_character_card(character)
    Character.objects.filter(pk=character.pk).update(image="cards/gone.png")
    assert render_character_card(Character.objects.get(pk=character.pk)) == placeholder


def test_placeholder_differs_by_class(make_character):
    mage = decode(render_character_card(make_character(character_class="mage")))
    archer = decode(render_character_card(make_character(character_class="archer")))
    assert region(mage, ART) != region(archer, ART)


def test_each_stat_is_drawn_in_its_own_box(make_character):
    base = decode(render_character_card(make_character()))
    stronger = decode(render_character_card(make_character(attack=7)))
    quarter = (STATS[2] - STATS[0]) / 4
    atk_box = (STATS[0], STATS[1], STATS[0] + quarter - 5, STATS[3])
    others = (STATS[0] + quarter + 5, STATS[1], STATS[2], STATS[3])
    assert region(base, atk_box) != region(stronger, atk_box)
    assert region(base, others) == region(stronger, others)


def test_cooldown_is_shown(make_character):
    quick = decode(render_character_card(make_character(cooldown=1)))
    slow = decode(render_character_card(make_character(cooldown=3)))
    gem = (HEADER[2] - 64, HEADER[1], HEADER[2], HEADER[3])
    assert region(quick, gem) != region(slow, gem)
    assert region(quick, TEXT_BOX) != region(slow, TEXT_BOX)  # the main ability's "CD n" tag


def test_long_name_stays_inside_the_name_plate(make_character):
    short = decode(render_character_card(make_character(name="Grom")))
    badge = (HEADER[0], HEADER[1], HEADER[0] + 64, HEADER[3])
    gem = (HEADER[2] - 64, HEADER[1], HEADER[2], HEADER[3])
    for name in ("Azrakor the Unending " * 6, "X" * 120, "Merlin, " + "Archmage of the Thousand Runes " * 3):
        image = decode(render_character_card(make_character(name=name[:120])))
        assert image.size == CARD_SIZE
        assert region(image, badge) == region(short, badge)
        assert region(image, gem) == region(short, gem)
        assert region(image, (0, HEADER[3] + 1, 500, 700)) == region(short, (0, HEADER[3] + 1, 500, 700))


def test_long_texts_stay_inside_the_text_box(make_character):
    short = decode(render_character_card(make_character(flavor_text="")))
    huge = decode(render_character_card(make_character(
        main_ability={**RUNE_STORM, "name": "Cataclysm " * 12, "text": "Deals 200% ATK to all enemies. " * 60},
        faction_ability={**RUNIC_FOCUS, "name": "Pact " * 20, "text": "Z" * 1500},
        flavor_text="It will not fit. " * 50,
    )))
    assert huge.size == CARD_SIZE
    above, below = (0, 0, 500, TEXT_BOX[1] - 1), (0, TEXT_BOX[3] + 1, 500, 700)
    assert region(huge, above) == region(short, above)
    assert region(huge, below) == region(short, below)
    # The box is full of ink, yet its border is intact.
    border = (TEXT_BOX[0], TEXT_BOX[1], TEXT_BOX[2], TEXT_BOX[1] + 4)
    assert region(huge, border) == region(short, border)
    assert region(huge, TEXT_BOX) != region(short, TEXT_BOX)


def test_odd_data_still_renders(make_character):
    character = make_character(
        name="Séraphine — Dawn’s Mercy 🌞", flavor_text="", faction_ability={"name": "", "text": ""},
        main_ability={"name": "Ω", "text": "\n\n"}, character_class="assassin", position="flex",
    )
    assert decode(render_character_card(character)).size == CARD_SIZE
    character.rarity = None
    assert decode(render_character_card(character)).size == CARD_SIZE


def test_rendering_is_deterministic(make_character):
    character = make_character()
    first = render_character_card(character)
    assert render_character_card(character) == first
    assert render_character_card(Character.objects.get(pk=character.pk)) == first


def test_served_through_the_card_cache(make_character):
    character = make_character()
    request = RequestFactory().get("/card.png")
    response = cached_card_png(request, character, render_character_card)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content == render_character_card(character)
    again = RequestFactory().get("/card.png", HTTP_IF_NONE_MATCH=response["ETag"])
    assert cached_card_png(again, character, render_character_card).status_code == 304


def test_text_helpers_keep_text_inside_its_width():
    draw = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    text_font = font(16)
    lines = wrap_text(draw, "Short words then " + "W" * 200 + " and more", text_font, 120)
    assert len(lines) > 5 and all(draw.textlength(line, font=text_font) <= 120 for line in lines)
    assert "".join(lines).replace(" ", "") == ("Shortwordsthen" + "W" * 200 + "andmore")

    cut = ellipsize(draw, "A rather long ability name indeed", text_font, 100)
    assert cut.endswith("…") and draw.textlength(cut, font=text_font) <= 100

    chosen, fitted = fit_text(draw, "word " * 400, 200, 60, [16, 14, 12], spacing=2)
    assert chosen.size == 12 and fitted[-1].endswith("…")
    assert len(fitted) * (12 + 2) - 2 <= 60

    # DejaVu Sans draws these; what it lacks becomes a stand-in or is dropped, never a box.
    assert printable("Séraphine — Dawn’s") == "Séraphine — Dawn’s"
    assert printable("Fire 🔥") == "Fire "
    assert printable("龍") == "?"


def test_faction_initials():
    assert faction_initials("Iron Kingdom") == "IK"
    assert faction_initials("Arcane") == "Ar"
    assert faction_initials("🌊") == "?"


def official_characters() -> list[Character]:
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    characters = list(Character.objects.select_related("race", "faction", "rarity", "card_set"))
    assert len(characters) >= 64, f"only {len(characters)} characters in the official fixtures"
    return characters


def test_every_official_character_renders():
    for character in official_characters():
        image = decode(render_character_card(character))
        assert image.size == CARD_SIZE, character.slug
        assert image.getpixel((5, 350)) == hex_to_rgb(character.rarity.color), character.slug
        assert image.getpixel(BADGE_POINT) == hex_to_rgb(character.faction.color), character.slug


def test_every_official_face_prints_both_ability_texts_whole():
    short = []
    for character in official_characters():
        layout = abilities_layout(character)
        printed = [" ".join(lines) for lines in layout.lines]
        texts = [printable(character.faction_ability["text"]), printable(character.main_ability["text"])]
        if not layout.whole or printed != texts:
            short.append((character.slug, layout.size, printed))
    assert short == []


def test_a_text_too_long_for_the_face_is_cut_short():
    character = Character(faction_ability={"name": "Calm", "text": "Waits."}, cooldown=2, flavor_text="Long.",
                          main_ability={**RUNE_STORM, "text": "Deals 200% ATK to all enemies. " * 20})
    layout = abilities_layout(character)
    assert not layout.whole and layout.lines[1][-1].endswith("…") and layout.flavor == []


# The renderers as they were before they moved onto the shared drawing toolkit. Faces drawn by the
# current code must match theirs pixel for pixel for as long as the layout version is the same.
REFERENCE_COMMIT = "4ec5806d1a5a7758557f47476ed186a196b0f9fd"
REFERENCE_TOOLKIT = "cardsdb/rendering.py"
ROOT = Path(__file__).resolve().parents[2]


def _reference_source(path: str) -> str:
    try:
        shown = subprocess.run(["git", "show", f"{REFERENCE_COMMIT}:{path}"], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
    except OSError as error:
        pytest.skip(f"git is not available: {error}")
    if shown.returncode:
        pytest.skip(f"reference commit not in this checkout: {shown.stderr.strip()}")
    return shown.stdout


def _load(name: str, source: str, directory: Path, monkeypatch) -> ModuleType:
    directory.mkdir(parents=True, exist_ok=True)
    file = directory / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def reference_renderer(path: str, directory: Path, monkeypatch) -> ModuleType:
    """The renderer at `path` as of REFERENCE_COMMIT, drawing with the toolkit as of then (copies in `directory`)."""
    _load("reference_toolkit", _reference_source(REFERENCE_TOOLKIT), directory, monkeypatch)
    source = _reference_source(path).replace("from cardsdb.rendering import", "from reference_toolkit import")
    return _load(f"reference_{path.replace('/', '_').removesuffix('.py')}", source, directory, monkeypatch)


def same_faces(render, reference, cards) -> list[str]:
    """The slugs of the cards whose PNG differs from the reference's (pixels first, then the encoding)."""
    differing = []
    for card in cards:
        png, expected = render(card), reference(card)
        image = decode(png)
        if image.size != CARD_SIZE or image.tobytes() != decode(expected).tobytes() or png != expected:
            differing.append(card.slug)
    return differing


@pytest.fixture
def reference(tmp_path, monkeypatch) -> ModuleType:
    old = reference_renderer("realms/rendering.py", tmp_path, monkeypatch)
    # (cache_version: set on the function by its decorator, cardsdb.rendering.layout_version)
    if old.render_character_card.cache_version != render_character_card.cache_version:  # type: ignore[attr-defined]
        pytest.skip("the layout version changed: the reference commit no longer draws the same faces")
    return old


def test_official_faces_are_those_of_the_reference_renderer(reference):
    characters = official_characters()
    assert same_faces(render_character_card, reference.render_character_card, characters) == []


def test_faces_with_art_and_odd_data_are_those_of_the_reference_renderer(reference, make_character, settings,
                                                                          tmp_path):
    settings.MEDIA_ROOT = tmp_path
    translucent = io.BytesIO()
    Image.new("RGBA", (240, 320), (200, 30, 90, 120)).save(translucent, format="PNG")
    cards = [
        make_character(image=SimpleUploadedFile("art.png", solid_png(ART_COLOUR), content_type="image/png")),
        make_character(image=SimpleUploadedFile("glass.png", translucent.getvalue(), content_type="image/png")),
        make_character(name="Azrakor the Unending " * 5, flavor_text="It will not fit. " * 30,
                       main_ability={**RUNE_STORM, "text": "Deals 200% ATK to all enemies. " * 20}),
        make_character(name="Séraphine — Dawn’s Mercy 🌞", character_class="assassin", position="flex",
                       faction_ability={"name": "", "text": ""}, cooldown=0, rarity="common"),
    ]
    cards += [make_character(character_class=klass) for klass in ("tank", "warrior", "archer", "support", "")]
    assert same_faces(render_character_card, reference.render_character_card, cards) == []
