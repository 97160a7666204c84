"""Session 11: one tree's host path, for an A/B against another tree.

    python benchmarks/sessions/s11_host_ab.py --label new [--direct-switch]

Run from each tree's own directory, alternating trees. For each case: the host time of
one ``sparseflash.attention`` fwd+bwd (launches only, with the GPU kept busy ahead so no
launch waits: the host's cost per call), and ``do_bench``'s wall time of the forward and
of the fwd+bwd (max of host and GPU per call, which is what a user sees). With
``--direct-switch`` (a tree with ``kernels.fastlaunch``) the same again, in the same
process, with ``SPARSEFLASH_DIRECT_LAUNCH=0``, alternating twice.
"""

import argparse
import os
import statistics
import time

import torch
import triton
from triton.testing import do_bench

import sparseflash

CASES = [("local(3)", 16384, 64), ("butterfly", 16384, 64),
         ("local(1) | global(1) | random(2)", 16384, 64), ("local(3)", 16384, 128),
         ("dense", 1024, 64), ("local(3)", 4096, 64)]


def host_ms(fn, iters: int = 30) -> float:
    busy = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    for _ in range(25):
        busy = busy @ busy.T * 1e-4  # ~25 ms of GPU work ahead of the launches
    started = time.perf_counter()
    for _ in range(iters):
        fn()
    elapsed = time.perf_counter() - started
    torch.cuda.synchronize()
    return 1000 * elapsed / iters


def measure(label: str, calls) -> None:
    for (pattern, N, D), (fwd, fwd_bwd) in calls.items():
        hosts = sorted(host_ms(fwd_bwd) for _ in range(5))
        wall_f = do_bench(fwd, warmup=25, rep=100, return_mode="median")
        wall_fb = do_bench(fwd_bwd, warmup=25, rep=100, return_mode="median")
        print(f"{label:18s} {pattern:34s} N={N:5d} D={D:3d}  host fwd+bwd "
              f"{statistics.median(hosts):.3f} ms ({hosts[0]:.3f}-{hosts[-1]:.3f})  "
              f"do_bench fwd {wall_f:.3f} ms  fwd+bwd {wall_fb:.3f} ms", flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--label", required=True)
    p.add_argument("--direct-switch", action="store_true")
    args = p.parse_args()
    print(f"{args.label}: sparseflash from {sparseflash.__file__}; triton {triton.__version__}, "
          f"{torch.cuda.get_device_name()}")
    calls = {}
    for pattern, N, D in CASES:
        B = max(1, 16384 // N)
        q, k, v = (torch.randn(B, 16, N, D, device="cuda", dtype=torch.bfloat16)
                   .requires_grad_() for _ in range(3))
        grad = torch.randn_like(q)

        def fwd(q=q, k=k, v=v, pattern=pattern):
            return sparseflash.attention(q, k, v, pattern)

        def fwd_bwd(q=q, k=k, v=v, grad=grad, fwd=fwd):
            torch.autograd.grad(fwd(), (q, k, v), grad)
        for _ in range(3):
            fwd_bwd()
        calls[(pattern, N, D)] = (fwd, fwd_bwd)
    torch.cuda.synchronize()
    if not args.direct_switch:
        measure(args.label, calls)
        return
    for _ in range(2):
        os.environ["SPARSEFLASH_DIRECT_LAUNCH"] = "1"
        measure(args.label + " direct", calls)
        os.environ["SPARSEFLASH_DIRECT_LAUNCH"] = "0"
        measure(args.label + " via-triton", calls)


if __name__ == "__main__":
    main()
