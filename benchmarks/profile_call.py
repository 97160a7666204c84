"""Where one attention call's GPU time goes: per-kernel CUDA time of a forward + backward.

    python -m benchmarks.profile_call --pattern butterfly --seq-len 1024 --head-dim 64

Runs a few untimed calls (compile, autotune), then ``--iters`` forward + backward passes
under ``torch.profiler`` and prints each CUDA kernel's mean time per pass and its share:
the split between forward, dK/dV, dQ, delta, merges and torch's own ops. Shapes as in
``benchmarks.attention`` (B = tokens // N, 16 heads, bf16).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import torch

import sparseflash


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pattern", default="butterfly")
    p.add_argument("--seq-len", type=int, default=1024)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--tokens", type=int, default=16384, help="B * N")
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--block", type=int, default=128)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("this profile needs a CUDA GPU")
    N, D = args.seq_len, args.head_dim
    B = max(1, args.tokens // N)
    q, k, v = (torch.randn(B, args.heads, N, D, device="cuda", dtype=getattr(torch, args.dtype))
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)

    def step():
        out = sparseflash.attention(q, k, v, args.pattern, block=args.block)
        torch.autograd.grad(out, (q, k, v), grad)

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(args.iters):
            step()
        torch.cuda.synchronize()
    totals, counts = defaultdict(float), defaultdict(int)
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals[event.name] += event.device_time
            counts[event.name] += 1
    whole = sum(totals.values())
    print(f"{args.pattern!r} N={N} D={D} B={B} H={args.heads} {args.dtype}: "
          f"{whole / args.iters / 1000:.3f} ms of kernels per fwd+bwd")
    for name, us in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {us / args.iters / 1000:8.3f} ms  {100 * us / whole:5.1f}%  "
              f"x{counts[name] // args.iters:<3d} {name[:90]}")


if __name__ == "__main__":
    main()
