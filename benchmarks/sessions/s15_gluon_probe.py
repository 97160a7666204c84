"""Session 15 probe: what a hand-pipelined Hopper forward written in Gluon would give.

    python benchmarks/sessions/s15_gluon_probe.py                 # on an H100/H200
    python benchmarks/sessions/s15_gluon_probe.py --compile-only  # sm_90 compile, no GPU

Session 14 found that Triton's pipeliner cannot keep K/V loads in flight past a table
read, and session 9 that it never leaves a scores MMA in flight across the softmax (it
waits for every ``wgmma`` at once). Gluon, Triton's lower-level language (Triton 3.6 has
it under ``triton.experimental.gluon``), hands both to the kernel author: TMA copies on
mbarriers issued as many tiles ahead as there are buffers, and asynchronous ``wgmma`` with
explicit waits. This probe's forward does FlashAttention-3's intra-warpgroup overlap
(Shah et al. 2024, Algorithm 2): tile j's scores ``Q K_j^T`` and tile j-1's ``P V``
are both in flight while the warps wait only for the scores, then run tile j's softmax
while the ``P V`` product still runs. Switches: ``OVERLAP`` (off: every MMA waited at
once, the order Triton compiles to), ``TABLE`` (key blocks read from a per-row list, as a
sparse layout's walk does, instead of computed).

Timed against sparseflash's forward and cuDNN on the same inputs, dense and ``local(3)``
at block 128 (seven key blocks per 128-row query block); every output checked against
SDPA first. A variant that faults kills the CUDA context, so each runs in a worker
process that the driver restarts past a failure.
"""

import argparse
import json
import subprocess
import sys

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier,
                                                              tma, warpgroup_mma,
                                                              warpgroup_mma_wait)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

LOG2E = 1.4426950408889634


@gluon.jit
def _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, IDX, row0, t, n_tiles,
              BLOCK_N: gl.constexpr, STAGES: gl.constexpr, TABLE: gl.constexpr):
    """Start the TMA copies of key tile ``t`` (of ``n_tiles``; none past the last) into
    buffer ``t % STAGES``, each signalling its own barrier."""
    slot = t % STAGES
    ok = t < n_tiles
    if TABLE:
        block = gl.load(IDX + t)  # the list is padded: reading past its end is safe
    else:
        block = t
    row = row0 + block * BLOCK_N
    mbarrier.expect(k_bar.index(slot), k_desc.block_type.nbytes, pred=ok)
    tma.async_copy_global_to_shared(k_desc, [row, 0], k_bar.index(slot), k_smem.index(slot),
                                    pred=ok)
    mbarrier.expect(v_bar.index(slot), v_desc.block_type.nbytes, pred=ok)
    tma.async_copy_global_to_shared(v_desc, [row, 0], v_bar.index(slot), v_smem.index(slot),
                                    pred=ok)


@gluon.jit
def _softmax_step(s, m_i, l_i, qk_scale):
    """Online softmax of one score tile: new row maxima (scaled, base 2), the tile's
    probabilities against them, the factor that rescales what came before, new sums."""
    m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
    p = gl.exp2(s * qk_scale - gl.expand_dims(m_new, 1))
    alpha = gl.exp2(m_i - m_new)
    l_new = l_i * alpha + gl.sum(p, 1)
    return p, m_new, l_new, alpha


