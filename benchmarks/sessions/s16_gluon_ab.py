"""Session 16: the library's Gluon forward (reordered as the probe, registers trimmed)
against the Triton forward, on the README's patterns.

    python benchmarks/sessions/s16_gluon_ab.py [--maxnreg 128] [--d 64]

N = 16K, H = 16, bf16, D = 64 and 128. Each pattern's Gluon and Triton outputs are
checked against SDPA with the token mask first; then both are timed (do_bench median,
wall time of ``launch.forward``, and the CUDA time of the kernels it launches), and the
s15 probe kernel on the dense layout and on ``local(3)`` as the machine's reference line.
Then the registers, spills and shared memory of every kernel the two Gluon functions
compiled: at 128 registers or fewer a thread, two D=64 programs fit on an SM.
``--maxnreg`` caps the library kernel's registers (Triton's ``maxnreg`` option). It did
so in calls 1 and 2; since then ``hopper.forward`` launches through
``hopper._KERNEL`` (fastlaunch) and caps D=64 itself, and the flag no longer reaches it.
"""

import argparse

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
import s15_gluon_probe as probe  # noqa: E402
from s15_gluon_where import kernel_times  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import hopper, launch  # noqa: E402

PATTERNS = ("dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)")


class WithOptions:
    """A Gluon kernel whose launches add compile options (``kernel[grid](..., **options)``)."""

    def __init__(self, fn, **options):
        self.fn, self.options = fn, options

    def __getitem__(self, grid):
        run = self.fn[grid]
        return lambda *args, **kwargs: run(*args, **{**kwargs, **self.options})


def compiled(fn):
    """(n_regs, n_spills, shared bytes) of every kernel ``fn`` compiled so far."""
    found = []
    for entry in fn.device_caches.values():
        for kernel in entry[0].values():
            found.append((kernel.n_regs, kernel.n_spills, kernel.metadata.shared))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--maxnreg", type=int, default=None)
    parser.add_argument("--d", type=int, nargs="+", default=[64, 128])
    args = parser.parse_args()
    kernel = hopper.hopper_forward_kernel
    if args.maxnreg:
        hopper.hopper_forward_kernel = WithOptions(kernel, maxnreg=args.maxnreg)
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    N, H = 16384, 16
    for d in args.d:
        gen = torch.Generator(device="cuda").manual_seed(d)
        q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            mask = layout.to_dense().to(q.device)
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            flops = 4 * H * N * N * d * layout.density
            fwd = lambda: launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
            row = []
            for label, env in (("triton", "0"), ("gluon", "1")):
                os.environ["SPARSEFLASH_GLUON"] = env
                out = fwd()[0]
                err = (out.float() - ref.float()).abs().max().item()
                ms = triton.testing.do_bench(fwd, warmup=25, rep=200)
                kernel_ms = sum(kernel_times(fwd).values())
                row.append(ms)
                print(f"D={d:3d} {pattern:34s} {label:7s} {ms:7.3f} ms "
                      f"{flops / ms / 1e9:6.1f} TFLOP/s (kernels {kernel_ms:.3f} ms) "
                      f"max|err| {err:.2e}", flush=True)
            print(f"D={d:3d} {pattern:34s} gluon/triton time {row[1] / row[0]:.3f}", flush=True)
        for pattern, density in (("dense", 1.0), ("local(3)", None)):
            if density is None:
                density = sparseflash.compile_layout(pattern, N, block=128).density
            _, _, run = probe.run_variant(q, k, v, (128, 3, False), pattern)
            ms = triton.testing.do_bench(run, warmup=25, rep=200)
            print(f"D={d:3d} {pattern:34s} probe   {ms:7.3f} ms "
                  f"{4 * H * N * N * d * density / ms / 1e9:6.1f} TFLOP/s "
                  f"(kernels {sum(kernel_times(run).values()):.3f} ms)", flush=True)
    print("library kernel (regs, spills, shared):", compiled(kernel))
    print("probe kernel (regs, spills, shared):", compiled(probe._gluon_forward))


if __name__ == "__main__":
    main()
