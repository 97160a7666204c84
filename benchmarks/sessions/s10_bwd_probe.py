"""Session 10: where the backward's time goes, the way session 9's probe took the forward
apart (benchmarks/NOTES.md, v11).

    python benchmarks/sessions/s10_bwd_probe.py [--seq-len 16384] [--compile-only]

sparseflash's dK/dV kernel takes 1.6-1.7x the time of its dQ kernel for 4/3 of the matrix
products (profile_call, NOTES v9), and both walk their lists through a table, which cost
the forward 15-20%. This times minimal dense and banded (7 blocks of 128 per row and
column, ``local(3)``) backward kernels on one head-major tensor, each variant switching on
one thing: the query (or key) block read from a table instead of the loop index
(``+indirect``), and for dK/dV the transposed-scores form of FlashAttention-2
(S^T = K Q^T, so P^T and dS^T come out of the MMA as the next MMA's left operand and
nothing is transposed). Beside them: sparseflash's own dK/dV and dQ kernels on the same
inputs (per-kernel CUDA time from torch.profiler), and its forward with K/V through
tensor descriptors on and off (``SPARSEFLASH_TMA``) on five layouts. Every probe's
output is compared with sparseflash's (which the test suite checks against float64).
"""

import argparse
import os
import sys
from collections import defaultdict

import torch
import triton
import triton.language as tl


