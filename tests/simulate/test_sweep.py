"""The sweep kind of study: one or two stats of a card over a range of values, each value a what-if on the same
seeds as one baseline; the curve of the figure by value, with a designer's band. Through the API (both games,
both bases), the command line and the page form, with its band verdicts checked by hand."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from realms.models import Character
from simulate import batches
from simulate.engine.stats import mcnemar_p, wilson
from simulate.engine.tally import new_tally
from simulate.models import Batch
from simulate.study_kinds import study_kind
from simulate.study_kinds.sweep import band_of, values_spec, verdict
from tests.conftest import assert_error_shape
from tests.factories import faction_army
from tests.simulate.test_contract import contract, openapi  # noqa: F401 - fixtures
from tests.simulate.test_legends_matches_api import DUEL

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"
LEGENDS = "/api/simulate/legends/batches/"
DETAIL = "/api/simulate/batches/{id}/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


@pytest.fixture
def played(anon_client, local_runner, django_capture_on_commit_callbacks, contract):  # noqa: F811
    """Post a study (its 202 answer checked against the schema), play it, read it back checked the same way."""

    def post(url, payload):
        with django_capture_on_commit_callbacks(execute=True):
            queued = contract(anon_client.post(url, payload, format="json"), url)
        local_runner.run_all()
        body = contract(anon_client.get(queued["url"]), DETAIL, "get")
        assert body["status"] == "done", body["error"]
        return body

    return post


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (ties given their mean rank)."""

    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        result = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                result[order[k]] = (i + j) / 2
            i = j + 1
        return result

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    covariance = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    spread = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return covariance / spread if spread else 0.0


def rises(curve: list[dict]) -> None:
    """A curve whose win rate rises with the value, beyond noise: its ranks rise with the value, and the
    highest value's win rate lies above the lowest's, their 95% intervals apart."""
    values = [point["values"][0] for point in curve]
    rates = [point["win_rate"] for point in curve]
    assert spearman(values, rates) > 0, rates
    low, high = curve[0], curve[-1]
    assert high["win_rate_ci"]["low"] > low["win_rate_ci"]["high"], (low, high)


# ------------------------------------------------------------------------------------------ the API


def test_a_sweep_of_a_matchup_answers_its_schema_with_a_point_per_value(played, armies, anon_client):
    card = armies["a"]["slots"][0]["card"]
    before = Character.objects.get(slug=card)
    body = played(REALMS, {"kind": "sweep", "armies": armies, "count": 8, "seed": 4, "band": 10,
                           "sweep": [{"card": card, "field": "atk", "values": [3, 9, 27]}]})
    results = body["results"]
    assert (body["kind"], body["played"], body["about"]) == ("sweep", 32, f"{card} atk 3, 9, 27")
    assert results["base"] == "matchup" and results["band"] == {"low": 0.4, "high": 0.6}
    assert results["axes"] == [{"card": card, "field": "atk", "values": [3, 9, 27]}]
    assert [point["values"] for point in results["curve"]] == [[3], [9], [27]]
    plain = played(REALMS, {"armies": armies, "count": 8, "seed": 4})
    assert results["baseline"] == plain["results"]  # the baseline is the unpatched matchup, seed for seed
    for point in results["curve"]:
        difference = point["difference"]
        b, c = difference["discordant"]["baseline_only"], difference["discordant"]["patched_only"]
        assert difference["pairs"] == 8 and difference["win_rate"] == round((c - b) / 8, 6)
        assert point["p_value"] == round(mcnemar_p(b, c), 6)
        wins = round(point["win_rate"] * 8)
        assert wins - results["baseline"]["wins"] == c - b  # wins only with the value less those only without
        low, high = wilson(wins, 8)
        assert point["win_rate_ci"] == {"low": round(low, 6), "high": round(high, 6)}
    after = Character.objects.get(slug=card)  # every value played on a sandbox copy
    assert (after.attack, after.updated_at) == (before.attack, before.updated_at)


def test_a_wider_atk_gives_a_rising_win_rate(played, armies):
    card = armies["a"]["slots"][0]["card"]
    body = played(REALMS, {"kind": "sweep", "armies": armies, "count": 80, "seed": 3,
                           "sweep": [{"card": card, "field": "atk", "from": 2, "to": 26, "step": 8}]})
    curve = body["results"]["curve"]
    assert [point["values"] for point in curve] == [[2], [10], [18], [26]]
    rises(curve)


