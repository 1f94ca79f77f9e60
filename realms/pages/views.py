"""Echo Realms pages: the card gallery, a card's page and the army builder.

The pages read and check through what the API uses: the characters' FilterSet and query language, the
army services and the API's serializers, so a filter, a code or a decklist means the same here as there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.paginator import InvalidPage, Paginator
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from cardsdb.api.filters import query_parameter_errors
from cardsdb.card_history import card_errata
from cardsdb.choices import Game
from cardsdb.models import CardSet, Faction, Rarity
from cardsdb.pages.wording import named_violations
from realms import selectors, services
from realms.api.serializers import (
    MAX_SLOTS,
    ArmyCodeQuerySerializer,
    ArmyImportInputSerializer,
    ArmyInputSerializer,
    ArmySerializer,
    army_builder_url,
)
from realms.choices import CharacterClass, Position
from realms.engine.army import ArmyCodeError, Slot
from realms.engine.vocabulary import ARMY_SIZE, LINE_CAPACITY, LINES, RARITY_QUOTA, STAT_BOUNDS
from realms.filtersets import STAT_FIELDS, CharacterFilter
from realms.models import Army, Character, Race
from realms.pages.forms import BuilderOpenForm, BuilderStateForm
from simulate.api.serializers import simulated_block
from simulate.pages.card_study import card_meta, card_study

GALLERY_PAGE_SIZE = 24
# The builder lists this many characters at once; a search narrows the list.
BUILDER_LIST_LIMIT = 100
DECKLIST_ROWS = 16  # the decklist box shows an army with its headers whole; a long draft scrolls
STAT_LABELS = {"atk": "ATK", "def": "DEF", "spd": "SPD", "hp": "HP", "cooldown": "Cooldown"}
PARAMETER_LABELS = {
    "q": "Query", "faction": "Faction", "rarity": "Rarity", "class": "Class", "position": "Position",
    "race": "Race", "set": "Set", "ordering": "Order", "page": "Page", "code": "Army code", "army": "Saved army",
    "find": "Search", "name": "Army name", "paste": "Pasted text", "slots": "Army", "text": "Pasted text",
    **{f"{stat}__gte": f"{label} at least" for stat, label in STAT_LABELS.items()},
    **{f"{stat}__lte": f"{label} at most" for stat, label in STAT_LABELS.items()},
}


# Shared reading of query parameters and errors.

def _filled(params) -> dict[str, str]:
    """The parameters a person filled in: a form sends its empty fields too, which the FilterSet refuses."""
    return {name: value for name, value in params.items() if value != ""}


def _messages(errors, path: tuple = ()) -> list[str]:
    """Readable lines of a (nested) error structure of a form, a FilterSet or a serializer."""
    if isinstance(errors, dict):
        return [line for key, value in errors.items()
                for line in _messages(value, path if key == "non_field_errors" else (*path, str(key)))]
    if isinstance(errors, list) and any(isinstance(item, (dict, list)) for item in errors):
        return [line for index, item in enumerate(errors) for line in _messages(item, (*path, index))]
    items = errors if isinstance(errors, list) else [errors]
    label = _label(path)
    return [f"{label}: {item}" if label else str(item) for item in items if item]


def _label(path: tuple) -> str:
    """What a person calls the input an error is about (`slots.2.card` is card 3 of the army)."""
    if not path:
        return ""
    if path[0] == "slots" and len(path) > 1 and isinstance(path[1], int):
        return f"Card {path[1] + 1} of the army" + (f" ({path[2]})" if len(path) > 2 else "")
    return PARAMETER_LABELS.get(path[0], path[0])


def _search_characters(request, params: dict) -> tuple[QuerySet[Character] | None, dict[str, list[str]], list[dict]]:
    """The characters `params` select through the API's FilterSet (query language included), with a
    tie-breaker so that pages do not overlap; or None and the errors by parameter; and the warnings of `q`."""
    filterset = CharacterFilter(params, queryset=selectors.character_list(), request=request)
    if not filterset.is_valid():
        return None, {name: list(errors) for name, errors in filterset.errors.items()}, []
    try:
        characters = filterset.qs
    except ValidationError as exc:  # a query that cannot be run, with the position of the problem
        detail = cast(dict[str, list[str]], exc.detail)  # the query's errors, by parameter
        return None, {name: [str(m) for m in problems] for name, problems in detail.items()}, []
    ordering = list(characters.query.order_by) or list(Character._meta.ordering or ())
    return characters.order_by(*ordering, "pk"), {}, list(getattr(request, "query_warnings", []))


def _wants_fragment(request) -> bool:
    """htmx asks for the part it swaps; a history restore (or no JS) gets the whole page."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def _render(request, template: str, context: dict, status: int = 200):
    response = render(request, template, context, status=status)
    # The same URL answers a fragment to htmx and a page otherwise: caches must keep them apart.
    patch_vary_headers(response, ["HX-Request"])
    return response


