"""Session 9: what Triton's warp specialisation on Hopper would give the forward.

    python benchmarks/sessions/s9_ws_probe.py [--compile-only]

Triton 3.6 warp-specialises a loop marked ``tl.range(..., warp_specialize=True)`` on sm_90
(a producer warp group issuing TMA loads, two consumer warp groups of 64 query rows each:
FlashAttention-3's structure, Shah et al. 2024) only when the kernel has the shape this
probe's does: Q, K and V through tensor descriptors, one loop, no branch after it, and
``num_warps=4`` (one consumer group's warps). sparseflash's forward has none of these
(pointer loads of Q, a second loop for partial blocks, a branch to the split-row
workspace), so the pass leaves it alone (checked with ``benchmarks.compile_probe``'s local
Triton 3.6: no ``setmaxnreg`` in its PTX). Before restructuring it, this measures the
prize: a minimal forward, plain and warp-specialised, on a dense layout and on a band of 7
key blocks per 128-row query block (``local(3)`` at block 128), against sparseflash's
forward and cuDNN on the same inputs; every output is checked against SDPA first.
"""

import argparse
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _probe_forward(Q, K, V, O, LSE, IDX, N, qk_scale,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
                   BAND: tl.constexpr, WARP_SPECIALIZE: tl.constexpr, TMA_Q: tl.constexpr,
                   TMA_KV: tl.constexpr, INDIRECT: tl.constexpr, M_SAFE: tl.constexpr):
    """A minimal forward over B = 1 and H programs on axis 1, with switches for the
    features sparseflash's forward has and this one need not: Q and K/V through pointers
    (``TMA_*`` off), the key block read from a table (``INDIRECT``), the -inf guard of
    rows with no key yet (``M_SAFE``)."""
    pid_m = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * N * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    if TMA_Q:
        q_desc = tl.make_tensor_descriptor(Q + base, shape=[N, D], strides=[D, 1],
                                           block_shape=[BLOCK_M, D])
        q = q_desc.load([pid_m * BLOCK_M, 0])
    else:
        q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
    if TMA_KV:
        k_desc = tl.make_tensor_descriptor(K + base, shape=[N, D], strides=[D, 1],
                                           block_shape=[BLOCK_N, D])
        v_desc = tl.make_tensor_descriptor(V + base, shape=[N, D], strides=[D, 1],
                                           block_shape=[BLOCK_N, D])
    if BAND:  # key blocks of 128 from pid_m - 3 to pid_m + 3 (BLOCK_M = 128)
        lo = tl.maximum(pid_m - 3, 0) * (128 // BLOCK_N)
        hi = tl.minimum(pid_m + 4, N // 128) * (128 // BLOCK_N)
    else:
        lo = 0
        hi = N // BLOCK_N
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, D), tl.float32)
    for t in tl.range(lo, hi, warp_specialize=WARP_SPECIALIZE):
        if INDIRECT:  # IDX[t] = t: the same keys, through a dependent load
            start_n = tl.load(IDX + t) * BLOCK_N
        else:
            start_n = t * BLOCK_N
        if TMA_KV:
            k = k_desc.load([start_n, 0]).T
            v = v_desc.load([start_n, 0])
        else:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            k = tl.load(K + base + offs_n[None, :] * D + offs_d[:, None])
            v = tl.load(V + base + offs_n[:, None] * D + offs_d[None, :])
        s = tl.dot(q, k)
        m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
        if M_SAFE:
            m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        else:
            m_use = m_new
        p = tl.math.exp2(s * qk_scale - m_use[:, None])
        alpha = tl.math.exp2(m_i - m_use)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(O + base + offs_m[:, None] * D + offs_d[None, :],
             (acc / l_i[:, None]).to(O.dtype.element_ty))
    tl.store(LSE + bh * N + offs_m, m_i + tl.math.log2(l_i))


# Feature switches of the probe kernel, minimal first; then one of sparseflash's features
# at a time; then all of them.
MINIMAL = dict(TMA_Q=True, TMA_KV=True, INDIRECT=False, M_SAFE=False)
VARIANTS = {"minimal": {}, "+ptr-kv": dict(TMA_KV=False), "+ptr-q": dict(TMA_Q=False),
            "+indirect": dict(INDIRECT=True), "+m-safe": dict(M_SAFE=True),
            "ours-features": dict(TMA_Q=False, TMA_KV=False, INDIRECT=True, M_SAFE=True)}
# (BLOCK_N, num_warps, num_stages) per head dim; warp specialisation needs 4 warps (per
# consumer group).
# A table-read key block takes a pipeline stage of its own (local compile: the K/V buffers
# drop from three to two at num_stages=3), hence the 4-stage configs.
CONFIGS = {64: [(64, 4, 3), (64, 8, 3), (64, 4, 4)], 128: [(64, 8, 3), (128, 8, 2), (64, 8, 4)]}
WS_CONFIGS = [(64, 4, 2), (128, 4, 2)]


