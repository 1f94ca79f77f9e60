"""`manage.py simulate <game> ...`: play a match and print a readable play-by-play."""

import argparse
import json

from django.core.management.base import BaseCommand, CommandError

from simulate import services
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError
from simulate.engine.runner import render_log


def seed_argument(text: str) -> int:
    """A seed as the API takes it: a whole number from 0 to 2^63 - 1."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= seed <= services.SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"{text} is not from 0 to {services.SEED_LIMIT} (2^63 - 1)")
    return seed


class Command(BaseCommand):
    help = "Play one match and print it. Each game's own flags are listed under its name."

    def add_arguments(self, parser):
        games = list(services.GAME_MATCHES)
        parser.add_argument("game", choices=games, help="The game to play.")
        known = "; ".join(f"{game}: {', '.join(agent_names(game))}" for game in games)
        parser.add_argument("--agents", nargs="+", default=None, metavar="NAME",
                            help=f"One agent per player ({known}; default greedy).")
        parser.add_argument("--seed", type=seed_argument, default=None,
                            help=f"Match seed, 0 to {services.SEED_LIMIT} (default: random).")
        parser.add_argument("--max-rounds", type=int, default=None, help="Round cap (default: the game's).")
        parser.add_argument("--save", action="store_true", help="Store the match like the API does.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON instead of text.")
        for matches in services.GAME_MATCHES.values():
            matches.add_command_arguments(parser)

    def handle(self, *args, **opts):
        game = opts["game"]
        seed = services.new_seed() if opts["seed"] is None else opts["seed"]
        try:
            inputs, agents = services.game_matches(game).command_request(opts, seed)
            match, result = services.play_match(game=game, inputs=inputs, agents=agents, seed=seed,
                                                save=opts["save"])
        except services.IllegalMatchSetup as exc:
            raise CommandError(f"{exc} " + "; ".join(v["message"] for v in exc.violations)) from exc
        except InputError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps({k: v for k, v in result.to_dict().items() if k != "events"}, indent=2))
            return
        self.stdout.write(render_log(game, result.events or []))
        saved = f" Saved as match {match.id}." if opts["save"] else ""
        self.stdout.write(f"\nSeed {seed}.{saved}")
