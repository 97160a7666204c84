"""Session 20 probe: a warp-specialised Gluon forward at D=128 (dense), in variants.

    python benchmarks/sessions/s20_ws_fwd.py                  # on an H100/H200
    python benchmarks/sessions/s20_ws_fwd.py --compile-only   # sm_90 compile, no GPU

sparseflash's Gluon forward (``sparseflash/kernels/hopper.py``) reaches 85% of cuDNN's
dense forward at D=128 (NOTES v21); its 8 warps issue their own copies and hold 169
registers a thread, so FlashAttention-3's intra-warpgroup overlap (tile j's scores in
flight during tile j-1's ``P V``, Shah et al. 2024, Algorithm 2) spilled or gained
nothing there (v17). This probe moves the copies to a loader warp (``gl.warp_specialize``)
so that the consumers get 240 registers (``setmaxnreg``), and tries:

* ``serial``: the library's loop, each MMA waited at once;
* ``overlap``: tile j's scores ``Q K_j^T`` issued before tile j-1's ``P V``, the warps
  waiting only for the scores and running tile j's softmax while ``P V`` runs;
* ``split``: the two warp groups (64 query rows each) as two partitions, so that
  releasing a K/V slot synchronises one warp group instead of both;
* ``pingpong``: split and overlap, with each warp group issuing its round of MMAs only
  after the other's (two mbarriers), so that one's softmax runs under the other's MMAs
  (FA3's inter-warpgroup ping-pong).

Dense layout only (every key tile of the head, offsets computed); N a multiple of 128.
Each variant's output is checked against SDPA, then timed (do_bench median) next to the
library's forward and cuDNN on the same inputs. A variant that faults kills the CUDA
context, so each runs in a worker process that the driver restarts past a failure.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
LOG2E = 1.4426950408889634
#: The whole program's register cap: consumers get 240 a thread, the loader's warp group 24.
MAXNREG = 168

# (label, BLOCK_N, STAGES, SPLIT, OVERLAP, PINGPONG)
VARIANTS = [
    ("serial", 128, 2, False, False, False),
    ("serial s3", 128, 3, False, False, False),
    ("overlap", 128, 2, False, True, False),
    ("split serial", 128, 2, True, False, False),
    ("split overlap", 128, 2, True, True, False),
    ("pingpong", 128, 2, True, True, True),
    ("pingpong s3", 128, 3, True, True, True),
]


@gluon.jit
def _loader(q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty,
            turn, O, LSE, q_row, k_row0, n_tiles, qk_scale, BLOCK_N: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr, QTILES: gl.constexpr,
            CONSUMER_WARPS: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr):
    """One warp: Q once, then every K/V tile into the slot the consumers released."""
    QROWS: gl.constexpr = q_desc.block_type.shape[0]
    mbarrier.expect(q_bar, q_desc.block_type.nbytes * QTILES)
    for i in gl.static_range(QTILES):
        tma_load(q_desc, [q_row + i * QROWS, 0], q_bar, q_smem.index(i))
    for t in range(n_tiles):
        slot = t % STAGES
        # A barrier starts in phase 0: the first wait, on the other parity, passes.
        mbarrier.wait(empty.index(slot), ((t // STAGES) & 1) ^ 1)
        mbarrier.expect(k_ready.index(slot), k_desc.block_type.nbytes)
        tma_load(k_desc, [k_row0 + t * BLOCK_N, 0], k_ready.index(slot), k_smem.index(slot))
        mbarrier.expect(v_ready.index(slot), v_desc.block_type.nbytes)
        tma_load(v_desc, [k_row0 + t * BLOCK_N, 0], v_ready.index(slot), v_smem.index(slot))


@gluon.jit
def _wait_turn(turn, WG: gl.constexpr, r, PINGPONG: gl.constexpr):
    """Ping-pong: warp group 0's round r waits for warp group 1's round r-1 (its first
    passes), warp group 1's round r for warp group 0's round r."""
    if PINGPONG:
        if WG == 0:
            mbarrier.wait(turn.index(0), (r & 1) ^ 1)
        else:
            mbarrier.wait(turn.index(1), r & 1)


@gluon.jit
def _pass_turn(turn, WG: gl.constexpr, PINGPONG: gl.constexpr):
    if PINGPONG:
        mbarrier.arrive(turn.index(1 - WG), count=1)


@gluon.jit
def _softmax(s, m_i, l_i, qk_scale):
    m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
    p = gl.exp2(s * qk_scale - gl.expand_dims(m_new, 1))
    alpha = gl.exp2(m_i - m_new)
    return p, m_new, l_i * alpha + gl.sum(p, 1), alpha


@gluon.jit
def _consume(q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty, turn, O, LSE, q_row,
             n_tiles, qk_scale, WG: gl.constexpr, BLOCK_N: gl.constexpr, D: gl.constexpr,
             STAGES: gl.constexpr, W: gl.constexpr, OVERLAP: gl.constexpr,
             PINGPONG: gl.constexpr):
    """W warps (16 query rows each) of query tile ``WG``: the online softmax over every
    key tile, then O and LSE stored."""
    ROWS: gl.constexpr = 16 * W
    dtype: gl.constexpr = q_smem.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[W, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[W, 1], instr_shape=[16, D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    rows_s: gl.constexpr = gl.SliceLayout(1, s_layout)
    rows_o: gl.constexpr = gl.SliceLayout(1, o_layout)
    qs = q_smem.index(WG)
    zero_s = gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout)
    acc = gl.zeros([ROWS, D], gl.float32, o_layout)
    m_i = gl.full([ROWS], float("-inf"), gl.float32, rows_s)
    l_i = gl.zeros([ROWS], gl.float32, rows_s)
    mbarrier.wait(q_bar, 0)
    if OVERLAP:
        _wait_turn(turn, WG, 0, PINGPONG)
        mbarrier.wait(k_ready.index(0), 0)
        s = warpgroup_mma(qs, k_smem.index(0).permute((1, 0)), zero_s, use_acc=False,
                          is_async=True)
        _pass_turn(turn, WG, PINGPONG)
        s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
        p, m_i, l_i, alpha = _softmax(s, m_i, l_i, qk_scale)
        p = gl.convert_layout(p.to(dtype), p_layout)
        for j in range(1, n_tiles):
            slot = j % STAGES
            prev = (j - 1) % STAGES
            _wait_turn(turn, WG, j, PINGPONG)
            mbarrier.wait(k_ready.index(slot), (j // STAGES) & 1)
            s = warpgroup_mma(qs, k_smem.index(slot).permute((1, 0)), zero_s, use_acc=False,
                              is_async=True)
            mbarrier.wait(v_ready.index(prev), ((j - 1) // STAGES) & 1)
            acc = warpgroup_mma(p, v_smem.index(prev), acc, is_async=True)
            _pass_turn(turn, WG, PINGPONG)
            # The scores were issued first: waiting for all but one leaves P V running.
            s = warpgroup_mma_wait(num_outstanding=1, deps=(s,))
            p_next, m_i, l_i, alpha = _softmax(s, m_i, l_i, qk_scale)
            acc, p = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))
            mbarrier.arrive(empty.index(prev), count=1)
            acc = acc * gl.expand_dims(gl.convert_layout(alpha, rows_o), 1)
            p = gl.convert_layout(p_next.to(dtype), p_layout)
        last = n_tiles - 1
        _wait_turn(turn, WG, n_tiles, PINGPONG)
        mbarrier.wait(v_ready.index(last % STAGES), (last // STAGES) & 1)
        acc = warpgroup_mma(p, v_smem.index(last % STAGES), acc, is_async=True)
        _pass_turn(turn, WG, PINGPONG)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]
        mbarrier.arrive(empty.index(last % STAGES), count=1)
    else:
        for j in range(n_tiles):
            slot = j % STAGES
            phase = (j // STAGES) & 1
            mbarrier.wait(k_ready.index(slot), phase)
            s = warpgroup_mma(qs, k_smem.index(slot).permute((1, 0)), zero_s, use_acc=False,
                              is_async=True)
            s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
            p, m_i, l_i, alpha = _softmax(s, m_i, l_i, qk_scale)
            acc = acc * gl.expand_dims(gl.convert_layout(alpha, rows_o), 1)
            p = gl.convert_layout(p.to(dtype), p_layout)
            mbarrier.wait(v_ready.index(slot), phase)
            acc = warpgroup_mma(p, v_smem.index(slot), acc, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]
            mbarrier.arrive(empty.index(slot), count=1)

    out = acc / gl.expand_dims(gl.convert_layout(l_i, rows_o), 1)
    row0 = q_row + WG * ROWS
    offs_m = row0 + gl.arange(0, ROWS, layout=rows_o)
    offs_d = gl.arange(0, D, layout=gl.SliceLayout(0, o_layout))
    gl.store(O + gl.expand_dims(offs_m.to(gl.int64), 1) * D + gl.expand_dims(offs_d, 0),
             out.to(dtype))
    gl.store(LSE + row0 + gl.arange(0, ROWS, layout=rows_s), m_i + gl.log2(l_i))


@gluon.jit
def _consumer0(q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty, turn, O, LSE, q_row,
               n_tiles, qk_scale, BLOCK_N: gl.constexpr, D: gl.constexpr,
               STAGES: gl.constexpr, W: gl.constexpr, OVERLAP: gl.constexpr,
               PINGPONG: gl.constexpr):
    _consume(q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty, turn, O, LSE, q_row,
             n_tiles, qk_scale, 0, BLOCK_N, D, STAGES, W, OVERLAP, PINGPONG)


@gluon.jit
def _consumer1(q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty,
               turn, O, LSE, q_row, k_row0, n_tiles, qk_scale, BLOCK_N: gl.constexpr,
               D: gl.constexpr, STAGES: gl.constexpr, QTILES: gl.constexpr,
               CONSUMER_WARPS: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr):
    """The second warp group as a worker (the workers share the loader's arguments)."""
    _consume(q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty, turn, O, LSE, q_row,
             n_tiles, qk_scale, 1, BLOCK_N, D, STAGES, CONSUMER_WARPS, OVERLAP, PINGPONG)


@gluon.jit
def ws_forward(q_desc, k_desc, v_desc, O, LSE, N, qk_scale, BLOCK_N: gl.constexpr,
               D: gl.constexpr, STAGES: gl.constexpr, SPLIT: gl.constexpr,
               OVERLAP: gl.constexpr, PINGPONG: gl.constexpr, num_warps: gl.constexpr):
    """Program (128-row query tile, b * H + h); q/k/v_desc over (B*H*N, D) rows, O the
    same rows, LSE (B*H*N) float32 base 2. ``SPLIT``: the kernel's num_warps (4) are warp
    group 0, a worker of 4 warps warp group 1 (q_desc in tiles of 64 rows); else the
    kernel's 8 warps hold all 128 rows (q_desc in tiles of 128)."""
    QTILES: gl.constexpr = 2 if SPLIT else 1
    QROWS: gl.constexpr = q_desc.block_type.shape[0]
    dtype: gl.constexpr = q_desc.dtype
    bh = gl.program_id(1)
    q_row = bh * N + gl.program_id(0) * (QROWS * QTILES)
    k_row0 = bh * N
    n_tiles = N // BLOCK_N

    q_smem = gl.allocate_shared_memory(dtype, [QTILES, QROWS, D], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, D], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=QTILES)  # each consumer partition arrives
    for i in gl.static_range(2):
        mbarrier.init(turn.index(i), count=1)

    # (Constexprs keep their kind only in a tuple written inside the call.)
    if SPLIT:
        gl.warp_specialize([
            (_consumer0, (q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty, turn, O, LSE,
                          q_row, n_tiles, qk_scale, BLOCK_N, D, STAGES, num_warps, OVERLAP,
                          PINGPONG)),
            (_consumer1, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar, k_ready,
                          v_ready, empty, turn, O, LSE, q_row, k_row0, n_tiles, qk_scale,
                          BLOCK_N, D, STAGES, QTILES, num_warps, OVERLAP, PINGPONG)),
            (_loader, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar, k_ready, v_ready,
                       empty, turn, O, LSE, q_row, k_row0, n_tiles, qk_scale, BLOCK_N, D,
                       STAGES, QTILES, num_warps, OVERLAP, PINGPONG)),
        ], [num_warps, 1], [240, 24])
    else:
        gl.warp_specialize([
            (_consumer0, (q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, empty, turn, O, LSE,
                          q_row, n_tiles, qk_scale, BLOCK_N, D, STAGES, num_warps, OVERLAP,
                          PINGPONG)),
            (_loader, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar, k_ready, v_ready,
                       empty, turn, O, LSE, q_row, k_row0, n_tiles, qk_scale, BLOCK_N, D,
                       STAGES, QTILES, num_warps, OVERLAP, PINGPONG)),
        ], [1], [24])


