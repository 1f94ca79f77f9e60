"""Akin Legends pages: the card gallery, a card's page and the setup builder.

Each reads what the API reads: the kinds of card, their querysets, FilterSets and serializers are the API
viewsets' own (legends/api/urls.py), setups are checked by the service the validate action calls and saved
through the API's serializer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import InvalidPage, Paginator
from django.db.models import Case, CharField, Q, QuerySet, Value, When
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError as APIValidationError
from rest_framework.serializers import Serializer

from cardsdb.api.errors import field_errors
from cardsdb.api.filters import query_parameter_errors
from cardsdb.api.serializers import share_url
from cardsdb.card_history import card_errata
from cardsdb.choices import Game
from cardsdb.models import Card
from cardsdb.pages.wording import named_violations
from legends import selectors, services, setup_codes
from legends.api.serializers import SetupCodeQuerySerializer, SetupInputSerializer, TeamSetupSerializer
from legends.api.urls import router
from legends.api.views import LegendsCardViewSet
from legends.engine.setup import SetupFormatError, parse_teams
from legends.engine.vocabulary import MODES
from legends.filtersets import LegendsCardFilter
from legends.pages.forms import (
    LABELS,
    SetupForm,
    default_setup_initial,
    setup_initial,
    shown_filter_fields,
)
from simulate.pages.card_study import card_meta, card_study

PAGE_SIZE = 24
MAX_SETUPS_SHOWN = 50


@dataclass(frozen=True)
class Kind:
    """One kind of Akin Legends card, as its API viewset serves it."""

    slug: str  # the API's prefix: spirits, protectors, defenses, summoning-cards
    viewset: type[LegendsCardViewSet]
    face_route: str
    history_route: str

    @property
    def model(self):
        return self.cards().model

    @property
    def label(self) -> str:
        return str(self.model._meta.verbose_name_plural).capitalize()

    @property
    def singular(self) -> str:
        return str(self.model._meta.verbose_name)

    def cards(self) -> QuerySet:
        return cast(QuerySet, self.viewset.queryset).all()  # each kind's viewset names its cards

    def face_url(self, slug: str, size: str) -> str:
        return f"{reverse(self.face_route, kwargs={'slug': slug})}?size={size}"

    def history_url(self, slug: str) -> str:
        """The API's list of the card's versions."""
        return reverse(self.history_route, kwargs={"slug": slug})


KINDS: dict[str, Kind] = {
    prefix: Kind(prefix, viewset, f"{basename}-card-face", f"{basename}-history")
    for prefix, viewset, basename in router.registry
    if issubclass(viewset, LegendsCardViewSet)
}
# The filters every kind has, and so the only ones a gallery of every kind applies.
COMMON_PARAMETERS = frozenset({*LegendsCardFilter.base_filters, "q"})


def parameter_problems(params) -> list[str]:
    """What the API refuses of any query string before running a query, as lines to show."""
    return [f"{name}: {reason[0].lower()}{reason[1:]}" for name, reasons in query_parameter_errors(params).items()
            for reason in reasons]


# --------------------------------------------------------------------------- the gallery


@dataclass
class Filtered:
    """A kind's cards as its FilterSet filtered them, or why it could not."""

    kind: Kind
    filterset: Any
    cards: QuerySet | None = None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def filter_cards(request, kind: Kind, data) -> Filtered:
    """Run the API's FilterSet of `kind` on `data`, as the list endpoint does (errors and q's warnings kept)."""
    filterset = kind.viewset.filterset_class(data=data, queryset=kind.cards(), request=request)
    request.query_warnings = []
    if not filterset.is_valid():
        return Filtered(kind, filterset, errors=[
            f"{LABELS.get(name, name)}: {message}"
            for name, found in filterset.form.errors.items() for message in found])
    try:
        cards = filterset.qs
    except APIValidationError as exc:  # a query that cannot run (QueryFilter), with its position
        return Filtered(kind, filterset, errors=[f"Query: {message}" for message in
                                                 field_errors(exc.detail).get("q", ["cannot be run."])])
    warnings = [f"Ignored: {w['message']} (at position {w['position']})" for w in request.query_warnings]
    return Filtered(kind, filterset, cards=cards.order_by("name", "pk"), warnings=warnings)


