"""Stable public card codes (ER-CORE-017): a code on every card, and the table of codes ever issued.

Official cards get the code their fixture gives them (so they agree on every instance); other cards get the
next free numbers of their sets. The official records of unedited cards are fingerprinted again with the
code, so update_official still sees them as unedited (an edited card stays a conflict).
"""

import hashlib
import json
import re

import django.db.models.deletion
from django.core import serializers as django_serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import migrations, models

# The official cards' codes, as fixtures/realms_starter.json and legends_official.json give them: key → (slug, code).
OFFICIAL_CODES = {
    1001: ('iron-guardian', 'ER-CORE-001'),
    1002: ('kingdom-pikeman', 'ER-CORE-002'),
    1003: ('dwarven-crossbowman', 'ER-CORE-003'),
    1004: ('shieldbearer-of-valdren', 'ER-CORE-004'),
    1005: ('stoneshield-veteran', 'ER-CORE-005'),
    1006: ('captain-aldric-vane', 'ER-CORE-006'),
    1007: ('royal-battlemage', 'ER-CORE-007'),
    1008: ('brunhild-ironhelm-shield-of-the-realm', 'ER-CORE-008'),
    1009: ('apprentice-runecaster', 'ER-CORE-009'),
    1010: ('elven-spellblade', 'ER-CORE-010'),
    1011: ('goblin-hexscribe', 'ER-CORE-011'),
    1012: ('runekeeper-sage', 'ER-CORE-012'),
    1013: ('runic-archer', 'ER-CORE-013'),
    1014: ('aasimar-loremaster', 'ER-CORE-014'),
    1015: ('runeforged-warden', 'ER-CORE-015'),
    1016: ('merlin-archmage-of-runes', 'ER-CORE-016'),
    1017: ('orc-warrior', 'ER-CORE-017'),
    1018: ('troll-tank', 'ER-CORE-018'),
    1019: ('elven-archer', 'ER-CORE-019'),
    1020: ('goblin-skulker', 'ER-CORE-020'),
    1021: ('orc-shaman', 'ER-CORE-021'),
    1022: ('troll-berserker', 'ER-CORE-022'),
    1023: ('wolfrider-huntress', 'ER-CORE-023'),
    1024: ('urgoth-bloodtusk-warchief-of-the-clans', 'ER-CORE-024'),
    1025: ('imp-firestarter', 'ER-CORE-025'),
    1026: ('hellforged-brute', 'ER-CORE-026'),
    1027: ('cultist-of-the-pit', 'ER-CORE-027'),
    1028: ('pitfiend-stalker', 'ER-CORE-028'),
    1029: ('blood-warlock', 'ER-CORE-029'),
    1030: ('brimstone-colossus', 'ER-CORE-030'),
    1031: ('countess-vesperine-the-crimson-thirst', 'ER-CORE-031'),
    1032: ('malgoroth-the-chaos-flame', 'ER-CORE-032'),
    1033: ('aasimar-acolyte', 'ER-CORE-033'),
    1034: ('sunlance-templar', 'ER-CORE-034'),
    1035: ('dawnwatch-archer', 'ER-CORE-035'),
    1036: ('aegis-paladin', 'ER-CORE-036'),
    1037: ('seraph-healer', 'ER-CORE-037'),
    1038: ('jofrey-hammer-of-justice', 'ER-CORE-038'),
    1039: ('aurelia-sunweaver', 'ER-CORE-039'),
    1040: ('seraphine-voice-of-the-dawn', 'ER-CORE-040'),
    1041: ('risen-legionnaire', 'ER-CORE-041'),
    1042: ('bone-archer', 'ER-CORE-042'),
    1043: ('grave-acolyte', 'ER-CORE-043'),
    1044: ('crypt-guardian', 'ER-CORE-044'),
    1045: ('ghoul-stalker', 'ER-CORE-045'),
    1046: ('necromancer-velkor', 'ER-CORE-046'),
    1047: ('wight-knight', 'ER-CORE-047'),
    1048: ('mortheus-the-lich-king', 'ER-CORE-048'),
    1049: ('tidecaller-adept', 'ER-CORE-049'),
    1050: ('reef-troll', 'ER-CORE-050'),
    1051: ('drowned-deckhand', 'ER-CORE-051'),
    1052: ('kraken-cultist', 'ER-CORE-052'),
    1053: ('siren-of-the-shoals', 'ER-CORE-053'),
    1054: ('leviathan-reaver', 'ER-CORE-054'),
    1055: ('drowned-harpooner', 'ER-CORE-055'),
    1056: ('azrakor-lord-of-the-abyss', 'ER-CORE-056'),
    1057: ('shadow-assassin', 'ER-CORE-057'),
    1058: ('dusk-cutthroat', 'ER-CORE-058'),
    1059: ('umbral-sniper', 'ER-CORE-059'),
    1060: ('whisperer-of-secrets', 'ER-CORE-060'),
    1061: ('vampire-nightstalker', 'ER-CORE-061'),
    1062: ('veyra-mistress-of-whispers', 'ER-CORE-062'),
    1063: ('duskblade-duelist', 'ER-CORE-063'),
    1064: ('nyx-the-unseen-blade', 'ER-CORE-064'),
    2001: ('akin', 'AL-EOTP-001'),
    2002: ('yulin', 'AL-EOTP-002'),
    2003: ('spy', 'AL-EOTP-003'),
    2004: ('spring-warden', 'AL-EOTP-004'),
    2005: ('flame-herald', 'AL-EOTP-005'),
    2006: ('gale-rider', 'AL-EOTP-006'),
    2007: ('tide-keeper', 'AL-EOTP-007'),
    2008: ('stone-sentinel', 'AL-EOTP-008'),
    2009: ('archivist', 'AL-EOTP-009'),
    2010: ('wanderer', 'AL-EOTP-010'),
    2011: ('siege-master', 'AL-EOTP-011'),
    2012: ('steam-wall', 'AL-EOTP-012'),
    2013: ('boiling-moat', 'AL-EOTP-013'),
    2014: ('magma-rampart', 'AL-EOTP-014'),
    2015: ('obsidian-gate', 'AL-EOTP-015'),
    2016: ('wildfire-ring', 'AL-EOTP-016'),
    2017: ('ember-veil', 'AL-EOTP-017'),
    2018: ('mud-bastion', 'AL-EOTP-018'),
    2019: ('reef-barrier', 'AL-EOTP-019'),
    2020: ('mist-curtain', 'AL-EOTP-020'),
    2021: ('rain-spire', 'AL-EOTP-021'),
    2022: ('dust-tower', 'AL-EOTP-022'),
    2023: ('sandstorm-keep', 'AL-EOTP-023'),
    2101: ('tidal-ward-of-blaze', 'AL-EOTP-024'),
    2102: ('stone-mending-of-blaze', 'AL-EOTP-025'),
    2103: ('wind-surge-of-blaze', 'AL-EOTP-026'),
    2104: ('stone-ward-of-torrent', 'AL-EOTP-027'),
    2105: ('wind-mending-of-torrent', 'AL-EOTP-028'),
    2106: ('ember-surge-of-torrent', 'AL-EOTP-029'),
    2107: ('wind-ward-of-quake', 'AL-EOTP-030'),
    2108: ('ember-mending-of-quake', 'AL-EOTP-031'),
    2109: ('tidal-surge-of-quake', 'AL-EOTP-032'),
    2110: ('ember-ward-of-gale', 'AL-EOTP-033'),
    2111: ('tidal-mending-of-gale', 'AL-EOTP-034'),
    2112: ('stone-surge-of-gale', 'AL-EOTP-035'),
    2113: ('ember-ward-of-steam', 'AL-EOTP-036'),
    2114: ('tidal-ward-of-steam', 'AL-EOTP-037'),
    2115: ('ember-mending-of-steam', 'AL-EOTP-038'),
    2116: ('tidal-mending-of-steam', 'AL-EOTP-039'),
    2117: ('ember-surge-of-steam', 'AL-EOTP-040'),
    2118: ('tidal-surge-of-steam', 'AL-EOTP-041'),
    2119: ('ember-ward-of-magma', 'AL-EOTP-042'),
    2120: ('stone-ward-of-magma', 'AL-EOTP-043'),
    2121: ('ember-mending-of-magma', 'AL-EOTP-044'),
    2122: ('stone-mending-of-magma', 'AL-EOTP-045'),
    2123: ('ember-surge-of-magma', 'AL-EOTP-046'),
    2124: ('stone-surge-of-magma', 'AL-EOTP-047'),
    2125: ('ember-ward-of-wildfire', 'AL-EOTP-048'),
    2126: ('wind-ward-of-wildfire', 'AL-EOTP-049'),
    2127: ('ember-mending-of-wildfire', 'AL-EOTP-050'),
    2128: ('wind-mending-of-wildfire', 'AL-EOTP-051'),
    2129: ('ember-surge-of-wildfire', 'AL-EOTP-052'),
    2130: ('wind-surge-of-wildfire', 'AL-EOTP-053'),
    2131: ('tidal-ward-of-mire', 'AL-EOTP-054'),
    2132: ('stone-ward-of-mire', 'AL-EOTP-055'),
    2133: ('tidal-mending-of-mire', 'AL-EOTP-056'),
    2134: ('stone-mending-of-mire', 'AL-EOTP-057'),
    2135: ('tidal-surge-of-mire', 'AL-EOTP-058'),
    2136: ('stone-surge-of-mire', 'AL-EOTP-059'),
    2137: ('tidal-ward-of-mist', 'AL-EOTP-060'),
    2138: ('wind-ward-of-mist', 'AL-EOTP-061'),
    2139: ('tidal-mending-of-mist', 'AL-EOTP-062'),
    2140: ('wind-mending-of-mist', 'AL-EOTP-063'),
    2141: ('tidal-surge-of-mist', 'AL-EOTP-064'),
    2142: ('wind-surge-of-mist', 'AL-EOTP-065'),
    2143: ('stone-ward-of-dust', 'AL-EOTP-066'),
    2144: ('wind-ward-of-dust', 'AL-EOTP-067'),
    2145: ('stone-mending-of-dust', 'AL-EOTP-068'),
    2146: ('wind-mending-of-dust', 'AL-EOTP-069'),
    2147: ('stone-surge-of-dust', 'AL-EOTP-070'),
    2148: ('wind-surge-of-dust', 'AL-EOTP-071'),
    2149: ('ember-ward-of-mire', 'AL-EOTP-072'),
    2150: ('ember-mending-of-mist', 'AL-EOTP-073'),
    2151: ('ember-surge-of-dust', 'AL-EOTP-074'),
    2152: ('tidal-ward-of-magma', 'AL-EOTP-075'),
    2153: ('tidal-mending-of-wildfire', 'AL-EOTP-076'),
    2154: ('tidal-surge-of-dust', 'AL-EOTP-077'),
    2155: ('stone-ward-of-steam', 'AL-EOTP-078'),
    2156: ('stone-mending-of-wildfire', 'AL-EOTP-079'),
    2157: ('stone-surge-of-mist', 'AL-EOTP-080'),
    2158: ('wind-ward-of-steam', 'AL-EOTP-081'),
    2159: ('wind-mending-of-magma', 'AL-EOTP-082'),
    2160: ('wind-surge-of-mire', 'AL-EOTP-083'),
}
GAME_PREFIXES = {"realms": "ER", "legends": "AL"}
TIME_STAMPS = ("created_at", "updated_at")