# The gallery.

def _filter_options(params) -> dict:
    """The choices of the gallery's filter form, named by the API's values, and the stat ranges given."""
    ordering_field = CharacterFilter().form.fields["ordering"]
    orderings = []
    for value, _label in ordering_field.choices:
        if value:
            key = value.lstrip("-")
            name = STAT_LABELS.get(key, key.replace("_", " ").capitalize())
            orderings.append((value, f"{name}, {'high to low' if value.startswith('-') else 'low to high'}"))
    return {
        "factions": Faction.objects.all(),
        "rarities": Rarity.objects.all(),
        "races": Race.objects.all(),
        "sets": CardSet.objects.filter(game=Game.REALMS),
        "classes": CharacterClass.choices,
        "positions": Position.choices,
        "orderings": orderings,
        "stats": [{"key": key, "label": STAT_LABELS[key], "low": STAT_BOUNDS[key][0], "high": STAT_BOUNDS[key][1],
                   "at_least": params.get(f"{key}__gte", ""), "at_most": params.get(f"{key}__lte", "")}
                  for key in STAT_FIELDS],
        "stats_given": any(params.get(f"{key}__{bound}") for key in STAT_FIELDS for bound in ("gte", "lte")),
    }


@require_http_methods(["GET", "HEAD"])
def gallery(request):
    """Card faces of the characters the filters (or `q`) select, 24 a page; errors shown with the form."""
    errors = query_parameter_errors(request.GET)
    warnings: list[dict] = []
    page_obj = None
    status = 200
    if not errors:
        characters, errors, warnings = _search_characters(request, _filled(request.GET))
        if characters is not None:
            number = request.GET.get("page", "1")
            paginator = Paginator(characters, GALLERY_PAGE_SIZE)
            try:
                page_obj = paginator.page(number)
            except InvalidPage:
                errors = {"page": [f"There is no page “{number}”: the pages go from 1 to {paginator.num_pages}."]}
                status = 404
    if errors and status == 200:
        status = 400
    context = {
        "nav": "realms-gallery", "values": request.GET, "errors": errors,
        "error_lines": _messages(errors), "warnings": warnings, "page_obj": page_obj,
    }
    if _wants_fragment(request):
        response = _render(request, "realms/pages/gallery_results.html", context, status)
        # The address bar shows the filters given, not every empty field of the form.
        filled = _filled(request.GET)
        response["HX-Push-Url"] = f"{request.path}?{urlencode(filled)}" if filled else request.path
        return response
    return _render(request, "realms/pages/gallery.html", {**context, **_filter_options(request.GET)}, status)


# A card's page.

@require_http_methods(["GET", "HEAD"])
def card(request, slug: str):
    """Every field of a character, its abilities in words, its errata, its simulated win rate and your armies
    with it."""
    character = selectors.character_list().filter(slug=slug).first()
    if character is None:
        raise Http404("There is no Echo Realms card with this slug.")
    simulated = simulated_block({}, game=Game.REALMS, group="cards", member=character.slug)
    armies = selectors.armies_using(user=request.user, slug=character.slug)
    context = {
        "nav": "realms-gallery", "character": character, "study": card_study(simulated), "armies": armies,
        "meta": card_meta(Game.REALMS, character.slug),
        "admin_url": reverse("admin:realms_character_change", args=[character.pk]) if request.user.is_staff else None,
        "errata": card_errata(character),
        "history_url": reverse("character-history", kwargs={"slug": character.slug}),
    }
    return render(request, "realms/pages/card.html", context)


def rules(request):
    """The rules as the service plays them (docs/rules.md), the page the Army Sheet's QR code opens."""
    return render(request, "realms/pages/rules.html", {"nav": "realms-rules", "rules_html": rules_html()})


@functools.cache
def rules_html() -> str:
    """docs/rules.md as HTML, read once: raw HTML in it is escaped, not passed on."""
    from markdown_it import MarkdownIt

    source = (settings.BASE_DIR / "docs" / "rules.md").read_text(encoding="utf-8")
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(source)


# The army builder.

