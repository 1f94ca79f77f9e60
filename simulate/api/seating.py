"""The API of games with people at some seats (simulate.seating): open one, read a seat, move, take a move back.

A seat is reached only through its secret link (`.../games/{id}/seats/{secret}/`), answered once when the game
opens; any other secret is a 404, so one seat's link never shows another's view.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from cardsdb.api.fields import TextField
from cardsdb.api.serializers import StrictSerializer
from simulate import background, seating, services
from simulate.api.views import ResumesBatches, client_ident, given_inputs
from simulate.models import SeatedGame

ERROR = {"$ref": "#/components/schemas/Error"}
MAX_SINCE = 10**9  # a cursor is at most a match's events
_REQUESTS: dict[str, type[serializers.Serializer]] = {}


def seated_request(game: str) -> type[serializers.Serializer]:
    """The game's match request with `seats` (each player a person or an agent) in place of `agents`."""
    if game not in _REQUESTS:
        base = services.game_matches(game).match_request
        _REQUESTS[game] = type(f"{game.capitalize()}SeatedGameRequest", (base,), {
            "__doc__": "A match request whose seats are people or agents (`agents` is not taken).",
            "agents": None,
            "seats": serializers.DictField(child=TextField(max_length=40), allow_empty=False,
                                           help_text="Each player: \"person\" or an agent name (at least one person)."),
            "table": serializers.BooleanField(
                required=False, default=False,
                help_text="Played with physical cards at a table (people at every seat, a game that takes table "
                          "changes): any seat may then change what stands on the table between decisions "
                          "(`.../table-changes/`) and take back the game's last move."),
            "Meta": type("Meta", (), {"ref_name": f"{game.capitalize()}SeatedGameRequest"}),
        })
    return _REQUESTS[game]


class SeatLinkSerializer(serializers.Serializer):
    player = serializers.CharField()
    seat = serializers.CharField(help_text="\"person\" or the agent's name.")
    link = serializers.URLField(allow_null=True, help_text="A person's secret seat link (null for an agent).")


class SeatedGameSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    seed = serializers.IntegerField()
    status = serializers.CharField()
    turn = serializers.CharField(allow_null=True)
    seats = SeatLinkSerializer(many=True)


class LegalActionSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    action = serializers.JSONField()

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        # Declared here, not as a class attribute: a serializer's own `label` is its title.
        fields["label"] = serializers.CharField(help_text="The action in words.")
        fields["detail"] = serializers.CharField(allow_blank=True, help_text="What it does, in the card's words.")
        return fields


class SeatViewSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    seat = serializers.CharField()
    status = serializers.CharField()
    turn = serializers.CharField(allow_null=True)
    your_turn = serializers.BooleanField()
    version = serializers.IntegerField(help_text="Send it with a move or an undo: a game that moved on answers 409.")
    moves = serializers.IntegerField(help_text="Moves taken so far: fewer than last read means one was taken back.")
    seats = serializers.DictField(child=serializers.CharField())
    table = serializers.BooleanField(help_text="A game at a table: it takes table changes.")
    observation = serializers.JSONField(help_text="What this seat may see now (G2).")
    legal = LegalActionSerializer(many=True, help_text="The legal actions, when this seat decides.")
    events = serializers.ListField(child=serializers.JSONField(), help_text="The events this seat could see.")
    texts = serializers.ListField(child=serializers.CharField(allow_blank=True),
                                  help_text="Each event's play-by-play, in the engine's words.")
    cursor = serializers.IntegerField(help_text="Pass it as `since` to get the events after these.")
    more_events = serializers.BooleanField()
    can_undo = serializers.BooleanField()
    result = serializers.JSONField(allow_null=True)
    match = serializers.UUIDField(allow_null=True, help_text="The match it became once finished.")


