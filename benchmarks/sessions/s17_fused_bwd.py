"""Session 17 probe: the whole backward in one Hopper kernel, five products a tile pair.

    python benchmarks/sessions/s17_fused_bwd.py                 # on an H100/H200
    python benchmarks/sessions/s17_fused_bwd.py --compile-only  # sm_90, no GPU

sparseflash's backward is two kernels, dK/dV by key columns and dQ by query rows, so it
does seven matrix products per (query tile, key tile) pair where FlashAttention-2/3 do
five: the dQ kernel recomputes S and dP. Its products already run at about cuDNN's
effective backward rate (NOTES v12, v18), so the gap to the fwd+bwd targets is the two
extra products. v10 fused dQ into the dK/dV kernel in Triton with atomic adds (element
by element and by TMA reductions) and got 1.7-2.5x slower kernels: Triton waited for the
new product at once and for each reduction to finish reading shared memory before the next
tile, both on the loop's critical path.

Here (Gluon, explicit asynchronous ``wgmma`` and TMA), one program per (key tile, head)
walks its query tiles:

1. ``S^T = K Q^T`` and ``dP^T = V dO^T`` issued together; the warps wait for ``S^T``.
2. ``P^T = exp2(S^T * scale - lse)`` from registers into ``dV += P^T dO`` (in flight).
3. The warps wait for ``dP^T``: ``dS^T = P^T (dP^T - delta)``, stored once to shared memory,
   where it is the left operand of both ``dQ_tile = dS K`` (transposed view) and
   ``dK += dS^T Q``.
4. The warps wait for ``dQ_tile`` only (``dK`` stays in flight into the next tile), write
   it to one of ``DQ_BUFS`` float32 shared buffers and add it into a float32 dQ by one TMA
   reduction (``cp.reduce.async.bulk.tensor``), which the warps do not wait for until that
   buffer comes round again.

Q and dO arrive by TMA into a ring of ``STAGES`` buffers. ``ROTATE`` starts each program's
walk at its own diagonal so that the programs of a head do not add into the same dQ rows
at the same time. Dense and ``local(3)`` at block 128 (a window of query tiles computed
from the column, no table). Everything is checked against sparseflash's own backward
(itself tested against float64) and timed against it on the same inputs.
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
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402  (mean CUDA ms per kernel name)

LOG2E = 1.4426950408889634
tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared

if hasattr(tma, "async_atomic_add"):
    tma_reduce_add = tma.async_atomic_add
else:  # Triton 3.6: the builder has the op, the language not yet
    from triton._C.libtriton import ir as _ir
    from triton.experimental.gluon.language._core import builtin as _builtin

    @_builtin
    def tma_reduce_add(tensor_desc, coord, src, _semantic=None):
        coord = _semantic._convert_to_ir_values(coord, require_i64=False)
        _semantic.builder.create_async_tma_reduce(_ir.DESCRIPTOR_REDUCE_KIND.ADD,
                                                  tensor_desc.handle, coord, src.handle)


@gluon.jit
def _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, row0, first, t, n_tiles,
                rot, BLOCK_M: gl.constexpr, STAGES: gl.constexpr):
    """Start the TMA copies of the walk's tile ``t`` (Q and dO; none past the last)."""
    slot = t % STAGES
    ok = t < n_tiles
    row = row0 + (first + (t + rot) % n_tiles) * BLOCK_M
    mbarrier.expect(q_bar.index(slot), q_desc.block_type.nbytes, pred=ok)
    tma_load(q_desc, [row, 0], q_bar.index(slot), q_smem.index(slot), pred=ok)
    mbarrier.expect(do_bar.index(slot), do_desc.block_type.nbytes, pred=ok)
    tma_load(do_desc, [row, 0], do_bar.index(slot), do_smem.index(slot), pred=ok)


