"""`manage.py simulate realms ...`: play a match and print a readable play-by-play."""

import json
import random

from django.core.management.base import BaseCommand, CommandError

from realms import selectors as realms_selectors
from realms import services as realms_services
from realms.engine.formation import random_army
from simulate import services
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError
from simulate.engine.runner import render_log


class Command(BaseCommand):
    help = (
        "Play one match and print it. Echo Realms armies are army codes, 'faction:<slug>' (a random "
        "legal army of that faction), 'random' (a random legal army of the catalogue) or 'formation' "
        "for a Formation Round from the whole catalogue. Akin Legends matches draw every protector "
        "and defense from the seed (--mode teams or duel)."
    )

    def add_arguments(self, parser):
        parser.add_argument("game", choices=["realms", "legends"], help="The game to play.")
        parser.add_argument("--a", default="random", help="Player a's army (default: random).")
        parser.add_argument("--b", default="random", help="Player b's army (default: random).")
        parser.add_argument("--agents", nargs="+", default=None, metavar="NAME",
                            help=f"One agent per player (realms: {', '.join(agent_names('realms'))}; "
                                 f"legends: {', '.join(agent_names('legends'))}; default greedy).")
        parser.add_argument("--mode", choices=["teams", "duel"], default="teams", help="Akin Legends mode.")
        parser.add_argument("--seed", type=int, default=None, help="Match seed (default: random).")
        parser.add_argument("--tie-break", choices=["random", "alternate"], default="random",
                            help="Echo Realms tie-break (R9).")
        parser.add_argument("--max-rounds", type=int, default=None,
                            help="Round cap (default 50 for Echo Realms, 30 for Akin Legends).")
        parser.add_argument("--save", action="store_true", help="Store the match like the API does.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON instead of text.")

    def handle(self, *args, **opts):
        seed = services.new_seed() if opts["seed"] is None else opts["seed"]
        try:
            if opts["game"] == "legends":
                match, result = self._play_legends(seed, opts)
            else:
                match, result = self._play_realms(seed, opts)
        except services.IllegalMatchSetup as exc:
            raise CommandError(f"{exc} " + "; ".join(v["message"] for v in exc.violations)) from exc
        except (services.MatchRequestError, InputError) as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps({k: v for k, v in result.to_dict().items() if k != "events"}, indent=2))
            return
        self.stdout.write(render_log(opts["game"], result.events or []))
        saved = f" Saved as match {match.id}." if opts["save"] else ""
        self.stdout.write(f"\nSeed {seed}.{saved}")

    def _options(self, opts) -> dict:
        options = {} if opts["max_rounds"] is None else {"max_rounds": opts["max_rounds"]}
        if opts["game"] == "realms":
            options["tie_break"] = opts["tie_break"]
        return options

    def _play_legends(self, seed: int, opts):
        """A match with every protector and defense drawn from the seed."""
        players = 4 if opts["mode"] == "teams" else 2
        counters = [1, 3, 2, 4] if players == 4 else [1, 2]
        per_team = players // 2
        teams = [
            {"spirit": spirit,
             "players": [{"name": f"Player {team * per_team + i + 1}", "counter": counters[team * per_team + i]}
                         for i in range(per_team)]}
            for team, spirit in enumerate(("akin", "yulin"))
        ]
        return services.play_legends_match(
            inputs={"options": self._options(opts)}, mode=opts["mode"], teams=teams,
            # One name plays every seat, as in the API.
            agents=(opts["agents"][0] if len(opts["agents"] or []) == 1 else opts["agents"]) or "greedy",
            seed=seed, save=opts["save"],
        )

    def _play_realms(self, seed: int, opts):
        rng = random.Random(seed)
        sides = {side: opts[side] for side in ("a", "b")}
        if "formation" in sides.values():
            if set(sides.values()) != {"formation"}:
                raise CommandError("Use 'formation' for both players or for neither.")
            inputs = {"formation": {}}
        else:
            inputs = {"armies": {side: {"slots": self._army(spec, rng)} for side, spec in sides.items()}}
        inputs["options"] = self._options(opts)
        agents = opts["agents"] or ["greedy", "greedy"]
        if len(agents) != 2:
            raise CommandError("Give two agents for Echo Realms (players a and b).")
        return services.play_realms_match(inputs=inputs, agents=dict(zip("ab", agents, strict=True)), seed=seed,
                                          save=opts["save"])

    def _army(self, spec: str, rng: random.Random) -> list[dict]:
        """Slots for an army given as a code, 'random' or 'faction:<slug>'."""
        if spec == "random" or spec.startswith("faction:"):
            cards = realms_selectors.army_cards()
            if spec.startswith("faction:"):
                faction = spec.split(":", 1)[1]
                slugs = set(realms_selectors.character_list().filter(faction__slug=faction)
                            .values_list("slug", flat=True))
                cards = {slug: card for slug, card in cards.items() if slug in slugs}
            try:
                army = random_army(sorted(cards.values(), key=lambda c: c.slug), rng)
            except ValueError as exc:
                raise CommandError(f"No legal army can be built for '{spec}'.") from exc
            return [{"card": card.slug, "line": line} for card, line in army]
        try:
            return [{"card": s.card, "line": s.line} for s in realms_services.army_from_code(spec)]
        except ValueError as exc:
            raise CommandError(f"'{spec}' is not an army code: {exc}") from exc