@triton.jit
def _band_tiles(block_id, band, N, TILE: tl.constexpr):
    """Tiles [lo, hi) of TILE rows that the layout block ``block_id``'s row (or column)
    lists: all of them when band = 0, else blocks of 128 within ``band`` of it."""
    sub: tl.constexpr = 128 // TILE
    lo = tl.where(band > 0, tl.maximum(block_id - band, 0) * sub, 0)
    hi = tl.where(band > 0, tl.minimum(block_id + band + 1, N // 128) * sub, N // TILE)
    return lo, hi


@triton.jit
def _probe_dkdv(Q, K, V, DO, LSE, DELTA, DK, DV, IDX, N, band, qk_scale, sm_scale,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
                TRANSPOSED: tl.constexpr, INDIRECT: tl.constexpr):
    """dK, dV of one key tile (B = 1; heads on axis 1) from the query tiles of its column.
    ``LSE`` is the forward's base-2 log-sum-exp of the scaled scores, as sparseflash's."""
    pid_n = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * N * D
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    dk = tl.zeros((BLOCK_N, D), tl.float32)
    dv = tl.zeros((BLOCK_N, D), tl.float32)
    if TRANSPOSED:
        k = tl.load(K + base + offs_n[:, None] * D + offs_d[None, :])
        v = tl.load(V + base + offs_n[:, None] * D + offs_d[None, :])
    else:
        k_t = tl.load(K + base + offs_n[None, :] * D + offs_d[:, None])
        v_t = tl.load(V + base + offs_n[None, :] * D + offs_d[:, None])
    lo, hi = _band_tiles(pid_n * BLOCK_N // 128, band, N, BLOCK_M)
    for t in range(lo, hi):
        if INDIRECT:  # IDX[t] = t: the same queries, through a dependent load
            start_m = tl.load(IDX + t) * BLOCK_M
        else:
            start_m = t * BLOCK_M
        offs_m = start_m + tl.arange(0, BLOCK_M)
        q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
        do = tl.load(DO + base + offs_m[:, None] * D + offs_d[None, :])
        lse = tl.load(LSE + bh * N + offs_m)
        delta = tl.load(DELTA + bh * N + offs_m)
        if TRANSPOSED:
            p_t = tl.math.exp2(tl.dot(k, tl.trans(q)) * qk_scale - lse[None, :])
            dv = tl.dot(p_t.to(do.dtype), do, dv)
            dp_t = tl.dot(v, tl.trans(do))
            ds_t = p_t * (dp_t - delta[None, :])
            dk = tl.dot(ds_t.to(q.dtype), q, dk)
        else:
            p = tl.math.exp2(tl.dot(q, k_t) * qk_scale - lse[:, None])
            dv = tl.dot(tl.trans(p.to(do.dtype)), do, dv)
            dp = tl.dot(do, v_t)
            ds = p * (dp - delta[:, None])
            dk = tl.dot(tl.trans(ds.to(q.dtype)), q, dk)
    tl.store(DK + base + offs_n[:, None] * D + offs_d[None, :], (dk * sm_scale).to(DK.dtype.element_ty))
    tl.store(DV + base + offs_n[:, None] * D + offs_d[None, :], dv.to(DV.dtype.element_ty))


@triton.jit
def _probe_dq(Q, K, V, DO, LSE, DELTA, DQ, IDX, N, band, qk_scale, sm_scale,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
              INDIRECT: tl.constexpr):
    """dQ of one query tile from the key tiles of its row, as sparseflash's dQ kernel."""
    pid_m = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * N * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
    do = tl.load(DO + base + offs_m[:, None] * D + offs_d[None, :])
    lse = tl.load(LSE + bh * N + offs_m)
    delta = tl.load(DELTA + bh * N + offs_m)
    dq = tl.zeros((BLOCK_M, D), tl.float32)
    lo, hi = _band_tiles(pid_m * BLOCK_M // 128, band, N, BLOCK_N)
    for t in range(lo, hi):
        if INDIRECT:
            start_n = tl.load(IDX + t) * BLOCK_N
        else:
            start_n = t * BLOCK_N
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k_t = tl.load(K + base + offs_n[None, :] * D + offs_d[:, None])
        v_t = tl.load(V + base + offs_n[None, :] * D + offs_d[:, None])
        p = tl.math.exp2(tl.dot(q, k_t) * qk_scale - lse[:, None])
        dp = tl.dot(do, v_t)
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(k_t.dtype), tl.trans(k_t), dq)
    tl.store(DQ + base + offs_m[:, None] * D + offs_d[None, :], (dq * sm_scale).to(DQ.dtype.element_ty))


DKDV_VARIANTS = {"minimal": dict(TRANSPOSED=False, INDIRECT=False),
                 "+indirect": dict(TRANSPOSED=False, INDIRECT=True),
                 "transposed": dict(TRANSPOSED=True, INDIRECT=False),
                 "transposed+indirect": dict(TRANSPOSED=True, INDIRECT=True)}
DQ_VARIANTS = {"minimal": dict(INDIRECT=False), "+indirect": dict(INDIRECT=True)}
# (BLOCK_M, BLOCK_N, num_warps, num_stages). sparseflash's autotuner picked 64 x 64, 4 warps,
# 2 stages for both kernels at D = 64 and 128 (NOTES v9); the others are its other
# candidates and, for dK/dV, the 32 x 128 tile of Triton's fused-attention tutorial.
DKDV_CONFIGS = [(64, 64, 4, 2), (64, 64, 4, 3), (32, 128, 4, 3), (64, 128, 8, 2)]
DQ_CONFIGS = [(64, 64, 4, 2), (64, 64, 4, 3), (128, 64, 8, 2), (128, 32, 4, 3)]
PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]


def _compile_only() -> None:
    """Compile every probe for sm_90 without a GPU (no run): catches errors early."""
    import warnings

    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    for kernel, variants, configs, nptr in ((_probe_dkdv, DKDV_VARIANTS, DKDV_CONFIGS, 8),
                                            (_probe_dq, DQ_VARIANTS, DQ_CONFIGS, 7)):
        sig = {name: "constexpr" for name in kernel.arg_names}
        for name in kernel.arg_names[:nptr]:
            sig[name] = "*fp32" if name in ("LSE", "DELTA") else "*bf16"
        sig.update(IDX="*i32", N="i32", band="i32", qk_scale="fp32", sm_scale="fp32")
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(nptr + 1)}
        for d in (64, 128):
            for name, flags in variants.items():
                for bm, bn, w, st in configs:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        c = triton.compile(
                            ASTSource(kernel, sig, dict(BLOCK_M=bm, BLOCK_N=bn, D=d, **flags),
                                      attrs),
                            target=GPUTarget("cuda", 90, 128),
                            options=dict(num_warps=w, num_stages=st))
                    ptx = c.asm["ptx"]
                    print(f"{kernel.__name__} {name} D={d} {bm}x{bn} w{w} s{st}: "
                          f"shared={c.metadata.shared} wgmma={ptx.count('wgmma.mma_async')} "
                          f"cp.async={ptx.count('cp.async.commit_group')} "
                          f"ex2={ptx.count('ex2.approx')}")


def _our_kernel_times(run, iters: int = 10) -> dict:
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


def _err(a, b) -> float:
    return (a.float() - b.float()).abs().max().item()


def backward_probe(N: int, H: int) -> None:
    import sparseflash
    from sparseflash.kernels import launch
    idx = torch.arange(N // 16, device="cuda", dtype=torch.int32)
    for d in (64, 128):
        q, k, v, do = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16)
                       for _ in range(4))
        scale = d ** -0.5
        qk_scale = scale * 1.4426950408889634
        for band in (0, 3):
            pattern = "local(3)" if band else "dense"
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            o, lse = launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)
            delta = (do.float() * o.float()).sum(-1).contiguous()
            ref_dq, ref_dk, ref_dv = launch.backward(do, q, k, v, o, lse, tables, meta, scale,
                                                     None, None, 0, 0.0)
            ours = _our_kernel_times(lambda: launch.backward(
                do, q, k, v, o, lse, tables, meta, scale, None, None, 0, 0.0))
            mm = 2 * H * N * N * d * layout.density  # flops of one matrix product
            print(f"D={d} {pattern} (density {layout.density:.3f}), N={N}, H={H}, bf16; "
                  f"TFLOP/s of the kernel's own products (dK/dV 4, dQ 3):")
            for name, ms in sorted(ours.items(), key=lambda kv: -kv[1]):
                products = 4 if "dkdv" in name else 3 if "dq" in name else 0
                rate = f"{products * mm / ms / 1e9:7.1f} TFLOP/s" if products else ""
                print(f"  ours {name[:40]:40s} {ms:8.3f} ms {rate}")
            dk, dv, dq = (torch.empty_like(q) for _ in range(3))
            for kernel, variants, configs, products in (
                    ("dkdv", DKDV_VARIANTS, DKDV_CONFIGS, 4), ("dq", DQ_VARIANTS, DQ_CONFIGS, 3)):
                for name, flags in variants.items():
                    for bm, bn, w, st in configs:
                        if kernel == "dkdv":
                            run = lambda: _probe_dkdv[(N // bn, H)](  # noqa: E731
                                q, k, v, do, lse, delta, dk, dv, idx, N, band, qk_scale, scale,
                                BLOCK_M=bm, BLOCK_N=bn, D=d, num_warps=w, num_stages=st,
                                **flags)
                        else:
                            run = lambda: _probe_dq[(N // bm, H)](  # noqa: E731
                                q, k, v, do, lse, delta, dq, idx, N, band, qk_scale, scale,
                                BLOCK_M=bm, BLOCK_N=bn, D=d, num_warps=w, num_stages=st,
                                **flags)
                        label = f"{kernel} {name} {bm}x{bn} w{w} s{st}"
                        try:
                            run()
                            torch.cuda.synchronize()
                            err = (f"dk {_err(dk, ref_dk):.1e} dv {_err(dv, ref_dv):.1e}"
                                   if kernel == "dkdv" else f"dq {_err(dq, ref_dq):.1e}")
                            ms = triton.testing.do_bench(run, warmup=25, rep=150)
                        except Exception as e:  # a probe: report and go on
                            print(f"  {label}: FAILED {type(e).__name__}: {str(e)[:160]}")
                            continue
                        print(f"  {label:40s} {ms:8.3f} ms {products * mm / ms / 1e9:7.1f} "
                              f"TFLOP/s  max|err| {err}")
            sys.stdout.flush()


def tma_forward(N: int, H: int) -> None:
    """sparseflash's forward with K/V through descriptors off and on, alternating twice."""
    import sparseflash
    from sparseflash.kernels import launch
    for d in (64, 128):
        q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16)
                   for _ in range(3))
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            flops = 4 * H * N * N * d * layout.density
            run = lambda: launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
            os.environ["SPARSEFLASH_TMA"] = "0"
            ref = run()[0]
            rates = defaultdict(list)
            for _ in range(2):
                for tma in ("0", "1"):
                    os.environ["SPARSEFLASH_TMA"] = tma
                    err = _err(run()[0], ref)
                    ms = triton.testing.do_bench(run, warmup=25, rep=200)
                    rates[tma].append(f"{flops / ms / 1e9:6.1f}")
            os.environ["SPARSEFLASH_TMA"] = "0"
            print(f"D={d} {pattern:36s} fwd TFLOP/s TMA off {' '.join(rates['0'])}  "
                  f"on {' '.join(rates['1'])}  (max|err| on vs off {err:.1e})")
            sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--part", choices=["backward", "tma"], default="backward")
    args = p.parse_args()
    if args.compile_only:
        return _compile_only()

    def _alloc(size, alignment, stream):
        return torch.empty(size, dtype=torch.int8, device="cuda")

    triton.set_allocator(_alloc)
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    if args.part == "backward":
        backward_probe(args.seq_len, 16)
    else:
        tma_forward(args.seq_len, 16)


if __name__ == "__main__":
    main()