def filter_data(request) -> dict[str, str]:
    """The filters of the query string; a field the form sent blank is no filter, as a person means it
    (the API refuses `double=`, a parameter given empty)."""
    return {name: value for name, value in request.GET.items() if value != ""}


def every_kind(request) -> tuple[QuerySet | None, Filtered, list[str], list[str], list[str]]:
    """Cards of every kind matching the shared filters and `q`, each annotated with its kind.

    `q` is read in each kind's own language; a kind whose language cannot read all of it (a key it does not
    have) is left out, and named, while another kind reads it whole.
    Returns the cards, the outcome whose form the page shows, errors, warnings and notes.
    """
    data = {name: value for name, value in filter_data(request).items() if name in COMMON_PARAMETERS}
    outcomes = [filter_cards(request, kind, data) for kind in KINDS.values()]
    whole, partial = read_whole_or_partly(outcomes)
    used = whole or partial
    if not used:
        return None, outcomes[0], unique(m for o in outcomes for m in o.errors), [], []
    warnings = [] if whole else unique(w for o in partial for w in o.warnings)
    return cards_of_kinds(used), outcomes[0], [], warnings, left_out_notes(outcomes, whole)


def read_whole_or_partly(outcomes: list[Filtered]) -> tuple[list[Filtered], list[Filtered]]:
    """The kinds that ran the query as it is, and those that ran it ignoring some of it (with warnings)."""
    ran = [o for o in outcomes if o.cards is not None]
    return [o for o in ran if not o.warnings], [o for o in ran if o.warnings]


def left_out_notes(outcomes: list[Filtered], whole: list[Filtered]) -> list[str]:
    """The kinds left out because the query does not apply to them, while others read it whole."""
    if not whole or len(whole) == len(outcomes):
        return []
    left_out = [f"{o.kind.label} ({(o.errors or o.warnings)[0]})" for o in outcomes if o not in whole]
    return ["Left out, as this query does not apply to them: " + "; ".join(left_out) + "."]


def cards_of_kinds(used: list[Filtered]) -> QuerySet:
    """The cards the kinds' filters kept, in one query, each annotated with its kind."""
    condition = Q()
    for outcome in used:
        condition |= Q(pk__in=cast(QuerySet, outcome.cards).values("pk"))  # (used: those with cards)
    kind_of = Case(*[When(pk__in=cast(QuerySet, o.cards).values("pk"), then=Value(o.kind.slug)) for o in used],
                   output_field=CharField())
    return (Card.objects.filter(condition, game=Game.LEGENDS).annotate(kind=kind_of)
            .order_by("name", "pk").only("pk", "name", "slug"))


def unique(items) -> list[str]:
    return list(dict.fromkeys(items))


def gallery_url(params: dict[str, str]) -> str:
    return f"{reverse('legends-gallery')}?{urlencode(params)}" if params else reverse("legends-gallery")


@dataclass
class GalleryQuery:
    """What the gallery shows for its query string: the cards (None when the query is refused), the filter
    form and what to tell about the query."""

    cards: QuerySet | None
    form: Any
    errors: list[str]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def gallery_query(request, kind_slug: str, kind: Kind | None) -> GalleryQuery:
    """The query string run as the API runs it: on one kind, or on every kind when none is chosen."""
    errors = parameter_problems(request.GET)
    if kind_slug and kind is None:
        errors.append(f"There is no kind of card {kind_slug!r}: choose one of {', '.join(KINDS)}.")
    if errors:
        # The refused query string is not run, not even through a FilterSet: the form is shown empty.
        return GalleryQuery(None, (kind or KINDS["spirits"]).viewset.filterset_class().form, errors)
    if kind is None:
        cards, outcome, errors, warnings, notes = every_kind(request)
        return GalleryQuery(cards, outcome.filterset.form, errors, warnings, notes)
    outcome = filter_cards(request, kind, filter_data(request))
    return GalleryQuery(outcome.cards, outcome.filterset.form, outcome.errors, outcome.warnings)


