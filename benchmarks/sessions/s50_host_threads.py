"""Session 50: a short eager fwd+bwd's host time with the autograd engine's device threads
(PyTorch's default) and without (``torch.autograd.set_multithreading_enabled(False)``:
the backward runs on the calling thread), sparseflash beside SDPA's flash backend.

    python benchmarks/sessions/s50_host_threads.py [--iters 50] [--rounds 3]

Why. Call 8 (``s50_host_profile.py``, log ``results/NVIDIA-H200-host-profile-s50-call8.log``)
put 0.46 of a 0.575 ms fwd+bwd (dense D=64, N = 1024, 16 sequences, 16 heads, bf16) in
the Python of sparseflash's autograd Function, forward 0.216 ms and backward 0.241 ms of
self time, about twice what the same launchers take alone in a loop (0.061 and 0.145
ms, call 3). A guess, to test: the backward runs on the engine's device thread, so each
call's Python hops between two threads and what the host does is slower for it.

What. Host ms per fwd+bwd (a long matmul first keeps the GPU busy, so no call waits for
it), alternating the two modes per round, for each method.

Result (call 9, ``s50-call9.sh``, log ``results/NVIDIA-H200-host-threads-s50-call9.log``):
sparseflash 0.561-0.687 ms with the engine's threads, 0.265-0.488 without; SDPA's flash
backend 0.162-0.200 and 0.107-0.196. Confirmed: every one-thread run of ours was under
every threaded one (best against best 2.1x). The README suggests the setting for short
eager calls (NOTES v51).
"""

import argparse

import torch
import torch.nn.attention

from benchmarks.overhead import _host_ms  # host ms a call, the GPU kept busy
from benchmarks.sessions.s50_host_profile import FLASH, SHAPE, short_steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    B, H, N, D = SHAPE
    for name, step in short_steps().items():
        with torch.nn.attention.sdpa_kernel(FLASH):
            times = {"threads": [], "one thread": []}
            for _ in range(args.rounds):
                for mode in ("threads", "one thread", "one thread", "threads"):
                    with torch.autograd.set_multithreading_enabled(mode == "threads"):
                        times[mode].append(_host_ms(step, args.iters))
        print(f"{name}: host ms per fwd+bwd, B={B} H={H} N={N} D={D} bf16: " + "; ".join(
            f"{mode} {min(ms):.3f} (runs {', '.join(f'{t:.3f}' for t in ms)})"
            for mode, ms in times.items()), flush=True)


if __name__ == "__main__":
    main()
