"""A command line's unknown flag answered with the flag it was probably meant to be."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterator
from typing import NoReturn

__all__ = ["SuggestingParser", "suggestion"]

_UNRECOGNIZED = "unrecognized arguments: "


def _options(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every long option of ``parser`` and of its subcommands."""
    for action in parser._actions:  # argparse keeps no public list of its actions
        yield from (o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _options(child)


def suggestion(unknown: str, known: list[str]) -> str | None:
    """The known flag closest to ``unknown`` (``--rate-limt`` -> ``--rate-limit``)."""
    flag = unknown.split("=", 1)[0]
    if not flag.startswith("--"):
        return None
    close = difflib.get_close_matches(flag, known, n=1, cutoff=0.75)
    return close[0] if close else None


class SuggestingParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose "unrecognized arguments" error says "did you mean"."""

    def error(self, message: str) -> NoReturn:
        if message.startswith(_UNRECOGNIZED):
            known = sorted(set(_options(self)))
            hints = [
                f"{arg}: did you mean {match}?"
                for arg in message[len(_UNRECOGNIZED) :].split()
                if (match := suggestion(arg, known)) is not None
            ]
            if hints:
                message = f"{message} ({'; '.join(hints)})"
        super().error(message)
