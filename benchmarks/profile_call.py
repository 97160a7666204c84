"""Where one attention call's GPU time goes: per-kernel CUDA time of a forward + backward.

    python -m benchmarks.profile_call --pattern butterfly --seq-len 1024 --head-dim 64

Runs a few untimed calls (compile, autotune), then ``--iters`` forward + backward passes
under ``torch.profiler`` and prints each CUDA kernel's mean time per pass and its share:
the split between forward, dK/dV, dQ, merges and torch's own ops. Shapes as in
``benchmarks.attention`` (B = tokens // N, 16 heads, bf16).

A kernel that the backward launches early (programmatic dependent launch on H100/H200:
the fused kernel, dQ's cast, the split sums) starts before the one it follows has ended
and waits for it on the GPU, so its time here counts that wait too: the times can add up
to more than the call's, and dQ's cast reads longest where the fused kernel's last wave
is (NOTES v60).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from types import SimpleNamespace

import torch

import sparseflash
from benchmarks.paper_e6 import key_padding_mask


def add_call_arguments(p: argparse.ArgumentParser, *, pattern: str, seq_len: int) -> None:
    """The shape of the measured call (shared with ``benchmarks.overhead``)."""
    p.add_argument("--pattern", default=pattern)
    p.add_argument("--seq-len", type=int, default=seq_len)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--tokens", type=int, default=16384, help="B * N")
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--block", type=int, default=128)
    p.add_argument("--max-pad", type=int, default=0,
                   help="key padding: lengths uniform in [N - max_pad, N] (0: no mask)")
    p.add_argument("--dropout", type=float, default=0.0)


def make_call(args, purpose: str) -> SimpleNamespace:
    """Random CUDA inputs for ``args`` and the calls to measure: ``forward()`` and
    ``forward_backward()``, with q, k, v (B, H, N, D), grad, and the shape as B, N, D."""
    if not torch.cuda.is_available():
        raise SystemExit(f"{purpose} needs a CUDA GPU")
    N, D = args.seq_len, args.head_dim
    B = max(1, args.tokens // N)
    q, k, v = (torch.randn(B, args.heads, N, D, device="cuda", dtype=getattr(torch, args.dtype))
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)
    padding = None
    if args.max_pad:
        lengths = torch.randint(max(N - args.max_pad, 1), N + 1, (B,), device="cuda")
        padding = key_padding_mask(lengths, N)

    def forward():
        return sparseflash.attention(q, k, v, args.pattern, block=args.block,
                                     key_padding_mask=padding, dropout_p=args.dropout)

    def forward_backward():
        torch.autograd.grad(forward(), (q, k, v), grad)

    return SimpleNamespace(q=q, k=k, v=v, grad=grad, B=B, N=N, D=D, forward=forward,
                           forward_backward=forward_backward)


def kernel_times(step, calls: int) -> dict:
    """``{kernel name: (CUDA ms per call, launches per call)}`` over ``calls`` calls of
    ``step``, back to back under ``torch.profiler`` (memcpy and memset count as kernels).
    ``benchmarks.attention``'s ``kernel_ms`` is their sum."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            step()
        torch.cuda.synchronize()
    totals, counts = defaultdict(float), defaultdict(int)
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals[event.name] += event.device_time
            counts[event.name] += 1
    return {name: (us / calls / 1000, counts[name] // calls) for name, us in totals.items()}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_call_arguments(p, pattern="butterfly", seq_len=1024)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args(argv)
    call = make_call(args, "this profile")
    N, D, B, step = call.N, call.D, call.B, call.forward_backward

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    times = kernel_times(step, args.iters)
    whole = sum(ms for ms, _ in times.values())
    print(f"{args.pattern!r} N={N} D={D} B={B} H={args.heads} {args.dtype}: "
          f"{whole:.3f} ms of kernels per fwd+bwd")
    for name, (ms, launches) in sorted(times.items(), key=lambda kv: -kv[1][0]):
        print(f"  {ms:8.3f} ms  {100 * ms / whole:5.1f}%  x{launches:<3d} {name[:90]}")


if __name__ == "__main__":
    main()
