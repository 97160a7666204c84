"""Session 56: why does the lazy rescale make D=64 ``causal`` faster? Nsight Compute's
warp-state and instruction counts of ``hopper``'s own forward with the exact rescale and
with the lazy one (``hopper.LAZY_RESCALE``), on ``causal`` and dense.

    ncu --clock-control none --profile-from-start off --kernel-name hopper_forward_kernel \\
        --section WarpStateStats --section InstructionStats --section SpeedOfLight \\
        python benchmarks/sessions/s56_ncu_lazy.py

N = 16K, 16 heads, bf16, D=64, block 128. ``causal`` took 1.184 ms lazy against 1.225
exact (NOTES v56) while layouts of full blocks did not move, though the lazy form saves
them 21 instructions a trip too. With partial blocks the kernel carries P in float32
(``hopper.carries_p_f32``) and its exact rescale sits between the wait for ``P V`` and
the next one's issue. Prediction: the lazy kernel executes 2-4% fewer instructions on
``causal`` at the same cycles an instruction, or the same instructions at fewer
cycles an instruction (then a stall reason, not the count, is what moved).

Result (call 1, log ``benchmarks/results/NVIDIA-H200-ncu-lazy-s56-call1.log``): ``causal``
512.2M -> 488.3M instructions (-4.7%, 22.6 a warp a trip), 7.61 -> 7.72 cycles an
instruction, 1.18 -> 1.12 ms. Dense ran the same kernel twice (the tree takes the lazy form
only with partial blocks): 965.0M, 7.61, 2.06 ms; ``s56_ncu_lazy_full.py`` forces it there.
(The profiling loop moved into :func:`profile_both` after the call; the calls it makes are
the same.)
"""

import torch

import sparseflash
from sparseflash.kernels import hopper, launch

CASES = ["causal", "dense"]


def profile_both(cases, set_lazy):
    """One profiled forward of each pattern in ``cases`` with ``set_lazy(False)`` then
    ``set_lazy(True)`` applied before its plan binds (N = 16K, 16 heads, bf16, D=64),
    each compiled by a first call outside the profiled range."""
    N, H, D = 16384, 16, 64
    q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    for pattern in cases:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        for lazy in (False, True):
            set_lazy(lazy)
            launch.clear_plans()  # the plan binds the kernel with the choice as it is now
            run = lambda: launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)
            run()
            torch.cuda.synchronize()
            print(f"profiling {pattern} lazy={lazy}", flush=True)
            torch.cuda.cudart().cudaProfilerStart()
            run()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()


def main():
    profile_both(CASES, lambda lazy: setattr(hopper, "LAZY_RESCALE", lazy))


if __name__ == "__main__":
    main()
