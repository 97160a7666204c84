"""Session 19 probe: the five-product backward with warp specialisation (Gluon).

    python benchmarks/sessions/s19_ws_bwd.py                 # on an H100/H200
    python benchmarks/sessions/s19_ws_bwd.py --compile-only  # sm_90, no GPU

Session 17's fused backward (``s17_fused_bwd.py``, NOTES v19) did FlashAttention-2's five
products per (query tile, key tile) pair in one warp group's serial loop: the warps
issued every TMA copy, waited for every dQ reduction to finish reading its buffer, and
at D=128 spilled. It lost to the two Triton kernels (seven products). FlashAttention-3
(Shah et al., 2024, section 3) gets its backward from warp specialisation: a producer
warp issues the copies, a separate warp adds dQ into global memory, and the consumer
warp groups, freed of both, get most of the registers. This probe asks whether that
holds in Gluon (``gl.warp_specialize``, Triton 3.6 and newer):

* consumer partition (the kernel's ``num_warps``): per query tile ``S^T = K Q^T`` and
  ``dP^T = V dO^T`` issued together, ``P^T`` from registers into ``dV += P^T dO``,
  ``dS^T`` once to shared memory as the left operand of ``dQ_tile = dS K`` and
  ``dK += dS^T Q``; dQ's tile goes to one of ``DQ_BUFS`` float32 buffers and the
  warps move on;
* loader partition (1 warp): K and V once, then Q and dO into a ring of ``STAGES``
  buffers, each refilled as soon as the consumers release it (an mbarrier per slot);
* dQ partition (1 warp): a TMA reduction (``cp.reduce.async.bulk.tensor``) per tile
  from the buffer the consumers filled into a zeroed float32 dQ, then the buffer back.

``maxnreg`` caps the registers of the whole program; the workers keep 24 a thread and
the consumers get the rest (the warps are counted in warp groups of four). Dense and
``local(3)`` at block 128 (a window of query tiles computed from the column, no table).
Each variant is checked against sparseflash's backward (tested against float64) and
timed against it on the same inputs, with the session-17 serial kernel beside it.
"""

import argparse
import json
import os
import subprocess
import sys

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma,
                                                              warpgroup_mma,
                                                              warpgroup_mma_init,
                                                              warpgroup_mma_wait)

sys.path.insert(0, os.path.dirname(__file__))
from s17_fused_bwd import LOG2E, _desc, tma_load, tma_reduce_add  # noqa: E402
import s17_fused_bwd as serial  # noqa: E402


@gluon.jit
def _tile_row(row0, first, i, n_tiles, rot, BLOCK_M: gl.constexpr):
    """First row of the walk's query tile ``i`` (every partition walks the same order)."""
    return row0 + (first + (i + rot) % n_tiles) * BLOCK_M


