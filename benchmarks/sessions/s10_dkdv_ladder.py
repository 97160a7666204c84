"""Session 10: why sparseflash's dK/dV on transposed scores lost what a minimal one gained.

    python benchmarks/sessions/s10_dkdv_ladder.py [--compile-only]

Call 1 (``s10_bwd_probe.py``) timed a minimal dK/dV on transposed scores (S^T = K Q^T,
FlashAttention-2's order) walking its query tiles by loop index 11% faster than
sparseflash's dK/dV at D=64 dense (4.34 vs 4.89 ms). Call 2 put the same two things into
sparseflash's kernel (transposed scores, consecutive column runs at computed offsets) and
it became 9% *slower* (5.48 vs 5.02 ms; 20% at D=128). This probe walks from the minimal
kernel to sparseflash's structure one feature at a time, so that the step that loses the
time shows itself: load masks and the empty-row guard (``+masks``), the loop inside a
loop over the query heads of a GQA group (``+group-loop``), and the table-walk and
partial-block loops after the run loop, empty here as on a dense layout
(``+three-loops``); then all of them, transposed and not.
"""

import argparse
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _band_tiles(block_id, band, N, TILE: tl.constexpr):
    sub: tl.constexpr = 128 // TILE
    lo = tl.where(band > 0, tl.maximum(block_id - band, 0) * sub, 0)
    hi = tl.where(band > 0, tl.minimum(block_id + band + 1, N // 128) * sub, N // TILE)
    return lo, hi


@triton.jit
def _tile(dk, dv, k, v, Q, DO, LSE, DELTA, start_m, offs_n, offs_d, code, N, qk_scale,
          BLOCK_M: tl.constexpr, TRANSPOSED: tl.constexpr, MASKS: tl.constexpr,
          PARTIAL: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M)
    if MASKS:
        m_ok = offs_m < N
        q = tl.load(Q + offs_m[:, None] * offs_d.shape[0] + offs_d[None, :],
                    mask=m_ok[:, None], other=0.0)
        do = tl.load(DO + offs_m[:, None] * offs_d.shape[0] + offs_d[None, :],
                     mask=m_ok[:, None], other=0.0)
        lse = tl.load(LSE + offs_m, mask=m_ok, other=float("inf"))
        lse = tl.where(lse == float("-inf"), float("inf"), lse)
        delta = tl.load(DELTA + offs_m, mask=m_ok, other=0.0)
    else:
        q = tl.load(Q + offs_m[:, None] * offs_d.shape[0] + offs_d[None, :])
        do = tl.load(DO + offs_m[:, None] * offs_d.shape[0] + offs_d[None, :])
        lse = tl.load(LSE + offs_m)
        delta = tl.load(DELTA + offs_m)
    if TRANSPOSED:
        p_t = tl.math.exp2(tl.dot(k, tl.trans(q)) * qk_scale - lse[None, :])
        if PARTIAL:
            p_t = tl.where((code == 0) | (offs_m[None, :] >= offs_n[:, None]), p_t, 0.0)
        dv = tl.dot(p_t.to(do.dtype), do, dv)
        ds_t = p_t * (tl.dot(v, tl.trans(do)) - delta[None, :])
        dk = tl.dot(ds_t.to(q.dtype), q, dk)
    else:
        p = tl.math.exp2(tl.dot(q, k) * qk_scale - lse[:, None])
        if PARTIAL:
            p = tl.where((code == 0) | (offs_m[:, None] >= offs_n[None, :]), p, 0.0)
        dv = tl.dot(tl.trans(p.to(do.dtype)), do, dv)
        ds = p * (tl.dot(do, v) - delta[:, None])
        dk = tl.dot(tl.trans(ds.to(q.dtype)), q, dk)
    return dk, dv


@triton.jit
def _walk(dk, dv, k, v, Q, DO, LSE, DELTA, IDX, lo, hi, offs_n, offs_d, N, qk_scale,
          BLOCK_M: tl.constexpr, TRANSPOSED: tl.constexpr, MASKS: tl.constexpr,
          THREE_LOOPS: tl.constexpr):
    for t in range(lo, hi):
        dk, dv = _tile(dk, dv, k, v, Q, DO, LSE, DELTA, t * BLOCK_M, offs_n, offs_d, 0, N,
                       qk_scale, BLOCK_M, TRANSPOSED, MASKS, False)
    if THREE_LOOPS:  # both empty, as a dense layout's table and partial walks; the bounds
        # come from a load (IDX[0] = 0) so that the compiler cannot drop the loops
        empty = hi + tl.load(IDX)
        for t in range(empty, hi):
            qb = tl.load(IDX + t)
            dk, dv = _tile(dk, dv, k, v, Q, DO, LSE, DELTA, qb * BLOCK_M, offs_n, offs_d, 0,
                           N, qk_scale, BLOCK_M, TRANSPOSED, MASKS, False)
        for t in range(empty, hi):
            qb = tl.load(IDX + t)
            code = tl.load(IDX + t + 1)
            dk, dv = _tile(dk, dv, k, v, Q, DO, LSE, DELTA, qb * BLOCK_M, offs_n, offs_d,
                           code, N, qk_scale, BLOCK_M, TRANSPOSED, MASKS, True)
    return dk, dv


@triton.jit
def _ladder_dkdv(Q, K, V, DO, LSE, DELTA, DK, DV, IDX, N, band, GROUP, qk_scale, sm_scale,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
                 TRANSPOSED: tl.constexpr, MASKS: tl.constexpr, GROUP_LOOP: tl.constexpr,
                 THREE_LOOPS: tl.constexpr):
    pid_n = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * N * D
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    n_ok = offs_n < N
    if TRANSPOSED:
        kv_offs = offs_n[:, None] * D + offs_d[None, :]
        kv_ok = n_ok[:, None]
    else:
        kv_offs = offs_n[None, :] * D + offs_d[:, None]
        kv_ok = n_ok[None, :]
    if MASKS:
        k = tl.load(K + base + kv_offs, mask=kv_ok, other=0.0)
        v = tl.load(V + base + kv_offs, mask=kv_ok, other=0.0)
    else:
        k = tl.load(K + base + kv_offs)
        v = tl.load(V + base + kv_offs)
    dk = tl.zeros((BLOCK_N, D), tl.float32)
    dv = tl.zeros((BLOCK_N, D), tl.float32)
    lo, hi = _band_tiles(pid_n * BLOCK_N // 128, band, N, BLOCK_M)
    if GROUP_LOOP:  # GROUP = 1 query head per kv head here: the same work, in a loop
        for g in range(GROUP):
            h = bh * GROUP + g
            dk, dv = _walk(dk, dv, k, v, Q + h * N * D, DO + h * N * D, LSE + h * N,
                           DELTA + h * N, IDX, lo, hi, offs_n, offs_d, N, qk_scale, BLOCK_M,
                           TRANSPOSED, MASKS, THREE_LOOPS)
    else:
        dk, dv = _walk(dk, dv, k, v, Q + base, DO + base, LSE + bh * N, DELTA + bh * N, IDX,
                       lo, hi, offs_n, offs_d, N, qk_scale, BLOCK_M, TRANSPOSED, MASKS,
                       THREE_LOOPS)
    out = offs_n[:, None] * D + offs_d[None, :]
    tl.store(DK + base + out, (dk * sm_scale).to(DK.dtype.element_ty))
    tl.store(DV + base + out, dv.to(DV.dtype.element_ty))


FEATURES = ("MASKS", "GROUP_LOOP", "THREE_LOOPS")
VARIANTS = {"T minimal": dict(TRANSPOSED=True),
            "T +masks": dict(TRANSPOSED=True, MASKS=True),
            "T +group-loop": dict(TRANSPOSED=True, GROUP_LOOP=True),
            "T +three-loops": dict(TRANSPOSED=True, THREE_LOOPS=True),
            "T all": dict(TRANSPOSED=True, MASKS=True, GROUP_LOOP=True, THREE_LOOPS=True),
            "untransposed all": dict(TRANSPOSED=False, MASKS=True, GROUP_LOOP=True,
                                     THREE_LOOPS=True)}
CONFIGS = {64: [(64, 64, 4, 2), (64, 64, 4, 3)], 128: [(64, 64, 4, 2), (64, 128, 8, 2)]}


def _flags(name):
    return {**{f: False for f in FEATURES}, **VARIANTS[name]}


def _compile_only() -> None:
    import warnings

    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    k = _ladder_dkdv
    sig = {n: "constexpr" for n in k.arg_names}
    for n in k.arg_names[:8]:
        sig[n] = "*fp32" if n in ("LSE", "DELTA") else "*bf16"
    sig.update(IDX="*i32", N="i32", band="i32", GROUP="i32", qk_scale="fp32", sm_scale="fp32")
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(9)}
    for d, configs in CONFIGS.items():
        for name in VARIANTS:
            for bm, bn, w, st in configs:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    c = triton.compile(
                        ASTSource(k, sig, dict(BLOCK_M=bm, BLOCK_N=bn, D=d, **_flags(name)),
                                  attrs),
                        target=GPUTarget("cuda", 90, 128), options=dict(num_warps=w,
                                                                        num_stages=st))
                ptx = c.asm["ptx"]
                print(f"{name:18s} D={d} {bm}x{bn} w{w} s{st}: shared={c.metadata.shared} "
                      f"wgmma={ptx.count('wgmma.mma_async')} "
                      f"wait={ptx.count('wgmma.wait_group')} "
                      f"cp.async={ptx.count('cp.async.commit_group')} "
                      f"bar={ptx.count('bar.sync')}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--seq-len", type=int, default=16384)
    args = p.parse_args()
    if args.compile_only:
        return _compile_only()
    import sparseflash
    from sparseflash.kernels import launch
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    N, H = args.seq_len, 16
    idx = torch.arange(N // 16, device="cuda", dtype=torch.int32)
    for d, configs in CONFIGS.items():
        q, k, v, do = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16)
                       for _ in range(4))
        scale = d ** -0.5
        for band in (0, 3):
            pattern = "local(3)" if band else "dense"
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            o, lse = launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)
            delta = (do.float() * o.float()).sum(-1).contiguous()
            _, ref_dk, ref_dv = launch.backward(do, q, k, v, o, lse, tables, meta, scale,
                                                None, None, 0, 0.0)
            mm = 2 * H * N * N * d * layout.density
            print(f"D={d} {pattern}, N={N}, H={H}, bf16, dK/dV (4 products):")
            dk, dv = torch.empty_like(q), torch.empty_like(q)
            for name in VARIANTS:
                for bm, bn, w, st in configs:
                    run = lambda: _ladder_dkdv[(N // bn, H)](  # noqa: E731
                        q, k, v, do, lse, delta, dk, dv, idx, N, band, 1,
                        scale * 1.4426950408889634, scale, BLOCK_M=bm, BLOCK_N=bn, D=d,
                        num_warps=w, num_stages=st, **_flags(name))
                    label = f"{name} {bm}x{bn} w{w} s{st}"
                    try:
                        run()
                        torch.cuda.synchronize()
                        err = max((dk.float() - ref_dk.float()).abs().max().item(),
                                  (dv.float() - ref_dv.float()).abs().max().item())
                        ms = triton.testing.do_bench(run, warmup=25, rep=150)
                    except Exception as e:  # a probe: report and go on
                        print(f"  {label}: FAILED {type(e).__name__}: {str(e)[:160]}")
                        continue
                    print(f"  {label:34s} {ms:8.3f} ms {4 * mm / ms / 1e9:7.1f} TFLOP/s  "
                          f"max|err| {err:.1e}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
