"""Session 16: host time of one forward call, Gluon (direct and plain launches) against
Triton, where the call is short enough for the host to set its pace.

    python benchmarks/sessions/s16_host.py

D=64, N=16K, H=16, bf16, inputs requiring grad (as benchmarks.attention has them).
For each path: microseconds of host time a call (300 calls queued without a sync),
do_bench's median, and a cProfile of 300 calls (top functions by own time).
"""

import cProfile
import io
import os
import pstats
import time

import torch
import triton

import sparseflash

PATHS = {"triton": {"SPARSEFLASH_GLUON": "0"},
         "gluon direct": {"SPARSEFLASH_GLUON": "auto", "SPARSEFLASH_DIRECT_LAUNCH": "1"},
         "gluon plain": {"SPARSEFLASH_GLUON": "auto", "SPARSEFLASH_DIRECT_LAUNCH": "0"}}


def host_us(fn, calls=300):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    return host


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    N, H, D = 16384, 16, 64
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
               .requires_grad_() for _ in range(3))
    for pattern in ("local(3)", "local(1) | global(1) | random(2)", "dense"):
        layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=H, device="cuda")
        fn = lambda: sparseflash.attention(q, k, v, layout)  # noqa: E731
        for path, env in PATHS.items():
            os.environ.update(env)
            fn()
            fn()
            host = host_us(fn)
            ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
            print(f"{pattern:34s} {path:13s} host {host:7.1f} us/call  do_bench {ms:.3f} ms",
                  flush=True)
            if pattern == "local(3)":
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(300):
                    fn()
                prof.disable()
                torch.cuda.synchronize()
                text = io.StringIO()
                pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(14)
                print("\n".join(text.getvalue().splitlines()[-22:]), flush=True)


if __name__ == "__main__":
    main()
