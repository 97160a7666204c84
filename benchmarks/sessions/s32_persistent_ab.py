"""Session 32 probe: the fused backward's persistent programs against a program per column.

    python benchmarks/sessions/s32_persistent_ab.py [--rounds R] [--head-dims 128 64]

Until session 32 ``hopper_fused`` ran one program per (key column, kv group): each started
by reading its column's table entry, loading K, V and its first Q/dO tiles, and ended with
its dK and dV stores, with nothing of the next column overlapping (NOTES v28 put a
column's start near 3 us of a 39 us ``local(3)`` column at D=128). Now one program an SM
takes columns from a counter, as the ping-pong forward takes query rows (NOTES v25: 4-10%
off its short rows): the next column's table reads and first Q/dO tile load while the
last column's products finish, and its K and V once both warp groups stored the last dK
and dV through them. **Prediction:** short columns (``local(3)``, ``butterfly``,
random+global, ``local(1)``) 3-6% faster in the backward, 2-4% in fwd+bwd; dense and
causal even, or up to 1% slower: ptxas (Triton 3.6) now spills 88 bytes at D=128 where it
spilled none, some of it in the tile loop.

Variants, in one process: ``before`` (``s32_fused_before.py``, the session-31 kernel),
``persistent`` (the library's default) and ``item a program`` (the persistent kernel on a
grid of one program per work item, as many programs as ``before``: what the machinery
costs without the overlap). For each head dim and layout: every variant's gradients on
the same inputs, twice each, dK and dV bit for bit ``before``'s (the per-column sums are
the same; a race would move them) and dQ within its summation order; then fwd+bwd from
CUDA graphs, the variants alternating, ``--rounds`` rounds, and the forward alone (the
same kernel in every variant), so that the backward is the difference.

It ran (call 1, ``s32-call1.sh``) on commit 06a24d5 of branch ``s32-persistent-bwd``: the
persistent kernel measured slower at D=128 (NOTES v34) and main kept the session-31
kernel. ``s32_persistent.patch`` beside this file applies that commit (the kernel, its
tests and ``s32_fused_before.py``) to main's 02dfb67, to rerun it.
"""

import argparse
import importlib.util
import os

import torch
import triton
from triton.testing import do_bench_cudagraph

import sparseflash
from sparseflash.kernels import hopper_fused, launch

PATTERNS = ("dense", "causal", "strided(sqrt(n))", "butterfly", "local(3)",
            "local(1) | global(1) | random(2)", "local(1)")


def _before_module():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "s32_fused_before.py")
    spec = importlib.util.spec_from_file_location("s32_fused_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BEFORE = _before_module()


def use(variant):
    launch.hopper_fused = BEFORE if variant == "before" else hopper_fused
    hopper_fused.MAX_PROGRAMS = 1 << 30 if variant == "item a program" else None
    launch.clear_plans()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--head-dims", type=int, nargs="+", default=[128, 64])
    parser.add_argument("--seq-len", type=int, default=16384)
    args = parser.parse_args()
    variants = ("before", "persistent", "item a program")
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), "| ms from CUDA graphs (TFLOP/s)", flush=True)
    B, H, N = 1, 16, args.seq_len
    for d in args.head_dims:
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16,
                               generator=g).requires_grad_() for _ in range(3))
        grad = torch.randn_like(q)
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            flops = 4 * B * H * N * N * d * layout.density

            def grads():
                return torch.autograd.grad(sparseflash.attention(q, k, v, layout), (q, k, v),
                                           grad)

            use("before")
            ref = grads()
            agree = []
            for variant in variants:
                use(variant)
                for _ in range(2):
                    got = grads()
                    kv_same = all(torch.equal(a, b) for a, b in zip(got[1:], ref[1:]))
                    dq_err = (got[0].float() - ref[0].float()).abs().max().item()
                    agree.append(kv_same and dq_err <= 1e-2 * max(
                        ref[0].float().abs().max().item(), 1.0))
            print(f"D={d} {pattern} ({layout.density:.1%}): gradients "
                  f"{'all agree' if all(agree) else 'DISAGREE'} ({sum(agree)}/{len(agree)})",
                  flush=True)
            def forward():
                sparseflash.attention(q, k, v, layout)

            def step():
                out = sparseflash.attention(q, k, v, layout)
                torch.autograd.grad(out, (q, k, v), grad)

            for r in range(args.rounds):
                both = {}
                for variant in variants:
                    use(variant)
                    step()
                    torch.cuda.synchronize()
                    both[variant] = do_bench_cudagraph(step, rep=200)
                with torch.no_grad():
                    fwd = do_bench_cudagraph(forward, rep=200)
                print(f"  round {r} fwd+bwd: " + " | ".join(
                    f"{name} {ms:.3f} ({3.5 * flops / ms * 1e-9:.0f})"
                    for name, ms in both.items()), flush=True)
                print(f"  round {r} bwd = fwd+bwd - fwd ({fwd:.3f}): " + " | ".join(
                    f"{name} {ms - fwd:.3f}" for name, ms in both.items()), flush=True)
    use("persistent")


if __name__ == "__main__":
    main()
