"""Usernames that read as another one: refused at sign-up, so that nobody can pass for another player.

Two rules of Unicode's security mechanisms (UTS #39), on the data of Unicode's confusables.txt and
Scripts.txt as confusable-homoglyphs ships them:
- A name mixes scripts only as Unicode's "highly restrictive" level allows (one script, or Latin with the
  scripts Chinese, Japanese or Korean are written in): "аlice" with a Cyrillic "а" is refused as such.
- A name is refused when its skeleton (each character replaced by the prototype of the characters it can be
  taken for: Cyrillic "а" by Latin "a", "rn" for "m", capital "I" and digit "1" by "l") matches an existing
  name's, with case set aside ("ALICE" or "аlісе" beside "alice").

Each account's forms are stored as digests (`UsernameForm`, unique): a new name is looked up, not compared
with every name, and two sign-ups at once that read alike cannot both keep theirs (`claim_forms`).
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import cache

from confusable_homoglyphs.categories import unique_aliases
from confusable_homoglyphs.confusables import confusables_data

# Characters any script uses (digits, punctuation) and combining marks, which take their base's script.
NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})
# UTS #39's highly restrictive level: beside single scripts, the mixes Chinese, Japanese and Korean are
# written in, with Latin.
ALLOWED_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
# confusables.txt's comments (which the data is read from) wrap right-to-left characters in this mark.
LEFT_TO_RIGHT_MARK = "\u200e"

# Rounds of skeleton(): one maps a name; a second, rarely, the prototypes of pairs it brought in.
MAX_ROUNDS = 4

LOOKS_LIKE_ANOTHER = "This username looks like an existing one (some of its letters look alike); choose another."


@cache
def prototypes() -> dict[str, str]:
    """{character: the prototype of its class of look-alikes}, for every character confusables.txt maps.

    The data pairs each character with its prototype both ways, so a prototype lists every character that
    maps to it, and a character that maps lists its prototype alone. A class of two single characters does
    not tell which is the prototype: the lower code point stands for both (skeletons stay comparable).
    """
    look_alikes: dict[str, list[str]] = {}
    for key, entries in confusables_data.items():
        look_alikes.setdefault(key.replace(LEFT_TO_RIGHT_MARK, ""), []).extend(
            entry["c"].replace(LEFT_TO_RIGHT_MARK, "") for entry in entries)
    table: dict[str, str] = {}
    for char, others in look_alikes.items():
        if len(char) != 1 or len(others) != 1:
            continue  # a sequence, or a prototype of several characters: stands for itself
        (other,) = others
        if len(other) > 1 or len(look_alikes.get(other, ())) > 1:
            table[char] = other  # a sequence is always a prototype, as is a character several map to
        else:
            table[char] = min(char, other)
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: decomposed, each character replaced by its prototype, decomposed again; repeated
    until nothing changes (a prototype taken from a pair may hold a character the table maps: "¢" is "c"
    with a long stroke, which reads as the short one)."""
    table = prototypes()
    mapped = unicodedata.normalize("NFD", text)
    for _ in range(MAX_ROUNDS):
        text, mapped = mapped, unicodedata.normalize("NFD", "".join(table.get(char, char) for char in mapped))
        if mapped == text:
            break
    return mapped


def fold(username: str) -> frozenset[str]:
    """The forms two names that read alike share at least one of: the skeleton of the case-folded name, and
    the case-folded skeleton (capital "I" reads as "l" only before folding, "ALICE" as "alice" only after)."""
    username = unicodedata.normalize("NFKC", username)  # as the sign-up form stores it: full-width "ａ" is "a"
    return frozenset({skeleton(username.casefold()), skeleton(skeleton(username).casefold())})


def mixed_scripts(username: str) -> list[str]:
    """The scripts of a name that mixes them beyond what the highly restrictive level allows, else []."""
    scripts = unique_aliases(unicodedata.normalize("NFC", username)) - NEUTRAL_SCRIPTS
    if len(scripts) <= 1 or any(scripts <= mix for mix in ALLOWED_MIXES):
        return []
    return sorted(script.replace("_", " ").title() for script in scripts)


def digests(username: str) -> list[str]:
    """The stored forms of a name (`UsernameForm.digest`): a SHA-256 of each of its folds."""
    return sorted(hashlib.sha256(form.encode()).hexdigest() for form in fold(username))


def record_forms(user, using: str | None = None) -> None:
    """Store the forms of `user`'s name, leaving out those another account holds (an account made by staff, or
    before names were checked, may read as another; the first keeps the form). A renamed account's old forms
    are dropped."""
    from cardsdb.models import UsernameForm

    current = digests(user.username)
    manager = UsernameForm.objects.db_manager(using)
    manager.filter(user=user).exclude(digest__in=current).delete()
    manager.bulk_create([UsernameForm(digest=digest, user=user) for digest in current], ignore_conflicts=True)


def read_by_another(user) -> bool:
    """Whether another account holds one of the forms of `user`'s name (once `record_forms` ran for it)."""
    from cardsdb.models import UsernameForm

    return UsernameForm.objects.filter(digest__in=digests(user.username)).exclude(user=user).exists()


def username_refusal(username: str) -> str | None:
    """Why a new account may not take this name (mixed scripts, or it reads as an existing name), or None."""
    from cardsdb.models import UsernameForm

    scripts = mixed_scripts(username)
    if scripts:
        return (f"Use the letters of one script: this username mixes {', '.join(scripts[:-1])} and {scripts[-1]}"
                " (letters of different scripts can look alike).")
    if UsernameForm.objects.filter(digest__in=digests(username)).exists():
        return LOOKS_LIKE_ANOTHER
    return None
