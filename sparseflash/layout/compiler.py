"""AST + shapes -> :class:`~sparseflash.layout.layout.Layout`.

The token-level meaning of a pattern is kept exact with two block sets per pattern:
``lower`` holds the blocks where the mask is on for elements with ``q >= k`` and ``upper``
the blocks where it is on for elements with ``q < k``. A block-level primitive puts the
same set in both; ``causal`` puts ``j <= i`` in ``lower`` and ``j < i`` in ``upper``. The
operators act on both sets element-wise, so the two differ only on diagonal blocks, and a
block is *full* when it is in both, *partial* (causal or anti-causal element mask) when it
is in one, off when in neither.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, List, Optional, Tuple, Union

import torch

from . import ast
from .blockset import BlockSet, Primitive as PrimitiveSet
from .errors import LayoutError
from .layout import (CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL, Layout, _eager_under_compile,
                     canonical_device)
from .parser import N_BLOCKS, parse
from .primitives import REGISTRY, bind_arguments

Channels = Tuple[BlockSet, BlockSet]  # (lower, upper); often the same object twice


def _size_estimate(name: str, nq: int, nk: int, args: Dict[str, int]) -> int:
    """Rough count of a primitive's on blocks: only used to order intersections."""
    grid = nq * nk
    estimates = {
        "dense": grid, "none": 0,
        "local": lambda: nq * (2 * args.get("w", 0) + 1),
        "strided": lambda: grid // max(args.get("s", 1), 1) + nq,
        "dilated": lambda: nq * (2 * args.get("w", 0) + 1),
        "chunk": lambda: nq * min(args.get("s", 1), nk),
        "fixed": lambda: nq * (args.get("l", 1) + nk * args.get("c", 1) // args.get("l", 1)),
        "global": lambda: args.get("g", 0) * (nq + nk),
        "butterfly": lambda: nq * (max(nq, nk, 1).bit_length() + 1),
        "random": lambda: nq * min(args.get("r", 0), nk),
    }
    value = estimates.get(name, grid)
    return min(value() if callable(value) else value, grid)


class _CausalSet(BlockSet):
    """Blocks ``j <= i`` (``strict=False``) or ``j < i`` (``strict=True``)."""

    def __init__(self, nq: int, nk: int, strict: bool):
        super().__init__(nq, nk, nq * nk // 2)
        self.strict = strict

    def _keys(self) -> torch.Tensor:
        shift = 0 if self.strict else 1
        per_row = (torch.arange(self.nq) + shift).clamp(max=self.nk)
        rows = torch.repeat_interleave(torch.arange(self.nq), per_row)
        starts = torch.cumsum(per_row, 0) - per_row
        cols = torch.arange(rows.numel()) - torch.repeat_interleave(starts, per_row)
        return rows * self.nk + cols

    def contains(self, keys: torch.Tensor) -> torch.Tensor:
        i, j = keys // self.nk, keys % self.nk
        return j < i if self.strict else j <= i


def _per_head_calls(node: ast.Node, owner: ast.Pattern,
                    out: List[Tuple[ast.Call, ast.Pattern]]) -> List[Tuple[ast.Call, ast.Pattern]]:
    """Every ``per_head`` call in the tree (presets included), in a fixed walk order, with
    the pattern (user text or preset file) its span refers to."""
    if isinstance(node, ast.Call):
        if node.name == "per_head":
            out.append((node, owner))
            for arg in node.args:
                _per_head_calls(arg, owner, out)
    elif isinstance(node, ast.Preset):
        _per_head_calls(node.body.root, node.body, out)
    elif isinstance(node, ast.BinaryOp):
        _per_head_calls(node.left, owner, out)
        _per_head_calls(node.right, owner, out)
    elif isinstance(node, ast.Complement):
        _per_head_calls(node.operand, owner, out)
    return out


class _Evaluator:
    """Evaluates one pattern for one head (``head`` picks the ``per_head`` branches)."""

    def __init__(self, pattern: ast.Pattern, nq: int, nk: int, head: int):
        self.pattern, self.nq, self.nk, self.head = pattern, nq, nk, head

    def error_for(self, text: str, source: str):
        def error(reason, span):
            return LayoutError(reason, text, span, source=source or None)
        return error

    def run(self) -> Channels:
        return self.visit(self.pattern.root, self.pattern)

    def visit(self, node: ast.Node, owner: ast.Pattern) -> Channels:
        if isinstance(node, ast.BinaryOp):
            left, right = self.visit(node.left, owner), self.visit(node.right, owner)
            combine = {"|": BlockSet.__or__, "&": BlockSet.__and__, "-": BlockSet.__sub__}[node.op]
            return self._pointwise(combine, left, right)
        if isinstance(node, ast.Complement):
            lower, upper = self.visit(node.operand, owner)
            inverted = ~lower
            return (inverted, inverted) if lower is upper else (inverted, ~upper)
        if isinstance(node, ast.Preset):
            return self.visit(node.body.root, node.body)
        return self.call(node, owner)

    @staticmethod
    def _pointwise(combine, left: Channels, right: Channels) -> Channels:
        lower = combine(left[0], right[0])
        if left[0] is left[1] and right[0] is right[1]:
            return lower, lower
        return lower, combine(left[1], right[1])

    def call(self, node: ast.Call, owner: ast.Pattern) -> Channels:
        prim = REGISTRY[node.name]
        if node.name == "causal":
            return _CausalSet(self.nq, self.nk, False), _CausalSet(self.nq, self.nk, True)
        if node.name == "per_head":
            return self.visit(node.args[self.head % len(node.args)], owner)
        args = bind_arguments(node, self.nk, N_BLOCKS, self.error_for(owner.text, owner.source))
        size = _size_estimate(node.name, self.nq, self.nk, args)
        blocks = PrimitiveSet(self.nq, self.nk, size, prim.enumerate, prim.contains, args)
        return blocks, blocks


def _evaluate_heads(pattern: ast.Pattern, nq: int, nk: int,
                    num_heads: Optional[int]) -> List[Channels]:
    calls = _per_head_calls(pattern.root, pattern, [])
    if not calls:
        return [_Evaluator(pattern, nq, nk, 0).run()]
    if num_heads is None:
        first, owner = calls[0]
        raise LayoutError("'per_head' needs the number of heads: pass num_heads=... to "
                          "compile_layout (or use the pattern through a module that knows it)",
                          owner.text, first.name_span, source=owner.source or None)
    # Heads whose per_head choices agree get the same sets: evaluate each choice once.
    memo: Dict[Tuple[int, ...], Channels] = {}
    heads = []
    for h in range(num_heads):
        choice = tuple(h % len(c.args) for c, _ in calls)
        if choice not in memo:
            memo[choice] = _Evaluator(pattern, nq, nk, h).run()
        heads.append(memo[choice])
    return heads


def _classify(channels: Channels, nq: int, nk: int, kv_seq_len: int, block: int):
    """-> (full keys, partial keys, partial codes) of one head, all sorted by key."""
    lower, upper = channels
    empty = torch.empty(0, dtype=torch.long)
    causal = anticausal = empty
    if lower is upper:
        both = lower.keys()
    else:
        # The two channels agree off the diagonal (a block there is all q >= k or all
        # q < k, and every operator acts pointwise), so one enumeration plus membership
        # tests on the min(nq, nk) diagonal blocks classify everything in O(nnz).
        keys = lower.keys()
        rows = keys // nk
        on_diag = rows == keys % nk
        d = torch.arange(min(nq, nk))
        diag = d * nk + d
        in_lower, in_upper = lower.contains(diag), upper.contains(diag)
        keep = ~on_diag
        keep[on_diag] = in_upper[rows[on_diag]]
        both = keys[keep]                         # still sorted
        causal = diag[in_lower & ~in_upper]       # on where q >= k only
        anticausal = diag[in_upper & ~in_lower]   # on where q < k only
        if kv_seq_len % block == 1 and nk <= nq:
            # The last key block holds one key, k = (nk-1)*block, and its diagonal block
            # then has no pair with q < k: an anti-causal mask leaves it empty, so it is off.
            last = (nk - 1) * nk + (nk - 1)
            anticausal = anticausal[anticausal != last]
    bounds = empty
    if kv_seq_len % block != 0:
        # The last key block runs past kv_seq_len: it needs the bounds mask, so it is partial.
        ragged = (both % nk) == nk - 1
        both, bounds = both[~ragged], both[ragged]
    partial = torch.cat([bounds, causal, anticausal])
    codes = torch.cat([torch.full_like(bounds, CODE_BOUNDS),
                       torch.full_like(causal, CODE_CAUSAL),
                       torch.full_like(anticausal, CODE_ANTICAUSAL)])
    order = torch.argsort(partial)
    return both, partial[order], codes[order]


def _check_shapes(seq_len, kv_seq_len, block, num_heads):
    for name, value in (("seq_len", seq_len), ("kv_seq_len", kv_seq_len)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise LayoutError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(block, bool) or not isinstance(block, int) or block < 16 or block & (block - 1):
        raise LayoutError(f"block must be a power of two >= 16, got {block!r} "
                          "(e.g. block=64 or block=128)")
    if num_heads is not None and (isinstance(num_heads, bool) or not isinstance(num_heads, int)
                                  or num_heads < 1):
        raise LayoutError(f"num_heads must be a positive integer or None, got {num_heads!r}")


@_eager_under_compile
def compile_layout(pattern: Union[str, ast.Pattern, Layout, torch.Tensor], seq_len: int, *,
                   block: int = 128, kv_seq_len: Optional[int] = None,
                   num_heads: Optional[int] = None,
                   device: Union[str, torch.device, None] = None) -> Layout:
    """Compile a pattern into a :class:`Layout` for the given shapes.

    Args:
        pattern: pattern text (``"local(2) | global(1)"``), a parsed :class:`Pattern`, an
            existing :class:`Layout` (checked against the shapes and returned), or a bool
            block mask of shape ``(H or 1, ceil(seq_len/block), ceil(kv_seq_len/block))``.
        seq_len: number of query tokens N.
        block: block size in tokens, a power of two >= 16.
        kv_seq_len: number of key tokens Nk (default: ``seq_len``).
        num_heads: number of heads; needed by ``per_head``. Patterns that do not depend on
            the head compile to a layout with one head that broadcasts.
        device: where the kernel tables live (default CPU).

    Compiled layouts are cached on (pattern, shapes, heads, device), and come with their
    kernel tables built (:meth:`Layout.prepare`): a function that ``torch.compile`` traces
    then calls :func:`~sparseflash.attention` with it in one graph. Called inside a traced
    function, this runs eagerly (a graph break: the compiler cannot trace its
    data-dependent work).
    """
    kv_seq_len = seq_len if kv_seq_len is None else kv_seq_len
    _check_shapes(seq_len, kv_seq_len, block, num_heads)
    device = canonical_device(device if device is not None else "cpu")
    if isinstance(pattern, Layout):
        pattern.check_compatible(seq_len, kv_seq_len, block, num_heads)
        return pattern.to(device).prepare()
    if isinstance(pattern, torch.Tensor):
        layout = Layout.from_block_mask(pattern, seq_len, kv_seq_len=kv_seq_len, block=block,
                                        device=device)
        layout.check_compatible(seq_len, kv_seq_len, block, num_heads)
        return layout.prepare()
    if isinstance(pattern, str):
        pattern = parse(pattern)
    if not isinstance(pattern, ast.Pattern):
        raise TypeError("pattern must be a string, a Pattern, a Layout or a bool tensor, got "
                        f"{type(pattern).__name__}")
    return _compile_cached(pattern.text, pattern.source, seq_len, kv_seq_len, block,
                           num_heads, str(device))


@lru_cache(maxsize=128)
def _compile_cached(text: str, source: str, seq_len: int, kv_seq_len: int, block: int,
                    num_heads: Optional[int], device: str) -> Layout:
    pattern = parse(text, source)
    nq, nk = -(-seq_len // block), -(-kv_seq_len // block)
    per_head = _evaluate_heads(pattern, nq, nk, num_heads)
    classified: Dict[int, tuple] = {}
    fulls, partials, codes = [], [], []
    for h, channels in enumerate(per_head):
        key = id(channels)
        if key not in classified:
            classified[key] = _classify(channels, nq, nk, kv_seq_len, block)
        full, partial, code = classified[key]
        offset = h * nq * nk
        fulls.append(full + offset)
        partials.append(partial + offset)
        codes.append(code)
    return Layout(
        full_keys=torch.cat(fulls), partial_keys=torch.cat(partials),
        partial_codes=torch.cat(codes).to(torch.int8), num_heads=len(per_head),
        seq_len=seq_len, kv_seq_len=kv_seq_len, block=block, pattern=text,
        device=torch.device(device)).prepare()