@dataclass
class Builder:
    """An army being built, as the page holds it, and what to tell about the last change."""

    slots: list[Slot] = field(default_factory=list)
    army: Army | None = None  # the saved army being edited
    name: str = ""
    find: str = ""
    paste: str = ""
    notices: list[dict] = field(default_factory=list)
    problems: list[dict] = field(default_factory=list)
    status: int = 200
    moved: tuple[int, str] | None = None  # after a move in army order: the card's new index, and which button

    def tell(self, text: str, level: str = "error", status: int | None = None) -> None:
        self.notices.append({"text": text, "level": level})
        if status is not None:
            self.status = max(self.status, status)


def _checked_slots(data: list[dict]) -> tuple[list[Slot] | None, list[str]]:
    """Slots read with the API's own limits (at most MAX_SLOTS, bounded slugs, known lines)."""
    serializer = ArmyInputSerializer(data={"slots": data})
    if not serializer.is_valid():
        return None, _messages(serializer.errors)
    return services.slots_from_data(serializer.validated_data["slots"]), []


def _own_army(request, army_id: int) -> Army | None:
    """The requester's own saved army (another user's is never found, as in the API)."""
    return selectors.army_list(user=request.user).filter(pk=army_id).first()


NO_SUCH_ARMY = "You have no saved army with this number"


def _open_builder(request) -> Builder:
    """The builder as a URL opens it: empty, from `?code=` or from one of your armies (`?army=`)."""
    builder = Builder()
    repeated = query_parameter_errors(request.GET)
    if repeated:
        for line in _messages(repeated):
            builder.tell(line, status=400)
        return builder
    form = BuilderOpenForm(request.GET)
    if not form.is_valid():
        for line in _messages(form.errors):
            builder.tell(line, status=400)
        return builder
    builder.find = form.cleaned_data["find"]
    if form.cleaned_data["army"] is not None:
        army = _own_army(request, form.cleaned_data["army"])
        if army is None:
            builder.tell(f"{NO_SUCH_ARMY}.", status=404)
            return builder
        slots, problems = _checked_slots(army.slots)
        builder.army, builder.name, builder.slots = army, army.name, slots or []
        for line in problems:
            builder.tell(line)
    elif "code" in request.GET:
        _load_code(builder, request.GET["code"])
    return builder


def _load_code(builder: Builder, text: str) -> None:
    """Replace the army with the one an army code names, in the code's order; a readable message if none."""
    query = ArmyCodeQuerySerializer(data={"code": text})
    if not query.is_valid():
        builder.tell(f"Bad army code: {' '.join(_messages(query.errors['code']))}", status=400)
        return
    try:
        _version, slots = services.army_decode(query.validated_data["code"])
    except ArmyCodeError as exc:
        builder.tell(f"Bad army code: {exc}", status=400)
        return
    builder.slots = slots


def _posted_builder(request) -> Builder:
    """The builder as the page posted it: its slots (hidden inputs), the army it edits and its fields."""
    builder = Builder()
    form = BuilderStateForm(request.POST)
    if not form.is_valid():
        for line in _messages(form.errors):
            builder.tell(line, status=400)
        return builder
    builder.find, builder.name = form.cleaned_data["find"], form.cleaned_data["name"]
    builder.paste = form.cleaned_data["paste"]
    if form.cleaned_data["army"] is not None:
        builder.army = _own_army(request, form.cleaned_data["army"])
        if builder.army is None:
            builder.tell(f"{NO_SUCH_ARMY} (signed out meanwhile?): nothing was changed.", status=404)
    cards, lines = request.POST.getlist("card"), request.POST.getlist("line")
    if len(cards) != len(lines):
        builder.tell("The army could not be read: every card needs its line.", status=400)
        return builder
    slots, problems = _checked_slots([{"card": c, "line": line} for c, line in zip(cards, lines, strict=True)])
    if slots is None:
        builder.tell("The army could not be read.", status=400)
        for line in problems:
            builder.tell(line)
        return builder
    builder.slots = slots
    if builder.status == 200:
        _apply(request, builder)
    return builder


def _index(text: str, slots: list[Slot]) -> int | None:
    """The slot a button names, or None (a number is read only when it is short enough to be one)."""
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_SLOTS))):
        return None
    return int(text) if int(text) < len(slots) else None


# The buttons that move a card in army order, and the step each takes.
ORDER_STEPS = {"earlier": -1, "later": 1}


