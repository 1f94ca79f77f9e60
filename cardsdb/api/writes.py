"""Writes of the API done whole or not at all, and cards deleted only when nothing uses them."""

from typing import TYPE_CHECKING

from django.db import transaction
from rest_framework import status, viewsets
from rest_framework.response import Response

from cardsdb.api.errors import error_response
from cardsdb.card_uses import CardInUse, card_delete

if TYPE_CHECKING:  # what the mixins below are mixed into, for the type checker
    _ModelViewSet = viewsets.ModelViewSet
else:
    _ModelViewSet = object


class AtomicWritesMixin(_ModelViewSet):
    """Each write of a model view set (create, update, partial update, destroy) stores its rows and makes its
    answer in one transaction, with the checks the model runs when it is saved: a request that fails anywhere
    after its input was accepted, even while its answer is being made, stores nothing. (The input's own checks
    run first and write nothing; a row another request commits meanwhile is caught by the database's
    constraints, which `ValidatedModelSerializer.save` answers as the check it raced.)"""

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            self.perform_create(serializer)
            data = serializer.data
        return Response(data, status=status.HTTP_201_CREATED, headers=self.get_success_headers(data))

    def update(self, request, *args, **kwargs):
        partial = kwargs.pop("partial", False)
        instance = self.get_object()
        serializer = self.get_serializer(instance, data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            self.perform_update(serializer)
            if getattr(instance, "_prefetched_objects_cache", None):
                instance._prefetched_objects_cache = {}
            data = serializer.data
        return Response(data)

    def destroy(self, request, *args, **kwargs):
        instance = self.get_object()
        with transaction.atomic():
            self.perform_destroy(instance)
        return Response(status=status.HTTP_204_NO_CONTENT)


def card_in_use_response(exc: CardInUse) -> Response:
    """409 `protected`, naming each kind of use and how many (`uses`)."""
    return error_response(exc.message, "protected", status.HTTP_409_CONFLICT, uses=exc.uses)


class CardDeleteMixin(_ModelViewSet):
    """DELETE of a card (staff): refused with 409 `protected` while collections, saved armies, saved setups or
    unfinished studies use it (cardsdb.card_uses), as a rarity that cards carry is."""

    def destroy(self, request, *args, **kwargs):
        card = self.get_object()
        try:
            card_delete(card=card)
        except CardInUse as exc:
            return card_in_use_response(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)