def gallery_page(request, query: GalleryQuery):
    """The page of cards asked for (`page`), or None; a page that does not exist is an error (404)."""
    if query.cards is None:
        return None
    paginator = Paginator(query.cards, PAGE_SIZE)
    number = request.GET.get("page", "1")
    try:
        return paginator.page(number)
    except InvalidPage:
        query.errors.append(f"There is no page {number!r} of these cards: pages run from 1 to {paginator.num_pages}.")
        return None


def gallery_tiles(page_obj, kind: Kind | None) -> list[dict[str, Any]]:
    """Each card of the page as a tile: name, kind, link and small face."""
    if page_obj is None:
        return []
    tiles = []
    for card in page_obj.object_list:
        card_kind = kind or KINDS[card.kind]
        tiles.append({"name": card.name, "kind": card_kind, "url": reverse("legends-card", args=[card.slug]),
                      "face": card_kind.face_url(card.slug, "small")})
    return tiles


def gallery_tabs(kept: dict[str, str]) -> list[dict[str, str]]:
    """One tab for every kind and one for all kinds, each keeping the filters every kind understands."""
    return [{"slug": slug, "label": label, "url": gallery_url({**kept, **({"kind": slug} if slug else {})})}
            for slug, label in [("", "All kinds"), *((k.slug, k.label) for k in KINDS.values())]]


def gallery(request):
    """Card faces of one kind or every kind, filtered as the API filters them, 24 a page."""
    kind_slug = request.GET.get("kind", "")
    kind = KINDS.get(kind_slug)
    shown_kind = kind_slug if kind is not None else ""
    query = gallery_query(request, kind_slug, kind)
    page_obj = gallery_page(request, query)
    errors = query.errors
    # A refused query answers 400; a page past the last one, 404.
    status = 404 if query.cards is not None and page_obj is None else 400
    # Switching kind keeps what every kind understands.
    kept = {name: request.GET[name] for name in ("q", "name", "set") if request.GET.get(name) and not errors}
    context = {
        "nav": "legends-gallery",
        "kind": kind,
        "kind_slug": shown_kind,
        "tabs": gallery_tabs(kept),
        "filters": shown_filter_fields(shown_kind, query.form),
        "q": request.GET.get("q", ""),
        "errors": errors,
        "warnings": query.warnings,
        "notes": query.notes,
        "page_obj": page_obj if not errors else None,
        "tiles": gallery_tiles(page_obj, kind) if not errors else [],
    }
    fragment = request.htmx and not request.htmx.history_restore_request
    template = "legends/pages/gallery_results.html" if fragment else "legends/pages/gallery.html"
    response = render(request, template, context, status=status if errors else 200)
    patch_vary_headers(response, ["HX-Request"])
    return response


# --------------------------------------------------------------------------- a card's page

FIELD_LABELS = {
    "id": "Id", "slug": "Slug", "code": "Code", "name": "Name", "game": "Game", "set": "Set",
    "rules_text": "Rules text", "flavor_text": "Flavor text", "image": "Art", "thumbnail": "Art thumbnail",
    "card_face": "Card face (PNG)", "created_at": "Added", "updated_at": "Last changed", "color": "Colour",
    "effect": "Effect", "duel_legal": "Duel-legal", "elements": "Elements", "attacks": "Attacks",
    "copies": "Copies in the deck",
}


class ElementNames:
    """Element slugs as people read them (icon and name), one query for the page."""

    @cached_property
    def by_slug(self) -> dict[str, str]:
        return {e.slug: f"{e.icon} {e.name}" for e in selectors.element_list()}

    def __call__(self, slug: str) -> str:
        return self.by_slug.get(slug, slug)