def _apply(request, builder: Builder) -> None:
    """Carry out the button the person pressed (each names its action)."""
    post = request.POST
    slots = list(builder.slots)
    pressed = next((name for name in ("remove", "move", *ORDER_STEPS) if name in post), None)
    if "add" in post:
        line, _, slug = post["add"].partition(":")
        slots.append(Slot(card=slug, line=line))
    elif pressed is not None:
        index = _index(post[pressed], slots)
        if index is None:
            builder.tell("There is no such card in the army.", status=400)
            return
        if pressed == "remove":
            del slots[index]
        elif pressed == "move":
            other = LINES[1 - LINES.index(slots[index].line)]
            slots[index] = Slot(card=slots[index].card, line=other)
        else:
            # Army order settles the player's own SPD ties (R9): a card swaps places with its neighbour.
            target = index + ORDER_STEPS[pressed]
            if not 0 <= target < len(slots):
                where = "first" if pressed == "earlier" else "last"
                builder.tell(f"That card is already {where} in the army order.", status=400)
                return
            slots[index], slots[target] = slots[target], slots[index]
            builder.moved = (target, pressed)
    elif "clear" in post:
        slots = []
    elif "paste_go" in post:
        _paste(builder, builder.paste)
        return
    elif "save" in post:
        _save(request, builder)
        return
    checked, problems = _checked_slots([{"card": s.card, "line": s.line} for s in slots])
    if checked is None:
        builder.moved = None
        builder.tell(f"That change was not made: {' '.join(problems)}", status=400)
        return
    builder.slots = checked


def _paste(builder: Builder, text: str) -> None:
    """Load a pasted army code, or read a pasted decklist (its problems listed by line)."""
    stripped = text.strip()
    if not stripped:
        builder.tell("Paste an army code or a decklist first.", status=400)
        return
    code_problem = None
    if len(stripped.split()) == 1:
        query = ArmyCodeQuerySerializer(data={"code": stripped})
        if query.is_valid():
            try:
                builder.slots = services.army_decode(query.validated_data["code"])[1]
                builder.tell("Loaded the army of the pasted code.", level="success")
                return
            except ArmyCodeError as exc:
                code_problem = str(exc)
    data = ArmyImportInputSerializer(data={"text": text})
    if not data.is_valid():
        for line in _messages(data.errors):
            builder.tell(line, status=400)
        return
    answer = services.army_import(data.validated_data["text"])
    builder.problems = answer["problems"]
    if not answer["slots"]:
        reason = f"It is not an army code ({code_problem}) and " if code_problem else ""
        builder.tell(f"{reason}No card could be read from the pasted text; the army is unchanged.", status=400)
        return
    builder.slots = services.slots_from_data(answer["slots"])
    read = len(answer["slots"])
    builder.tell(f"Read {read} card{'s' if read != 1 else ''} from the decklist.", level="success")


def _save(request, builder: Builder) -> None:
    """Create or update your saved army through the API's serializer (drafts allowed, as there)."""
    if not request.user.is_authenticated:
        builder.tell("Sign in to save your army.", status=403)
        return
    data = {"name": builder.name, "slots": [{"card": s.card, "line": s.line} for s in builder.slots]}
    serializer = ArmySerializer(instance=builder.army, data=data, context={"request": request})
    if not serializer.is_valid():
        for line in _messages(serializer.errors):
            builder.tell(f"Not saved. {line}", status=400)
        return
    builder.army = serializer.save()
    builder.tell(f"Saved “{builder.army.name}”.", level="success")


def _builder_context(request, builder: Builder) -> dict:
    """The army's report (services.army_validate) and what the page shows of it and of the catalogue."""
    # A saved army linked to a collection is checked against it (R4), as the API shows that army.
    collection = builder.army.collection if builder.army is not None else None
    report = services.army_validate(slots=builder.slots, collection=collection)
    known = {c.slug: c for c in selectors.character_list().filter(slug__in={s.card for s in builder.slots})}
    entries = _entries(builder, known)
    figures = _army_figures(report, known)
    found = _found_characters(request, builder)
    return {
        "nav": "army-builder", "builder": builder, "report": report, "army_size": ARMY_SIZE,
        "violations": named_violations(report["violations"]),
        "entries": entries, "moved": _moved(builder, entries),
        **figures, **_sharing(request, builder, report["code"]), **found,
        "paste": builder.paste,
    }