@gluon.jit
def _gluon_forward(q_desc, k_desc, v_desc, o_desc, LSE, IDX, COUNT, N, qk_scale,
                   BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, D: gl.constexpr,
                   STAGES: gl.constexpr, OVERLAP: gl.constexpr, TABLE: gl.constexpr,
                   MAX_TILES: gl.constexpr, num_warps: gl.constexpr):
    """One program per (query tile, head). Q, K, V, O: (B*H*N, D) through descriptors;
    LSE (B*H*N,) float32; with ``TABLE``, IDX (N // BLOCK_M, MAX_TILES + STAGES) int32
    key-tile lists and COUNT (N // BLOCK_M,) their lengths."""
    pid_m = gl.program_id(0)
    bh = gl.program_id(1)
    row0 = bh * N
    dtype: gl.constexpr = q_desc.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    rows_s: gl.constexpr = gl.SliceLayout(1, s_layout)
    rows_o: gl.constexpr = gl.SliceLayout(1, o_layout)

    q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, D], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, D], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_bar.index(i), count=1)
        mbarrier.init(v_bar.index(i), count=1)

    if TABLE:
        n_tiles = gl.load(COUNT + pid_m)
        IDX = IDX + pid_m * (MAX_TILES + STAGES)
    else:
        n_tiles = N // BLOCK_N
    q_row = row0 + pid_m * BLOCK_M
    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [q_row, 0], q_bar, q_smem)
    for t in gl.static_range(STAGES - 1):
        _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, IDX, row0, t, n_tiles,
                  BLOCK_N, STAGES, TABLE)

    zero_s = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout)
    acc = gl.zeros([BLOCK_M, D], gl.float32, o_layout)
    m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, rows_s)
    l_i = gl.zeros([BLOCK_M], gl.float32, rows_s)
    mbarrier.wait(q_bar, 0)

    # Tile 0's scores and softmax; its P V product starts in the loop's first trip.
    mbarrier.wait(k_bar.index(0), 0)
    s = warpgroup_mma(q_smem, k_smem.index(0).permute((1, 0)), zero_s, use_acc=False,
                      is_async=True)
    s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
    p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale)
    p = gl.convert_layout(p.to(dtype), p_layout)
    if STAGES > 1:
        _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, IDX, row0, STAGES - 1,
                  n_tiles, BLOCK_N, STAGES, TABLE)

    for j in range(1, n_tiles):
        slot = j % STAGES
        prev = (j - 1) % STAGES
        mbarrier.wait(k_bar.index(slot), (j // STAGES) & 1)
        mbarrier.wait(v_bar.index(prev), ((j - 1) // STAGES) & 1)
        if OVERLAP:
            # Scores of tile j, then P V of tile j-1, both in flight; wait for the
            # scores only (MMA groups complete in order) and run the softmax beside P V.
            s = warpgroup_mma(q_smem, k_smem.index(slot).permute((1, 0)), zero_s,
                              use_acc=False, is_async=True)
            acc = warpgroup_mma(p, v_smem.index(prev), acc, is_async=True)
            s = warpgroup_mma_wait(num_outstanding=1, deps=(s,))
            p_new, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale)
            acc, p = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))
        else:
            acc = warpgroup_mma(p, v_smem.index(prev), acc, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]
            s = warpgroup_mma(q_smem, k_smem.index(slot).permute((1, 0)), zero_s,
                              use_acc=False, is_async=True)
            s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
            p_new, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale)
        acc = acc * gl.expand_dims(gl.convert_layout(alpha, rows_o), 1)
        p = gl.convert_layout(p_new.to(dtype), p_layout)
        # Tile j-1's buffers are free now: refill them STAGES tiles ahead.
        _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, IDX, row0,
                  j - 1 + STAGES, n_tiles, BLOCK_N, STAGES, TABLE)

    last = n_tiles - 1
    mbarrier.wait(v_bar.index(last % STAGES), (last // STAGES) & 1)
    acc = warpgroup_mma(p, v_smem.index(last % STAGES), acc, is_async=True)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]

    mbarrier.invalidate(q_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(k_bar.index(i))
        mbarrier.invalidate(v_bar.index(i))
    acc = acc / gl.expand_dims(gl.convert_layout(l_i, rows_o), 1)
    offs = q_row + gl.arange(0, BLOCK_M, layout=rows_s)
    gl.store(LSE + offs, m_i + gl.log2(l_i))
    q_smem.store(acc.to(dtype))  # Q's buffer is done with: it stages the output
    fence_async_shared()
    tma.async_copy_shared_to_global(o_desc, [q_row, 0], q_smem)
    tma.store_wait(pendings=0)


# (BLOCK_N, STAGES, OVERLAP) per head dim; BLOCK_M = 128 on 8 warps (two warp groups of
# 64 rows). Shared memory: Q + 2 * STAGES * BLOCK_N * D * 2 bytes, under 227 KB.
VARIANTS = {
    64: [(128, 3, True), (128, 4, True), (64, 4, True), (128, 2, True), (128, 3, False),
         (64, 4, False)],
    128: [(128, 3, True), (64, 4, True), (64, 3, True), (128, 2, True), (128, 3, False),
          (64, 4, False)],
}


def _descriptors(q, k, v, o, block_m, block_n):
    """Gluon host descriptors over (B*H*N, D) views of (B, H, N, D) tensors."""
    d = q.shape[-1]
    gl_dtype = gl.bfloat16 if q.dtype == torch.bfloat16 else gl.float16

    def desc(t, rows):
        flat = t.reshape(-1, d)
        layout = gl.NVMMASharedLayout.get_default_for([rows, d], gl_dtype)
        return TensorDescriptor(flat, list(flat.shape), list(flat.stride()), [rows, d], layout)

    return desc(q, block_m), desc(k, block_n), desc(v, block_n), desc(o, block_m)


def band_lists(n_query_blocks, block_n, max_tiles, stages, device):
    """local(3) at block 128 as per-row lists of BLOCK_N-row key tiles (padded)."""
    per = 128 // block_n
    idx = torch.zeros(n_query_blocks, max_tiles + stages, dtype=torch.int32)
    count = torch.zeros(n_query_blocks, dtype=torch.int32)
    for r in range(n_query_blocks):
        tiles = [b * per + i for b in range(max(r - 3, 0), min(r + 4, n_query_blocks))
                 for i in range(per)]
        idx[r, :len(tiles)] = torch.tensor(tiles, dtype=torch.int32)
        count[r] = len(tiles)
    return idx.to(device), count.to(device)


def run_variant(q, k, v, variant, pattern):
    """Launch one variant; returns (out, lse, launcher)."""
    block_n, stages, overlap = variant[:3]
    B, H, N, D = q.shape
    o = torch.empty_like(q)
    lse = torch.empty(B * H * N, device=q.device, dtype=torch.float32)
    descs = _descriptors(q, k, v, o, 128, block_n)
    table = pattern != "dense" or len(variant) > 3
    if pattern == "dense":
        max_tiles = N // block_n
        idx = torch.arange(max_tiles + stages, device=q.device, dtype=torch.int32)
        idx = idx.clamp(max=max_tiles - 1).expand(N // 128, -1).contiguous()
        count = torch.full((N // 128,), max_tiles, device=q.device, dtype=torch.int32)
    else:
        max_tiles = 7 * 128 // block_n
        idx, count = band_lists(N // 128, block_n, max_tiles, stages, q.device)
    scale = D ** -0.5 * LOG2E

    def launch():
        _gluon_forward[(N // 128, B * H)](*descs, lse, idx, count, N, scale, BLOCK_M=128,
                                          BLOCK_N=block_n, D=D, STAGES=stages,
                                          OVERLAP=overlap, TABLE=table, MAX_TILES=max_tiles,
                                          num_warps=8)
    launch()
    return o, lse, launch


def _jobs():
    """Every (D, pattern, variant) the probe times, in order; variants of length 4 force
    the table walk on the dense layout (the list is 0, 1, 2, ...)."""
    jobs = []
    for d in (64, 128):
        for pattern in ("dense", "local(3)"):
            jobs.append((d, pattern, "sparseflash"))
            if pattern == "dense":
                jobs.append((d, pattern, "cudnn"))
            for variant in VARIANTS[d]:
                jobs.append((d, pattern, variant))
            if pattern == "dense":
                jobs.append((d, pattern, VARIANTS[d][0] + ("table",)))
                jobs.append((d, pattern, (128, 3, False, "table")))
    return jobs


def worker(start: int, seq_len: int) -> None:
    """Run jobs from ``start`` on, one JSON line each; a fault ends the process."""
    import sparseflash
    from sparseflash.kernels import launch as sf_launch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    H = 16
    jobs = _jobs()
    for i in range(start, len(jobs)):
        d, pattern, what = jobs[i]
        print(json.dumps({"job": i, "start": True}), flush=True)
        gen = torch.Generator(device="cuda").manual_seed(d)
        q, k, v = (torch.randn(1, H, seq_len, d, device="cuda", dtype=torch.bfloat16,
                               generator=gen) for _ in range(3))
        layout = sparseflash.compile_layout(pattern, seq_len, block=128, device=q.device)
        mask = layout.to_dense().to(q.device)  # (1, N, N) bool, broadcast over heads
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        flops = 4 * H * seq_len * seq_len * d * layout.density
        if what == "sparseflash":
            tables, meta = layout.kernel_tables(), sf_launch.LayoutMeta.of(layout)
            fn = lambda: sf_launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
            out = fn()[0]
            label = "sparseflash (Triton)"
        elif what == "cudnn":
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)  # noqa: E731
                out = fn()
            label = "cuDNN"
        else:
            out, _, fn = run_variant(q, k, v, what, pattern)
            n, st, ov = what[:3]
            label = (f"gluon n{n} s{st} {'overlap' if ov else 'serial'}"
                     f"{' table' if len(what) > 3 else ''}")
        torch.cuda.synchronize()
        err = (out.float() - ref.float()).abs().max().item()
        if what == "cudnn":
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                ms = triton.testing.do_bench(fn, warmup=25, rep=200)
        else:
            ms = triton.testing.do_bench(fn, warmup=25, rep=200)
        print(json.dumps({"job": i, "D": d, "pattern": pattern, "label": label,
                          "err": err, "ms": ms, "tflops": flops / ms / 1e9}), flush=True)


def drive(seq_len: int) -> None:
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    jobs, start, results = _jobs(), 0, []
    while start < len(jobs):
        proc = subprocess.run([sys.executable, __file__, "--worker", str(start),
                               "--seq-len", str(seq_len)], capture_output=True, text=True)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                last = rec["job"]
                if "ms" in rec:
                    results.append(rec)
                    print(f"  D={rec['D']:3d} {rec['pattern']:9s} {rec['label']:32s} "
                          f"{rec['ms']:7.3f} ms {rec['tflops']:6.1f} TFLOP/s "
                          f"max|err| {rec['err']:.2e}", flush=True)
        if proc.returncode != 0:
            print(f"  job {last} {jobs[last]} FAILED: {proc.stderr.strip().splitlines()[-1:]}",
                  flush=True)
            start = last + 1
        else:
            start = len(jobs)


def compile_only() -> None:
    """Compile every variant for sm_90 (no GPU); print shared memory and registers."""
    import warnings

    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    for d in (64, 128):
        for block_n, stages, overlap in VARIANTS[d]:
            for table in (False, True):
                q = torch.empty(16 * 1024, d, dtype=torch.bfloat16)
                descs = _descriptors(q, q, q, q, 128, block_n)
                sig = {name: "constexpr" for name in _gluon_forward.arg_names}
                for name, desc in zip(("q_desc", "k_desc", "v_desc", "o_desc"), descs):
                    sig[name] = native_specialize_impl(BaseBackend, desc, False, True, True)[0]
                sig.update(LSE="*fp32", IDX="*i32", COUNT="*i32", N="i32", qk_scale="fp32")
                consts = dict(BLOCK_M=128, BLOCK_N=block_n, D=d, STAGES=stages,
                              OVERLAP=overlap, TABLE=table, MAX_TILES=16, num_warps=8)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    c = triton.compile(GluonASTSource(_gluon_forward, sig, consts),
                                       target=GPUTarget("cuda", 90, 128),
                                       options=dict(num_warps=8))
                ptx = c.asm["ptx"]
                print(f"D={d} n{block_n} s{stages} overlap={overlap} table={table}: "
                      f"shared={c.metadata.shared} regs={c.n_regs if hasattr(c, 'n_regs') else '?'} "
                      f"wgmma={ptx.count('wgmma.mma_async')} "
                      f"wait_group={ptx.count('wgmma.wait_group')}")


def main() -> None:
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
