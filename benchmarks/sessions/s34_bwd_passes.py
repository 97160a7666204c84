"""Session 34: what the fused backward's two memory passes cost, and whether they can
cost less.

Around ``hopper_fused_backward_kernel`` the backward runs ``hopper_fused.delta_kernel``
(delta = rowsum(dO * O), reading O and dO, and the float32 dQ accumulator zeroed) and
dQ's cast (``dq.copy_(dq_acc)``): at D=128, N = 16K, 16 heads, 448 MB of HBM traffic,
~0.1 ms against a backward of 0.6-0.9 ms on the 5-8% density layouts (NOTES v22 put them
at 15-20% of a ``local(3)`` backward). This probe times, with do_bench (median, L2
flushed between runs as do_bench does):

* the delta kernel at its own tiles (64 rows, 4 warps) and others, and as a kernel that
  only reads (delta alone) followed by ``zero_()`` (a memset);
* dQ's cast, and a plain bf16 copy of as many bytes read and written, for the bandwidth
  a pass can reach;
* ``launch.backward`` on the README's layouts, for the passes' share of it.

    python benchmarks/sessions/s34_bwd_passes.py
"""

import torch
import triton
import triton.language as tl

import sparseflash
from sparseflash.kernels import hopper_fused, launch


@triton.jit
def delta_only_kernel(O, DO, DELTA, stride_ob, stride_oh, stride_on, H, N, D: tl.constexpr,
                      BLOCK_M: tl.constexpr):
    """``hopper_fused.delta_kernel`` without the accumulator's zeroing (O and dO of the
    same strides)."""
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    m_ok = offs_m < N
    off = b.to(tl.int64) * stride_ob + h * stride_oh + offs_m[:, None] * stride_on \
        + offs_d[None, :]
    o = tl.load(O + off, mask=m_ok[:, None], other=0.0)
    do = tl.load(DO + off, mask=m_ok[:, None], other=0.0)
    tl.store(DELTA + bh.to(tl.int64) * N + offs_m,
             tl.sum(o.to(tl.float32) * do.to(tl.float32), 1), mask=m_ok)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200)


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    B, H, N = 1, 16, 16384
    for D in (128, 64):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        o = torch.randn_like(q)
        delta = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
        dq_acc = torch.empty(B * H * N, D, device="cuda", dtype=torch.float32)
        dq = torch.empty_like(q)
        ref = (o.float() * do.float()).sum(-1)
        gb = lambda nbytes, ms: f"{nbytes / ms / 1e6:6.0f} GB/s"  # noqa: E731
        pass_bytes = 2 * q.numel() * 2 + dq_acc.numel() * 4 + delta.numel() * 4
        print(f"\nD={D}: delta pass {pass_bytes / 1e6:.0f} MB, cast "
              f"{dq_acc.numel() * 6 / 1e6:.0f} MB")
        for rows, warps in ((64, 4), (128, 8), (64, 8), (32, 4), (128, 4)):
            grid = (triton.cdiv(N, rows), B * H)
            run = lambda: hopper_fused.delta_kernel[grid](  # noqa: E731
                o, do, delta, dq_acc, *o.stride()[:3], *do.stride()[:3], H, N, D=D,
                BLOCK_M=rows, num_warps=warps)
            run()
            torch.cuda.synchronize()
            ok = torch.allclose(delta, ref, atol=1e-2, rtol=1e-3) and not dq_acc.any().item()
            ms = bench(run)
            print(f"delta+zero   rows {rows:3d} warps {warps}: {ms * 1e3:7.1f} us "
                  f"{gb(pass_bytes, ms)} {'ok' if ok else 'WRONG'}", flush=True)
        for rows, warps in ((64, 4), (128, 8)):
            grid = (triton.cdiv(N, rows), B * H)
            only = lambda: delta_only_kernel[grid](  # noqa: E731
                o, do, delta, *o.stride()[:3], H, N, D=D, BLOCK_M=rows, num_warps=warps)
            only()
            ms_only = bench(only)
            ms_zero = bench(lambda: dq_acc.zero_())
            both = lambda: (only(), dq_acc.zero_())  # noqa: E731
            ms_both = bench(both)
            print(f"delta alone  rows {rows:3d} warps {warps}: {ms_only * 1e3:7.1f} us "
                  f"{gb(2 * q.numel() * 2, ms_only)}; zero_ {ms_zero * 1e3:6.1f} us "
                  f"{gb(dq_acc.numel() * 4, ms_zero)}; both {ms_both * 1e3:7.1f} us",
                  flush=True)
        ms_cast = bench(lambda: dq.copy_(dq_acc.view(B, H, N, D)))
        src = torch.empty(dq_acc.numel() * 3, dtype=torch.bfloat16, device="cuda")
        dst = torch.empty(dq_acc.numel() * 3, dtype=torch.bfloat16, device="cuda")
        ms_copy = bench(lambda: dst[:dq_acc.numel() * 3 // 2].copy_(src[dq_acc.numel() * 3 // 2:]))
        print(f"cast {ms_cast * 1e3:7.1f} us {gb(dq_acc.numel() * 6, ms_cast)}; bf16 copy of "
              f"the same bytes {ms_copy * 1e3:7.1f} us {gb(dq_acc.numel() * 6, ms_copy)}",
              flush=True)
        for pattern in ("dense", "local(3)", "butterfly", "strided(sqrt(n))",
                        "local(1) | global(1) | random(2)", "local(1)"):
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            out, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)[:2]
            ms_b = bench(lambda: launch.backward(do, q, k, v, out, lse, tables, meta, D ** -0.5,
                                                 None, None, None, 0.0))
            print(f"backward {pattern:34s} {ms_b * 1e3:7.1f} us", flush=True)


if __name__ == "__main__":
    main()
