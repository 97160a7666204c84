"""Session 56: why does the lazy rescale not pay on rows of full blocks? Nsight Compute's
counts of ``hopper``'s own D=64 forward on dense (a run walk) and ``butterfly`` (a table
walk) with the exact rescale and with the lazy one forced (``hopper.lazy_rescale``
patched to take it wherever ``LAZY_RESCALE`` is set; the tree takes it only with partial
blocks, where the kernel carries P in float32).

    ncu --clock-control none --profile-from-start off --kernel-name hopper_forward_kernel \
        --section WarpStateStats --section InstructionStats --section SpeedOfLight \
        python benchmarks/sessions/s56_ncu_lazy_full.py   (s56-call3.sh: with the stall
                                                          reasons and local loads/stores)

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

Result (call 3, log ``benchmarks/results/NVIDIA-H200-ncu-lazy-full-s56-call3.log``): dense
965.0M -> 917.2M instructions (-5.0%), 7.61 -> 8.06 cycles an instruction, 2.06 -> 2.10 ms;
``butterfly`` 65.9M -> 63.1M (-4.2%), 7.89 -> 8.20, 157.1 -> 156.1 us. No local load or
store executed in either dense kernel: the spill guess is refuted (the launched kernel is
specialised for a broadcast layout). The cycles that grow, per instruction, are the thread
barriers' (+0.12 / +0.14), fixed-latency waits (+0.17 / +0.16) and the short scoreboard
(+0.11 / +0.09): a full-block trip is bound by its MMA waits and barriers, not by issue
(NOTES v57). (Written with its own profiling loop when it ran; it now shares
``s56_ncu_lazy.profile_both``, which makes the same calls.)
"""

from benchmarks.sessions.s56_ncu_lazy import profile_both
from sparseflash.kernels import hopper

CASES = ["dense", "butterfly"]


def main():
    taken = hopper.lazy_rescale
    forced = lambda head_dim, p_f32, row_keys: head_dim == 64  # noqa: E731

    def set_lazy(lazy):
        hopper.lazy_rescale = forced if lazy else taken
    try:
        profile_both(CASES, set_lazy)
    finally:
        hopper.lazy_rescale = taken


if __name__ == "__main__":
    main()
