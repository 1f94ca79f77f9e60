"""Choices of the match and study forms, and the inputs that belong to each option: what a person fills in is
what plays, or the form says why not.

A form part is chosen by one field (a side's army source, the kind of study, the what-if's base, a tick box),
and other fields are read by some of its options only (an army code by "Army code", the opponents by a
gauntlet). An input filled in for an option that is not the chosen one would be silently left out, so the form
is refused with a message saying which input is left out and what to do; when the chosen option cannot play
without an input of its own and exactly one other option was filled in, that option plays instead. A link
that fills an option's inputs without naming the choice (`?a_code=...`) chooses that option.

The pages mark each such input with `data-choice="NAME=VALUE"`; simulate/static/simulate/choices.js chooses
the option as soon as something is typed or picked in it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    """One option of a choice: how the page names it and the inputs it reads."""

    label: str
    inputs: tuple[str, ...] = ()
    needs_input: bool = False  # it cannot play without one of its inputs (an army code, a saved army)
    how: str = ""  # how a person chooses it, when that is not picking its label ("empty the JSON inputs")


@dataclass(frozen=True)
class Choice:
    """A field choosing between options, each reading its own inputs."""

    name: str  # the field that chooses
    label: str  # the choice as a message names it: "side a's army", "the kind of study"
    options: Mapping[str, Option]
    within: tuple[str, str] | None = None  # read only when that other choice is at that value (a what-if's base)

    def applies(self, chosen: Mapping[str, str]) -> bool:
        return self.within is None or chosen.get(self.within[0]) == self.within[1]

    def readers(self, name: str) -> list[str]:
        """The options that read input `name`."""
        return [value for value, option in self.options.items() if name in option.inputs]


@dataclass(frozen=True)
class Conflict:
    """Inputs filled in for options other than the chosen one, and the message that says so."""

    choice: str  # the field that chooses
    inputs: tuple[str, ...]
    message: str


def settle(choices: Sequence[Choice], chosen: MutableMapping[str, str], filled: Collection[str],
           labels: Mapping[str, str]) -> list[Conflict]:
    """Check every choice that applies, in order, against the filled-in inputs: `chosen` moves to the one
    option filled in where the chosen option needs an input and has none; every other input filled in for an
    option that is not chosen is a conflict (an input is reported once)."""
    conflicts: list[Conflict] = []
    reported: set[str] = set()
    for choice in choices:
        if not choice.applies(chosen):
            continue
        current = choice.options.get(chosen.get(choice.name, ""))
        own = set(current.inputs) if current else set()
        left_out = [name for name in _inputs(choice) if name in filled and name not in own and name not in reported]
        if not left_out:
            continue
        readers = {value for name in left_out for value in choice.readers(name)}
        if current is not None and current.needs_input and not own & set(filled) and len(readers) == 1:
            chosen[choice.name] = readers.pop()
            continue
        reported.update(left_out)
        conflicts.append(Conflict(choice.name, tuple(left_out), _message(choice, current, left_out, labels)))
    return conflicts


def prefill(choices: Sequence[Choice], chosen: MutableMapping[str, str], given: Collection[str],
            named: Collection[str]) -> None:
    """A link's values: where it fills inputs (`given`) that one option alone reads and does not name the choice
    itself (`named`: every field the link names), that option is chosen."""
    for choice in choices:
        if choice.name in named or not choice.applies(chosen):
            continue
        readers: set[str] = set()
        for name in _inputs(choice):
            if name in given:
                readers.update(choice.readers(name))
        if len(readers) == 1:
            chosen[choice.name] = readers.pop()


def _inputs(choice: Choice) -> list[str]:
    """Every input some option of the choice reads, each once, in the order the options give them."""
    return list(dict.fromkeys(name for option in choice.options.values() for name in option.inputs))


def _message(choice: Choice, current: Option | None, left_out: Sequence[str], labels: Mapping[str, str]) -> str:
    names = _joined([labels.get(name, name) for name in left_out])
    pronoun = "it" if len(left_out) == 1 else "them"
    verb = "is" if len(left_out) == 1 else "are"
    readers = [choice.options[value] for value in
               dict.fromkeys(value for name in left_out for value in choice.readers(name))]
    chosen = f"“{current.label}” is chosen for {choice.label}" if current else f"nothing is chosen for {choice.label}"
    picked = [f"“{option.label}”" for option in readers if not option.how]
    how = _joined([*([f"choose {_joined(picked, 'or')}"] if picked else []),
                   *(option.how for option in readers if option.how)], "or")
    return f"{names} {verb} filled in, but {chosen}, which leaves {pronoun} out: {how} to use {pronoun}, " \
           f"or clear {pronoun}."


def _joined(words: Iterable[str], last: str = "and") -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"

