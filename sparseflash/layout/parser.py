"""Recursive-descent parser: pattern text -> :class:`~sparseflash.layout.ast.Pattern`.

Grammar (loosest binding first)::

    pattern    := union END
    union      := intersect ('|' intersect)*
    intersect  := difference ('&' difference)*
    difference := unary ('-' unary)*
    unary      := '~' unary | atom
    atom       := '(' union ')' | NAME ['(' [argument (',' argument)*] ')']
    argument   := [NAME '='] (union | expr)      # patterns only where the primitive takes them
    expr       := term (('+' | '-') term)*        # integer arithmetic in n
    term       := signed (('*' | '/') signed)*
    signed     := '-' signed | power             # -2^2 = -(2^2), as in mathematics
    power      := value ['^' signed]             # right-associative: 2^3^2 = 2^(3^2)
    value      := NUMBER | 'n' | FUNC '(' expr (',' expr)* ')' | '(' expr ')'

Arithmetic is built straight into sympy objects: user text never reaches ``eval`` or
``sympify``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Dict, List, Tuple

import sympy

from . import ast, primitives, presets
from .errors import LayoutError, did_you_mean
from .lexer import Token, tokenize

#: The one variable of argument arithmetic: the number of key blocks.
N_BLOCKS = sympy.Symbol("n", positive=True, integer=True)

_FUNCTIONS: Dict[str, Tuple[int, Callable]] = {
    # name: (number of arguments, 0 = two or more; sympy constructor)
    "sqrt": (1, sympy.sqrt),
    "log2": (1, lambda x: sympy.log(x, 2)),
    "log": (1, sympy.log),
    "floor": (1, sympy.floor),
    "ceil": (1, sympy.ceiling),
    "min": (0, sympy.Min),
    "max": (0, sympy.Max),
}
VARIABLES = {"n": N_BLOCKS}


class _Parser:
    def __init__(self, text: str, source: str = ""):
        self.text = text
        self.source = source
        self.tokens: List[Token] = tokenize(text)
        self.pos = 0

    # -- helpers ---------------------------------------------------------------------------
    def error(self, reason: str, span) -> LayoutError:
        return LayoutError(reason, self.text, span, source=self.source or None)

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, kind: str, what: str) -> Token:
        if self.tok.kind != kind:
            found = "the end of the pattern" if self.tok.kind == "END" else repr(self.tok.text)
            raise self.error(f"expected {what}, found {found}", (self.tok.start, self.tok.end))
        return self.advance()

    # -- patterns --------------------------------------------------------------------------
    def parse(self) -> ast.Pattern:
        if self.tok.kind == "END":
            raise self.error("empty pattern: write at least one primitive, e.g. 'local(1)'",
                             None)
        root = self.union()
        if self.tok.kind != "END":
            tok = self.tok
            if tok.kind == ")":
                raise self.error("unbalanced parentheses: this ')' closes nothing",
                                 (tok.start, tok.end))
            raise self.error(f"unexpected {tok.text!r} after a complete pattern "
                             "(join patterns with |, & or -)", (tok.start, len(self.text)))
        return ast.Pattern(self.text, root, self.source)

    def _binary(self, op: str, operand: Callable[[], ast.Node]) -> ast.Node:
        node = operand()
        while self.tok.kind == op:
            self.advance()
            right = operand()
            node = ast.BinaryOp(op, node, right, (node.span[0], right.span[1]))
        return node

    def union(self) -> ast.Node:
        return self._binary("|", self.intersect)

    def intersect(self) -> ast.Node:
        return self._binary("&", self.difference)

    def difference(self) -> ast.Node:
        return self._binary("-", self.unary)

    def unary(self) -> ast.Node:
        if self.tok.kind == "~":
            start = self.advance().start
            operand = self.unary()
            return ast.Complement(operand, (start, operand.span[1]))
        return self.atom()

    def atom(self) -> ast.Node:
        tok = self.tok
        if tok.kind == "(":
            self.advance()
            node = self.union()
            if self.tok.kind != ")":
                raise self.error("unbalanced parentheses: this '(' is never closed",
                                 (tok.start, tok.end))
            self.advance()
            return node
        if tok.kind == "NAME":
            return self.call()
        found = "the end of the pattern" if tok.kind == "END" else repr(tok.text)
        raise self.error(f"expected a primitive, a preset or '(', found {found}",
                         (tok.start, max(tok.end, tok.start + 1)))

    def call(self) -> ast.Node:
        name_tok = self.advance()
        name = name_tok.text
        name_span = (name_tok.start, name_tok.end)
        prim = primitives.REGISTRY.get(name)
        if prim is None:
            if name in presets.available():
                if self.tok.kind == "(":
                    raise self.error(f"preset '{name}' takes no arguments",
                                     (self.tok.start, self.tok.end))
                return ast.Preset(name, presets.load(name), name_span)
            known = list(primitives.REGISTRY) + list(presets.available())
            raise self.error(f"unknown primitive or preset '{name}'"
                             + did_you_mean(name, known), name_span)

        args: List = []
        kwargs: List = []
        end = name_tok.end
        if self.tok.kind == "(":
            open_tok = self.advance()
            if self.tok.kind != ")":
                while True:
                    if self.tok.kind == "NAME" and self.tokens[self.pos + 1].kind == "=":
                        key_tok = self.advance()
                        self.advance()
                        value = self.number()
                        kwargs.append((key_tok.text, value, (key_tok.start, value.span[1])))
                    else:
                        if kwargs:
                            raise self.error("positional argument after a keyword argument",
                                             (self.tok.start, self.tok.end))
                        args.append(self.union() if prim.takes_patterns else self.number())
                    if self.tok.kind == ",":
                        self.advance()
                        continue
                    break
            if self.tok.kind != ")":
                if self.tok.kind == "END":
                    raise self.error("unbalanced parentheses: this '(' is never closed",
                                     (open_tok.start, open_tok.end))
                raise self.error(f"expected ',' or ')' in the arguments of '{name}', "
                                 f"found {self.tok.text!r}", (self.tok.start, self.tok.end))
            end = self.advance().end
        node = ast.Call(name, tuple(args), tuple(kwargs), (name_tok.start, end), name_span)
        primitives.check_signature(node, self.error)
        return node

    # -- arithmetic ------------------------------------------------------------------------
    def number(self) -> ast.Number:
        start = self.tok.start
        expr = self.expr()
        return ast.Number(expr, (start, self.tokens[self.pos - 1].end))

    def expr(self) -> sympy.Expr:
        value = self.term()
        while self.tok.kind in ("+", "-"):
            op = self.advance().kind
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> sympy.Expr:
        value = self.signed()
        while self.tok.kind in ("*", "/"):
            op_tok = self.advance()
            right = self.signed()
            if op_tok.kind == "/":
                if right == 0:
                    raise self.error("division by zero", (op_tok.start, self.tokens[self.pos - 1].end))
                value = value / right
            else:
                value = value * right
        return value

    def power(self) -> sympy.Expr:
        base = self.value()
        if self.tok.kind == "^":
            self.advance()
            return base ** self.signed()
        return base

    def signed(self) -> sympy.Expr:
        if self.tok.kind == "-":
            self.advance()
            return -self.signed()
        return self.power()

    def value(self) -> sympy.Expr:
        tok = self.tok
        if tok.kind == "NUMBER":
            self.advance()
            return sympy.Rational(tok.text)
        if tok.kind == "(":
            self.advance()
            value = self.expr()
            if self.tok.kind != ")":
                raise self.error("unbalanced parentheses: this '(' is never closed",
                                 (tok.start, tok.end))
            self.advance()
            return value
        if tok.kind == "NAME":
            self.advance()
            if tok.text in _FUNCTIONS:
                return self.function(tok)
            if tok.text in VARIABLES:
                return VARIABLES[tok.text]
            raise self.error(f"unknown variable '{tok.text}' in an argument: the only variable "
                             "is n, the number of key blocks"
                             + did_you_mean(tok.text, list(VARIABLES) + list(_FUNCTIONS)),
                             (tok.start, tok.end))
        found = "the end of the pattern" if tok.kind == "END" else repr(tok.text)
        raise self.error(f"expected a number, 'n' or a function, found {found}",
                         (tok.start, max(tok.end, tok.start + 1)))

    def function(self, name_tok: Token) -> sympy.Expr:
        arity, build = _FUNCTIONS[name_tok.text]
        self.expect("(", f"'(' after the function '{name_tok.text}'")
        values = [self.expr()]
        while self.tok.kind == ",":
            self.advance()
            values.append(self.expr())
        close = self.expect(")", f"')' closing '{name_tok.text}('")
        span = (name_tok.start, close.end)
        if arity and len(values) != arity:
            raise self.error(f"'{name_tok.text}' takes {arity} argument, got {len(values)}", span)
        if not arity and len(values) < 2:
            raise self.error(f"'{name_tok.text}' takes two or more arguments", span)
        return build(*values)


@lru_cache(maxsize=512)
def parse(pattern: str, source: str = "") -> ast.Pattern:
    """Parse ``pattern`` into a :class:`Pattern`, raising :class:`LayoutError` with the
    offending span on any mistake. Results are cached (patterns are immutable)."""
    if not isinstance(pattern, str):
        raise TypeError(f"a pattern is a string, got {type(pattern).__name__}")
    return _Parser(pattern, source).parse()