def _descriptors(q, k, v, block_m, block_n):
    d = q.shape[-1]
    gl_dtype = gl.bfloat16 if q.dtype == torch.bfloat16 else gl.float16

    def desc(t, rows):
        flat = t.reshape(-1, d)
        layout = gl.NVMMASharedLayout.get_default_for([rows, d], gl_dtype)
        return TensorDescriptor(flat, list(flat.shape), list(flat.stride()), [rows, d], layout)

    return desc(q, block_m), desc(k, block_n), desc(v, block_n)


def _launch_args(variant):
    _, block_n, stages, split, overlap, pingpong = variant
    warps = 4 if split else 8
    consts = dict(BLOCK_N=block_n, STAGES=stages, SPLIT=split, OVERLAP=overlap,
                  PINGPONG=pingpong, num_warps=warps)
    return (64 if split else 128), consts


def run_variant(q, k, v, variant):
    """Launch one variant on (B, H, N, D) q, k, v; returns (out, launcher)."""
    B, H, N, D = q.shape
    o = torch.empty_like(q)
    lse = torch.empty(B * H * N, device=q.device, dtype=torch.float32)
    qrows, consts = _launch_args(variant)
    descs = _descriptors(q, k, v, qrows, consts["BLOCK_N"])
    scale = D ** -0.5 * LOG2E

    def launch():
        ws_forward[(N // 128, B * H)](*descs, o, lse, N, scale, D=D, maxnreg=MAXNREG,
                                      **consts)
    launch()
    return o, launch


def _jobs():
    jobs = [("sparseflash",), ("cudnn",)] + [(v,) for v in VARIANTS]
    return jobs * 2  # two rounds: the host's drift shows


def worker(start: int, seq_len: int, d: int) -> None:
    """Run jobs from ``start`` on, one JSON line each; a fault ends the process."""
    import sparseflash
    from sparseflash.kernels import launch as sf_launch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    H = 16
    gen = torch.Generator(device="cuda").manual_seed(d)
    q, k, v = (torch.randn(1, H, seq_len, d, device="cuda", dtype=torch.bfloat16,
                           generator=gen) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    flops = 4 * H * seq_len * seq_len * d
    jobs = _jobs()
    for i in range(start, len(jobs)):
        what = jobs[i][0]
        print(json.dumps({"job": i, "start": True}), flush=True)
        if what == "sparseflash":
            layout = sparseflash.compile_layout("dense", seq_len, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), sf_launch.LayoutMeta.of(layout)
            fn = lambda: sf_launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
            out = fn()[0]
            label = "sparseflash (library)"
        elif what == "cudnn":
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)  # noqa: E731
                out = fn()
            label = "cuDNN"
        else:
            out, fn = run_variant(q, k, v, what)
            label = what[0]
        torch.cuda.synchronize()
        err = (out.float() - ref.float()).abs().max().item()
        if what == "cudnn":
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                ms = triton.testing.do_bench(fn, warmup=25, rep=200)
        else:
            ms = triton.testing.do_bench(fn, warmup=25, rep=200)
        print(json.dumps({"job": i, "label": label, "err": err, "ms": ms,
                          "tflops": flops / ms / 1e9}), flush=True)


def drive(seq_len: int, d: int) -> None:
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name(),
          f"N={seq_len} H=16 D={d} bf16 dense forward")
    jobs, start = _jobs(), 0
    while start < len(jobs):
        proc = subprocess.run([sys.executable, __file__, "--worker", str(start),
                               "--seq-len", str(seq_len), "--head-dim", str(d)],
                              capture_output=True, text=True)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                last = rec["job"]
                if "ms" in rec:
                    print(f"  {rec['label']:24s} {rec['ms']:7.3f} ms {rec['tflops']:6.1f} "
                          f"TFLOP/s  max|err| {rec['err']:.2e}", flush=True)
        if proc.returncode != 0:
            print(f"  job {last} {jobs[last]} FAILED: "
                  f"{proc.stderr.strip().splitlines()[-3:]}", flush=True)
            start = last + 1
        else:
            start = len(jobs)


