"""The army builder's inputs that no API serializer covers: the saved army to open, the character search,
the army's name and the pasted text."""

from django import forms

from cardsdb.api.serializers import MAX_ID
from realms.decklists import MAX_TEXT_CHARS
from realms.models import Army
from realms.query import MAX_LENGTH


class BuilderOpenForm(forms.Form):
    """What a builder URL may name: a saved army (`?army=`) and a character search (`?find=`)."""

    army = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    find = forms.CharField(required=False, max_length=MAX_LENGTH)


class BuilderStateForm(BuilderOpenForm):
    """The fields the builder posts besides its slots (the slots go through the API's serializer)."""

    name = forms.CharField(required=False, max_length=Army._meta.get_field("name").max_length)
    # The decklist import's own bound; the API's serializer checks the text again before it is read.
    paste = forms.CharField(required=False, max_length=MAX_TEXT_CHARS, strip=False)
