"""What one request and one client may cost: seeds within their range, bounded batches (fewer with look-ahead
agents), and throttles of their own for playing matches and queueing batches."""

import base64
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from simulate import batches
from simulate.models import Batch, Match
from tests.conftest import assert_error_shape
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL

pytestmark = pytest.mark.django_db

LIMIT = 2**63 - 1
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def army_code(card_ids: list[int]) -> str:
    """An army code (version 1) naming the given card ids on the vanguard, whatever their size."""
    out = bytearray([1])

    def varint(value: int) -> None:
        while True:
            byte, value = value & 0x7F, value >> 7
            out.append(byte | 0x80 if value else byte)
            if not value:
                return

    varint(len(card_ids))
    for card_id in card_ids:
        varint(card_id * 2)
    return base64.urlsafe_b64encode(bytes(out)).decode().rstrip("=")


HUGE_CODE = army_code([2**64] * 7)


# ------------------------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("seed", [-1, LIMIT + 1, 2**64, 10**30])
@pytest.mark.parametrize("url", ["/api/simulate/realms/matches/", "/api/simulate/realms/batches/",
                                 "/api/simulate/legends/matches/", "/api/simulate/legends/batches/"])
def test_seeds_outside_0_to_2_63_minus_1_are_400(anon_client, armies, url, seed):
    body: dict[str, Any] = {"armies": armies} if "realms" in url else {"setup": DUEL}
    if "batches" in url:
        body["count"] = 2
    response = anon_client.post(url, {**body, "seed": seed}, format="json")
    assert "seed" in assert_error_shape(response, 400, "invalid")["fields"]
    assert Match.objects.count() == Batch.objects.count() == 0


def test_the_largest_seed_plays(anon_client, armies):
    response = anon_client.post("/api/simulate/realms/matches/", {"armies": armies, "seed": LIMIT}, format="json")
    assert response.status_code == 201 and response.json()["seed"] == LIMIT


@pytest.mark.parametrize("url", ["/api/simulate/realms/batches/", "/api/simulate/legends/batches/"])
def test_every_seed_of_a_batch_stays_within_the_range(anon_client, armies, url):
    body: dict[str, Any] = {"armies": armies} if "realms" in url else {"setup": DUEL}
    response = anon_client.post(url, {**body, "seed": LIMIT - 2, "count": 4}, format="json")
    fields = assert_error_shape(response, 400, "invalid")["fields"]
    assert "seed" in fields and str(LIMIT - 3) in fields["seed"][0]
    assert Batch.objects.count() == 0
    assert anon_client.post(url, {**body, "seed": LIMIT - 3, "count": 4}, format="json").status_code == 202


@pytest.mark.parametrize("url", ["/api/simulate/realms/matches/", "/api/simulate/realms/batches/"])
def test_an_army_code_holding_a_huge_card_id_is_400(anon_client, armies, url):
    body = {"armies": {"a": {"code": HUGE_CODE}, "b": armies["b"]}, "count": 2}
    if "matches" in url:
        del body["count"]
    response = anon_client.post(url, body, format="json")
    assert "armies.a.code" in assert_error_shape(response, 400, "invalid")["fields"]


@pytest.mark.parametrize("field, value", [("army", 2**63), ("army", 10**30)])
def test_saved_ids_past_the_id_range_are_400(anon_client, armies, field, value):
    response = anon_client.post("/api/simulate/realms/matches/",
                                {"armies": {"a": {field: value}, "b": armies["b"]}}, format="json")
    assert f"armies.a.{field}" in assert_error_shape(response, 400, "invalid")["fields"]


def test_saved_setup_and_collection_ids_past_the_id_range_are_400(anon_client, catalogue):
    response = anon_client.post("/api/simulate/legends/matches/", {"setup": {"setup": 2**63}}, format="json")
    assert any(key.startswith("setup") for key in assert_error_shape(response, 400, "invalid")["fields"])
    response = anon_client.post("/api/simulate/realms/matches/", {"formation": {"collections": {"b": 2**63}}},
                                format="json")
    assert "formation.collections.b" in assert_error_shape(response, 400, "invalid")["fields"]


def simulate_command(*args) -> str:
    out = io.StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("args, message", [
    (("realms", "--seed", str(LIMIT + 1)), "--seed"),
    (("realms", "--seed", "-1"), "--seed"),
    (("legends", "--seed", str(10**30)), "--seed"),
    (("realms", "--seed", "ten"), "--seed"),
    (("realms", "--a", HUGE_CODE, "--seed", "1"), "card id"),
    (("realms", "--max-rounds", str(10**30), "--seed", "1"), "max_rounds"),
])
def test_the_command_refuses_bad_seeds_and_codes_with_a_clear_error(catalogue, args, message):
    with pytest.raises(CommandError, match=message):
        simulate_command(*args)
    assert Match.objects.count() == 0


def test_the_largest_seed_is_played_and_saved_by_the_command(catalogue):
    assert simulate_command("realms", "--seed", str(LIMIT), "--save").rstrip().endswith("Saved as match "
                                                                                       f"{Match.objects.get().id}.")
    assert Match.objects.get().seed == LIMIT