def _prefix(game, set_code):
    prefix = re.sub(r"[^A-Z0-9]+", "-", set_code.upper()).strip("-")
    game_prefix = GAME_PREFIXES.get(game, game.upper())
    return prefix if prefix.startswith(game_prefix + "-") else f"{game_prefix}-{prefix}"


def _fingerprint(card, *, with_code):
    fields = django_serializers.serialize("python", [card])[0]["fields"]
    fields = {name: value for name, value in fields.items() if name not in TIME_STAMPS}
    if not with_code:
        fields.pop("code", None)
    text = json.dumps(fields, cls=DjangoJSONEncoder, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def assign_codes(apps, schema_editor):
    Card = apps.get_model("cardsdb", "Card")
    IssuedCardCode = apps.get_model("cardsdb", "IssuedCardCode")
    OfficialRecord = apps.get_model("cardsdb", "OfficialRecord")
    db = schema_editor.connection.alias
    records = {r.object_pk: r for r in OfficialRecord.objects.using(db).filter(model="cardsdb.card")}
    cards = list(Card.objects.using(db).select_related("card_set").order_by("pk"))
    taken = {}  # prefix -> highest number
    issued = []

    def issue(card_pk, code):
        prefix, number = code.rsplit("-", 1)
        taken[prefix] = max(taken.get(prefix, 0), int(number))
        issued.append(IssuedCardCode(code=code, prefix=prefix, number=int(number), card_id=card_pk))

    # Other cards number after every official card (loaded here or not), so a later load_official fits.
    for _slug, code in OFFICIAL_CODES.values():
        prefix, number = code.rsplit("-", 1)
        taken[prefix] = max(taken.get(prefix, 0), int(number))
    rest = []
    for card in cards:
        official = OFFICIAL_CODES.get(card.pk)
        if official and (str(card.pk) in records or card.slug == official[0]):
            card.code = official[1]
            issue(card.pk, card.code)
        else:
            rest.append(card)
    # The codes of official cards deleted here stay issued: no other card gets them.
    present = {card.pk for card in cards}
    for pk_text in records:
        if pk_text.isdigit() and int(pk_text) in OFFICIAL_CODES and int(pk_text) not in present:
            issue(None, OFFICIAL_CODES[int(pk_text)][1])
    for card in rest:
        prefix = _prefix(card.game, card.card_set.code)
        taken[prefix] = taken.get(prefix, 0) + 1
        card.code = f"{prefix}-{taken[prefix]:03d}"
        issued.append(IssuedCardCode(code=card.code, prefix=prefix, number=taken[prefix], card_id=card.pk))
    for card in cards:
        Card.objects.using(db).filter(pk=card.pk).update(code=card.code)
    IssuedCardCode.objects.using(db).bulk_create(issued)
    _refingerprint(apps, db, records, codes_now=True)


def _refingerprint(apps, db, records, *, codes_now):
    """An official card unedited before the change of fields is still unedited after it."""
    Card = apps.get_model("cardsdb", "Card")
    for card in Card.objects.using(db).filter(pk__in=[int(pk) for pk in records if pk.isdigit()]):
        record = records[str(card.pk)]
        if record.fingerprint == _fingerprint(card, with_code=not codes_now):
            record.fingerprint = _fingerprint(card, with_code=codes_now)
            record.save(update_fields=["fingerprint"])


def drop_codes(apps, schema_editor):
    OfficialRecord = apps.get_model("cardsdb", "OfficialRecord")
    db = schema_editor.connection.alias
    records = {r.object_pk: r for r in OfficialRecord.objects.using(db).filter(model="cardsdb.card")}
    _refingerprint(apps, db, records, codes_now=False)


class Migration(migrations.Migration):

    dependencies = [
        ("cardsdb", "0002_officialrecord"),
    ]

    operations = [
        migrations.AddField(
            model_name="card",
            name="code",
            field=models.CharField(max_length=40, null=True),
        ),
        migrations.CreateModel(
            name="IssuedCardCode",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.CharField(max_length=40, unique=True)),
                ("prefix", models.CharField(db_index=True, max_length=40)),
                ("number", models.PositiveIntegerField()),
                ("issued_at", models.DateTimeField(auto_now_add=True)),
                ("card", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                           related_name="issued_codes", to="cardsdb.card")),
            ],
            options={"ordering": ["prefix", "number"]},
        ),
        migrations.RunPython(assign_codes, drop_codes),
        migrations.AlterField(
            model_name="card",
            name="code",
            field=models.CharField(
                blank=True, max_length=40, unique=True,
                help_text="Stable public code: set prefix and collector number, e.g. ER-CORE-017. Leave empty for the "
                          "next free number of the card's set; a code once used (even by a deleted card) is never reused.",
            ),
        ),
    ]
