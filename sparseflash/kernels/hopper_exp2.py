"""exp2 for the Gluon kernels with part of the elements off the special-function units.

An H100/H200 SM computes 16 ``ex2.approx`` results a clock (CUDA C programming guide,
throughput table for compute capability 9.0) against 4,096 bf16 tensor-core flops: a
128 x 128 score tile's 16,384 exponentials take 1,024 clocks of the SFUs, as long as the
forward's two D=64 products of that tile at the tensor cores' peak, and a fifth of the
fused backward's D=64 tile as session 40's clock trace measured it (NOTES v42).
FlashAttention-4 (Dao et al., 2025, for Blackwell) computes part of its exponentials with
a polynomial on the FMA units instead. :func:`exp2_mixed` does that for ``POLY`` of every
8 elements of a tensor, each thread's share alike (inline PTX over packs of 8 registers).

The polynomial path, for x in float32:

* ``x = max(x, -127)`` (NaN stays NaN), ``n = round(x)`` by adding and subtracting
  1.5 * 2^23, ``f = x - n`` in [-0.5, 0.5], all exact;
* ``2^f`` by a degree-5 polynomial (:data:`COEFFS`, a near-minimax fit of the relative
  error on [-0.5, 0.5], five FMAs in Horner's order);
* times ``2^n`` built from its exponent bits: ``(n + 127) << 23``, which is 0 at n = -127.

Float32 emulation of these steps (:func:`emulate`, ``tests/test_hopper_exp2.py``) stays
within 2.4e-7 of ``2^x`` relative for x in [-126, 0], as close as ``ex2.approx`` (2 ulp);
x under -126.5 gives 0 and x in [-126.5, -126) a denormal (``ex2.approx.ftz`` gives 0
under -126), NaN gives NaN, +inf NaN and x over 127.5 garbage (the kernels exponentiate
scores minus their row's maximum or LSE, at most about 0). 15 instructions an element on
the FMA and integer pipes against one SFU instruction. ``tests/test_hopper_exp2.py`` checks
the emulation on any machine and :func:`exp2_on_gpu` (the inline PTX itself) on a GPU.
"""

from __future__ import annotations

import numpy as np

try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    AVAILABLE = True
except ImportError:  # a Triton without Gluon
    AVAILABLE = False

#: float32 coefficients of 2^f ~ sum c_k f^k on [-0.5, 0.5], c_0 first (relative error of
#: the fit 7.5e-8; as float32 through the steps above 2.4e-7).
COEFFS = (1.0000001192092896, 0.6931469440460205, 0.24022120237350464,
          0.05550713464617729, 0.009675541892647743, 0.0013276470126584172)
#: Elements per inline-asm invocation; :func:`exp2_mixed`'s ``POLY`` counts of these.
PACK = 8
_ROUNDER = 12582912.0  # 1.5 * 2^23: x + it rounds x to an integer in its low bits
_FLOOR = -127.0


def _f32_hex(value: float) -> str:
    """PTX's exact float32 literal of ``value`` (``0f`` and its eight hex digits)."""
    return "0f%08X" % np.array(value, dtype=np.float32).view(np.uint32)


def _poly_ptx(out: str, arg: str) -> str:
    """PTX of the polynomial path from register ``arg`` into register ``out``."""
    c = [_f32_hex(v) for v in COEFFS]
    rounder = _f32_hex(_ROUNDER)
    bias = 127 - int(np.array(_ROUNDER, dtype=np.float32).view(np.int32))
    return "\n".join((
        "{",
        ".reg .f32 x, j, n, f, p, s;",
        ".reg .b32 e;",
        f"max.NaN.f32 x, {arg}, {_f32_hex(_FLOOR)};",
        f"add.rn.f32 j, x, {rounder};",
        f"sub.rn.f32 n, j, {rounder};",
        "sub.rn.f32 f, x, n;",
        f"fma.rn.f32 p, f, {c[5]}, {c[4]};",
        *(f"fma.rn.f32 p, p, f, {c[k]};" for k in (3, 2, 1, 0)),
        "mov.b32 e, j;",  # j's low bits hold n + its rounder's bits
        f"add.s32 e, e, {bias};",
        "shl.b32 e, e, 23;",
        "mov.b32 s, e;",
        f"mul.rn.f32 {out}, p, s;",
        "}",
    ))


