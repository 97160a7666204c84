"""Session 22: why the dense forwards' do_bench medians sit 6-11% above their kernels'
summed CUDA time (``benchmarks.attention``'s ``kernel_ms``) when no other row does.

    python benchmarks/sessions/s22_wall_probe.py

For sparseflash's dense and causal forwards and cuDNN's dense forward (N = 16K, 16 heads,
bf16, D = 64 and 128, inputs requiring grad as in the benchmark), in one process, each
measured five ways in turn: do_bench's median (L2 cleared before each call, ~100 ms of
calls), do_bench with 20 ms of calls, CUDA events around each of 30 calls back to back
(median), the same with the L2 cleared before each call, and the torch profiler's kernel
time per call. The SM clock and power are logged by nvidia-smi beside it.
"""

import statistics

import torch
import triton
from triton.testing import do_bench

import sparseflash
from sparseflash.kernels import launch  # noqa: F401  (the library's launch path)


def events(fn, calls=30, flush=None):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    fn()
    torch.cuda.synchronize()
    for i in range(calls):
        if flush is not None:
            flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def profiled(fn, calls=10):
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernels[e.name[:40]] = kernels.get(e.name[:40], 0) + e.device_time / 1000 / calls
    return sum(kernels.values()), kernels


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    flush = torch.empty(256 * 2**20 // 4, dtype=torch.int32, device="cuda")
    N, H = 16384, 16
    for D in (128, 64):
        q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16)
                   .requires_grad_() for _ in range(3))
        cases = []
        for pattern in ("dense", "causal"):
            layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=H,
                                                device=q.device)
            cases.append((f"sparseflash {pattern}",
                          lambda layout=layout: sparseflash.attention(q, k, v, layout,
                                                                      backend="triton")))
        cases.append(("cudnn dense", lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v)))
        for rnd in range(2):
            for label, fn in cases:
                with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
                    a = do_bench(fn, warmup=25, rep=100, return_mode="median")
                    b = do_bench(fn, warmup=25, rep=20, return_mode="median")
                    c = events(fn)
                    d = events(fn, flush=flush)
                    e, kernels = profiled(fn)
                print(f"D={D} round {rnd + 1} {label:20s} do_bench {a:.3f}  do_bench 20ms {b:.3f}"
                      f"  events {c:.3f}  events+flush {d:.3f}  profiler {e:.3f}  "
                      + " ".join(f"{n}={t:.3f}" for n, t in kernels.items()), flush=True)


if __name__ == "__main__":
    main()