def field_rows(card, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every field the kind's API serializer shows (but its study block), as label and readable value."""
    element = ElementNames()
    return [field_row(card, name, value, element) for name, value in data.items() if name != "simulated"]


def field_row(card, name: str, value: Any, element: ElementNames) -> dict[str, Any]:
    """One field as label and readable text (with a link for a file, a swatch for a colour)."""
    row: dict[str, Any] = {"label": FIELD_LABELS.get(name, name.replace("_", " ").capitalize()), "text": value}
    text = FIELD_TEXTS.get(name)
    if text is not None:
        row["text"] = text(card, value, element)
    elif name in FILE_FIELDS:
        row["text"], row["href"] = ("open" if value else "none uploaded"), value
    elif name == "color":
        row["swatch"] = value
    elif value in ("", None):
        row["text"] = "—"
    return row


def effect_text(card, value: dict[str, Any], element: ElementNames) -> str:
    """A summoning card's effect as "Kind · element"; a protector's spec as its "key: value" pairs."""
    if "kind" in value and set(value) == {"kind", "element"}:
        return f"{value['kind'].capitalize()} · {element(value['element'])}"
    return " · ".join(f"{key}: {element(v) if key == 'element' else v}" for key, v in value.items())


def moment_text(card, value: Any, element: ElementNames) -> Any:
    """A date and time as people read it, in UTC."""
    moment = parse_datetime(value) if isinstance(value, str) else value
    return date_format(moment, "j F Y, H:i") + " UTC" if moment else value


# How each field that is not shown as it is reads: a function of the card, the value and the element names.
FIELD_TEXTS: dict[str, Callable[[Any, Any, ElementNames], Any]] = {
    "set": lambda card, value, element: f"{card.card_set.name} ({value})",
    "game": lambda card, value, element: Game(value).label,
    "elements": lambda card, value, element: " + ".join(element(slug) for slug in value),
    "attacks": lambda card, value, element: " / ".join(element(slug) for slug in value),
    "effect": effect_text,
    "duel_legal": lambda card, value, element: "Yes" if value else "No (removed from the two-player variant)",
    "created_at": moment_text,
    "updated_at": moment_text,
}
FILE_FIELDS = ("image", "thumbnail", "card_face")


def find_card(slug: str) -> tuple[Kind, Any]:
    """The card of any Akin Legends kind with this slug (slugs are unique across every card), or 404."""
    for kind in KINDS.values():
        card = kind.cards().filter(slug=slug).first()
        if card is not None:
            return kind, card
    raise Http404("There is no Akin Legends card with this slug.")


def card_page(request, slug: str):
    """A card's face, every field its API shows, its errata, its simulated win rate, and the user's setups
    using it."""
    kind, card = find_card(slug)
    serializer_class = cast(type[Serializer], kind.viewset.serializer_class)  # each kind's viewset names its own
    data = serializer_class(card, context={"request": request}).data
    admin_url = None
    if request.user.is_staff:
        meta = card._meta
        admin_url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[card.pk])
    context = {
        "nav": "legends-gallery",
        "card": card,
        "kind": kind,
        "face": kind.face_url(card.slug, "large"),
        "rows": field_rows(card, data),
        "studied": "simulated" in data,
        "study": card_study(data.get("simulated")),
        "meta": card_meta(Game.LEGENDS, card.slug),
        "in_setups": kind.slug in ("spirits", "protectors", "defenses"),
        "setups": selectors.setups_using(user=request.user, slug=card.slug, limit=MAX_SETUPS_SHOWN),
        "admin_url": admin_url,
        "errata": card_errata(card),
        "history_url": kind.history_url(card.slug),
    }
    return render(request, "legends/pages/card.html", context)


# --------------------------------------------------------------------------- the setup builder


def setup_report(request, form: SetupForm) -> dict[str, Any] | None:
    """The validate action's answer for the form's setup; None while a field is refused."""
    if not form.is_valid():
        return None
    data = SetupInputSerializer(data=form.setup_data())
    if not data.is_valid():
        return {"input_errors": [f"{path}: {m}" for path, found in field_errors(data.errors).items() for m in found]}
    report = services.setup_validate(**data.validated_data)
    link = share_url(None, "setup-builder", report["code"])
    return {**report, "violations": named_violations(report["violations"]),
            "share_url": share_url(request, "setup-builder", report["code"]), "builder_link": link}