def test_a_sequential_sweep_stops_once_every_value_is_decided_with_the_same_curve_shape(played, armies):
    card = armies["a"]["slots"][0]["card"]
    body = played(REALMS, {"kind": "sweep", "armies": armies, "count": 3000, "seed": 3, "sequential": {"delta": 5},
                           "sweep": [{"card": card, "field": "atk", "values": [2, 26]}]})
    test = body["results"]["sequential"]
    assert test["decided"] and test["stopped_early"] and body["played"] < 3 * 3000
    assert [t["of"] for t in test["tests"]] == ["atk 2", "atk 26"]
    weaker, stronger = (t["decision"] for t in test["tests"])
    assert stronger == "raised" and weaker in ("lowered", "unchanged")
    assert body["played"] % 3 == 0 and test["games"] == body["played"]  # every seed plays all three


def test_a_number_inside_an_ability_is_swept_on_a_copy_of_its_spec(played, armies):
    card = armies["a"]["slots"][0]["card"]
    spec = Character.objects.get(slug=card).main_ability
    path = "main_ability.effects.0.scale"
    assert isinstance(spec["effects"][0]["scale"], (int, float))
    body = played(REALMS, {"kind": "sweep", "armies": armies, "count": 6, "seed": 2,
                           "sweep": [{"card": card, "field": path, "values": [0.5, 2.5]}]})
    assert [point["values"] for point in body["results"]["curve"]] == [[0.5], [2.5]]
    assert Character.objects.get(slug=card).main_ability == spec  # a sandbox copy, the catalogue as it was
    batch = Batch.objects.get(pk=body["id"])
    frozen = json.dumps(batch.frozen.data)
    assert '"scale": 2.5' in frozen and '"scale": 0.5' in frozen


def test_two_axes_play_their_product_and_a_field_sweep_reads_the_cards_delta(played, catalogue):
    card = Character.objects.order_by("slug").first()
    body = played(REALMS, {"kind": "sweep", "base": "field", "count": 12, "seed": 5,
                           "sweep": [{"card": card.slug, "field": "atk", "values": [2, 28]},
                                     {"card": card.slug, "field": "hp", "values": [5, 40]}]})
    results = body["results"]
    assert results["base"] == "field" and results["band"] == {"low": -0.03, "high": 0.03}
    assert [point["values"] for point in results["curve"]] == [[2, 5], [2, 40], [28, 5], [28, 40]]
    assert body["played"] == 5 * 12 and body["about"] == f"{card.slug} atk 2, 28; {card.slug} hp 5, 40 (on a field)"
    baseline_rows = {row["card"]: row for row in results["baseline"]["cards"]}
    assert results.get("baseline_card") == baseline_rows.get(card.slug)
    for point in results["curve"]:
        assert set(point) >= {"delta", "delta_ci", "appearances", "win_rate", "inside_band", "band_verdict"}
        if "baseline_card" in results:
            assert point["difference"]["pairs"] == results["baseline_card"]["appearances"]


def test_an_akin_legends_sweep_of_a_summoning_cards_element_plays_and_answers_its_schema(played, catalogue):
    from legends.models import Element, SummoningCard

    card = SummoningCard.objects.get(slug="ember-surge-of-torrent")
    elements = [slug for slug in Element.objects.order_by("slug").values_list("slug", flat=True)
                if slug != card.attack_1.slug][:2]
    body = played(LEGENDS, {"kind": "sweep", "setup": DUEL, "count": 6, "seed": 5,
                            "sweep": [{"card": card.slug, "field": "attack_1", "values": elements}]})
    assert [point["values"] for point in body["results"]["curve"]] == [[element] for element in elements]
    assert body["played"] == 18


def test_an_akin_legends_sweep_of_a_protectors_effect_number(played, catalogue):
    setup = {**DUEL, "teams": [{**DUEL["teams"][0], "protector": "tide-keeper"}, DUEL["teams"][1]]}
    body = played(LEGENDS, {"kind": "sweep", "setup": setup, "count": 4, "seed": 5,
                            "sweep": [{"card": "tide-keeper", "field": "effect.count", "values": [1, 2]}]})
    assert [point["values"] for point in body["results"]["curve"]] == [[1], [2]]


