"""The table companion: an Echo Realms game played with physical cards, run by the engine.

Two armies from their codes open a table game (`simulate.seating`, both seats people, `table` on). Its page is a
shell: the script reads a seat's view from the API, shows both sides (nothing is hidden once armies are
deployed), offers the pending decision's legal actions to confirm, and sends the players' changes at the table
(HP by hand, free effects, effects taken off) and undos. The seat links travel in the address's fragment, never
sent to the server: the shared device holds both, each player's phone its own.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from cardsdb.pages.throttles import throttle_scope
from cardsdb.pages.wording import named_violations
from realms.engine.cards import CharacterCard
from realms.engine.effects import KINDS
from realms.engine.table import TABLE_KINDS
from realms.engine.vocabulary import MAX_AMOUNT, MAX_DURATION, STATS
from simulate import seating, services
from simulate.api.views import client_ident
from simulate.engine.errors import InputError, input_error_fields
from simulate.models import SeatedGame
from simulate.pages.seated import POLL_SECONDS
from simulate.pinning import Thawing
from simulate.services import IllegalMatchSetup

SIDES = ("a", "b")
FIRST_CHOICES = [("random", "A coin decides"), ("a", "Army A"), ("b", "Army B")]


class TableForm(forms.Form):
    """The two armies at the table, by code, and who decides first when SPD ties (the rulebook's coin). Whoever
    starts the game plays Army A: a signed-in player's record at the table counts it (`selectors.table_records`)."""

    a = forms.CharField(label="Army A, yours: its code", max_length=200)
    b = forms.CharField(label="Army B, your opponent's: its code", max_length=200)
    first = forms.ChoiceField(label="First player (ties on SPD)", choices=FIRST_CHOICES, initial="random")

    def refused(self, exc: InputError | IllegalMatchSetup) -> None:
        """The engine's refusal, by the army it concerns."""
        if isinstance(exc, IllegalMatchSetup):
            for violation in named_violations(exc.violations):
                self.add_error(violation.get("side") if violation.get("side") in SIDES else None,
                               violation.get("message") or str(violation))
            return
        for path, messages in input_error_fields(exc).items():
            side = next((s for s in SIDES if path.startswith(f"armies.{s}")), None)
            for message in messages:
                self.add_error(side, message)


@throttle_scope("simulate")
@require_http_methods(["GET", "POST"])
def table_new(request):
    """Open a table game from two army codes (given in the address to fill the form in)."""
    form = TableForm(request.POST if request.method == "POST" else None,
                     initial={side: request.GET.get(side, "")[:200] for side in SIDES})
    if request.method == "POST" and form.is_valid():
        opened = opened_table(request, form)
        if opened is not None:
            return opened
    return render(request, "realms/pages/table_new.html", {"form": form, "nav": "table"})


def opened_table(request, form: TableForm):
    """The new table game's page, both seat links in its fragment; None when the armies are refused (the
    reasons put by the form's fields)."""
    data = form.cleaned_data
    inputs: dict[str, Any] = {"armies": {side: {"code": data[side].strip()} for side in SIDES}}
    if data["first"] != "random":
        inputs["options"] = {"first_player": data["first"]}
    try:
        with transaction.atomic():
            row, secrets = seating.open_game(game="realms", inputs=inputs, seats=dict.fromkeys(SIDES, seating.PERSON),
                                             seed=None, user=request.user, client=client_ident(request), table=True)
    except (InputError, IllegalMatchSetup) as exc:
        form.refused(exc)
        return None
    except seating.TooManyGames as exc:
        form.add_error(None, str(exc))
        return None
    fragment = "&".join(f"{side}={secret}" for side, secret in secrets.items())
    return redirect(f"{reverse('realms-table-game', args=[row.id])}#{fragment}")


def card_words(card: CharacterCard) -> dict[str, Any]:
    """What the companion shows of a card besides its unit's values: its abilities in its own words."""
    return {"name": card.name, "rarity": card.rarity, "cooldown": card.cooldown, "atk": card.atk, "def": card.def_,
            "spd": card.spd,
            "main": {"name": card.main.name, "text": card.main.text},
            "faction": {"name": card.faction_ability.name, "text": card.faction_ability.text}}


@require_safe
def table_game(request, game_id):
    """A table game's companion (its seat links in the fragment); 404 for any game not at a table."""
    row = SeatedGame.objects.filter(pk=game_id, game="realms", table=True).first()
    if row is None:
        raise Http404("There is no table game at this address.")
    setup = services.game_studies("realms").thaw_setup(row.frozen["setup"], Thawing(row.frozen["values"]))
    cards = {card.slug: card_words(card) for army in setup["armies"].values() for card, _ in army}
    config = {
        "id": str(row.id), "poll_ms": POLL_SECONDS * 1000, "cards": cards,
        "api": reverse("seated-game-seat", args=[row.id, "SECRET"]),
        "replay": reverse("match-replay", args=["00000000-0000-0000-0000-000000000000"]),
        "kinds": [{"kind": kind, "stat": KINDS[kind].changes_stat, "amount": KINDS[kind].has_amount,
                   "positive": KINDS[kind].positive} for kind in TABLE_KINDS],
        "stats": list(STATS), "max_amount": MAX_AMOUNT, "max_duration": MAX_DURATION,
    }
    return render(request, "realms/pages/table.html", {"table": config, "nav": "table"})