def _ptxas_stats(ptx: str) -> str:
    """ptxas -v's registers and spills, and whether it serialised the wgmma."""
    from triton.backends.nvidia.compiler import get_ptxas
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        run = subprocess.run([get_ptxas(90).path, "-v", "--gpu-name", "sm_90a", src, "-o",
                              os.path.join(tmp, "k.o")], capture_output=True, text=True)
    regs = re.findall(r"Used (\d+) registers", run.stderr)
    spills = re.findall(r"(\d+) bytes spill stores", run.stderr)
    return (f"regs={regs} spill_stores={spills} "
            f"serialized={'serialized' in run.stderr} rc={run.returncode}")


def compile_only(d: int) -> None:
    """Compile every variant for sm_90 (no GPU); print shared memory and ptxas's view."""
    import warnings

    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    for variant in VARIANTS:
        qrows, consts = _launch_args(variant)
        t = torch.empty(16 * 1024, d, dtype=torch.bfloat16)
        descs = _descriptors(t, t, t, qrows, consts["BLOCK_N"])
        sig = {name: "constexpr" for name in ws_forward.arg_names}
        for name, desc in zip(("q_desc", "k_desc", "v_desc"), descs):
            sig[name] = native_specialize_impl(BaseBackend, desc, False, True, True)[0]
        sig.update(O="*bf16", LSE="*fp32", N="i32", qk_scale="fp32")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = triton.compile(GluonASTSource(ws_forward, sig, dict(consts, D=d)),
                               target=GPUTarget("cuda", 90, 128),
                               options=dict(num_warps=consts["num_warps"], maxnreg=MAXNREG))
        ptx = c.asm["ptx"]
        setmaxnreg = re.findall(r"setmaxnreg.(inc|dec).sync.aligned.u32\s+(\d+)", ptx)
        print(f"{variant[0]:16s} shared={c.metadata.shared} setmaxnreg={setmaxnreg} "
              f"{_ptxas_stats(ptx)}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--head-dim", type=int, default=128)
    args = p.parse_args()
    if args.compile_only:
        compile_only(args.head_dim)
    elif args.worker is not None:
        worker(args.worker, args.seq_len, args.head_dim)
    else:
        drive(args.seq_len, args.head_dim)


if __name__ == "__main__":
    main()
