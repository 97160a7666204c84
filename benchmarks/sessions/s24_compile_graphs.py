"""Session 24: ``torch.compile(mode="reduce-overhead")`` on sparseflash calls, which puts
them in CUDA graphs, with the custom op's placeholder seed (no dropout) made on the CPU,
as a shared tensor was before this session's change (though now not saved for the
backward), and on the inputs' device, as the library now makes it.

    python benchmarks/sessions/s24_compile_graphs.py

For each placement: Inductor's count of skipped CUDA graphs after three fwd+bwd calls
(``cudagraph_skips``), the largest difference from an eager call, and fwd+bwd ms by
do_bench, eager and compiled, for short rows (16K tokens, 16 heads, bf16, D = 64 and 128).

Outcome (calls 11 and 12, ``results/NVIDIA-H100-cuda-graph-s24.log``): it never got past
the first compiled placement. Inductor's CUDA-graph trees stopped with "storage data ptrs
are not allocated in pool" (an output they track outside their pool), and the GPU test
beside it counted 18 skipped graphs, then (call 13) "a tensor in the cudagraph pool not
tracked as outputs": a device tensor the launchers cache on first use, made inside the
trees' warm-up. Not done; NOTES v26 "Next". Session 25 found the cause (the layout's tables
built inside the traced call) and fixed it: NOTES v27, ``s25_compiled_step.py``.
"""

import torch
import triton
from torch._dynamo.utils import counters

import sparseflash
from sparseflash import functional

PATTERNS = ["local(3)", "local(1) | global(1) | random(2)"]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    on_device = functional._placeholder_seed
    placements = {"seed on the CPU (before)": lambda q: torch.zeros(1, dtype=torch.int64),
                  "seed on the GPU (after)": on_device}
    for d in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(1, 16, 16384, d, device="cuda", dtype=torch.bfloat16,
                               generator=gen).requires_grad_() for _ in range(3))
        grad = torch.randn(q.shape, device="cuda", dtype=q.dtype, generator=gen)
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, 16384, block=128, device="cuda")
            flops = 3.5 * 4 * 16 * 16384 ** 2 * d * layout.density

            def eager(q, k, v):
                return sparseflash.attention(q, k, v, layout)

            def step(fn):
                torch.compiler.cudagraph_mark_step_begin()
                out = fn(q, k, v)
                return (out, *torch.autograd.grad(out, (q, k, v), grad))

            expected = [t.clone() for t in step(eager)]
            ms = triton.testing.do_bench(lambda: step(eager), warmup=25, rep=200)
            print(f"D={d:3d} {pattern:34s} eager {ms:7.3f} ms ({flops / ms / 1e9:4.0f} "
                  "TFLOP/s)", flush=True)
            for label, placement in placements.items():
                functional._placeholder_seed = placement
                torch._dynamo.reset()
                counters.clear()
                compiled = torch.compile(eager, mode="reduce-overhead")
                for _ in range(3):
                    got = step(compiled)
                err = max((a.float() - b.float()).abs().max().item()
                          for a, b in zip(got, expected))
                skips = counters["inductor"]["cudagraph_skips"]
                ms = triton.testing.do_bench(lambda: step(compiled), warmup=25, rep=200)
                print(f"D={d:3d} {pattern:34s} compiled, {label:26s} {ms:7.3f} ms "
                      f"({flops / ms / 1e9:4.0f} TFLOP/s), CUDA graphs skipped: {skips}, "
                      f"max|diff| from eager {err:.1e}", flush=True)
            functional._placeholder_seed = on_device


if __name__ == "__main__":
    main()