@gluon.jit
def _fused_bwd(q_desc, k_desc, v_desc, do_desc, dq_desc, LSE, DELTA, DK, DV, N,
               qk_scale, sm_scale,
               BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, D: gl.constexpr,
               STAGES: gl.constexpr, DQ_BUFS: gl.constexpr, WINDOW: gl.constexpr,
               ROTATE: gl.constexpr, DQ_MODE: gl.constexpr, num_warps: gl.constexpr):
    """One program per (key tile, head). Q, K, V, dO: (B*H*N, D) through descriptors; dq_desc
    over a zeroed float32 (B*H*N, D) accumulator; LSE (base 2, scale folded) and DELTA =
    rowsum(dO * O): (B*H*N,) float32; DK, DV: (B*H*N, D) outputs. WINDOW = 0: every query
    tile; w > 0: the query blocks (of 128) within w blocks of the key tile's. DQ_MODE (an
    ablation): 2 = dQ in full, 1 = its product and shared-memory store without the
    reduction, 0 = no dQ at all (a dK/dV kernel)."""
    pid_n = gl.program_id(0)
    bh = gl.program_id(1)
    row0 = bh * N
    dtype: gl.constexpr = q_desc.dtype
    # Key rows across the warps (a warp group per 64), query rows of dQ likewise, D split
    # between warp groups when the query tile is narrower than the program.
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
    ds_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16,
                                                   rank=2)

    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], v_desc.layout)
    q_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], q_desc.layout)
    do_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], do_desc.layout)
    ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_layout)
    dq_smem = gl.allocate_shared_memory(gl.float32, [DQ_BUFS, BLOCK_M, D], dq_desc.layout)
    kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    q_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    do_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(kv_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(q_bar.index(i), count=1)
        mbarrier.init(do_bar.index(i), count=1)

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
    if ROTATE:
        rot = (pid_n * BLOCK_N // BLOCK_M - first) % n_tiles
    else:
        rot = 0
    k_row = row0 + pid_n * BLOCK_N
    mbarrier.expect(kv_bar, k_desc.block_type.nbytes + v_desc.block_type.nbytes)
    tma_load(k_desc, [k_row, 0], kv_bar, k_smem)
    tma_load(v_desc, [k_row, 0], kv_bar, v_smem)
    for t in gl.static_range(STAGES - 1):
        _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, row0, first, t, n_tiles,
                    rot, BLOCK_M, STAGES)

    zero_st = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, st_layout)
    zero_dq = gl.zeros([BLOCK_M, D], gl.float32, dq_layout)
    dk = warpgroup_mma_init(gl.zeros([BLOCK_N, D], gl.float32, kv_layout))
    dv = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
    mbarrier.wait(kv_bar, 0)

    for i in range(n_tiles):
        slot = i % STAGES
        phase = (i // STAGES) & 1
        q_row = row0 + (first + (i + rot) % n_tiles) * BLOCK_M
        offs = q_row + gl.arange(0, BLOCK_M, layout=cols_st)
        lse = gl.load(LSE + offs)
        delta = gl.load(DELTA + offs)
        mbarrier.wait(q_bar.index(slot), phase)
        mbarrier.wait(do_bar.index(slot), phase)
        st = warpgroup_mma(k_smem, q_smem.index(slot).permute((1, 0)), zero_st,
                           use_acc=False, is_async=True)
        dpt = warpgroup_mma(v_smem, do_smem.index(slot).permute((1, 0)), zero_st,
                            use_acc=False, is_async=True)
        # In flight before: the last tile's dK; now also S^T and dP^T. Wait for all but dP^T.
        st, dk = warpgroup_mma_wait(num_outstanding=1, deps=(st, dk))
        # Every product of the last tile is done: its Q and dO buffers are free.
        _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, row0, first,
                    i - 1 + STAGES, n_tiles, rot, BLOCK_M, STAGES)
        pt = gl.exp2(st * qk_scale - gl.expand_dims(lse, 0))
        p_op = gl.convert_layout(pt.to(dtype), op_layout)
        dv = warpgroup_mma(p_op, do_smem.index(slot), dv, is_async=True)
        dpt, p_op = warpgroup_mma_wait(num_outstanding=1, deps=(dpt, p_op))
        dst = pt * (dpt - gl.expand_dims(delta, 0))
        ds_smem.store(dst.to(dtype))
        fence_async_shared()
        if DQ_MODE > 0:
            dq = warpgroup_mma(ds_smem.permute((1, 0)), k_smem, zero_dq, use_acc=False,
                               is_async=True)
            dk = warpgroup_mma(ds_smem, q_smem.index(slot), dk, is_async=True)
            dq, dv = warpgroup_mma_wait(num_outstanding=1, deps=(dq, dv))
            buf = i % DQ_BUFS
            if DQ_MODE > 1:
                tma.store_wait(DQ_BUFS - 1)  # this buffer's last reduction has read it
            dq_smem.index(buf).store(dq)
            fence_async_shared()
            if DQ_MODE > 1:
                tma_reduce_add(dq_desc, [q_row, 0], dq_smem.index(buf))
        else:
            dk = warpgroup_mma(ds_smem, q_smem.index(slot), dk, is_async=True)
            dv = warpgroup_mma_wait(num_outstanding=1, deps=(dv,))

    dk, dv = warpgroup_mma_wait(num_outstanding=0, deps=(dk, dv))
    tma.store_wait(0)
    mbarrier.invalidate(kv_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(q_bar.index(i))
        mbarrier.invalidate(do_bar.index(i))
    rows = k_row + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, kv_layout))
    offs2 = gl.expand_dims(rows, 1) * D + gl.expand_dims(cols, 0)
    gl.store(DK + offs2, (dk * sm_scale).to(dtype))
    gl.store(DV + offs2, dv.to(dtype))