@gluon.jit
def _loader(q_desc, k_desc, v_desc, do_desc, dq_desc, k_smem, v_smem, q_smem, do_smem,
            dq_smem, kv_bar, ready, empty, dq_ready, dq_empty, row0, first, n_tiles, rot,
            k_row, BLOCK_M: gl.constexpr, STAGES: gl.constexpr, DQ_BUFS: gl.constexpr,
            DQ_MODE: gl.constexpr):
    """One warp: K and V, then each tile's Q and dO into the slot the consumers freed."""
    mbarrier.expect(kv_bar, k_desc.block_type.nbytes + v_desc.block_type.nbytes)
    tma_load(k_desc, [k_row, 0], kv_bar, k_smem)
    tma_load(v_desc, [k_row, 0], kv_bar, v_smem)
    for i in range(n_tiles):
        slot = i % STAGES
        # Barriers start in phase 0, so the first wait on the opposite parity passes.
        mbarrier.wait(empty.index(slot), ((i // STAGES) & 1) ^ 1)
        row = _tile_row(row0, first, i, n_tiles, rot, BLOCK_M)
        mbarrier.expect(ready.index(slot), q_desc.block_type.nbytes + do_desc.block_type.nbytes)
        tma_load(q_desc, [row, 0], ready.index(slot), q_smem.index(slot))
        tma_load(do_desc, [row, 0], ready.index(slot), do_smem.index(slot))


@gluon.jit
def _dq_adder(q_desc, k_desc, v_desc, do_desc, dq_desc, k_smem, v_smem, q_smem, do_smem,
              dq_smem, kv_bar, ready, empty, dq_ready, dq_empty, row0, first, n_tiles, rot,
              k_row, BLOCK_M: gl.constexpr, STAGES: gl.constexpr, DQ_BUFS: gl.constexpr,
              DQ_MODE: gl.constexpr):
    """One warp: each tile's dQ buffer added into the float32 dQ by a TMA reduction; a
    buffer goes back to the consumers once its reduction has read it."""
    if DQ_MODE > 0:
        for i in range(n_tiles):
            buf = i % DQ_BUFS
            mbarrier.wait(dq_ready.index(buf), (i // DQ_BUFS) & 1)
            if DQ_MODE > 1:
                tma_reduce_add(dq_desc, [_tile_row(row0, first, i, n_tiles, rot, BLOCK_M), 0],
                               dq_smem.index(buf))
                tma.store_wait(0)
            mbarrier.arrive(dq_empty.index(buf), count=1)


@gluon.jit
def _consumer(k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_bar, ready, empty,
              dq_ready, dq_empty, LSE, DELTA, DK, DV, row0, first, n_tiles, rot, k_row,
              qk_scale, sm_scale, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
              D: gl.constexpr, STAGES: gl.constexpr, DQ_BUFS: gl.constexpr,
              DQ_MODE: gl.constexpr, num_warps: gl.constexpr):
    """The kernel's own warps: the five products of every tile, dK and dV stored at the
    end. On each back edge the last tile's dK is in flight."""
    dtype: gl.constexpr = k_smem.dtype
    st_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, D, 16])
    WM: gl.constexpr = BLOCK_M // 16 if BLOCK_M // 16 < num_warps else num_warps
    WN: gl.constexpr = num_warps // WM
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[WM, WN], instr_shape=[16, D // WN, 16])
    op_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)
    cols_st: gl.constexpr = gl.SliceLayout(0, st_layout)

    zero_st = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, st_layout)
    zero_dq = gl.zeros([BLOCK_M, D], gl.float32, dq_layout)
    dk = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
    mbarrier.wait(kv_bar, 0)
    dk = warpgroup_mma_init(dk)
    dq = zero_dq  # DQ_MODE 3: the last tile's dQ, in flight across the back edge (as dV)
    if DQ_MODE == 3:
        dq = warpgroup_mma_init(dq)
        dv = warpgroup_mma_init(dv)
    for i in range(n_tiles):
        slot = i % STAGES
        offs = _tile_row(row0, first, i, n_tiles, rot, BLOCK_M) + gl.arange(0, BLOCK_M,
                                                                              layout=cols_st)
        lse = gl.load(LSE + offs)
        delta = gl.load(DELTA + offs)
        mbarrier.wait(ready.index(slot), (i // STAGES) & 1)
        st = warpgroup_mma(k_smem, q_smem.index(slot).permute((1, 0)), zero_st,
                           use_acc=False, is_async=True)
        dpt = warpgroup_mma(v_smem, do_smem.index(slot).permute((1, 0)), zero_st,
                            use_acc=False, is_async=True)
        # In flight: the last tile's dK, then S^T and dP^T. Wait for all but dP^T: every
        # product of the last tile is done, so its slot goes back to the loader.
        if DQ_MODE == 3:
            # The last tile's dQ finished under this tile's S^T: to its buffer now.
            st, dk, dq, dv = warpgroup_mma_wait(num_outstanding=1, deps=(st, dk, dq, dv))
            if i > 0:
                prev = (i - 1) % DQ_BUFS
                mbarrier.wait(dq_empty.index(prev), (((i - 1) // DQ_BUFS) & 1) ^ 1)
                dq_smem.index(prev).store(dq)
                fence_async_shared()
                mbarrier.arrive(dq_ready.index(prev), count=1)
        else:
            st, dk = warpgroup_mma_wait(num_outstanding=1, deps=(st, dk))
        mbarrier.arrive(empty.index((i + STAGES - 1) % STAGES), count=1, pred=i > 0)
        pt = gl.exp2(st * qk_scale - gl.expand_dims(lse, 0))
        p_op = gl.convert_layout(pt.to(dtype), op_layout)
        dv = warpgroup_mma(p_op, do_smem.index(slot), dv, is_async=True)
        dpt, p_op = warpgroup_mma_wait(num_outstanding=1, deps=(dpt, p_op))
        dst = pt * (dpt - gl.expand_dims(delta, 0))
        ds_smem.store(dst.to(dtype))
        fence_async_shared()
        if DQ_MODE == 3:
            dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem, zero_dq, use_acc=False,
                               is_async=True)
            dk = warpgroup_mma(ds_smem, q_smem.index(slot), dk, is_async=True)
        elif DQ_MODE > 0:
            dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem, zero_dq, use_acc=False,
                               is_async=True)
            dk = warpgroup_mma(ds_smem, q_smem.index(slot), dk, is_async=True)
            dq, dv = warpgroup_mma_wait(num_outstanding=1, deps=(dq, dv))
            buf = i % DQ_BUFS
            mbarrier.wait(dq_empty.index(buf), ((i // DQ_BUFS) & 1) ^ 1)
            dq_smem.index(buf).store(dq)
            fence_async_shared()
            mbarrier.arrive(dq_ready.index(buf), count=1)
        else:
            dk = warpgroup_mma(ds_smem, q_smem.index(slot), dk, is_async=True)
            dv = warpgroup_mma_wait(num_outstanding=1, deps=(dv,))
    dk, dv, dq = warpgroup_mma_wait(num_outstanding=0, deps=(dk, dv, dq))
    if DQ_MODE == 3:
        if n_tiles > 0:
            last = (n_tiles - 1) % DQ_BUFS
            mbarrier.wait(dq_empty.index(last), (((n_tiles - 1) // DQ_BUFS) & 1) ^ 1)
            dq_smem.index(last).store(dq)
            fence_async_shared()
            mbarrier.arrive(dq_ready.index(last), count=1)
    rows = k_row + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, kv_layout))
    offs2 = gl.expand_dims(rows, 1) * D + gl.expand_dims(cols, 0)
    gl.store(DK + offs2, (dk * sm_scale).to(dtype))
    gl.store(DV + offs2, dv.to(dtype))


@gluon.jit
def _ws_bwd(q_desc, k_desc, v_desc, do_desc, dq_desc, LSE, DELTA, DK, DV, N,
            qk_scale, sm_scale,
            BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, D: gl.constexpr,
            STAGES: gl.constexpr, DQ_BUFS: gl.constexpr, WINDOW: gl.constexpr,
            DQ_MODE: gl.constexpr, num_warps: gl.constexpr):
    """One program per (key tile, head); arguments as ``s17_fused_bwd._fused_bwd``
    (DQ_MODE 2: dQ in full, 1: its product and buffer without the reduction, 0: none; 3:
    as 2 with each tile's dQ product left in flight under the next tile's S^T and dP^T and
    stored to its buffer then)."""
    pid_n = gl.program_id(0)
    row0 = gl.program_id(1) * N
    dtype: gl.constexpr = q_desc.dtype
    ds_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16,
                                                   rank=2)
    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], v_desc.layout)
    q_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], q_desc.layout)
    do_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], do_desc.layout)
    ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_layout)
    dq_smem = gl.allocate_shared_memory(gl.float32, [DQ_BUFS, BLOCK_M, D], dq_desc.layout)
    kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    dq_ready = gl.allocate_shared_memory(gl.int64, [DQ_BUFS, 1], mbarrier.MBarrierLayout())
    dq_empty = gl.allocate_shared_memory(gl.int64, [DQ_BUFS, 1], mbarrier.MBarrierLayout())
    mbarrier.init(kv_bar, count=1)
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    for s in gl.static_range(DQ_BUFS):
        mbarrier.init(dq_ready.index(s), count=1)
        mbarrier.init(dq_empty.index(s), count=1)

    n_q_blocks = N // 128
    if WINDOW > 0:
        kb = pid_n * BLOCK_N // 128
        lo = gl.maximum(kb - WINDOW, 0)
        hi = gl.minimum(kb + WINDOW + 1, n_q_blocks)
        first = lo * (128 // BLOCK_M)
        n_tiles = (hi - lo) * (128 // BLOCK_M)
    else:
        first = 0
        n_tiles = N // BLOCK_M
    # Each program starts at its own diagonal so that a head's programs do not add into
    # the same dQ rows at the same time.
    rot = (pid_n * BLOCK_N // BLOCK_M - first) % n_tiles
    k_row = row0 + pid_n * BLOCK_N

    worker_args = (q_desc, k_desc, v_desc, do_desc, dq_desc, k_smem, v_smem, q_smem, do_smem,
                   dq_smem, kv_bar, ready, empty, dq_ready, dq_empty, row0, first, n_tiles,
                   rot, k_row, BLOCK_M, STAGES, DQ_BUFS, DQ_MODE)
    gl.warp_specialize([
        (_consumer, (k_smem, v_smem, q_smem, do_smem, ds_smem, dq_smem, kv_bar, ready, empty,
                     dq_ready, dq_empty, LSE, DELTA, DK, DV, row0, first, n_tiles, rot, k_row,
                     qk_scale, sm_scale, BLOCK_M, BLOCK_N, D, STAGES, DQ_BUFS, DQ_MODE,
                     num_warps)),
        (_loader, worker_args),
        (_dq_adder, worker_args),
    ], [1, 1], [24, 24])


# (BLOCK_M query rows per step, BLOCK_N key rows per program, STAGES, DQ_BUFS, consumer
#  warps, DQ_MODE, maxnreg of the whole program: 2 programs an SM at 128 with 4 consumer
#  warps, 1 at 168 with 8 consumer warps, which then get 240 registers).
VARIANTS = {
    64: [(64, 64, 2, 2, 4, 2, 128), (64, 64, 3, 2, 4, 2, 128), (64, 64, 2, 2, 4, 0, 128),
         (64, 128, 2, 2, 8, 2, 168), (64, 128, 2, 2, 8, 0, 168)],
    128: [(64, 128, 2, 1, 8, 2, 168), (64, 128, 2, 2, 8, 2, 168), (64, 128, 2, 1, 8, 1, 168),
          (64, 128, 2, 1, 8, 0, 168), (64, 64, 2, 1, 4, 2, 168),
          # Session 19 call 8: dQ stored one tile late (DQ_MODE 3).
          (64, 128, 2, 1, 8, 3, 168), (64, 128, 2, 2, 8, 3, 168)],
}
# Session 17's serial kernel, the best of its variants, for the same inputs.
SERIAL = {64: (64, 64, 2, 2, True, 4, 2), 128: (64, 128, 2, 1, True, 8, 2)}
PATTERNS = {"dense": 0, "local(3)": 3}


def run_variant(q, k, v, do, lse, delta, variant, window):
    """-> (dq, dk, dv, fn): fn runs the whole backward after delta (zero the accumulator,
    the kernel, dQ's scale and cast)."""
    block_m, block_n, stages, dq_bufs, warps, dq_mode, maxnreg = variant
    B, H, N, D = q.shape
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    dq_acc = torch.empty(B, H, N, D, device=q.device, dtype=torch.float32)
    descs = (_desc(q, block_m), _desc(k, block_n), _desc(v, block_n), _desc(do, block_m),
             _desc(dq_acc, block_m))
    scale = D ** -0.5
    out = {}

    def fn():
        dq_acc.zero_()
        _ws_bwd[(N // block_n, B * H)](*descs, lse, delta, dk, dv, N, scale * LOG2E, scale,
                                       BLOCK_M=block_m, BLOCK_N=block_n, D=D, STAGES=stages,
                                       DQ_BUFS=dq_bufs, WINDOW=window, DQ_MODE=dq_mode,
                                       num_warps=warps, maxnreg=maxnreg)
        out["dq"] = (dq_acc * scale).to(q.dtype)
    fn()
    return out["dq"], dk, dv, fn


def label_of(variant):
    bm, bn, st, bufs, w, mode, reg = variant
    return (f"ws m{bm} n{bn} s{st} dq{bufs} w{w}+2 r{reg}"
            f"{['', ' dQ-no-reduce', ' no-dQ', ' dQ-late'][2 - mode if mode < 3 else 3]}")


def _jobs():
    patterns = PATTERNS if "--all-patterns" in sys.argv else ["dense"]
    return [(d, pattern, what) for d in (64, 128) for pattern in patterns
            for what in ["sparseflash", "serial"] + VARIANTS[d]]


def worker(start, seq_len):
    import sparseflash
    from sparseflash.kernels import launch as sf

    H = 16
    jobs = _jobs()
    cache = {}
    for i in range(start, len(jobs)):
        d, pattern, what = jobs[i]
        print(json.dumps({"job": i, "start": True}), flush=True)
        if (d, pattern) not in cache:
            gen = torch.Generator(device="cuda").manual_seed(d)
            q, k, v, do = (torch.randn(1, H, seq_len, d, device="cuda", dtype=torch.bfloat16,
                                       generator=gen) for _ in range(4))
            layout = sparseflash.compile_layout(pattern, seq_len, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), sf.LayoutMeta.of(layout)
            scale = d ** -0.5
            o, lse = sf.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)
            bwd = lambda: sf.backward(do, q, k, v, o, lse, tables, meta, scale, None,  # noqa: E731
                                      None, 0, 0.0)
            ref = bwd()
            delta = (o.float() * do.float()).sum(-1).reshape(-1).contiguous()
            cache[(d, pattern)] = (q, k, v, do, lse.reshape(-1).contiguous(), delta, bwd, ref,
                                   4 * H * seq_len * seq_len * d * layout.density)
        q, k, v, do, lse, delta, bwd, ref, flops = cache[(d, pattern)]
        if what == "sparseflash":
            fn, errs, label = bwd, (0.0, 0.0, 0.0), "sparseflash backward (library)"
        else:
            if what == "serial":
                dq, dk, dv, fn = serial.run_variant(q, k, v, do, lse, delta, SERIAL[d],
                                                    PATTERNS[pattern])
                label = "s17 serial fused " + str(SERIAL[d])
            else:
                dq, dk, dv, fn = run_variant(q, k, v, do, lse, delta, what, PATTERNS[pattern])
                label = label_of(what)
            torch.cuda.synchronize()
            errs = tuple((a.float() - b.float()).abs().max().item()
                         for a, b in zip((dq, dk, dv), ref))
            # A second run must agree with the first exactly but for dQ's reduction order.
            fn()
            torch.cuda.synchronize()
        times = serial.kernel_times(fn)
        ms = triton.testing.do_bench(fn, warmup=25, rep=200)
        scale_err = max(r.float().abs().max().item() for r in ref)
        # The backward is credited with 2.5x the forward's products (FlashAttention's count).
        print(json.dumps({"job": i, "D": d, "pattern": pattern, "label": label, "ms": ms,
                          "kernel_ms": sum(times.values()),
                          "kernels": {k_: round(t, 4) for k_, t in times.items()},
                          "tflops": 2.5 * flops / ms / 1e9, "errs": errs,
                          "ref_max": scale_err}), flush=True)


def drive(seq_len):
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    jobs, start = _jobs(), 0
    while start < len(jobs):
        proc = subprocess.run([sys.executable, __file__, "--worker", str(start),
                               "--seq-len", str(seq_len)] + sys.argv[1:], capture_output=True,
                              text=True, timeout=240)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                last = rec["job"]
                if "ms" in rec:
                    print(f"  D={rec['D']:3d} {rec['pattern']:9s} {rec['label']:44s} "
                          f"{rec['ms']:7.3f} ms (kernels {rec['kernel_ms']:7.3f}) "
                          f"{rec['tflops']:6.1f} TFLOP/s  max|err| dq,dk,dv "
                          f"{rec['errs'][0]:.1e} {rec['errs'][1]:.1e} {rec['errs'][2]:.1e}"
                          f" (|ref| {rec['ref_max']:.1e})", flush=True)
                    print("     ", json.dumps(rec["kernels"]), flush=True)
        if proc.returncode != 0:
            print(f"  job {last} {jobs[last]} FAILED: {proc.stderr.strip().splitlines()[-6:]}",
                  flush=True)
            start = last + 1
        else:
            start = len(jobs)


def compile_only(only=None):
    import re
    import warnings

    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas")
    for d in (64, 128):
        for j, variant in enumerate(VARIANTS[d]):
            if only is not None and only != (d, j):
                continue
            block_m, block_n, stages, dq_bufs, warps, dq_mode, maxnreg = variant
            t = torch.empty(16 * 1024, d, dtype=torch.bfloat16)
            acc = torch.empty(16 * 1024, d, dtype=torch.float32)
            sig = {name: "constexpr" for name in _ws_bwd.arg_names}
            for name, src, rows in (("q_desc", t, block_m), ("k_desc", t, block_n),
                                    ("v_desc", t, block_n), ("do_desc", t, block_m),
                                    ("dq_desc", acc, block_m)):
                sig[name] = native_specialize_impl(BaseBackend, _desc(src, rows), False, True,
                                                   True)[0]
            sig.update(LSE="*fp32", DELTA="*fp32", DK="*bf16", DV="*bf16", N="i32",
                       qk_scale="fp32", sm_scale="fp32")
            consts = dict(BLOCK_M=block_m, BLOCK_N=block_n, D=d, STAGES=stages,
                          DQ_BUFS=dq_bufs, WINDOW=3, DQ_MODE=dq_mode, num_warps=warps)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = triton.compile(GluonASTSource(_ws_bwd, sig, consts),
                                   target=GPUTarget("cuda", 90, 128),
                                   options=dict(num_warps=warps, maxnreg=maxnreg))
            ptx = c.asm["ptx"]
            with open("/tmp/s19_bwd.ptx", "w") as f:
                f.write(ptx)
            r = subprocess.run([ptxas, "-v", "--gpu-name", "sm_90a", "/tmp/s19_bwd.ptx",
                                "-o", "/tmp/s19_bwd.o"], capture_output=True, text=True)
            info = [ln.split(":")[-1].strip() for ln in r.stderr.splitlines()
                    if "registers" in ln or "spill" in ln]
            regs = re.findall(r"setmaxnreg.(\w+).sync.aligned.u32\s+(\d+)", ptx)
            print(f"D={d} {label_of(variant)}: shared={c.metadata.shared} "
                  f"threads={c.metadata.num_warps * 32} {info} "
                  f"setmaxnreg={regs} "
                  f"waits={len(re.findall(r'wgmma.wait_group', ptx))} "
                  f"reduce={ptx.count('cp.reduce.async.bulk')} bar.sync={ptx.count('bar.sync')}"
                  f" ptxas warnings={r.stderr.count('warning')} rc={r.returncode}", flush=True)
            if r.returncode:
                print(r.stderr[-2000:])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--only", default=None, help="D,index: compile one variant (its PTX and "
                   "cubin stay in /tmp/s19_bwd.*)")
    p.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--all-patterns", action="store_true", help="local(3) as well as dense")
    args = p.parse_args()
    if args.compile_only:
        compile_only(tuple(map(int, args.only.split(","))) if args.only else None)
    elif args.worker is not None:
        worker(args.worker, args.seq_len)
    else:
        drive(args.seq_len)


if __name__ == "__main__":
    main()