def own_setup(request, raw: str):
    """The signed-in user's saved setup with id `raw`; 404 for any other id (another user's, or garbage)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        raise Http404("There is no saved setup of yours with this id.")
    setup = selectors.team_setup_list(user=request.user).filter(pk=int(raw)).first()
    if setup is None:
        raise Http404("There is no saved setup of yours with this id.")
    return setup


def builder_initial(request) -> tuple[dict[str, Any], list[str], list[str], int]:
    """The builder's starting fields from `?setup=`, `?code=` or `?mode=`, with notices and errors."""
    params = request.GET
    modes = cast(forms.ChoiceField, SetupForm.base_fields["mode"]).choices
    mode = params.get("mode") if params.get("mode") in dict(cast(Iterable[tuple[str, str]], modes)) else "teams"
    errors = parameter_problems(params)
    if errors:
        return default_setup_initial(mode), [], errors, 400
    if "setup" in params:
        saved = own_setup(request, params["setup"])
        try:
            teams = parse_teams(saved.teams)
        except SetupFormatError as exc:  # stored past the model's checks (a raw write): shown, not opened
            return default_setup_initial(mode), [], [f"The saved setup “{saved.name}” is malformed: {exc}"], 400
        initial, cut = setup_initial(saved.mode, teams)
        initial.update(name=saved.name, setup=saved.pk)
        return initial, cut_notice(cut), [], 200
    if "code" in params:
        query = SetupCodeQuerySerializer(data=params)
        if not query.is_valid():
            return default_setup_initial(mode), [], [f"Bad setup code: {query.errors['code'][0]}"], 400
        try:
            code_mode, teams = setup_codes.decode_setup(query.validated_data["code"])
        except setup_codes.SetupCodeError as exc:
            return default_setup_initial(mode), [], [f"Bad setup code: {exc}"], 400
        initial, cut = setup_initial(code_mode, teams)
        return initial, cut_notice(cut), [], 200
    return default_setup_initial(mode), [], [], 200


def cut_notice(cut: list[str]) -> list[str]:
    if not cut:
        return []
    return [f"This setup has more than the builder shows ({'; '.join(cut)}); it is shown without them."]


def render_builder(request, form: SetupForm, *, notices=(), errors=(), status: int = 200) -> HttpResponse:
    report = setup_report(request, form)
    setup_id = form.cleaned_data.get("setup") if form.is_valid() else None
    context = {
        "nav": "setup-builder",
        "form": form,
        "teams": form.team_fields(),
        "counters": MODES[form.current_mode].counters,
        "report": report,
        "notices": list(notices),
        "errors": list(errors),
        "setup_id": setup_id,
        "builder_url": reverse("setup-builder"),
    }
    return render(request, "legends/pages/setup_builder.html", context, status=status)


@require_http_methods(["GET", "POST"])
def setup_builder(request):
    """Build a team setup: live violations, its code and share link, a pasted code, Save for signed-in users."""
    if request.method == "GET":
        if "setup" in request.GET and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        initial, notices, errors, status = builder_initial(request)
        return render_builder(request, SetupForm(data=initial), notices=notices, errors=errors, status=status)
    form = SetupForm(data=request.POST)
    action = request.POST.get("action", "check")
    if action not in ("save", "save_new") or not form.is_valid():
        return render_builder(request, form, status=200 if form.is_valid() else 400)
    if not request.user.is_authenticated:
        return render_builder(request, form, errors=["Sign in to save a setup."], status=403)
    name = form.cleaned_data["name"]
    if not name:
        form.add_error("name", "Give the setup a name to save it.")
        return render_builder(request, form, status=400)
    instance = None
    if action == "save" and form.cleaned_data.get("setup"):
        instance = own_setup(request, str(form.cleaned_data["setup"]))
    serializer = TeamSetupSerializer(instance, data={"name": name, **form.setup_data()}, context={"request": request})
    if not serializer.is_valid():
        problems = [f"{path}: {m}" for path, found in field_errors(serializer.errors).items() for m in found]
        return render_builder(request, form, errors=problems, status=400)
    saved = serializer.save()
    messages.success(request, f"Saved “{saved.name}”.")
    return redirect(f"{reverse('setup-builder')}?setup={saved.pk}")


@require_POST
def setup_check(request):
    """The builder's report panel for the posted fields (htmx swaps it in as the setup changes)."""
    form = SetupForm(data=request.POST)
    context = {"form": form, "report": setup_report(request, form), "builder_url": reverse("setup-builder")}
    return render(request, "legends/pages/setup_report.html", context)
