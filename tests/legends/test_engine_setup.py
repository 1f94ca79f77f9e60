"""The setup validator (rulings L4-L6, L13): each code alone, several at once, both modes, structure."""

import copy

import pytest

from legends.engine.setup import (
    CODES,
    SetupCatalogue,
    SetupFormatError,
    Team,
    parse_teams,
    team_as_dict,
    validate_setup,
)

CATALOGUE = SetupCatalogue(
    spirits=frozenset({"akin", "yulin"}),
    protectors={"spy": False, "spring-warden": True, "flame-herald": True},
    defenses=frozenset({"d1", "d2", "d3", "d4", "d5", "d6", "d7"}),
)


def teams_setup() -> list[dict]:
    """A legal teams-mode setup: seats alternate A, B, A, B."""
    return [
        {"spirit": "akin", "protector": "spy", "defenses": ["d1", "d2", "d3"],
         "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
        {"spirit": "yulin", "protector": "spring-warden", "defenses": ["d4", "d5", "d6"],
         "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]},
    ]


def duel_setup() -> list[dict]:
    return [
        {"spirit": "yulin", "protector": "flame-herald", "defenses": ["d1", "d2"],
         "players": [{"name": "Ann", "counter": 2}]},
        {"spirit": "akin", "protector": "spring-warden", "defenses": ["d3", "d4"],
         "players": [{"name": "Cat", "counter": 1}]},
    ]


def check(mode: str, raw: list[dict]):
    return validate_setup(mode, parse_teams(raw), CATALOGUE)


def codes(report) -> list[str]:
    return [v["code"] for v in report.violations]


def only(report) -> dict:
    assert len(report.violations) == 1, report.violations
    return report.violations[0]


@pytest.mark.parametrize("mode, setup", [("teams", teams_setup), ("duel", duel_setup)])
def test_a_legal_setup_has_no_violation(mode, setup):
    report = check(mode, setup())
    assert report.valid and report.violations == () and report.to_draw == ()


# --- each code alone ------------------------------------------------------------------------------


def test_team_count():
    setup = teams_setup()[:1]
    setup[0]["players"] = [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]
    report = check("teams", setup)
    # Counters 2 and 4 are simply unused; only the missing team is reported.
    assert only(report) == {
        "code": "team_count", "message": "A setup has exactly 2 teams (got 1).",
        "team": None, "player": None, "card": None,
    }


def test_team_count_with_no_team_at_all():
    assert codes(check("teams", [])) == ["team_count"]


def test_player_count():
    setup = teams_setup()
    setup[1]["players"].pop()  # Dan leaves: counter 4 is not dealt
    violation = only(check("teams", setup))
    assert violation["code"] == "player_count" and violation["team"] == 1
    assert "Team 1 has 1 player; each team has 2" in violation["message"]


def test_player_count_in_a_duel():
    setup = duel_setup()
    setup[0]["players"].append({"name": "Eve", "counter": 3})
    assert "player_count" in codes(check("duel", setup))


def test_spirit_missing():
    for missing in ({"spirit": None}, {}):
        setup = teams_setup()
        del setup[0]["spirit"]
        setup[0].update(missing)
        violation = only(check("teams", setup))
        assert violation["code"] == "spirit_missing" and violation["team"] == 0 and violation["card"] is None


def test_spirit_duplicate():
    setup = teams_setup()
    setup[1]["spirit"] = "akin"
    violation = only(check("teams", setup))
    assert violation["code"] == "spirit_duplicate"
    assert (violation["team"], violation["card"]) == (1, "akin")


def test_protector_duplicate():
    setup = teams_setup()
    setup[1]["protector"] = "spy"
    violation = only(check("teams", setup))
    assert violation["code"] == "protector_duplicate" and (violation["team"], violation["card"]) == (1, "spy")


def test_protector_not_allowed_spy_in_a_duel():
    setup = duel_setup()
    setup[1]["protector"] = "spy"
    violation = only(check("duel", setup))
    assert violation["code"] == "protector_not_allowed"
    assert (violation["team"], violation["card"]) == (1, "spy")


def test_spy_is_fine_in_teams_mode():
    assert check("teams", teams_setup()).valid


@pytest.mark.parametrize("defenses", [["d1", "d2"], ["d1", "d2", "d3", "d7"], []])
def test_defense_count(defenses):
    setup = teams_setup()
    setup[0]["defenses"] = defenses
    violation = only(check("teams", setup))
    assert violation["code"] == "defense_count" and violation["team"] == 0
    assert f"has {len(defenses)} defense cards" in violation["message"] and "exactly 3" in violation["message"]


def test_duel_teams_have_two_defenses():
    setup = duel_setup()
    setup[0]["defenses"] = ["d1", "d2", "d5"]
    violation = only(check("duel", setup))
    assert violation["code"] == "defense_count" and "exactly 2" in violation["message"]


def test_defense_duplicate_across_teams():
    setup = teams_setup()
    setup[1]["defenses"] = ["d4", "d5", "d1"]
    violation = only(check("teams", setup))
    assert violation["code"] == "defense_duplicate"
    assert (violation["team"], violation["card"]) == (1, "d1")
    assert "already used by team 0" in violation["message"]


def test_defense_duplicate_within_a_team():
    setup = teams_setup()
    setup[0]["defenses"] = ["d1", "d1", "d2"]
    violation = only(check("teams", setup))
    assert violation["code"] == "defense_duplicate" and "this team" in violation["message"]


@pytest.mark.parametrize(
    "team, key, value, card",
    [
        (0, "spirit", "dragon", "dragon"),
        (1, "protector", "wizard", "wizard"),
        (0, "defenses", ["d1", "d2", "akin"], "akin"),  # a spirit is not a defense
        (1, "spirit", "d4", "d4"),  # nor a defense a spirit
    ],
)
def test_unknown_card(team, key, value, card):
    setup = teams_setup()
    setup[team][key] = value
    violation = only(check("teams", setup))
    assert violation["code"] == "unknown_card"
    assert (violation["team"], violation["card"]) == (team, card)


@pytest.mark.parametrize("counters", [(1, 3, 2, 5), (0, 3, 2, 4), (-1, 3, 2, 4)])
def test_counter_out_of_range(counters):
    setup = teams_setup()
    for (t, p), counter in zip(((0, 0), (0, 1), (1, 0), (1, 1)), counters, strict=True):
        setup[t]["players"][p]["counter"] = counter
    report = check("teams", setup)
    violation = only(report)
    assert violation["code"] == "counter_invalid"
    assert "numbered 1 to 4" in violation["message"]
    bad = [i for i, c in enumerate(counters) if not 1 <= c <= 4][0]
    assert (violation["team"], violation["player"]) == divmod(bad, 2)


def test_counter_held_twice():
    setup = teams_setup()
    setup[1]["players"][1]["counter"] = 2  # Dan takes Cat's counter; 4 is not dealt
    violation = only(check("teams", setup))
    assert violation["code"] == "counter_invalid"
    assert (violation["team"], violation["player"]) == (1, 1)
    assert "already held by Cat" in violation["message"]


@pytest.mark.parametrize(
    "team_a, team_b",
    [((1, 2), (3, 4)), ((2, 3), (4, 1)), ((1, 4), (2, 3)), ((4, 1), (3, 2))],
)
def test_counter_adjacent_teammates_play_one_after_the_other(team_a, team_b):
    # 4 wraps round to 1 (L7, L11): 1 and 4 are adjacent too.
    setup = teams_setup()
    for team, counters in ((0, team_a), (1, team_b)):
        for player, counter in enumerate(counters):
            setup[team]["players"][player]["counter"] = counter
    report = check("teams", setup)
    assert codes(report) == ["counter_adjacent", "counter_adjacent"]
    assert [v["team"] for v in report.violations] == [0, 1]


@pytest.mark.parametrize("team_a, team_b", [((1, 3), (2, 4)), ((3, 1), (4, 2)), ((2, 4), (1, 3))])
def test_alternating_seats_are_legal(team_a, team_b):
    setup = teams_setup()
    for team, counters in ((0, team_a), (1, team_b)):
        for player, counter in enumerate(counters):
            setup[team]["players"][player]["counter"] = counter
    assert check("teams", setup).valid


def test_duel_counters_are_1_and_2():
    setup = duel_setup()
    setup[0]["players"][0]["counter"] = 3
    violation = only(check("duel", setup))
    assert violation["code"] == "counter_invalid" and "numbered 1 to 2" in violation["message"]
    assert (violation["team"], violation["player"]) == (0, 0)


def test_duel_never_reports_adjacency():
    # One player a team: no teammates, so counters 1 and 2 are fine.
    assert "counter_adjacent" not in codes(check("duel", duel_setup()))


# --- several at once, and what is left to draw -------------------------------------------------------


def test_every_violation_is_reported_at_once_in_a_stable_order():
    setup: list[dict] = [
        {"spirit": "akin", "protector": "spy", "defenses": ["d1", "d1", "ghost"],
         "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 2}]},
        {"spirit": "akin", "protector": "spy", "defenses": ["d2"],
         "players": [{"name": "Cat", "counter": 3}, {"name": "Dan", "counter": 9}, {"name": "Eve", "counter": 4}]},
        {"players": []},
    ]
    report = check("teams", setup)
    assert not report.valid
    assert codes(report) == [
        "team_count",
        "player_count", "player_count",
        "spirit_duplicate", "spirit_missing",
        "protector_duplicate",
        "defense_duplicate", "unknown_card", "defense_count",
        "counter_invalid",
        "counter_adjacent",
    ]
    places = {(v["code"], v["team"], v["player"], v["card"]) for v in report.violations}
    assert ("counter_invalid", 1, 1, None) in places
    assert ("unknown_card", 0, None, "ghost") in places
    assert ("spirit_missing", 2, None, None) in places
    assert ("counter_adjacent", 0, None, None) in places
    assert report.to_draw == ({"team": 2, "kind": "protector", "count": 1}, {"team": 2, "kind": "defense", "count": 3})


def test_a_duel_with_several_problems():
    setup = duel_setup()
    setup[0]["protector"] = "spy"
    setup[1]["protector"] = "spy"
    setup[1]["spirit"] = "yulin"
    setup[1]["players"][0]["counter"] = 2
    report = check("duel", setup)
    assert codes(report) == [
        "spirit_duplicate", "protector_not_allowed", "protector_not_allowed", "protector_duplicate",
        "counter_invalid",
    ]


@pytest.mark.parametrize("mode, setup, count", [("teams", teams_setup, 3), ("duel", duel_setup, 2)])
def test_omitted_protector_and_defenses_are_to_draw(mode, setup, count):
    raw = setup()
    del raw[0]["protector"]
    raw[1]["defenses"] = None
    report = check(mode, raw)
    assert report.valid
    assert report.to_draw == (
        {"team": 0, "kind": "protector", "count": 1},
        {"team": 1, "kind": "defense", "count": count},
    )


def test_every_code_is_documented_with_its_ruling():
    assert set(CODES) == {
        "team_count", "player_count", "spirit_missing", "spirit_duplicate", "protector_duplicate",
        "protector_not_allowed", "defense_count", "defense_duplicate", "unknown_card", "counter_invalid",
        "counter_adjacent",
    }
    assert all(ruling.startswith("L") for ruling in CODES.values())


def test_unknown_mode_is_a_format_error():
    with pytest.raises(SetupFormatError) as info:
        validate_setup("solo", (), CATALOGUE)
    assert info.value.errors == [("mode", "must be one of teams, duel (got 'solo')")]


# --- structure ------------------------------------------------------------------------------------


def test_parse_returns_frozen_teams_and_round_trips():
    teams = parse_teams(teams_setup())
    assert isinstance(teams[0], Team) and teams[0].players[1].counter == 3
    assert [team_as_dict(team) for team in teams] == teams_setup()
    drawn = parse_teams([{"spirit": "akin", "players": []}])[0]
    assert drawn.protector is None and drawn.defenses is None


@pytest.mark.parametrize(
    "mutate, path, reason",
    [
        (lambda s: s[0].update(spirit=""), "teams[0].spirit", "must be a card slug (a non-empty string)"),
        (lambda s: s[0].update(protector=5), "teams[0].protector", "must be a card slug (a non-empty string)"),
        (lambda s: s[1].update(defenses="d4"), "teams[1].defenses", "must be a list of card slugs (or null to draw them)"),
        (lambda s: s[1].update(defenses=["d4", None, "d6"]), "teams[1].defenses[1]", "must be a card slug (a non-empty string)"),
        (lambda s: s[1].update(defenses=["d"] * 11), "teams[1].defenses", "must hold at most 10 cards"),
        (lambda s: s[0].pop("players"), "teams[0].players", "is required"),
        (lambda s: s[0].update(players={"name": "Ann"}), "teams[0].players", "must be a list"),
        (lambda s: s[0]["players"].__setitem__(0, "Ann"), "teams[0].players[0]", "must be an object"),
        (lambda s: s[0]["players"][0].update(counter="1"), "teams[0].players[0].counter", "must be an integer"),
        (lambda s: s[0]["players"][0].update(counter=True), "teams[0].players[0].counter", "must be an integer"),
        (lambda s: s[0]["players"][0].pop("counter"), "teams[0].players[0].counter", "is required"),
        (lambda s: s[0]["players"][0].update(name="  "), "teams[0].players[0].name", "is required (a non-empty string)"),
        (lambda s: s[0]["players"][0].update(name="x" * 61), "teams[0].players[0].name", "must be at most 60 characters"),
        (lambda s: s[0]["players"][0].update(seat=2), "teams[0].players[0].seat", "is not a known field"),
        (lambda s: s[1].update(defences=["d4"]), "teams[1].defences", "is not a known field"),
        (lambda s: s.__setitem__(1, "yulin"), "teams[1]", "must be an object"),
        (lambda s: s[0].update(spirit="s" * 141), "teams[0].spirit", "must be at most 140 characters"),
    ],
)
def test_structural_problems_are_format_errors_with_paths(mutate, path, reason):
    raw = copy.deepcopy(teams_setup())
    mutate(raw)
    with pytest.raises(SetupFormatError) as info:
        parse_teams(raw)
    assert (path, reason) in info.value.errors


def test_teams_must_be_a_bounded_list():
    for raw, reason in (({"a": 1}, "must be a list of teams"), ([{}] * 9, "must hold at most 8 teams")):
        with pytest.raises(SetupFormatError) as info:
            parse_teams(raw)
        assert info.value.errors == [("teams", reason)]


def test_every_structural_problem_is_reported_at_once():
    raw = teams_setup()
    raw[0]["spirit"] = 1
    raw[1]["players"][0]["counter"] = "x"
    with pytest.raises(SetupFormatError) as info:
        parse_teams(raw)
    assert [path for path, _ in info.value.errors] == ["teams[0].spirit", "teams[1].players[0].counter"]
