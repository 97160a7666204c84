"""Session 15 probe: a hand-pipelined Hopper dK/dV kernel in Gluon.

    python benchmarks/sessions/s15_gluon_bwd_probe.py                 # on an H100/H200
    python benchmarks/sessions/s15_gluon_bwd_probe.py --compile-only  # sm_90, no GPU

The backward misses its targets by the most (NOTES v16), and its dK/dV kernel does four
matrix products per (key tile, query tile) pair. Triton's pipeliner keeps in flight only
the products that accumulate (dV, dK) and waits for the scores ``S^T = K Q^T`` and
``dP^T = V dO^T`` as soon as they are issued. Here, with explicit asynchronous ``wgmma``
(``OVERLAP``): both are issued back to back; the warps wait for ``S^T`` only and compute
``P^T`` while ``dP^T`` runs; ``dV += P^T dO`` is issued and the warps wait for ``dP^T``
only, computing ``dS^T`` while ``dV`` runs; ``dK += dS^T Q`` stays in flight into the next
query tile's products. Q and dO tiles arrive by TMA into a ring of ``STAGES`` buffers,
``STAGES - 1`` tiles ahead.

Compared with sparseflash's dK/dV kernel (the per-kernel CUDA time of its backward) on the
same inputs, dense and ``local(3)`` at block 128; the outputs are checked against
sparseflash's dK and dV (themselves tested against float64).
"""

import argparse
import json
import subprocess
import sys
from collections import defaultdict

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_init,
                                                              warpgroup_mma_wait)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

LOG2E = 1.4426950408889634


@gluon.jit
def _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, IDX, row0, t, n_tiles,
                BLOCK_M: gl.constexpr, STAGES: gl.constexpr, TABLE: gl.constexpr):
    """Start the TMA copies of query tile ``t`` (Q and dO; none past the last)."""
    slot = t % STAGES
    ok = t < n_tiles
    if TABLE:
        block = gl.load(IDX + t)
    else:
        block = t
    row = row0 + block * BLOCK_M
    mbarrier.expect(q_bar.index(slot), q_desc.block_type.nbytes, pred=ok)
    tma.async_copy_global_to_shared(q_desc, [row, 0], q_bar.index(slot), q_smem.index(slot),
                                    pred=ok)
    mbarrier.expect(do_bar.index(slot), do_desc.block_type.nbytes, pred=ok)
    tma.async_copy_global_to_shared(do_desc, [row, 0], do_bar.index(slot),
                                    do_smem.index(slot), pred=ok)
    return block


