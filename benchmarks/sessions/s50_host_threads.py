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
import time

import torch
import torch.nn.attention
import torch.nn.functional as F

import sparseflash


def _host_ms(fn, iters: int) -> float:
    """Mean host ms of ``fn`` with ~20 ms of GPU work queued ahead of it."""
    busy = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    for _ in range(20):
        busy = busy @ busy.T * 1e-4
    started = time.perf_counter()
    for _ in range(iters):
        fn()
    elapsed = time.perf_counter() - started
    torch.cuda.synchronize()
    return 1000 * elapsed / iters


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    B, H, N, D = 16, 16, 1024, 64
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    grad = torch.randn_like(q)
    methods = {
        "sparseflash": lambda: sparseflash.attention(q, k, v, "dense"),
        "sdpa-flash": lambda: F.scaled_dot_product_attention(q, k, v),
    }
    flash = torch.nn.attention.SDPBackend.FLASH_ATTENTION
    for name, forward in methods.items():
        def step():
            torch.autograd.grad(forward(), (q, k, v), grad)

        with torch.nn.attention.sdpa_kernel(flash):
            for _ in range(10):
                step()
            torch.cuda.synchronize()
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