# (BLOCK_M query rows per step, BLOCK_N key rows per program, STAGES, DQ_BUFS, ROTATE, warps,
#  DQ_MODE). Call 1 (every variant in full) ran the first five at D=64, four at D=128.
VARIANTS = {
    64: [(64, 64, 2, 2, True, 4, 2), (64, 64, 2, 2, True, 4, 1), (64, 64, 2, 2, True, 4, 0),
         (64, 128, 2, 2, True, 8, 2), (64, 128, 2, 2, True, 8, 1), (64, 128, 2, 2, True, 8, 0),
         (64, 64, 3, 2, True, 4, 2), (64, 64, 2, 1, True, 4, 2)],
    128: [(64, 64, 2, 2, True, 4, 2), (64, 64, 2, 2, True, 4, 1), (64, 64, 2, 2, True, 4, 0),
          (64, 128, 2, 1, True, 8, 2), (64, 128, 2, 1, True, 8, 1), (64, 128, 2, 1, True, 8, 0)],
}
PATTERNS = {"dense": 0, "local(3)": 3}


def _gl_dtype(dtype):
    return {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16,
            torch.float32: gl.float32}[dtype]


def _desc(t, rows):
    d = t.shape[-1]
    flat = t.reshape(-1, d)
    layout = gl.NVMMASharedLayout.get_default_for([rows, d], _gl_dtype(t.dtype))
    return TensorDescriptor(flat, list(flat.shape), list(flat.stride()), [rows, d], layout)