# ------------------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize("sweep, extra, path", [
    ([{"card": "CARD", "field": "main_ability.effects.0.nothing", "values": [1, 2]}], {}, "sweep.0.field"),
    ([{"card": "CARD", "field": "main_ability.name", "values": [1, 2]}], {}, "sweep.0.field"),
    ([{"card": "CARD", "field": "atk.0", "values": [1, 2]}], {}, "sweep.0.field"),
    ([{"card": "CARD", "field": "colour", "values": [1, 2]}], {}, "sweep.0.field"),
    ([{"card": "CARD", "field": "atk", "from": 1, "to": 5}, {"card": "CARD", "field": "hp", "from": 1, "to": 5}],
     {}, "sweep"),
    ([{"card": "no-such-card", "field": "atk", "values": [1, 2]}], {}, "sweep.0.card"),
    ([{"card": "CARD", "field": "atk", "values": [5, 31]}], {}, "sweep.0.values"),
    ([{"card": "CARD", "field": "atk", "values": [5, 2.5]}], {}, "sweep.0.values"),
    ([{"card": "CARD", "field": "atk", "values": [5, "five"]}], {}, "sweep.0.values"),
    ([{"card": "CARD", "field": "atk", "values": [5, 5]}], {}, "sweep.0.values"),
    ([{"card": "CARD", "field": "atk", "values": [5]}], {}, "sweep.0.values"),
    ([{"card": "CARD", "field": "atk", "values": [1, 2], "from": 1, "to": 3}], {}, "sweep.0"),
    ([{"card": "CARD", "field": "atk", "from": 1, "to": 30}], {}, "sweep.0"),
    ([{"card": "CARD", "field": "atk", "from": 1, "to": 30, "step": 1e-300}], {}, "sweep.0"),
    ([{"card": "CARD", "field": "atk", "from": 9, "to": 3}], {}, "sweep.0"),
    ([{"card": "CARD", "field": "atk", "values": [1, 2]}] * 3, {}, "sweep"),
    ([{"card": "CARD", "field": "atk", "values": [1, 2]}], {"band": 0}, "band"),
    ([{"card": "CARD", "field": "atk", "values": [1, 2]}], {"band": 51}, "band"),
    ([{"card": "CARD", "field": "atk", "values": [1, 2]}], {"patch": []}, "patch"),
    (None, {}, "sweep"),
])
def test_a_bad_sweep_is_refused_naming_the_path_at_fault(anon_client, armies, sweep, extra, path):
    card = armies["a"]["slots"][0]["card"]
    body = {"kind": "sweep", "armies": armies, "count": 2, **extra}
    if sweep is not None:
        body["sweep"] = json.loads(json.dumps(sweep).replace("CARD", card))
    fields = assert_error_shape(anon_client.post(REALMS, body, format="json"), 400)["fields"]
    assert path in fields, fields
    assert Batch.objects.count() == 0


def test_a_sweep_of_a_card_no_side_fields_is_refused(anon_client, armies):
    fielded = {slot["card"] for army in armies.values() for slot in army["slots"]}
    absent = Character.objects.exclude(slug__in=fielded).order_by("slug").first()
    body = {"kind": "sweep", "armies": armies, "count": 2,
            "sweep": [{"card": absent.slug, "field": "atk", "values": [1, 2]}]}
    message = assert_error_shape(anon_client.post(REALMS, body, format="json"), 400)["fields"]["sweep"][0]
    assert message.startswith("The sweep changes nothing these matches use")


def test_an_illegal_value_is_named_with_the_admins_reason(anon_client, armies):
    card = armies["a"]["slots"][0]["card"]
    body = {"kind": "sweep", "armies": armies, "count": 2, "sweep": [{"card": card, "field": "atk", "values": [5, 31]}]}
    fields = assert_error_shape(anon_client.post(REALMS, body, format="json"), 400)["fields"]
    assert fields["sweep.0.values"][0].startswith(f"{card} atk = 31: ") and "30" in fields["sweep.0.values"][0]


# ------------------------------------------------------------------------------------------ the band by hand


def leg(wins: int, losses: int) -> dict:
    tally = new_tally()
    tally.update(matches=wins + losses, wins=wins, losses=losses)
    return tally


def test_the_band_marks_by_hand():
    """Band ±10 points around 50%: 50 of 100 (interval 40.4% to 59.6%) wholly inside; 58 of 100 (48.2% to
    67.2%) inside but unsure; 90 of 100 (82.6% to 94.5%) wholly outside; 36 of 100 (27.3% to 45.8%) outside
    the band but its interval across the edge."""
    batch = Batch(game="realms", kind="sweep", count=100, seed=0, inputs={
        "band": 10, "sweep": [{"card": "some-card", "field": "atk", "values": [1, 2, 3, 4]}]})
    total = {"pairings": [leg(50, 50), leg(50, 50), leg(58, 42), leg(90, 10), leg(36, 64)],
             "pairs": [[50, 0, 0, 50], [50, 0, 8, 42], [50, 0, 40, 10], [36, 14, 0, 50]]}
    results = study_kind("sweep").results(batch, total, None)
    assert results["band"] == {"low": 0.4, "high": 0.6}
    marks = [(point["win_rate"], point["inside_band"], point["band_verdict"]) for point in results["curve"]]
    assert marks == [(0.5, True, "inside"), (0.58, True, "unsure"), (0.9, False, "outside"), (0.36, False, "unsure")]
    assert [point["difference"]["win_rate"] for point in results["curve"]] == [0.0, 0.08, 0.4, -0.14]
    assert results["baseline"]["win_rate"] == 0.5
    # The interval's ends count as inside; a field's band is centred on a delta of 0.
    assert verdict(0.6, {"low": 0.4, "high": 0.6}, {"low": 0.4, "high": 0.6}) == (True, "inside")
    assert verdict(None, None, {"low": 0.4, "high": 0.6}) == (None, None)
    assert band_of({"base": "field"}) == {"low": -0.03, "high": 0.03}


