"""Session 51: is the do_bench table's "set by the host" star on short D=64 sparse calls
the host, or the L2 that do_bench flushes before each call?

``benchmarks.targets`` stars a figure whose wall time (do_bench: L2 flushed before each
call, the host launching it) is over 1.1x its kernels' summed time (the profiler, back to
back, L2 warm). In session 51's do_bench table (call 3) D=64 `butterfly` and random+global
forwards took 0.210 and 0.272 ms against 0.164 and 0.158 of kernels, while at D=128 the
same patterns, whose host path is the same launches, read 0.232 and 0.226 against 0.241
and 0.217; and `local(3)`, whose rows share their neighbours' key blocks, 0.146 against
0.144 at D=64. So the guess: a cold L2, not the host, and only for hopper's own D=64
forward (two programs an SM, no loader warp), whose short rows wait on each key tile's
first load from HBM, where the persistent ping-pong kernel's loader runs ahead.

For each case, ms of one call: ``warm`` replayed from a CUDA graph back to back (the
tables' ``--timer cudagraph``), ``cold`` replayed from a graph with the L2 flushed before
each replay (``ab._graph_bench``: no host), ``eager`` do_bench of the call itself (the
do_bench table's timer), and ``host`` the host time of one call with the GPU kept busy
(``benchmarks.overhead._host_ms``). Forward, and fwd+bwd; D=64 also with
``SPARSEFLASH_PINGPONG=1`` (the persistent ping-pong forward).

    PYTHONPATH=. python benchmarks/sessions/s51_cold_l2.py --rounds 2

Result (call 4, log ``benchmarks/results/NVIDIA-H200-cold-l2-s51-call4.log``): refuted.
``cold`` against ``warm`` is 0.96-1.10x for every case, both kernels and head dims alike
(D=64 `butterfly` forward 0.182 / 0.170 ms in round 0, 0.167 / 0.170 in round 1). In this
process the eager D=64 forwards ran at their graph times (random+global 0.163 and 0.159
ms, against call 3's 0.272), and the host time of one call moved 2x from round to round:
forwards 0.094-0.287 ms, fwd+bwd 0.437-1.031 ms. The eager rows that exceed their graph
times are those whose host time does (D=64 random+global fwd+bwd, round 0: eager 0.769,
host 0.784, graph 0.591; round 1: 0.594, 0.504, 0.592). So the star is right: the host,
and a host whose time per call varies by 2x from one moment to the next.

(Since call 4 the calls come from ``benchmarks.profile_call.make_call``, which makes the
same ``sparseflash.attention`` calls, on inputs of their own for each pattern; not rerun.)
"""

import argparse
import os
from types import SimpleNamespace

import torch
from triton import testing

from benchmarks.overhead import _host_ms
from benchmarks.profile_call import make_call
from benchmarks.sessions.ab import _graph_bench

PATTERNS = ["local(3)", "butterfly", "chunk(8)", "bigbird", "local(1) | global(1) | random(2)",
            "causal"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seq-len", type=int, default=16384)
    parser.add_argument("--heads", type=int, default=16)
    args = parser.parse_args()
    torch.manual_seed(0)
    N, H = args.seq_len, args.heads
    print(f"{torch.cuda.get_device_name()}, N={N}, H={H}, B=1, bf16; ms of one call")
    print(f"{'D':>3} {'kernel':8} {'pattern':34} {'mode':8} {'warm':>7} {'cold':>7} "
          f"{'eager':>7} {'host':>7}")
    for D in (64, 128):
        # One sequence of N tokens (B=1), bf16, block 128, no padding or dropout.
        calls = {pattern: make_call(SimpleNamespace(
                     pattern=pattern, seq_len=N, head_dim=D, tokens=N, heads=H,
                     dtype="bfloat16", block=128, max_pad=0, dropout=0.0), __file__)
                 for pattern in PATTERNS}
        kernels = ("default", "pingpong") if D == 64 else ("default",)
        for rnd in range(args.rounds):
            for kernel in kernels:
                os.environ["SPARSEFLASH_PINGPONG"] = "1" if kernel == "pingpong" else "auto"
                for pattern in PATTERNS:
                    for mode in ("fwd", "fwd+bwd"):
                        call = calls[pattern]
                        step = call.forward if mode == "fwd" else call.forward_backward
                        step()
                        torch.cuda.synchronize()
                        warm = testing.do_bench_cudagraph(step, rep=100, return_mode="median")
                        cold = _graph_bench(step)
                        eager = testing.do_bench(step, warmup=25, rep=100,
                                                 return_mode="median")
                        host = _host_ms(step, 20)
                        print(f"{D:>3} {kernel:8} {pattern:34} {mode:8} {warm:7.3f} "
                              f"{cold:7.3f} {eager:7.3f} {host:7.3f}  round {rnd}",
                              flush=True)
        os.environ["SPARSEFLASH_PINGPONG"] = "auto"


if __name__ == "__main__":
    main()