@gluon.jit
def _gluon_dkdv(q_desc, k_desc, v_desc, do_desc, LSE, DELTA, DK, DV, IDX, COUNT, N,
                qk_scale, sm_scale,
                BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, D: gl.constexpr,
                STAGES: gl.constexpr, OVERLAP: gl.constexpr, TABLE: gl.constexpr,
                MAX_TILES: gl.constexpr, num_warps: gl.constexpr):
    """One program per (key tile, head). Q, K, V, dO: (B*H*N, D) through descriptors; LSE
    (base 2, scale folded) and DELTA = rowsum(dO * O): (B*H*N,) float32; DK, DV: (B*H*N, D)
    outputs; with ``TABLE``, IDX (N // BLOCK_N, MAX_TILES + STAGES) query-tile lists."""
    pid_n = gl.program_id(0)
    bh = gl.program_id(1)
    row0 = bh * N
    dtype: gl.constexpr = q_desc.dtype
    # Key rows across the warps (two warp groups of 64 at 8 warps), query columns along N.
    st_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_M, 16])
    kv_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, D, 16])
    op_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout, k_width=2)
    cols_st: gl.constexpr = gl.SliceLayout(0, st_layout)

    k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], v_desc.layout)
    q_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], q_desc.layout)
    do_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], do_desc.layout)
    kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    q_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    do_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(kv_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(q_bar.index(i), count=1)
        mbarrier.init(do_bar.index(i), count=1)

    if TABLE:
        n_tiles = gl.load(COUNT + pid_n)
        IDX = IDX + pid_n * (MAX_TILES + STAGES)
    else:
        n_tiles = N // BLOCK_M
    k_row = row0 + pid_n * BLOCK_N
    mbarrier.expect(kv_bar, k_desc.block_type.nbytes + v_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(k_desc, [k_row, 0], kv_bar, k_smem)
    tma.async_copy_global_to_shared(v_desc, [k_row, 0], kv_bar, v_smem)
    for t in gl.static_range(STAGES - 1):
        _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, IDX, row0, t, n_tiles,
                    BLOCK_M, STAGES, TABLE)

    zero_st = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, st_layout)
    dk = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
    dv = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
    if OVERLAP:  # dK and dV stay in flight across the loop's back edge
        dk = warpgroup_mma_init(dk)
        dv = warpgroup_mma_init(dv)
    p_op = gl.zeros([BLOCK_N, BLOCK_M], dtype, op_layout)
    ds_op = gl.zeros([BLOCK_N, BLOCK_M], dtype, op_layout)
    mbarrier.wait(kv_bar, 0)

    for i in range(n_tiles):
        slot = i % STAGES
        phase = (i // STAGES) & 1
        if TABLE:
            block = gl.load(IDX + i)
        else:
            block = i
        offs = row0 + block * BLOCK_M + gl.arange(0, BLOCK_M, layout=cols_st)
        lse = gl.load(LSE + offs)
        delta = gl.load(DELTA + offs)
        mbarrier.wait(q_bar.index(slot), phase)
        mbarrier.wait(do_bar.index(slot), phase)
        st = warpgroup_mma(k_smem, q_smem.index(slot).permute((1, 0)), zero_st,
                           use_acc=False, is_async=True)
        dpt = warpgroup_mma(v_smem, do_smem.index(slot).permute((1, 0)), zero_st,
                            use_acc=False, is_async=True)
        if OVERLAP:
            # In flight: last tile's dV and dK, this tile's S^T and dP^T (in that order).
            st, dk, dv, p_op, ds_op = warpgroup_mma_wait(
                num_outstanding=1, deps=(st, dk, dv, p_op, ds_op))
        else:
            st, dpt, dk, dv = warpgroup_mma_wait(num_outstanding=0, deps=(st, dpt, dk, dv))
        # The last tile's Q and dO buffers are free: refill them STAGES tiles ahead.
        _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, IDX, row0,
                    i - 1 + STAGES, n_tiles, BLOCK_M, STAGES, TABLE)
        pt = gl.exp2(st * qk_scale - gl.expand_dims(lse, 0))
        p_op = gl.convert_layout(pt.to(dtype), op_layout)
        dv = warpgroup_mma(p_op, do_smem.index(slot), dv, is_async=True)
        if OVERLAP:
            dpt, p_op = warpgroup_mma_wait(num_outstanding=1, deps=(dpt, p_op))
        else:
            dv, p_op = warpgroup_mma_wait(num_outstanding=0, deps=(dv, p_op))
        dst = pt * (dpt - gl.expand_dims(delta, 0))
        ds_op = gl.convert_layout(dst.to(dtype), op_layout)
        dk = warpgroup_mma(ds_op, q_smem.index(slot), dk, is_async=True)
        if not OVERLAP:
            dk, ds_op = warpgroup_mma_wait(num_outstanding=0, deps=(dk, ds_op))

    dk, dv, p_op, ds_op = warpgroup_mma_wait(num_outstanding=0, deps=(dk, dv, p_op, ds_op))
    mbarrier.invalidate(kv_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(q_bar.index(i))
        mbarrier.invalidate(do_bar.index(i))
    rows = k_row + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, kv_layout))
    offs2 = gl.expand_dims(rows, 1) * D + gl.expand_dims(cols, 0)
    gl.store(DK + offs2, (dk * sm_scale).to(dtype))
    gl.store(DV + offs2, dv.to(dtype))


