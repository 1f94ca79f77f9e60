"""Engine and service refusals answered in one place (cardsdb.api.errors): 400 in the common shape,
fields keyed by dotted request path."""

import pytest

from cardsdb.api.errors import exception_handler
from cardsdb.errors import DomainError
from simulate.batches import TooManyBatches
from simulate.engine.errors import (
    IllegalAction,
    InputError,
    OptionsError,
    SetupError,
    SpecError,
    UnknownAgentError,
    UnknownGameError,
    input_error_fields,
)
from simulate.services import IllegalMatchSetup
from tests.conftest import assert_error_shape
from tests.simulate.test_legends_matches_api import DUEL


@pytest.mark.parametrize("error, fields", [
    (OptionsError("bad", [("max_rounds", "too big"), ("speed", "unknown")]),
     {"options.max_rounds": ["too big"], "options.speed": ["unknown"]}),
    (OptionsError("bad", [("options", "type")]), {"options": ["type"]}),
    (SetupError("bad", [("teams[0].players[1].counter", "taken"), ("mode", "unknown")]),
     {"setup.teams.0.players.1.counter": ["taken"], "setup.mode": ["unknown"]}),
    (SpecError([("effects[0].kind", "unknown")]), {"setup.effects.0.kind": ["unknown"]}),
    (UnknownAgentError("Unknown agent(s) x.", [("", "Unknown agent(s) x.")]), {"agents": ["Unknown agent(s) x."]}),
    (InputError("gone", [("armies.b.army", "gone"), ("armies.b.army", "twice")]), {"armies.b.army": ["gone", "twice"]}),
    (SetupError("Nothing to start from."), {"setup": ["Nothing to start from."]}),
    (InputError("Refused."), {"non_field_errors": ["Refused."]}),
])
def test_engine_error_paths_become_dotted_request_paths(error, fields):
    assert input_error_fields(error) == fields


def test_input_errors_and_rule_violations_answer_400_in_the_common_shape():
    invalid = exception_handler(OptionsError("Bad match options: max_rounds too big", [("max_rounds", "too big")]), {})
    assert invalid.status_code == 400
    assert invalid.data == {"message": "Bad match options: max_rounds too big", "code": "invalid",
                            "fields": {"options.max_rounds": ["too big"]}}
    violations = [{"code": "army_size", "message": "Seven, not six.", "side": "b"}]
    refused = exception_handler(IllegalMatchSetup(violations, "The armies break the army rules."), {})
    assert refused.status_code == 400
    assert refused.data == {"message": "The armies break the army rules.", "code": "rule_violations",
                            "violations": violations}


@pytest.mark.django_db
def test_a_setup_in_an_unknown_mode_is_a_400_at_its_path(anon_client, catalogue):
    response = anon_client.post("/api/simulate/legends/matches/", {"setup": {**DUEL, "mode": "trio"}}, format="json")
    assert "setup.mode" in assert_error_shape(response, 400, "invalid")["fields"]


def test_every_engine_input_error_is_a_domain_error_answered_as_it_declares():
    from legends.engine.setup import SetupFormatError

    for error in (InputError("x"), OptionsError("x"), SetupError("x"), SpecError([("a", "b")]),
                  UnknownAgentError("x"), UnknownGameError("x"), SetupFormatError([("teams", "missing")])):
        assert isinstance(error, DomainError)
        answer = exception_handler(error, {})
        assert (answer.status_code, answer.data["code"], answer.data["message"]) == (400, "invalid", str(error))
        assert answer.data["fields"] == input_error_fields(error)
    assert not isinstance(IllegalAction(1, [2]), DomainError)  # a bug of the caller, not a refusal: a 500


def test_too_many_batches_answers_429():
    answer = exception_handler(TooManyBatches("You have 3 batches queued or running."), {})
    assert answer.status_code == 429
    assert answer.data == {"message": "You have 3 batches queued or running.", "code": "too_many_batches"}
