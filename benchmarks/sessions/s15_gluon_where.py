"""Session 15: where the Gluon forward's time goes inside sparseflash (call 3 measured it
slower in launch.forward than the probe kernel alone).

    python benchmarks/sessions/s15_gluon_where.py

Dense, N = 16K, H = 16, bf16. For the Triton forward, the library's Gluon forward
(SPARSEFLASH_GLUON=1) and the probe's kernel: wall time per call (do_bench) and the CUDA
time of each kernel the call launches (torch profiler).
"""

import os
import sys
from collections import defaultdict

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
import s15_gluon_probe as probe  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import launch  # noqa: E402


def kernel_times(run, iters=20):
    run()
    torch.cuda.synchronize()
    totals = defaultdict(float)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            run()
        torch.cuda.synchronize()
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals[event.name] += event.device_time / 1000 / iters
    return dict(totals)


def main():
    print("triton", triton.__version__, torch.cuda.get_device_name())
    N, H = 16384, 16
    for d in (64, 128):
        q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        layout = sparseflash.compile_layout("dense", N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        flops = 4 * H * N * N * d
        fwd = lambda: launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
        ref = fwd()[0]
        for label, env in (("triton", "0"), ("gluon (library)", "1")):
            os.environ["SPARSEFLASH_GLUON"] = env
            err = (fwd()[0].float() - ref.float()).abs().max().item()
            ms = triton.testing.do_bench(fwd, warmup=25, rep=200)
            kt = kernel_times(fwd)
            print(f"D={d} {label:18s} wall {ms:.3f} ms ({flops / ms / 1e9:.1f} TFLOP/s) "
                  f"kernels {kt} err {err:.2e}", flush=True)
        out, _, run = probe.run_variant(q, k, v, (128, 3, False), "dense")
        ms = triton.testing.do_bench(run, warmup=25, rep=200)
        print(f"D={d} {'gluon (probe)':18s} wall {ms:.3f} ms ({flops / ms / 1e9:.1f} TFLOP/s) "
              f"kernels {kernel_times(run)} err {(out.float() - ref.float()).abs().max().item():.2e}",
              flush=True)


if __name__ == "__main__":
    main()