@pytest.mark.parametrize("args", [["--seed", str(LIMIT + 1)], ["--a", HUGE_CODE, "--b", HUGE_CODE]])
def test_from_the_shell_a_bad_seed_or_code_exits_non_zero_without_a_traceback(args):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cardsdb.test_settings",
           "DATABASE_URL": "sqlite:///" + str(ROOT / "no-such-dir" / "unused.sqlite3")}
    done = subprocess.run([sys.executable, "manage.py", "simulate", "realms", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and ("seed" in done.stderr or "card id" in done.stderr), done.stderr


# ------------------------------------------------------------------------------------- batch sizes


def test_batch_bounds_are_smaller_for_search_agents_and_without_a_broker(settings):
    settings.CELERY_BROKER_URL = ""
    assert (batches.batch_limit(searching=False), batches.batch_limit(searching=True)) == (20_000, 200)
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert (batches.batch_limit(searching=False), batches.batch_limit(searching=True)) == (100_000, 1_000)


@pytest.mark.parametrize("agents, count, status", [
    ({"a": "search", "b": "greedy"}, 200, 202),
    ({"a": "search", "b": "greedy"}, 201, 400),
    ({"a": "greedy", "b": "random"}, 20_000, 202),
    ({"a": "greedy", "b": "random"}, 20_001, 400),
])
def test_a_batch_with_a_search_agent_holds_at_most_200_matches_without_a_broker(anon_client, armies, agents,
                                                                                  count, status):
    response = anon_client.post("/api/simulate/realms/batches/", {"armies": armies, "agents": agents,
                                                                   "count": count}, format="json")
    assert response.status_code == status, response.content


def test_search_agents_in_a_legends_batch_are_bounded_too(anon_client, catalogue):
    response = anon_client.post("/api/simulate/legends/batches/", {"setup": DUEL, "agents": ["greedy", "search"],
                                                                    "count": 201}, format="json")
    assert "count" in assert_error_shape(response, 400, "invalid")["fields"]


# ----------------------------------------------------------------------------------------- throttles


def per_second(rate: str) -> float:
    number, period = rate.split("/")
    return int(number) / {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]


def test_playing_and_queueing_have_their_own_rates_stricter_than_reading_the_catalogue():
    rates = django_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    for scope in ("simulate", "batches"):
        assert per_second(rates[scope]) < per_second(rates["anon"]) <= per_second(rates["user"])
    assert per_second(rates["batches"]) < per_second(rates["simulate"])


@pytest.fixture
def strict_rates(monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"simulate": "2/minute", "batches": "1/minute"})
    # The service-wide rates stay out of the way.
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "1000/minute"})
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "1000/minute"})


def test_matches_are_throttled_per_anonymous_address(strict_rates, anon_client, armies):
    play = {"armies": armies, "seed": 1}
    for _ in range(2):
        assert anon_client.post("/api/simulate/realms/matches/", play, format="json").status_code == 201
    body = assert_error_shape(anon_client.post("/api/simulate/legends/matches/", {"setup": DUEL}, format="json"),
                              429, "throttled")
    assert body["retry_after"] > 0
    elsewhere = anon_client.post("/api/simulate/realms/matches/", play, format="json", REMOTE_ADDR="10.1.2.3")
    assert elsewhere.status_code == 201
    # Reading is not throttled by the scope of playing.
    assert anon_client.get("/api/simulate/matches/").status_code == 200


def test_matches_and_batches_are_throttled_per_user(strict_rates, user_client, other_client, armies):
    play = {"armies": armies, "seed": 1}
    for _ in range(2):
        assert user_client.post("/api/simulate/realms/matches/", play, format="json").status_code == 201
    assert_error_shape(user_client.post("/api/simulate/realms/matches/", play, format="json"), 429, "throttled")
    # Another account from another address has its own counts (the same address shares them: test_throttling).
    other_client.defaults["REMOTE_ADDR"] = "10.1.2.4"
    assert other_client.post("/api/simulate/realms/matches/", play, format="json").status_code == 201
    # Queueing batches is counted apart from playing matches.
    batch = {**play, "count": 2}
    assert user_client.post("/api/simulate/realms/batches/", batch, format="json").status_code == 202
    assert_error_shape(user_client.post("/api/simulate/legends/batches/", {"setup": DUEL, "count": 2},
                                        format="json"), 429, "throttled")
    assert other_client.post("/api/simulate/realms/batches/", batch, format="json").status_code == 202


@pytest.fixture
def designer_rates(monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"batches": "2/hour", "designer_batches": "4/hour"})
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "1000/minute"})
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "1000/minute"})


def queued(client, armies, times: int, address: str) -> list[int]:
    batch = {"armies": armies, "seed": 1, "count": 2}
    return [client.post("/api/simulate/realms/batches/", batch, format="json", REMOTE_ADDR=address).status_code
            for _ in range(times)]


def test_designers_queue_studies_at_their_own_rate(designer_rates, staff_client, user_client, other_client,
                                                   other_user, armies):
    from django.contrib.auth.models import Group

    from cardsdb.api.permissions import DESIGNERS_GROUP

    # Past the bound of strangers (2 an hour); the fifth is past a designer's own (4): 429 there too.
    assert queued(staff_client, armies, 4, "10.9.0.1") == [202] * 4
    assert_error_shape(staff_client.post("/api/simulate/realms/batches/", {"armies": armies, "count": 2},
                                         format="json", REMOTE_ADDR="10.9.0.1"), 429, "throttled")
    # An ordinary account is held to the stranger's bound.
    assert queued(user_client, armies, 3, "10.9.0.2") == [202, 202, 429]
    # A member of the designers group is a designer without being staff.
    other_user.groups.add(Group.objects.create(name=DESIGNERS_GROUP))
    assert queued(other_client, armies, 3, "10.9.0.3") == [202, 202, 202]
