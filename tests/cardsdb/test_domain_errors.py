"""A domain error carries its own answer: the one error handler knows only the base (cardsdb.errors)."""

import pytest

from cardsdb.api.errors import exception_handler
from cardsdb.errors import DomainError


class OutOfStock(DomainError):
    status = 409
    code = "out_of_stock"

    def __init__(self, card: str, left: int):
        super().__init__(f"Only {left} copies of {card} are left.")
        self.left = left

    def details(self):
        return {"left": self.left}


class Refused(DomainError):
    status = 400
    code = "refused"


def test_a_domain_error_answers_its_status_code_message_and_details():
    answer = exception_handler(OutOfStock("ember", 2), {})
    assert answer.status_code == 409
    assert answer.data == {"message": "Only 2 copies of ember are left.", "code": "out_of_stock", "left": 2}
    assert exception_handler(Refused("No."), {}).data == {"message": "No.", "code": "refused"}


def test_a_domain_error_that_does_not_say_how_it_is_answered_is_refused_at_once():
    with pytest.raises(TypeError, match="declares no status or code"):
        type("Unanswered", (DomainError,), {})
    with pytest.raises(TypeError, match="declares no code"):
        type("HalfAnswered", (DomainError,), {"status": 400})


def test_a_class_that_may_not_import_cardsdb_joins_by_registering():
    class PureError(ValueError):
        status = 422
        code = "pure"

        def details(self):
            return {"why": "pure"}

    DomainError.register(PureError)
    assert exception_handler(PureError("Plain Python."), {}).data == {"message": "Plain Python.", "code": "pure",
                                                                     "why": "pure"}
