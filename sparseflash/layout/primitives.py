"""The one registry of pattern primitives: name -> parameters, documentation, and the
block-level definition in two vectorised forms.

Every block-level primitive gives

* ``enumerate(nq, nk, **args) -> keys``: the sorted flat indices ``i * nk + j`` of its on
  blocks, in time and memory proportional to their number (never an ``nq x nk`` grid unless
  the primitive really is that dense), and
* ``contains(i, j, nq, nk, **args) -> bool``: membership of given blocks, so that an
  intersection can enumerate its smaller side and filter it by the larger one.

``i`` is the query block, ``j`` the key block, ``nq``/``nk`` their counts. ``causal`` is the
one token-level primitive and is handled by the compiler (it splits diagonal blocks), and
``per_head`` selects a pattern per head.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Tuple

import torch

from .errors import did_you_mean

LongTensor = torch.Tensor

#: Rows of the ``random`` primitive drawn per call of the generator; fixed so that the
#: draw depends on the seed alone, not on how the work is split.
_RANDOM_CHUNK_ROWS = 256


@dataclass(frozen=True)
class Param:
    name: str
    default: Optional[int] = None  # None: required
    minimum: int = 0               # smallest allowed value (1 for counts that must be positive)
    optional: bool = False         # may be omitted with no default (e.g. butterfly's f)
    maximum: Optional[int] = None  # largest allowed value (random's seed: 64 bits)


@dataclass(frozen=True)
class Primitive:
    name: str
    params: Tuple[Param, ...]
    summary: str           # one line: when block (i, j) is on
    doc: str               # longer explanation, source, example
    enumerate: Optional[Callable[..., LongTensor]] = None
    contains: Optional[Callable[..., torch.Tensor]] = None
    takes_patterns: bool = False   # per_head: arguments are patterns, any number of them
    token_level: bool = False      # causal


REGISTRY: Dict[str, Primitive] = {}


def register(name: str, params=(), *, summary: str, doc: str = "", takes_patterns=False,
             token_level=False):
    """Decorator for a ``(enumerate, contains)`` pair factory; see the module docstring."""
    def wrap(fns):
        enum, contains = fns() if fns is not None else (None, None)
        REGISTRY[name] = Primitive(name, tuple(params), summary, doc, enum, contains,
                                   takes_patterns, token_level)
        return fns
    return wrap


def _grid_keys(i: LongTensor, j: LongTensor, nk: int) -> LongTensor:
    """Flatten candidate ``(i, j)`` pairs (broadcastable) to sorted unique keys in range."""
    i, j = torch.broadcast_tensors(i, j)
    valid = (j >= 0) & (j < nk)
    keys = (i * nk + j)[valid]
    return torch.unique(keys)  # sorted


def _rows(nq: int) -> LongTensor:
    return torch.arange(nq, dtype=torch.long)[:, None]


def _mod(a: torch.Tensor, s: int) -> torch.Tensor:
    return torch.remainder(a, s)


def _cap(value: int, nq: int, nk: int) -> int:
    """Clip a size argument to the grid. Arguments are arbitrary-precision integers
    (``local(10^30)`` is legal); every primitive below means the same for any value at
    least ``max(nq, nk)``, and clipping keeps the tensor arithmetic in int64."""
    return min(value, max(nq, nk, 1))


# ---------------------------------------------------------------------------------------------
@register("dense", summary="always", doc="Every block is on: ordinary dense attention.")
def _dense():
    def enum(nq, nk):
        return torch.arange(nq * nk, dtype=torch.long)

    def contains(i, j, nq, nk):
        return torch.ones_like(i, dtype=torch.bool)
    return enum, contains


@register("none", summary="never", doc="No block is on; useful in algebra (`dense - none`).")
def _none():
    def enum(nq, nk):
        return torch.empty(0, dtype=torch.long)

    def contains(i, j, nq, nk):
        return torch.zeros_like(i, dtype=torch.bool)
    return enum, contains


@register("local", (Param("w"),), summary="abs(i - j) <= w",
          doc="A band of half-width w blocks around the diagonal (sliding window; Longformer, "
              "BigBird).")
def _local():
    def enum(nq, nk, w):
        w = _cap(w, nq, nk)
        return _grid_keys(_rows(nq), _rows(nq) + torch.arange(-w, w + 1)[None, :], nk)

    def contains(i, j, nq, nk, w):
        return (i - j).abs() <= _cap(w, nq, nk)
    return enum, contains


@register("strided", (Param("s", minimum=1),), summary="(i - j) mod s == 0",
          doc="Every s-th block along each diagonal direction (Sparse Transformer 'strided', "
              "Child et al. 2019).")
def _strided():
    def enum(nq, nk, s):
        s = _cap(s, nq, nk)  # |i - j| < max(nq, nk): beyond that only i == j is on
        i = _rows(nq)
        t = torch.arange((nk + s - 1) // s + 1)[None, :]
        return _grid_keys(i, _mod(i, s) + s * t, nk)

    def contains(i, j, nq, nk, s):
        return _mod(i - j, _cap(s, nq, nk)) == 0
    return enum, contains


@register("dilated", (Param("w"), Param("d", minimum=1)),
          summary="abs(i - j) <= w*d and (i - j) mod d == 0",
          doc="A band of 2w+1 blocks spaced d apart (dilated sliding window, Longformer).")
def _dilated():
    def enum(nq, nk, w, d):
        d = _cap(d, nq, nk)
        w = min(w, max(nq, nk) // d + 1)
        return _grid_keys(_rows(nq), _rows(nq) + d * torch.arange(-w, w + 1)[None, :], nk)

    def contains(i, j, nq, nk, w, d):
        d = _cap(d, nq, nk)
        w = _cap(w, nq, nk)  # w * d >= max(nq, nk) > |i - j| either way
        return ((i - j).abs() <= w * d) & (_mod(i - j, d) == 0)
    return enum, contains


@register("chunk", (Param("s", minimum=1),), summary="i // s == j // s",
          doc="Block-diagonal chunks of s blocks: attention within non-overlapping chunks.")
def _chunk():
    def enum(nq, nk, s):
        s = _cap(s, nq, nk)  # one chunk covers the grid
        i = _rows(nq)
        return _grid_keys(i, (i // s) * s + torch.arange(min(s, nk))[None, :], nk)

    def contains(i, j, nq, nk, s):
        s = _cap(s, nq, nk)
        return (i // s) == (j // s)
    return enum, contains


@register("fixed", (Param("l", minimum=1), Param("c", default=1, minimum=1)),
          summary="i // l == j // l, or j mod l >= l - c",
          doc="Sparse Transformer 'fixed' (Child et al. 2019): chunks of l blocks, plus the "
              "last c blocks of every chunk seen by all rows (c <= l).")
def _fixed():
    def enum(nq, nk, l, c):
        # l >= max(nq, nk): one chunk covers the grid, so the pattern is dense whatever c.
        l = _cap(l, nq, nk)
        c = min(c, l)
        i = _rows(nq)
        chunk = _grid_keys(i, (i // l) * l + torch.arange(min(l, nk))[None, :], nk)
        cols = torch.arange(nk)
        cols = cols[_mod(cols, l) >= l - c]
        summary = _grid_keys(i, cols[None, :], nk)
        return torch.unique(torch.cat([chunk, summary]))

    def contains(i, j, nq, nk, l, c):
        l = _cap(l, nq, nk)
        c = min(c, l)
        return ((i // l) == (j // l)) | (_mod(j, l) >= l - c)
    return enum, contains


@register("global", (Param("g"),), summary="i < g or j < g",
          doc="The first g blocks attend everywhere and are attended by every block "
              "(global tokens of Longformer / BigBird, ETC).")
def _global():
    def enum(nq, nk, g):
        g = _cap(g, nq, nk)
        rows = _grid_keys(torch.arange(min(g, nq))[:, None], torch.arange(nk)[None, :], nk)
        cols = _grid_keys(_rows(nq), torch.arange(min(g, nk))[None, :], nk)
        return torch.unique(torch.cat([rows, cols]))

    def contains(i, j, nq, nk, g):
        g = _cap(g, nq, nk)
        return (i < g) | (j < g)
    return enum, contains


@register("butterfly", (Param("f", minimum=1, optional=True),),
          summary="i xor j is 0 or a power of two (2^t with t < f when f is given)",
          doc="The flat block butterfly of Pixelated Butterfly (Chen et al. 2022): "
              "n log2 n + n blocks for n a power of two. butterfly(f) keeps the f lowest "
              "butterfly factors.")
def _butterfly():
    def enum(nq, nk, f=None):
        bits = max(nq, nk, 1).bit_length()
        f = bits if f is None else min(f, bits)
        i = _rows(nq)
        partners = torch.cat([i, i ^ (1 << torch.arange(f))[None, :]], dim=1)
        return _grid_keys(i, partners, nk)

    def contains(i, j, nq, nk, f=None):
        x = i ^ j
        power_of_two = (x & (x - 1)) == 0  # true for 0 too
        if f is not None:
            power_of_two &= x < (1 << min(f, 62))
        return power_of_two
    return enum, contains


@register("random", (Param("r"), Param("seed", default=0, maximum=2**64 - 1)),
          summary="min(r, n) distinct random key blocks per query row",
          doc="Exactly min(r, n) distinct key blocks per query row, drawn on the CPU with a "
              "torch.Generator seeded by `seed`: the same on every device and process "
              "(BigBird's random attention).")
def _random():
    def enum(nq, nk, r, seed=0):
        r = min(r, nk)
        if r == 0 or nq == 0:
            return torch.empty(0, dtype=torch.long)
        gen = torch.Generator(device="cpu").manual_seed(seed)
        picks = []
        for start in range(0, nq, _RANDOM_CHUNK_ROWS):
            rows = min(_RANDOM_CHUNK_ROWS, nq - start)
            scores = torch.rand(rows, nk, generator=gen)
            picks.append(scores.topk(r, dim=1).indices)
        cols = torch.cat(picks)
        return torch.sort((_rows(nq) * nk + cols).flatten()).values

    return enum, None  # membership by searching the enumeration


@register("per_head", summary="head h uses pattern p[h mod count]", takes_patterns=True,
          doc="A different pattern per head: `per_head(local(1), strided(4))` gives even "
              "heads a band and odd heads a stride. Needs num_heads.")
def _per_head():
    return None, None


@register("causal", summary="token q may attend token k when q >= k", token_level=True,
          doc="Token-level causal mask aligned top-left (like SDPA's is_causal): blocks "
              "j < i are full, the diagonal j == i is partial (element mask), j > i off.")
def _causal():
    return None, None


PRIMITIVE_NAMES = tuple(REGISTRY)


def check_signature(call, error) -> None:
    """Check arity, keywords and constant values of a parsed call; ``error(reason, span)``
    builds the exception. Symbolic values are checked again when they are evaluated."""
    prim = REGISTRY[call.name]
    if prim.takes_patterns:
        if call.kwargs:
            raise error(f"'{call.name}' takes no keyword arguments", call.kwargs[0][2])
        if not call.args:
            raise error(f"'{call.name}' needs at least one pattern, e.g. "
                        f"'{call.name}(local(1), strided(4))'", call.span)
        return
    params = prim.params
    usage = _usage(prim)
    if len(call.args) > len(params):
        raise error(f"'{call.name}' takes at most {len(params)} argument"
                    f"{'s' if len(params) != 1 else ''}, got {len(call.args)}: use {usage}",
                    call.args[len(params)].span if call.args else call.span)
    given = {p.name for p, _ in zip(params, call.args)}
    names = [p.name for p in params]
    for key, value, span in call.kwargs:
        if key not in names:
            raise error(f"'{call.name}' has no parameter '{key}': use {usage}"
                        + did_you_mean(key, names), span)
        if key in given:
            raise error(f"'{key}' given twice to '{call.name}'", span)
        given.add(key)
    for p in params:
        if p.name not in given and p.default is None and not p.optional:
            raise error(f"'{call.name}' needs its argument '{p.name}': use {usage}", call.span)
    for p, value in _bound_numbers(call):
        if value.expr.is_number:
            check_value(call, p, value, value.expr, error)


def _bound_numbers(call):
    prim = REGISTRY[call.name]
    bound = list(zip(prim.params, call.args))
    by_name = {p.name: p for p in prim.params}
    bound += [(by_name[key], value) for key, value, _ in call.kwargs]
    return bound


def check_value(call, param: Param, number, value, error,
                n_blocks: Optional[int] = None) -> int:
    """Round ``value`` up to an integer and check it against ``param``'s bounds.

    ``n_blocks`` is the value ``n`` took when the argument is symbolic (for the message)."""
    import sympy
    what = f"argument '{param.name}' of '{call.name}'"
    at = f" at n = {n_blocks} key blocks" if n_blocks is not None else ""
    if not value.is_real or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise error(f"{what} is not a finite real number{at}: it evaluates to {value}",
                    number.span)
    rounded = int(sympy.ceiling(value))
    rounding = "" if value.is_Integer or float(value) == rounded else \
        f" ({float(value):.6g} rounded up)"
    if rounded < param.minimum:
        need = "a positive" if param.minimum == 1 else "a non-negative"
        fix = (": pick an expression that stays >= "
               f"{param.minimum} for every sequence length you use" if n_blocks is not None
               else "")
        raise error(f"{what} must be {need} integer, got {rounded}{rounding}{at}{fix}",
                    number.span)
    if param.maximum is not None and rounded > param.maximum:
        raise error(f"{what} must be at most {param.maximum}, got {rounded}{at}", number.span)
    return rounded


def bind_arguments(call, n_blocks: int, symbol, error) -> Dict[str, int]:
    """Evaluate a call's arguments for ``n = n_blocks`` into ``{param: int}``."""
    prim = REGISTRY[call.name]
    out: Dict[str, int] = {p.name: p.default for p in prim.params if p.default is not None}
    for p, number in _bound_numbers(call):
        if number.expr.is_number:
            out[p.name] = check_value(call, p, number, number.expr, error)
        else:
            out[p.name] = check_value(call, p, number, number.expr.subs(symbol, n_blocks),
                                      error, n_blocks)
    if call.name == "fixed" and out["c"] > out["l"]:
        span = next(n.span for p, n in _bound_numbers(call) if p.name == "c")
        raise error(f"argument 'c' of 'fixed' must be at most l = {out['l']}, got {out['c']}",
                    span)
    return out


def _usage(prim: Primitive) -> str:
    parts = []
    for p in prim.params:
        if p.default is not None:
            parts.append(f"{p.name}={p.default}")
        elif p.optional:
            parts.append(f"[{p.name}]")
        else:
            parts.append(p.name)
    return f"{prim.name}({', '.join(parts)})" if parts else prim.name
