"""The match form: the posted fields read into the body the API's match request takes, and the refusals
(serializer errors, engine input errors, rule violations) put back next to the fields. Each game's form (its
fields, how they read, where a refusal shows) is a `MatchForm` its pages name (simulate.pages.games).

The form only gathers; the game's own `match_request` serializer validates the body, exactly as
`POST /api/simulate/<game>/matches/` does, and `simulate.services.play_match` plays it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from cardsdb.api.errors import field_errors
from cardsdb.pages.wording import named_violations
from simulate.engine.errors import InputError, input_error_fields
from simulate.pages.choices import Choice, prefill, settle
from simulate.pages.games import game_pages
from simulate.services import IllegalMatchSetup, game_matches, new_seed

MAX_TEXT = 4000  # longer than any code the serializers take: a longer value is cut before anything reads it
NON_FIELD = "form"


def posted(data: Mapping[str, str], name: str) -> str:
    return str(data.get(name, "")).strip()[:MAX_TEXT]


def whole_number_or_text(value: str) -> int | str:
    """A typed number as the JSON integer the serializers take; anything else as given, for them to refuse."""
    if value.isascii() and value.isdigit() and len(value) <= 30:
        return int(value)
    return value


@dataclass
class MatchForm:
    """What a person filled in, the API body it makes, and the messages by form field."""

    game: str
    values: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    violations: dict[str, list[dict]] = field(default_factory=dict)
    request: Any = None  # the game's match request serializer, once the body was checked
    fields: ClassVar[tuple[str, ...]] = ()  # the posted fields the game's form reads
    # The form's choices (a side's army source...) and the inputs each option reads (simulate.pages.choices),
    # and how a message names those inputs.
    choices: ClassVar[tuple[Choice, ...]] = ()
    input_labels: ClassVar[dict[str, str]] = {}

    def add(self, name: str, message: str) -> None:
        self.errors.setdefault(name, []).append(message)

    def is_valid(self) -> bool:
        """The body checked by the game's match request serializer; its errors put by the fields."""
        if self.errors:
            return False
        data = self.request = game_matches(self.game).match_request(data=self.body)
        if data.is_valid():
            return True
        for path, messages in field_errors(data.errors).items():
            for message in messages:
                self.add(self.field_of(path), message)
        return False

    def refused(self, exc: InputError | IllegalMatchSetup) -> None:
        """A refusal of `play_match` (an input error at request paths, or rule violations) by the fields."""
        if isinstance(exc, IllegalMatchSetup):
            for violation in named_violations(exc.violations):
                self.violations.setdefault(self.violation_field(violation), []).append(violation)
            self.add(NON_FIELD, str(exc))
            return
        for path, messages in input_error_fields(exc).items():
            for message in messages:
                self.add(self.field_of(path), message)

    def settle_choices(self) -> bool:
        """Each choice checked against the inputs filled in: an option filled in alone plays where the chosen
        one has nothing to play; an input its choice leaves out refuses the form, told by the choice's field."""
        filled = {name for name in self.fields if self.values[name]}
        conflicts = settle(self.choices, self.values, filled, self.input_labels)
        for conflict in conflicts:
            self.add(conflict.choice, conflict.message)
        return not conflicts

    def read(self, user) -> MatchForm:
        """The values read into `body` (the match request), with the messages of what cannot be read."""
        raise NotImplementedError

    def field_of(self, path: str) -> str:
        """The form field that shows an error at a request path."""
        raise NotImplementedError

    def violation_field(self, violation: dict) -> str:
        """The form field that shows a rule violation."""
        return NON_FIELD

    def seed(self) -> int | str:
        """The seed field as the request takes it: a new seed when it is empty."""
        text = self.values["seed"]
        return whole_number_or_text(text) if text else new_seed()


def bound_form(game: str, data: Mapping[str, str], user) -> MatchForm:
    """The posted form of `game`, read into its API body (not read when a choice contradicts its inputs)."""
    form_class = game_pages(game).match_form
    form = form_class(game, {name: posted(data, name) for name in form_class.fields})
    return form.read(user) if form.settle_choices() else form


def linked_values(game: str, params: Mapping[str, str]) -> dict[str, str]:
    """The form's first values with those a link gives (`?a_code=...` beside the game, as the builders link here):
    an option whose inputs the link fills is chosen unless the link names the choice itself."""
    pages = game_pages(game)
    form = pages.match_form
    values = pages.initial_match_values()
    named = {name for name in form.fields if name in params}
    values.update({name: posted(params, name) for name in named})
    prefill(form.choices, values, {name for name in named if values[name]}, named)
    return values


def form_sections(game: str, values: dict[str, str], errors: dict[str, list[str]],
                  violations: dict[str, list[dict]]) -> dict[str, Any]:
    """The form's parts as its template shows them: the game's own (each side or the setup, each agent) with
    what was filled in and the messages about them, then the messages of the whole form and of the seed."""
    return {**game_pages(game).match_sections(values, errors, violations),
            "form_errors": errors.get(NON_FIELD, []), "seed_errors": errors.get("seed", [])}
