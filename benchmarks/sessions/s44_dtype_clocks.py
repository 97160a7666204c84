"""Session 44: is float16 slower than bfloat16 because the GPU clocks down?

Session 43's tables had sparseflash's dense D=64 calls and cuDNN's 2.3-3.6% slower in
float16 than in bfloat16, in the same process, while Flex's times were the same in both.
The guess in NOTES v44 was power: float16 operands toggle more bits. This measures it:
each (method, dtype) runs its dense fwd+bwd (B=1, H=16, N=16K, D=64) from a CUDA graph
back to back for PHASE_S seconds while ``nvidia-smi`` samples the SM clock, the board's
power and the clock-event reasons every 50 ms. The phases alternate (bf16, fp16, fp16,
bf16 for each method) so that a drift in temperature falls on both dtypes alike.

    python benchmarks/sessions/s44_dtype_clocks.py [--head-dim 64] [--methods ...]

Options (call 2): ``--head-dim 128``, ``--methods sparseflash sdpa-cudnn flex`` (any of
``benchmarks.peers.METHODS``, each built as the attention benchmark builds it).

Prints, per phase: ms per call, and the median SM clock (MHz), power (W), temperature (C)
and the clock-event reasons seen over the phase's samples after its first second.
"""

import argparse
import statistics
import subprocess
import time

import torch

import sparseflash
from benchmarks.peers import METHODS

PHASE_S = 6.0
B, H, N = 1, 16, 16384
QUERY = ("timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active")


def _graph(method, dtype, head_dim, calls):
    """A CUDA graph of ``calls`` dense fwd+bwd calls of ``method``, its inputs made here."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, N, head_dim, device="cuda", dtype=dtype,
                           requires_grad=True) for _ in range(3))
    grad = torch.randn(B, H, N, head_dim, device="cuda", dtype=dtype)
    layout = sparseflash.compile_layout("dense", N, block=128, device="cuda")
    forward = METHODS[method](q, k, v, layout)

    def _call():
        torch.autograd.grad(forward(), (q, k, v), grad)

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # compile, autotune, warm up outside the capture
            _call()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            _call()
    torch.cuda.synchronize()
    return graph, (q, k, v, grad)


def _phase(method, dtype, head_dim):
    """-> (ms per call, samples): the graph replayed for PHASE_S seconds under
    nvidia-smi's sampling."""
    calls = 20
    graph, keep = _graph(method, dtype, head_dim, calls)
    graph.replay()
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", "-i", str(torch.cuda.current_device()),
                            f"--query-gpu={QUERY}", "--format=csv,noheader,nounits",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    replays = 0
    start.record()
    while time.time() - t0 < PHASE_S:
        graph.replay()
        replays += 1
        if replays % 4 == 0:
            torch.cuda.synchronize()  # keep the host's queue short
    end.record()
    torch.cuda.synchronize()
    smi.terminate()
    out, _ = smi.communicate()
    ms = start.elapsed_time(end) / (replays * calls)
    rows = [line.split(", ") for line in out.strip().splitlines() if line.count(",") == 4]
    # The first second's samples out: the clock settles after the graph starts.
    rows = rows[20:] if len(rows) > 30 else rows
    del graph, keep
    torch.cuda.empty_cache()
    return ms, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--methods", nargs="+", default=["sparseflash", "sdpa-cudnn"],
                        choices=sorted(METHODS))
    args = parser.parse_args()
    print(torch.__version__, torch.cuda.get_device_name(), f"D={args.head_dim}")
    order = [(m, d) for m in args.methods
             for d in (torch.bfloat16, torch.float16, torch.float16, torch.bfloat16)]
    print(f"{'method':12} {'dtype':9} {'ms/call':>8} {'SM MHz':>7} {'W':>6} {'C':>4}  "
          f"samples  clock-event reasons seen")
    for method, dtype in order:
        ms, rows = _phase(method, dtype, args.head_dim)
        clocks = [float(r[1]) for r in rows]
        power = [float(r[2]) for r in rows]
        temp = [float(r[3]) for r in rows]
        reasons = sorted({r[4].strip() for r in rows})
        print(f"{method:12} {str(dtype)[6:]:9} {ms:8.3f} {statistics.median(clocks):7.0f} "
              f"{statistics.median(power):6.1f} {statistics.median(temp):4.0f}  "
              f"{len(rows):7d}  {' '.join(reasons)}", flush=True)


if __name__ == "__main__":
    main()
