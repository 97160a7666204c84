"""Session 56: why does the lazy rescale not pay on rows of full blocks? Nsight Compute's
counts of ``hopper``'s own D=64 forward on dense (a run walk) and ``butterfly`` (a table
walk) with the exact rescale and with the lazy one forced (``hopper.lazy_rescale``
patched to take it wherever ``LAZY_RESCALE`` is set; the tree takes it only with partial
blocks, where the kernel carries P in float32).

    ncu --clock-control none --profile-from-start off --kernel-name hopper_forward_kernel \
        --section WarpStateStats --section InstructionStats --section SpeedOfLight \
        python benchmarks/sessions/s56_ncu_lazy_full.py

Why. On `causal` (call 1, ``s56_ncu_lazy.py``) the lazy kernel executed 4.7% fewer
instructions (22.6 a warp a trip) at 1.4% more cycles an instruction and took 5% less
time under the profiler; on layouts of full blocks session 55's A/B found run walks
(dense, ``local(1)``, ``local(3)``) -1.4% to +0.0% and table walks (``butterfly``,
random+global) +0.7% to +0.9%. Compiled for sm_90 with Triton 3.6 (the GPU's), the lazy
variant of the full-block run walk spills 40 bytes at its 128 registers, 14 local loads
and stores inside its loops, while the exact one and the lazy table walk spill nothing
(``ptxas -v``; the SASS). Prediction: on ``butterfly`` ~4.5% fewer instructions and a
shorter kernel; on dense fewer instructions too but local-memory traffic and more cycles
an instruction (long-scoreboard stalls), the time no shorter.
"""

import torch

import sparseflash
from sparseflash.kernels import hopper, launch

CASES = ["dense", "butterfly"]


def main():
    N, H, D = 16384, 16, 64
    q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    taken = hopper.lazy_rescale
    for pattern in CASES:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        for lazy in (False, True):
            hopper.lazy_rescale = ((lambda d, p_f32, keys: d == 64) if lazy else taken)
            launch.clear_plans()  # the plan binds the kernel with the choice as it is now
            run = lambda: launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)
            run()  # compiles, outside the profiled range
            torch.cuda.synchronize()
            print(f"profiling {pattern} lazy={lazy}", flush=True)
            torch.cuda.cudart().cudaProfilerStart()
            run()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()
    hopper.lazy_rescale = taken


if __name__ == "__main__":
    main()
