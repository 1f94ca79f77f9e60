"""Echo Realms in the match and study pages (simulate/pages): its match form (two armies, an agent each), its
parts of the study form, and how its replays and reports name sides and cards."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms

from realms import selectors
from realms.api.matches import AGENT_NAMES, SIDES
from realms.snapshot import DEFAULT_AGENTS, STUDY_AGENT
from realms.studies import command_army
from simulate.engine.errors import InputError
from simulate.engine.seated import PERSON
from simulate.pages.choices import Choice, Option
from simulate.pages.match_forms import NON_FIELD, MatchForm, whole_number_or_text
from simulate.pages.study_forms import at_most_lines, lines
from simulate.study_kinds.gauntlet import MAX_OPPONENTS
from simulate.study_kinds.matrix import MAX_ENTRANTS

FACTIONS_LABEL = "Every faction's strongest army as the entrants"
SOURCES = {"code": "Army code", "saved": "One of my saved armies", "random": "A random legal army",
           "formation": "Drafted in a Formation Round, from the whole catalogue (both sides)"}


class RealmsForm(MatchForm):
    """Side a and side b (an army code, a saved army, a random legal army, or both drafted in a Formation
    Round), an agent each, a seed."""

    fields = ("a_source", "a_code", "a_army", "b_source", "b_code", "b_army", "agent_a", "agent_b", "seed")
    choices = tuple(Choice(f"{side}_source", f"side {side}'s army", {
        "code": Option(SOURCES["code"], (f"{side}_code",), needs_input=True),
        "saved": Option(SOURCES["saved"], (f"{side}_army",), needs_input=True),
        "random": Option(SOURCES["random"]),
        "formation": Option(SOURCES["formation"]),
    }) for side in SIDES)
    input_labels = {**{f"{side}_code": f"Army code of side {side}" for side in SIDES},
                    **{f"{side}_army": f"Saved army of side {side}" for side in SIDES}}

    def read(self, user) -> RealmsForm:
        seed = self.seed()
        # Random armies are drawn from the match seed, side a first, as `manage.py simulate` draws them.
        rng = random.Random(seed if isinstance(seed, int) else 0)
        armies: dict[str, dict[str, Any]] = {}
        drafted = [side for side in SIDES if self.values[f"{side}_source"] == "formation"]
        if drafted:
            for side in (side for side in SIDES if side not in drafted):
                self.add(f"{side}_source", "A Formation Round drafts both armies: choose it for both sides.")
            self.body = {"formation": {}, "agents": {side: self.values[f"agent_{side}"] for side in SIDES},
                         "seed": seed}
            return self
        for side in SIDES:
            source = self.values[f"{side}_source"]
            if source == "code":
                armies[side] = {"code": self.values[f"{side}_code"]}
            elif source == "saved":
                armies[side] = {"army": whole_number_or_text(self.values[f"{side}_army"])}
            elif source == "random":
                try:
                    armies[side] = {"slots": command_army("random", rng)}
                except InputError as exc:
                    self.add(f"{side}_source", str(exc))
            else:
                self.add(f"{side}_source", "Choose how this side's army is given.")
        self.body = {"armies": armies, "agents": {side: self.values[f"agent_{side}"] for side in SIDES},
                     "seed": seed}
        return self

    def field_of(self, path: str) -> str:
        parts = path.split(".")
        if parts[0] == "armies" and len(parts) > 1 and parts[1] in SIDES:
            return f"{parts[1]}_source"
        if parts[0] == "formation" and len(parts) > 2 and parts[2] in SIDES:
            return f"{parts[2]}_source"
        if parts[0] == "agents" and len(parts) > 1 and parts[1] in SIDES:
            return f"agent_{parts[1]}"
        if parts[0] == "seed":
            return "seed"
        return NON_FIELD

    def violation_field(self, violation: dict) -> str:
        return f"{violation['side']}_source" if violation.get("side") in SIDES else NON_FIELD


class RealmsPages:
    """Echo Realms' `simulate.pages.games.GamePages`."""

    game = "realms"
    title = "Echo Realms"

    match_form = RealmsForm
    match_form_template = "realms/pages/match_form.html"
    saved_name = "armies"
    winner_noun = "side"

    replay_board_script = "realms/replay_board.js"
    replay_seat_views = False  # both sides see the whole table

    study_form_template = "realms/pages/study_form.html"
    study_agent_labels = ("Agent of side a", "Agent of side b")
    patch_fields = ("atk", "def", "spd", "hp", "cooldown", "position")
    # The parts of a study each simple field gives (the matchup's sides, a subject...), read by the kinds that
    # read them.
    study_field_roles = {
        "army_a": ("matchup", "subject"),
        "army_b": ("matchup",),
        "opponents": ("opponents",),
        "entrants": ("entrants",),
        "factions": ("entrants",),
        "sets": ("pool",),
    }
    study_choices = (Choice("factions", "the matrix", {
        "": Option("the entrants listed", ("entrants",), how=f"untick “{FACTIONS_LABEL}”"),
        "on": Option(FACTIONS_LABEL),
    }, within=("role", "entrants")),)

    side_names = ("side a", "side b")
    card_page = "realms-card"
    card_groups = frozenset({"cards"})

    def initial_match_values(self) -> dict[str, str]:
        """Random armies, the default agents."""
        return {"a_source": "random", "b_source": "random", "a_code": "", "b_code": "", "a_army": "",
                "b_army": "", "agent_a": DEFAULT_AGENTS["a"], "agent_b": DEFAULT_AGENTS["b"], "seed": ""}

    def match_choices(self, user) -> dict[str, Any]:
        return {"agents": [PERSON, *AGENT_NAMES], "sources": SOURCES, "saved": selectors.army_list(user=user)}

    def match_sections(self, values: Mapping[str, str], errors: Mapping[str, list[str]],
                       violations: Mapping[str, list[dict]]) -> dict[str, Any]:
        """Each side's army and each side's agent."""
        sides = [{"side": side, "source": values[f"{side}_source"], "code": values[f"{side}_code"],
                  "army": values[f"{side}_army"], "errors": errors.get(f"{side}_source", []),
                  "violations": violations.get(f"{side}_source", [])} for side in SIDES]
        agents = [{"name": f"agent_{side}", "label": f"Agent of side {side}", "value": values[f"agent_{side}"],
                   "errors": errors.get(f"agent_{side}", [])} for side in SIDES]
        return {"sides": sides, "agent_fields": agents}

    def winner_label(self, winner: str | None, events: Sequence[dict]) -> str:
        return "None: a draw" if winner is None else f"Side {winner}"

    def study_fields(self) -> dict[str, forms.Field]:
        """The sides: an army code, `random` or `faction:<slug>` (drawn from the seed); a field's card sets."""
        return {
            "army_a": forms.CharField(
                required=False, max_length=200, initial="random", label="Army a",
                help_text="An army code, random, or faction:SLUG (e.g. faction:arcane, a random army of that "
                          "faction).", widget=forms.TextInput(attrs={"data-choice": "base=matchup"})),
            "army_b": forms.CharField(required=False, max_length=200, initial="random", label="Army b",
                                      help_text="The same choices as army a.",
                                      widget=forms.TextInput(attrs={"data-choice": "base=matchup"})),
            "opponents": forms.CharField(
                required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}), initial="random\nrandom",
                label="Opponents (gauntlet)", help_text="One army a line; army a is the subject.",
                validators=[at_most_lines(MAX_OPPONENTS, "armies")]),
            "entrants": forms.CharField(
                required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3, "data-choice": "factions="}),
                initial="random\nrandom\nrandom", label="Entrants (matrix)", help_text="One army a line, 2 to 8.",
                validators=[at_most_lines(MAX_ENTRANTS, "armies")]),
            "factions": forms.BooleanField(required=False, label=FACTIONS_LABEL),
            "sets": forms.CharField(required=False, max_length=500, label="Card sets (field)",
                                    help_text="Set codes separated by commas; empty: the official sets.",
                                    widget=forms.TextInput(attrs={"data-choice": "base=field"})),
        }

    def study_inputs(self, data: Mapping[str, Any], roles: Sequence[str], *, agents: bool,
                     seed: int | None) -> dict[str, Any]:
        """The armies of the roles asked for (drawn ones from the seed, side a first), the agents if asked."""
        rng = random.Random(seed)
        body: dict[str, Any] = {}
        if "matchup" in roles:
            body["armies"] = {"a": study_army(data["army_a"], "army_a", rng),
                              "b": study_army(data["army_b"], "army_b", rng)}
        if "subject" in roles:
            body["subject"] = study_army(data["army_a"], "army_a", rng)
        if "opponents" in roles:
            body["opponents"] = [study_army(spec, "opponents", rng) for spec in lines(data["opponents"])]
        if "entrants" in roles:
            body.update(study_entrants(data, rng))
        if "pool" in roles and data["sets"].strip():
            body["pool"] = {"sets": [code.strip() for code in data["sets"].split(",") if code.strip()]}
        if agents:
            body["agents"] = {"a": data["agent_a"] or STUDY_AGENT, "b": data["agent_b"] or STUDY_AGENT}
        return body

    def member_names(self, group: str, slugs: Sequence[str]) -> dict[str, str]:
        """Characters and factions by slug."""
        if group == "cards":
            return dict(selectors.character_list().filter(slug__in=slugs).values_list("slug", "name"))
        if group == "factions":
            return dict(selectors.character_list().filter(faction__slug__in=slugs)
                        .values_list("faction__slug", "faction__name").distinct())
        return {}


def study_entrants(data: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A matrix's entrants: every faction's strongest army, or the armies listed (drawn ones from `rng`)."""
    if data["factions"]:
        return {"factions": True}
    return {"entrants": [study_army(spec, "entrants", rng) for spec in lines(data["entrants"])]}


def study_army(spec: str, field: str, rng: random.Random) -> dict[str, Any]:
    """An army of the study form: drawn (`random`, `faction:<slug>`) or by its code; InputError at `field`."""
    spec = spec.strip() or "random"
    if spec == "random" or spec.startswith("faction:"):
        try:
            return {"slots": command_army(spec, rng)}
        except InputError as exc:
            raise InputError(str(exc), [(field, str(exc))]) from exc
    return {"code": spec}