def run_variant(q, k, v, do, lse, delta, variant, window):
    """-> (dq, dk, dv, fn): fn runs the whole backward after delta (zero the accumulator,
    the kernel, dQ's scale and cast)."""
    block_m, block_n, stages, dq_bufs, rotate, warps, dq_mode = variant
    B, H, N, D = q.shape
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    dq_acc = torch.empty(B, H, N, D, device=q.device, dtype=torch.float32)
    descs = (_desc(q, block_m), _desc(k, block_n), _desc(v, block_n), _desc(do, block_m),
             _desc(dq_acc, block_m))
    scale = D ** -0.5
    out = {}

    def fn():
        dq_acc.zero_()
        _fused_bwd[(N // block_n, B * H)](*descs, lse, delta, dk, dv, N, scale * LOG2E, scale,
                                          BLOCK_M=block_m, BLOCK_N=block_n, D=D,
                                          STAGES=stages, DQ_BUFS=dq_bufs, WINDOW=window,
                                          ROTATE=rotate, DQ_MODE=dq_mode, num_warps=warps)
        out["dq"] = (dq_acc * scale).to(q.dtype)
    fn()
    return out["dq"], dk, dv, fn


def _jobs():
    patterns = PATTERNS if "--all-patterns" in sys.argv else ["dense"]
    return [(d, pattern, what) for d in (64, 128) for pattern in patterns
            for what in ["sparseflash"] + VARIANTS[d]]


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
            times = kernel_times(bwd)
            kernel_ms = sum(times.values())
            ms = triton.testing.do_bench(bwd, warmup=25, rep=200)
            errs = (0.0, 0.0, 0.0)
            label = "sparseflash backward (Triton, 2 kernels)"
        else:
            dq, dk, dv, fn = run_variant(q, k, v, do, lse, delta, what, PATTERNS[pattern])
            torch.cuda.synchronize()
            errs = tuple((a.float() - b.float()).abs().max().item()
                         for a, b in zip((dq, dk, dv), ref))
            times = kernel_times(fn)
            kernel_ms = sum(times.values())
            ms = triton.testing.do_bench(fn, warmup=25, rep=200)
            bm, bn, st, bufs, rot, w, mode = what
            label = (f"fused m{bm} n{bn} s{st} dq{bufs} w{w}{' rot' if rot else ''}"
                     f"{['', ' dQ-no-reduce', ' no-dQ'][2 - mode]}")
        scale_err = max(r.float().abs().max().item() for r in ref)
        # The backward is credited with 2.5x the forward's products (FlashAttention's count).
        print(json.dumps({"job": i, "D": d, "pattern": pattern, "label": label, "ms": ms,
                          "kernel_ms": kernel_ms,
                          "kernels": {k_: round(t, 4) for k_, t in times.items()},
                          "tflops": 2.5 * flops / ms / 1e9, "errs": errs,
                          "ref_max": scale_err}), flush=True)


def drive(seq_len):
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    jobs, start = _jobs(), 0
    while start < len(jobs):
        proc = subprocess.run([sys.executable, __file__, "--worker", str(start),
                               "--seq-len", str(seq_len)] + sys.argv[1:], capture_output=True,
                              text=True)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                last = rec["job"]
                if "ms" in rec:
                    print(f"  D={rec['D']:3d} {rec['pattern']:9s} {rec['label']:42s} "
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
    import os
    import re
    import warnings

    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas")
    for d in (64, 128):
        for j, (block_m, block_n, stages, dq_bufs, rotate, warps, dq_mode) in enumerate(
                VARIANTS[d]):
            if only is not None and only != (d, j):
                continue
            t = torch.empty(16 * 1024, d, dtype=torch.bfloat16)
            acc = torch.empty(16 * 1024, d, dtype=torch.float32)
            sig = {name: "constexpr" for name in _fused_bwd.arg_names}
            for name, src, rows in (("q_desc", t, block_m), ("k_desc", t, block_n),
                                    ("v_desc", t, block_n), ("do_desc", t, block_m),
                                    ("dq_desc", acc, block_m)):
                sig[name] = native_specialize_impl(BaseBackend, _desc(src, rows), False, True,
                                                   True)[0]
            sig.update(LSE="*fp32", DELTA="*fp32", DK="*bf16", DV="*bf16", N="i32",
                       qk_scale="fp32", sm_scale="fp32")
            consts = dict(BLOCK_M=block_m, BLOCK_N=block_n, D=d, STAGES=stages,
                          DQ_BUFS=dq_bufs, WINDOW=3, ROTATE=rotate, DQ_MODE=dq_mode,
                          num_warps=warps)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = triton.compile(GluonASTSource(_fused_bwd, sig, consts),
                                   target=GPUTarget("cuda", 90, 128),
                                   options=dict(num_warps=warps))
            ptx = c.asm["ptx"]
            with open("/tmp/s17_bwd.ptx", "w") as f:
                f.write(ptx)
            r = subprocess.run([ptxas, "-v", "--gpu-name", "sm_90a", "/tmp/s17_bwd.ptx",
                                "-o", "/tmp/s17_bwd.o"], capture_output=True, text=True)
            info = [ln.split(":")[-1].strip() for ln in r.stderr.splitlines()
                    if "registers" in ln or "spill" in ln]
            waits = re.findall(r"wgmma.wait_group.sync.aligned (\d+)", ptx)
            print(f"D={d} m{block_m} n{block_n} s{stages} dq{dq_bufs} w{warps} rot={rotate} "
                  f"mode={dq_mode}: "
                  f"shared={c.metadata.shared} {info} waits={waits} "
                  f"reduce={ptx.count('cp.reduce.async.bulk')} bar.sync={ptx.count('bar.sync')}"
                  f" ptxas warnings={r.stderr.count('warning')}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--only", default=None, help="D,index: compile one variant (its PTX and "
                   "cubin stay in /tmp/s17_bwd.*)")
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
