"""Session 50: the same kernels timed in several processes in a row on one machine, to
see whether the first process after the machine starts runs slower.

    python benchmarks/sessions/s50_same_kernels.py [--rounds 3]

Why. In call 1 (``s50-call1.sh``, the first process on a freshly started H200) every
unpadded D=64 forward ran ~7% slower than the identical kernels in the next process a
minute later (16K ``causal`` 1.32 against 1.22 ms, 64K 19.5 against 18.1), while each
process's own rounds agreed within 1%. The session scripts time sparseflash and its
peers in processes of their own, sparseflash first: a slow first process would
understate sparseflash's ratios (never overstate them), and A/Bs within one process are
unaffected. ``s50-call4.sh`` runs this script three times back to back, with the GPU's
clock, power and throttle reasons sampled every 0.5 s beside it.

What. ``launch.forward`` from CUDA graphs (``ab.forward_ab``, one variant), bf16, 16
heads, 16K tokens: dense and ``causal`` at D=64.

Result (call 4, a freshly started H200, logs ``results/NVIDIA-H200-same-kernels-s50-call4.log``),
best of three rounds in each process: dense 2.231, 2.248 and 2.245 ms, ``causal`` 1.199,
1.210 and 1.213. Not reproduced: the first process ran as fast as the later ones. Call 1's
slow process stays unexplained (one occurrence; the clock was not sampled then).
"""

from benchmarks.sessions import ab


def main():
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ab.forward_ab({"main": ab.kernels_of(None)}, [(64, "dense", 0.0), (64, "causal", 0.0)],
                  rounds=args.rounds)


if __name__ == "__main__":
    main()