class MoveSerializer(StrictSerializer):
    action = serializers.JSONField(required=False, help_text="A legal action as the seat view lists it.")
    index = serializers.IntegerField(required=False, min_value=0, help_text="Or its index in the seat view's list.")
    version = serializers.IntegerField(required=False, min_value=0, help_text="The version the move was chosen at.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("action" in attrs) == ("index" in attrs):
            raise serializers.ValidationError("Give either `action` or `index`.")
        return attrs


class TableChangeSerializer(StrictSerializer):
    change = serializers.JSONField(help_text='["hp", unit, delta], ["effect", unit, kind, stat or null, amount or '
                                             'null, duration] or ["remove", unit, effect id].')
    version = serializers.IntegerField(required=False, min_value=0,
                                       help_text="The version it was made at (left out, it applies to the game as "
                                                 "it stands: changes made offline).")


class UndoSerializer(StrictSerializer):
    version = serializers.IntegerField(required=False, min_value=0)


def handed_over(row: SeatedGame) -> SeatedGame:
    """The game, its agents' turn handed to the background once committed when it waits for one."""
    if row.status == SeatedGame.Status.THINKING:
        game_id = row.pk
        transaction.on_commit(lambda: background.queue_agent_turns(game_id))
    return row


def read_seat(pk, secret: str, since: int = 0) -> dict[str, Any]:
    """A seat's view; a game whose agents' turn was lost with its worker is handed out again first."""
    row = seated_row(pk)
    player = seating.seat_of(row, secret)
    if seating.lost_turn(row):
        background.queue_agent_turns(row.pk)
    return seating.seat_view(row, player, since)


def game_answer(row: SeatedGame, secrets: dict[str, str], request) -> dict[str, Any]:
    return {"id": row.id, "game": row.game, "seed": row.seed, "status": row.status, "turn": row.turn or None,
            "seats": [{"player": player, "seat": name,
                       "link": reverse("seated-game-seat", args=[row.id, secrets[player]], request=request)
                       if player in secrets else None} for player, name in row.seats.items()]}


class SeatedGameCreateView(ResumesBatches, APIView):
    """Open a game with people at some seats: 201 with each person's secret seat link."""

    permission_classes = [permissions.AllowAny]
    throttle_scope = "simulate"
    game = ""

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return seated_request(self.game)

    @extend_schema(responses={201: SeatedGameSerializer,
                              429: OpenApiResponse(response=ERROR, description="Too many games not over.")})
    def post(self, request):
        """The match request's armies (or setup) and options, and `seats`. The agents decide up to the first
        person's decision; the answer links each person's seat (keep them: they are not shown again)."""
        data = self.get_serializer_class()(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            row, secrets = seating.open_game(
                game=self.game, inputs=given_inputs(request.data, data, {"seed", "seats", "agents"}),
                seats=data.validated_data["seats"], seed=data.validated_data.get("seed"), user=request.user,
                client=client_ident(request), table=data.validated_data["table"])
            handed_over(row)
        return Response(SeatedGameSerializer(game_answer(row, secrets, request)).data, status=status.HTTP_201_CREATED)


SINCE = OpenApiParameter("since", {"type": "integer", "minimum": 0, "maximum": MAX_SINCE}, OpenApiParameter.QUERY,
                         description="The events from this one on (the last answer's `cursor`).")


class SeatView(ResumesBatches, APIView):
    """One seat of a game, as its secret link shows it."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[SINCE], responses={200: SeatViewSerializer, 404: OpenApiResponse(
        response=ERROR, description="No game, or no seat of it with this link.")})
    def get(self, request, pk, secret):
        """What this seat sees: its observation, the legal actions in words when it decides, the events since
        `since`."""
        since = serializers.IntegerField(min_value=0, max_value=MAX_SINCE).run_validation(
            request.query_params.get("since", "0"))
        return Response(SeatViewSerializer(read_seat(pk, secret, since)).data)


class SeatMoveView(ResumesBatches, APIView):
    """A move of one seat (counted against the API's own rates: a match is many moves)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=MoveSerializer, responses={200: SeatViewSerializer, 409: OpenApiResponse(
        response=ERROR, description="Not this seat's turn, or the game moved on from `version` (`conflict`)."),
        400: OpenApiResponse(response=ERROR, description="Not a legal action (`illegal_action`, with `legal`).")})
    def post(self, request, pk, secret):
        """Apply a legal action of this seat (by value or by its index in the seat view), then the agents' turns
        that follow; the seat's view after them."""
        data = MoveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        with transaction.atomic():
            row = handed_over(seating.move(pk, secret, given.get("action"), given.get("version"), given.get("index")))
        return Response(SeatViewSerializer(seating.seat_view(row, seating.seat_of(row, secret))).data)


class SeatTableChangeView(ResumesBatches, APIView):
    """A change made at the table of a table game, by any of its seats."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=TableChangeSerializer, responses={200: SeatViewSerializer, 409: OpenApiResponse(
        response=ERROR, description="Not a table game, over, or moved on from `version` (`conflict`)."),
        400: OpenApiResponse(response=ERROR, description="Not possible now (`illegal_change`, saying why).")})
    def post(self, request, pk, secret):
        """HP moved by hand, a free lasting effect put on, or an effect taken off, while a decision is pending;
        the engine runs what it causes (a fall, its triggers, the end). The seat's view after it."""
        data = TableChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        row = seating.table_change(pk, secret, given["change"], given.get("version"))
        return Response(SeatViewSerializer(seating.seat_view(row, seating.seat_of(row, secret))).data)


class SeatUndoView(ResumesBatches, APIView):
    """Take back this seat's last move."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=UndoSerializer, responses={200: SeatViewSerializer, 409: OpenApiResponse(
        response=ERROR, description="Another seat has decided since, or the move showed hidden cards.")})
    def post(self, request, pk, secret):
        """Undo this seat's last move while no other seat has decided since and it showed the seat nothing new
        (a card dealt or revealed, where the game hides cards)."""
        data = UndoSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = seating.undo(pk, secret, data.validated_data.get("version"))
        return Response(SeatViewSerializer(seating.seat_view(row, seating.seat_of(row, secret))).data)


def seated_row(pk) -> SeatedGame:
    row = SeatedGame.objects.filter(pk=pk).first()
    if row is None:
        raise seating.UnknownSeat("No seat of this game has this link.")
    return row