def _army_figures(report: dict, known: dict[str, Character]) -> dict:
    """The army's counts against the rules (lines, rarity quotas) and its statistics, as the page shows them."""
    counts, stats = report["counts"], report["stats"]
    rarity_names = dict(Rarity.objects.values_list("slug", "name"))
    faction_names = dict(Faction.objects.filter(slug__in=stats["counts"]["faction"]).values_list("slug", "name"))
    return {
        "lines": [{"line": line, "label": line.title(), "capacity": LINE_CAPACITY, "count": counts["line"][line]}
                  for line in LINES],
        "rarities": [{"slug": slug, "name": rarity_names.get(slug, slug.title()), "have": counts["rarity"][slug],
                      "need": need} for slug, need in RARITY_QUOTA.items()],
        "factions": [{"name": faction_names.get(slug, slug), "count": n} for slug, n in stats["counts"]["faction"].items()],
        "classes": [{"name": CharacterClass(name).label, "count": n} for name, n in stats["counts"]["class"].items() if n],
        "stat_rows": [{"label": STAT_LABELS[key], "sum": stats["sums"][key], "mean": stats["means"][key]}
                      for key in ("atk", "def", "spd", "hp")],
        "attack_order": [{"spd": group["spd"], "tie": group["tie"],
                          "names": [known[u["card"]].name if u["card"] in known else u["card"] for u in group["units"]]}
                         for group in stats["attack_order"]],
    }


def _found_characters(request, builder: Builder) -> dict:
    """The characters the builder's search finds (the first BUILDER_LIST_LIMIT and how many in all), or why the
    search could not be read."""
    find_errors: list[str] = []
    characters, errors, find_warnings = _search_characters(request, {"q": builder.find} if builder.find else {})
    if characters is None:
        find_errors = _messages(errors)
        listed, total = [], 0
    else:
        listed = list(characters[:BUILDER_LIST_LIMIT])
        total = characters.count() if len(listed) == BUILDER_LIST_LIMIT else len(listed)
    return {"characters": listed, "characters_total": total, "find_errors": find_errors,
            "find_warnings": find_warnings}


def _sharing(request, builder: Builder, code: str | None) -> dict:
    """The army's share link and decklist, once every card is known (it then has a code)."""
    share_url = decklist = None
    if code:
        share_url = army_builder_url(request, code)
        decklist = services.army_export_text(builder.slots)
    return {"share_url": share_url, "decklist": decklist,
            "decklist_rows": min(decklist.count("\n"), DECKLIST_ROWS) if decklist else 0}


def _moved(builder: Builder, entries: list[dict]) -> str | None:
    """Where the card a button just moved now stands in the army order."""
    if builder.moved is None:
        return None
    entry = entries[builder.moved[0]]
    return f"{entry['name']} is now number {entry['number']} of {len(entries)} in the army order."


def _entries(builder: Builder, known: dict[str, Character]) -> list[dict]:
    """The army's cards in army order, as the page lists them, with the button that gets the focus after a move
    (the one pressed, on the card that moved; the other one once the card reaches an end)."""
    entries = []
    last = len(builder.slots) - 1
    for index, slot in enumerate(builder.slots):
        character = known.get(slot.card)
        focus = None
        if builder.moved is not None and builder.moved[0] == index:
            focus = builder.moved[1]
            if (focus == "earlier" and index == 0) or (focus == "later" and index == last):
                focus = "later" if focus == "earlier" else "earlier"
        entries.append({
            "index": index, "number": index + 1, "slot": slot, "character": character,
            "name": character.name if character is not None else slot.card,
            "line": slot.line.title(), "other": LINES[1 - LINES.index(slot.line)].title(),
            "first": index == 0, "last": index == last, "focus": focus,
        })
    return entries


def _saved_url(builder: Builder) -> str | None:
    """The address of the army a press of Save just stored, or None when that press saved nothing."""
    if builder.army is None or builder.status != 200 or not any(n["level"] == "success" for n in builder.notices):
        return None
    return f"{reverse('army-builder')}?{urlencode({'army': builder.army.pk})}"


def _panel_response(request, builder: Builder):
    """The builder's fragment for htmx; after a save, the address bar moves to the saved army."""
    response = _render(request, "realms/pages/builder_fragment.html", _builder_context(request, builder),
                       builder.status)
    saved = _saved_url(builder) if "save" in request.POST else None
    if saved:
        response["HX-Push-Url"] = saved
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def army_builder(request):
    """The builder page: opened empty, from a code or a saved army; without JS its buttons post here."""
    if request.method == "POST":
        builder = _posted_builder(request)
        if _wants_fragment(request):
            return _panel_response(request, builder)
        saved = _saved_url(builder) if "save" in request.POST else None
        if saved:  # after a save, a reload must not post it again
            messages.success(request, builder.notices[-1]["text"])
            return redirect(saved)
    else:
        builder = _open_builder(request)
    return _render(request, "realms/pages/builder.html", _builder_context(request, builder), builder.status)


@require_POST
def army_builder_panel(request):
    """What htmx swaps after each button of the builder: the army panel and the list, the status out of band."""
    return _panel_response(request, _posted_builder(request))