# ------------------------------------------------------------------------------------------ its doors


def realms_code(faction: str) -> str:
    from realms.engine.army import Slot
    from realms.services import army_code

    return army_code([Slot(card=s["card"], line=s["line"]) for s in faction_army(faction)])


def test_the_command_line_and_the_page_form_make_the_same_request(client, catalogue):
    card = faction_army("arcane")[0]["card"]
    codes = realms_code("arcane"), realms_code("tribal")
    out = io.StringIO()
    call_command("simulate_batch", "realms", "--kind", "sweep", "--a", codes[0], "--b", codes[1], "--sweep",
                 f"{card}:atk=6..8", "--band", "5", "--count", "3", "--seed", "2", "--agents", "softmax", "softmax",
                 stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    by_command = Batch.objects.get()
    form = {"kind": "sweep", "count": "3", "seed": "2", "army_a": codes[0], "army_b": codes[1], "agent_a": "softmax",
            "agent_b": "softmax", "patch_field": "atk", "mode": "teams", "sweep_card": card, "sweep_field": "atk",
            "sweep_values": "6..8", "sweep_band": "5"}
    response = client.post(f"{reverse('study-new')}?game=realms", form)
    assert response.status_code == 302, response.content[:2000]
    by_form = Batch.objects.exclude(pk=by_command.pk).get()
    # The same plan (armies, agents, every value's patch), kept once; the command line keeps its armies' slots.
    assert by_form.frozen_id == by_command.frozen_id
    assert {k: v for k, v in by_form.inputs.items() if k != "armies"} == {
        k: v for k, v in by_command.inputs.items() if k != "armies"}
    assert by_form.inputs["sweep"] == [{"card": card, "field": "atk", "from": 6, "to": 8}]
    assert (by_form.inputs["band"], by_form.inputs["base"]) == (5, "matchup")
    # The command line prints the headline's ranking and a row per value.
    results = by_command.results
    assert text.splitlines()[2].startswith(f"Sweep of {card} atk 6..8: side a's win rate at each value")
    for point in results["curve"]:
        assert f"atk {point['values'][0]}  " in text


def test_the_command_line_refuses_a_sweep_it_cannot_read(catalogue):
    from django.core.management import CommandError

    for flag in ("atk=6..8", "card:atk=6..x", "card:atk"):
        with pytest.raises(CommandError, match="--sweep"):
            call_command("simulate_batch", "realms", "--kind", "sweep", "--sweep", flag, stdout=io.StringIO())
    assert values_spec("4..16..3") == {"from": 4, "to": 16, "step": 3}
    assert values_spec("fire, water") == {"values": ["fire", "water"]}


def test_the_page_form_refuses_values_it_cannot_read_by_their_field(client, catalogue):
    form = {"kind": "sweep", "count": "3", "army_a": "random", "army_b": "random", "agent_a": "softmax",
            "agent_b": "softmax", "patch_field": "atk", "mode": "teams", "sweep_card": "nobody",
            "sweep_field": "atk", "sweep_values": "6..x"}
    response = client.post(f"{reverse('study-new')}?game=realms", form)
    assert response.status_code == 400 and 'id="id_sweep_values_error"' in response.content.decode()
    response = client.post(f"{reverse('study-new')}?game=realms", {**form, "sweep_values": "6..8"})
    assert response.status_code == 400 and 'id="id_sweep_card_error"' in response.content.decode()
    assert Batch.objects.count() == 0


def test_the_report_page_draws_the_curve_with_its_band(client, catalogue, armies):
    card = armies["a"]["slots"][0]["card"]
    one = batches.play_here(batches.create_batch(game="realms", kind="sweep", count=4, seed=5, inputs={
        "armies": armies, "sweep": [{"card": card, "field": "atk", "values": [4, 20]}]}).pk)
    html = client.get(reverse("study-detail", args=[one.id])).content.decode()
    assert 'class="sweep-curve"' in html and 'class="band"' in html and "<svg" in html
    assert f"Sweep of {card} atk 4, 20" in html and "Band: 47.0% to 53.0%" in html
    for point in one.results["curve"]:
        assert f"atk {point['values'][0]}" in html
    two = batches.play_here(batches.create_batch(game="realms", kind="sweep", count=2, seed=5, inputs={
        "armies": armies, "sweep": [{"card": card, "field": "atk", "values": [4, 20]},
                                    {"card": card, "field": "hp", "values": [10, 30, 50]}]}).pk)
    html = client.get(reverse("study-detail", args=[two.id])).content.decode()
    assert 'class="sweep-grid"' in html and html.count("<tr><th scope=\"row\">", html.index("sweep-grid")) >= 2