def asm(poly: int) -> str:
    """The inline PTX of one invocation over :data:`PACK` elements (outputs ``$0``..,
    inputs after them), its first ``poly`` by the polynomial and the rest by
    ``ex2.approx.ftz.f32``."""
    if not 0 <= poly <= PACK:
        raise ValueError(f"poly must be in [0, {PACK}], not {poly}")
    lines = []
    for i in range(PACK):
        out, arg = f"${i}", f"${PACK + i}"
        lines.append(_poly_ptx(out, arg) if i < poly else f"ex2.approx.ftz.f32 {out}, {arg};")
    return "\n".join(lines)


CONSTRAINTS = ",".join(["=f"] * PACK + ["f"] * PACK)


def emulate(x: np.ndarray) -> np.ndarray:
    """The polynomial path in float32 NumPy, step for step (each FMA rounded once), for
    the tests: ``x`` float32 -> float32."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.where(np.isnan(x), x, np.maximum(x, np.float32(_FLOOR))).astype(np.float32)
        j = (x + np.float32(_ROUNDER)).astype(np.float32)
        n = (j - np.float32(_ROUNDER)).astype(np.float32)
        f = (x - n).astype(np.float32)
        c = np.array(COEFFS, dtype=np.float32)
        p = (f.astype(np.float64) * c[5] + c[4]).astype(np.float32)
        for k in (3, 2, 1, 0):
            p = (p.astype(np.float64) * f + c[k]).astype(np.float32)
        bias = 127 - int(np.array(_ROUNDER, dtype=np.float32).view(np.int32))
        e = ((j.view(np.int32).astype(np.int64) + bias) << 23) & 0xFFFFFFFF
        s = e.astype(np.uint32).view(np.float32)
        return (p * s).astype(np.float32)


if AVAILABLE:
    _ASM = tuple(gl.constexpr(asm(poly)) for poly in range(PACK + 1))
    _ASM_1, _ASM_2, _ASM_3, _ASM_4 = _ASM[1:5]
    _CONSTRAINTS = gl.constexpr(CONSTRAINTS)
    _PACK = gl.constexpr(PACK)

    @gluon.jit
    def exp2_mixed(x, POLY: gl.constexpr):
        """``2^x`` of a float32 tensor, ``POLY`` (0 to 4) of every :data:`PACK` elements of
        each thread by the polynomial, the rest by the SFUs; ``POLY = 0`` is ``gl.exp2``.
        The thread's elements per call must be a multiple of :data:`PACK`."""
        if POLY == 0:
            y = gl.exp2(x)
        elif POLY == 1:
            y = gl.inline_asm_elementwise(_ASM_1, _CONSTRAINTS, [x], gl.float32, True, _PACK)
        elif POLY == 2:
            y = gl.inline_asm_elementwise(_ASM_2, _CONSTRAINTS, [x], gl.float32, True, _PACK)
        elif POLY == 3:
            y = gl.inline_asm_elementwise(_ASM_3, _CONSTRAINTS, [x], gl.float32, True, _PACK)
        else:
            gl.static_assert(POLY == 4, "POLY must be 0 to 4")
            y = gl.inline_asm_elementwise(_ASM_4, _CONSTRAINTS, [x], gl.float32, True, _PACK)
        return y

    @gluon.jit
    def _exp2_test_kernel(X, Y, n, POLY: gl.constexpr, BLOCK: gl.constexpr):
        """Y = :func:`exp2_mixed` (X, POLY) over ``n`` float32 values, BLOCK a program."""
        layout: gl.constexpr = gl.BlockedLayout([_PACK], [32], [4], [0])
        offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
        x = gl.load(X + offs, mask=offs < n, other=0.0)
        gl.store(Y + offs, exp2_mixed(x, POLY), mask=offs < n)


def exp2_on_gpu(x, poly: int):
    """Test hook: :func:`exp2_mixed` of a float32 CUDA tensor ``x`` (any shape), ``poly``
    of every :data:`PACK` elements by the polynomial; which elements is not specified."""
    import torch
    import triton

    flat = x.contiguous().view(-1)
    out = torch.empty_like(flat)
    block = PACK * 128
    _exp2_test_kernel[(triton.cdiv(flat.numel(), block),)](flat, out, flat.numel(), POLY=poly,
                                                             BLOCK=block, num_warps=4)
    return out.view(x.shape)