def _alloc(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def _compile_only() -> None:
    """Compile every variant for sm_90 without a GPU (catches the pass's crashes early)."""
    import warnings

    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sig = {name: "constexpr" for name in _probe_forward.arg_names}
    sig.update(Q="*bf16", K="*bf16", V="*bf16", O="*bf16", LSE="*fp32", IDX="*i32", N="i32",
               qk_scale="fp32")
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(7)}
    runs = [(name, False, cfg, d) for d in (64, 128) for name in VARIANTS for cfg in CONFIGS[d]]
    runs += [("minimal", True, cfg, d) for d in (64, 128) for cfg in WS_CONFIGS]
    for name, ws, (bn, w, st), d in runs:
        for band in (False, True):
            flags = {**MINIMAL, **VARIANTS[name]}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = triton.compile(
                    ASTSource(_probe_forward, sig, dict(BLOCK_M=128, BLOCK_N=bn, D=d, BAND=band,
                                                        WARP_SPECIALIZE=ws, **flags), attrs),
                    target=GPUTarget("cuda", 90, 128), options=dict(num_warps=w, num_stages=st))
            print(f"{name} ws={ws} band={band} D={d} BLOCK_N={bn} w{w} s{st}: "
                  f"setmaxnreg={c.asm['ptx'].count('setmaxnreg')} shared={c.metadata.shared}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--ws", action="store_true",
                   help="only the warp-specialised probe (call 1: illegal memory accesses)")
    p.add_argument("--seq-len", type=int, default=16384)
    args = p.parse_args()
    if args.compile_only:
        return _compile_only()
    import os

    import sparseflash
    from sparseflash.kernels import launch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    triton.set_allocator(_alloc)
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    N, H = args.seq_len, 16
    idx = torch.arange(N // 16, device="cuda", dtype=torch.int32)
    for d in (64, 128):
        q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16)
                   for _ in range(3))
        scale = d ** -0.5
        for band in (False, True):
            pattern = "local(3)" if band else "dense"
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            flops = 4 * H * N * N * d * layout.density
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            ours = lambda: launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)  # noqa: E731
            rows = []
            ref = ours()[0]  # checked against float64 by the test suite, and against cuDNN here
            if not band:
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    cudnn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)  # noqa: E731
                    err = (cudnn().float() - ref.float()).abs().max().item()
                    rows.append(("cudnn", err, triton.testing.do_bench(cudnn, warmup=25, rep=200)))
            if not args.ws:
                for tma in ("0", "1"):
                    os.environ["SPARSEFLASH_TMA"] = tma
                    err = (ours()[0].float() - ref.float()).abs().max().item()
                    rows.append((f"sparseflash TMA={tma}", err,
                                 triton.testing.do_bench(ours, warmup=25, rep=200)))
                os.environ["SPARSEFLASH_TMA"] = "0"
            runs = ([("minimal", True, cfg) for cfg in WS_CONFIGS] if args.ws else
                    [(name, False, cfg) for name in VARIANTS for cfg in CONFIGS[d]])
            for name, ws, (bn, w, st) in runs:
                o = torch.empty_like(q)
                lse = torch.empty(1, H, N, device="cuda", dtype=torch.float32)
                flags = {**MINIMAL, **VARIANTS[name]}
                run = lambda: _probe_forward[(N // 128, H)](  # noqa: E731
                    q, k, v, o, lse, idx, N, scale * 1.4426950408889634, BLOCK_M=128,
                    BLOCK_N=bn, D=d, BAND=band, WARP_SPECIALIZE=ws, num_warps=w,
                    num_stages=st, **flags)
                label = f"{name}{' ws' if ws else ''} n{bn} w{w} s{st}"
                try:
                    run()
                    torch.cuda.synchronize()
                    err = (o.float() - ref.float()).abs().max().item()
                    ms = triton.testing.do_bench(run, warmup=25, rep=200)
                except Exception as e:  # a probe: report and go on
                    print(f"  {label}: FAILED {type(e).__name__}: {str(e)[:160]}")
                    if "illegal" in str(e):
                        raise  # the context is lost: nothing after this would run
                    continue
                rows.append((label, err, ms))
            print(f"D={d} {pattern} (density {layout.density:.3f}), N={N}, H={H}, bf16, fwd:")
            for name, err, ms in rows:
                print(f"  {name:28s} {ms:8.3f} ms {flops / ms / 1e9:7.1f} TFLOP/s  "
                      f"max|err| {err:.2e}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
