"""`manage.py simulate realms ...`: play a match and print a readable play-by-play."""

import json
import random

from django.core.management.base import BaseCommand, CommandError

from realms import selectors as realms_selectors
from realms import services as realms_services
from realms.engine.formation import random_army
from simulate import services
from simulate.engine.agents import agent_names
from simulate.engine.errors import MatchInputError
from simulate.engine.runner import render_log


class Command(BaseCommand):
    help = (
        "Play one match and print it. Armies are army codes, 'faction:<slug>' (a random legal army "
        "of that faction), 'random' (a random legal army of the catalogue) or 'formation' for a "
        "Formation Round from the whole catalogue."
    )

    def add_arguments(self, parser):
        parser.add_argument("game", choices=["realms"], help="The game to play.")
        parser.add_argument("--a", default="random", help="Player a's army (default: random).")
        parser.add_argument("--b", default="random", help="Player b's army (default: random).")
        parser.add_argument("--agents", nargs=2, default=["greedy", "greedy"], metavar=("A", "B"),
                            help=f"Agent names ({', '.join(agent_names('realms'))}).")
        parser.add_argument("--seed", type=int, default=None, help="Match seed (default: random).")
        parser.add_argument("--tie-break", choices=["random", "alternate"], default="random")
        parser.add_argument("--max-rounds", type=int, default=50)
        parser.add_argument("--save", action="store_true", help="Store the match like the API does.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON instead of text.")

    def handle(self, *args, **opts):
        seed = services.new_seed() if opts["seed"] is None else opts["seed"]
        rng = random.Random(seed)
        sides = {side: opts[side] for side in ("a", "b")}
        if "formation" in sides.values():
            if set(sides.values()) != {"formation"}:
                raise CommandError("Use 'formation' for both players or for neither.")
            inputs = {"formation": {}}
        else:
            inputs = {"armies": {side: {"slots": self._army(spec, rng)} for side, spec in sides.items()}}
        inputs["options"] = {"tie_break": opts["tie_break"], "max_rounds": opts["max_rounds"]}
        try:
            match, result = services.play_realms_match(
                inputs=inputs, agents=dict(zip("ab", opts["agents"], strict=True)), seed=seed, save=opts["save"]
            )
        except services.IllegalArmies as exc:
            raise CommandError("Illegal army: " + "; ".join(
                f"{v['side']}: {v['message']}" for v in exc.violations)) from exc
        except (services.MatchRequestError, MatchInputError) as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps({k: v for k, v in result.to_dict().items() if k != "events"}, indent=2))
            return
        self.stdout.write(render_log("realms", result.events or []))
        saved = f" Saved as match {match.id}." if opts["save"] else ""
        self.stdout.write(f"\nSeed {seed}.{saved}")

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
