"""Pattern text -> tokens, each with its source span."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List

from .errors import LayoutError

# Token kinds: NAME, NUMBER, one-character operators, and END.
OPERATORS = set("|&-~()+*/^,=")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


@dataclass(frozen=True)
class Token:
    kind: str   # "NAME", "NUMBER", "END", or the operator character itself
    text: str
    start: int
    end: int


def tokenize(pattern: str) -> List[Token]:
    """Split ``pattern`` into tokens. ``#`` starts a comment to the end of the line."""
    tokens: List[Token] = []
    pos = 0
    while pos < len(pattern):
        ch = pattern[pos]
        if ch.isspace():
            pos += 1
        elif ch == "#":
            newline = pattern.find("\n", pos)
            pos = len(pattern) if newline == -1 else newline
        elif ch in OPERATORS:
            tokens.append(Token(ch, ch, pos, pos + 1))
            pos += 1
        elif (m := _NAME.match(pattern, pos)):
            tokens.append(Token("NAME", m.group(), pos, m.end()))
            pos = m.end()
        elif (m := _NUMBER.match(pattern, pos)):
            tokens.append(Token("NUMBER", m.group(), pos, m.end()))
            pos = m.end()
        else:
            raise LayoutError(f"unexpected character {ch!r}", pattern, (pos, pos + 1))
    tokens.append(Token("END", "", len(pattern), len(pattern)))
    return tokens
