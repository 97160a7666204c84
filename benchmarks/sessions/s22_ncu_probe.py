"""Session 22: hardware counters (Nsight Compute) of the Gluon forwards and the fused
backward on the dense rows that miss their targets (D=64 and D=128) and on a short-column
layout (D=128 ``local(3)``), for the next session's work on them.

    ncu --clock-control none --profile-from-start off --kernel-name regex:... \\
        python benchmarks/sessions/s22_ncu_probe.py

N = 16K, 16 heads, bf16. Every case runs once before the profiler starts (compiles), then
once with it on (``cudaProfilerStart``): one launch of each kernel per case.
"""

import torch

import sparseflash
from sparseflash.kernels import launch

CASES = [(64, "dense"), (128, "dense"), (128, "local(3)")]


def main():
    N, H = 16384, 16
    runs = []
    for D, pattern in CASES:
        q, k, v, do = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16)
                       for _ in range(4))
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        scale = D ** -0.5

        def run(q=q, k=k, v=v, do=do, tables=tables, meta=meta, scale=scale):
            o, lse = launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)
            launch.backward(do, q, k, v, o, lse, tables, meta, scale, None, None, 0, 0.0)
        run()
        runs.append((D, pattern, run))
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for D, pattern, run in runs:
        print(f"profiling D={D} {pattern}", flush=True)
        run()
        torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