# (BLOCK_M query rows per step, BLOCK_N key rows per program, STAGES, OVERLAP, warps).
VARIANTS = {
    64: [(64, 128, 2, True, 8), (64, 128, 3, True, 8), (64, 128, 2, False, 8),
         (64, 64, 2, True, 4), (128, 128, 2, True, 8)],
    128: [(64, 128, 2, True, 8), (64, 128, 3, True, 8), (64, 128, 2, False, 8),
          (64, 64, 2, True, 4), (32, 128, 3, True, 8), (32, 128, 3, False, 8)],
}


def _desc(t, rows):
    d = t.shape[-1]
    flat = t.reshape(-1, d)
    gl_dtype = gl.bfloat16 if t.dtype == torch.bfloat16 else gl.float16
    layout = gl.NVMMASharedLayout.get_default_for([rows, d], gl_dtype)
    return TensorDescriptor(flat, list(flat.shape), list(flat.stride()), [rows, d], layout)


def _column_lists(n_key_tiles, block_m, block_n, max_tiles, stages, device):
    """local(3) at block 128 by columns: the query tiles (of BLOCK_M rows) that see each
    key tile (of BLOCK_N rows), padded."""
    idx = torch.zeros(n_key_tiles, max_tiles + stages, dtype=torch.int32)
    count = torch.zeros(n_key_tiles, dtype=torch.int32)
    n_blocks = n_key_tiles * block_n // 128
    for c in range(n_key_tiles):
        kb = c * block_n // 128
        tiles = [qb * 128 // block_m + i for qb in range(max(kb - 3, 0), min(kb + 4, n_blocks))
                 for i in range(128 // block_m)]
        idx[c, :len(tiles)] = torch.tensor(tiles, dtype=torch.int32)
        count[c] = len(tiles)
    return idx.to(device), count.to(device)


def run_variant(q, k, v, do, lse, delta, variant, pattern):
    block_m, block_n, stages, overlap, warps = variant
    B, H, N, D = q.shape
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    if pattern == "dense":
        max_tiles = N // block_m
        idx = torch.zeros(N // block_n, max_tiles + stages, device=q.device, dtype=torch.int32)
        count = torch.zeros(N // block_n, device=q.device, dtype=torch.int32)
        table = False
    else:
        max_tiles = 7 * 128 // block_m
        idx, count = _column_lists(N // block_n, block_m, block_n, max_tiles, stages, q.device)
        table = True
    descs = (_desc(q, block_m), _desc(k, block_n), _desc(v, block_n), _desc(do, block_m))
    scale = D ** -0.5

    def launch():
        _gluon_dkdv[(N // block_n, B * H)](*descs, lse, delta, dk, dv, idx, count, N,
                                           scale * LOG2E, scale, BLOCK_M=block_m,
                                           BLOCK_N=block_n, D=D, STAGES=stages,
                                           OVERLAP=overlap, TABLE=table, MAX_TILES=max_tiles,
                                           num_warps=warps)
    launch()
    return dk, dv, launch


def kernel_times(run, iters=20):
    """Mean CUDA time (ms) per call of each kernel ``run`` launches."""
    run()
    torch.cuda.synchronize()
    totals = defaultdict(float)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            run()
        torch.cuda.synchronize()
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals[event.name] += event.device_time / 1000 / iters
    return totals


def _jobs():
    return [(d, pattern, what) for d in (64, 128) for pattern in ("dense", "local(3)")
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
        ref_dk, ref_dv = ref[1], ref[2]
        if what == "sparseflash":
            times = kernel_times(bwd)
            ms = sum(t for name, t in times.items() if "dkdv" in name)
            err_k = err_v = 0.0
            label = "sparseflash dK/dV (Triton)"
        else:
            dk, dv, fn = run_variant(q, k, v, do, lse, delta, what, pattern)
            torch.cuda.synchronize()
            err_k = (dk.float() - ref_dk.float()).abs().max().item()
            err_v = (dv.float() - ref_dv.float()).abs().max().item()
            ms = triton.testing.do_bench(fn, warmup=25, rep=200)
            bm, bn, st, ov, w = what
            label = f"gluon m{bm} n{bn} s{st} w{w} {'overlap' if ov else 'serial'}"
        # dK/dV does four of the backward's seven products: 2 * flops of the forward's two.
        print(json.dumps({"job": i, "D": d, "pattern": pattern, "label": label, "ms": ms,
                          "tflops": 2 * flops / ms / 1e9, "err_dk": err_k, "err_dv": err_v}),
              flush=True)


def drive(seq_len):
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    jobs, start = _jobs(), 0
    while start < len(jobs):
        proc = subprocess.run([sys.executable, __file__, "--worker", str(start),
                               "--seq-len", str(seq_len)], capture_output=True, text=True)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                last = rec["job"]
                if "ms" in rec:
                    print(f"  D={rec['D']:3d} {rec['pattern']:9s} {rec['label']:34s} "
                          f"{rec['ms']:7.3f} ms {rec['tflops']:6.1f} TFLOP/s  max|err| "
                          f"dk {rec['err_dk']:.2e} dv {rec['err_dv']:.2e}", flush=True)
        if proc.returncode != 0:
            print(f"  job {last} {jobs[last]} FAILED: {proc.stderr.strip().splitlines()[-3:]}",
                  flush=True)
            start = last + 1
        else:
            start = len(jobs)


def compile_only():
    import os
    import re
    import warnings

    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas")
    for d in (64, 128):
        for block_m, block_n, stages, overlap, warps in VARIANTS[d]:
            t = torch.empty(16 * 1024, d, dtype=torch.bfloat16)
            sig = {name: "constexpr" for name in _gluon_dkdv.arg_names}
            for name, rows in (("q_desc", block_m), ("k_desc", block_n), ("v_desc", block_n),
                               ("do_desc", block_m)):
                sig[name] = native_specialize_impl(BaseBackend, _desc(t, rows), False, True,
                                                   True)[0]
            sig.update(LSE="*fp32", DELTA="*fp32", DK="*bf16", DV="*bf16", IDX="*i32",
                       COUNT="*i32", N="i32", qk_scale="fp32", sm_scale="fp32")
            consts = dict(BLOCK_M=block_m, BLOCK_N=block_n, D=d, STAGES=stages,
                          OVERLAP=overlap, TABLE=True, MAX_TILES=16, num_warps=warps)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = triton.compile(GluonASTSource(_gluon_dkdv, sig, consts),
                                   target=GPUTarget("cuda", 90, 128),
                                   options=dict(num_warps=warps))
            with open("/tmp/s15_dkdv.ptx", "w") as f:
                f.write(c.asm["ptx"])
            r = subprocess.run([ptxas, "-v", "--gpu-name", "sm_90a", "/tmp/s15_dkdv.ptx",
                                "-o", "/tmp/s15_dkdv.o"], capture_output=True, text=True)
            info = [ln.split(":")[-1].strip() for ln in r.stderr.splitlines()
                    if "registers" in ln or "spill" in ln]
            waits = re.findall(r"wgmma.wait_group.sync.aligned (\d+)", c.asm["ptx"])
            print(f"D={d} m{block_m} n{block_n} s{stages} w{warps} overlap={overlap}: "
                  f"shared={c.metadata.shared} {info} waits={waits} "
                  f"ptxas warnings={r.stderr.count('warning')}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--seq-len", type=int, default=16384)
    args = p.parse_args()
    if args.compile_only:
        compile_only()
    elif args.worker is not None:
        worker(args.worker, args.seq_len)
    else:
        drive(args.seq_len)


if __name__ == "__main__":
    main()
