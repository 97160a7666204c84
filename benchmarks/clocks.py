"""The GPU's clock, power and energy through a method's calls (by default its dense fwd+bwd),
run back to back.

    python -m benchmarks.clocks --head-dim 64 --methods sparseflash sdpa-cudnn flex \\
        --out benchmarks/results/NVIDIA-H200-clocks.json

A fast kernel can run into the board's power limit, which then lowers the SM clock: on an
H200 (700 W) sparseflash's and cuDNN's dense fwd+bwd ran at 1,650-1,875 MHz where its
clock goes to 1,980, 1.6-3.9% lower in float16 than in bf16, while FlexAttention's D=64
one stayed under the limit at the full clock (NOTES v45). A ratio of times between two
methods then mixes their work with the clock each was allowed (the same kernels read
1.778-1.797x Flex's dense D=64 fwd+bwd on three starts of an H200).

Each (method, dtype) captures ``CALLS`` calls (B=1, H=16, N=16K; ``--pattern``, dense by
default, at block 128; ``--mode`` fwd+bwd by default or fwd; the method built as
``benchmarks.attention`` builds it, and called as it times it) in a CUDA graph and replays it for
``--seconds`` while ``nvidia-smi`` samples the SM clock, the board's power, the
temperature and the clock-event reasons every 50 ms. The dtypes alternate (bf16, float16,
float16, bf16 per method) so that a drift in temperature falls on both alike. Per phase it
prints ms per call and, over the samples after the first second, the median SM clock,
power and temperature, the energy per call (median power x time) and every clock-event
reason seen (``sw_power_cap``: the board held at its power limit).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, NamedTuple

import torch

#: What nvidia-smi samples, in this order.
QUERY = "timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active"
#: The clock-event reasons' bits (NVML's ``nvmlClocksEventReason*``).
REASONS = {0x1: "gpu_idle", 0x2: "applications_clocks", 0x4: "sw_power_cap",
           0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal",
           0x40: "hw_thermal", 0x80: "hw_power_brake", 0x100: "display_clocks"}
#: Samples left out at the start of a phase (50 ms apart: the first second).
SETTLE = 20
#: Calls in one CUDA graph.
CALLS = 20
B, H, N = 1, 16, 16384


class Sample(NamedTuple):
    """One line of nvidia-smi's sampling."""
    sm_mhz: float
    watts: float
    celsius: float
    reasons: int


def parse_samples(text: str) -> List[Sample]:
    """The samples in nvidia-smi's output for :data:`QUERY` (csv, no header, no units);
    lines that are not samples (a warning, a cut-off last line) are skipped."""
    samples = []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 5:
            continue
        try:
            samples.append(Sample(float(fields[1]), float(fields[2]), float(fields[3]),
                                  int(fields[4], 16)))
        except ValueError:
            continue
    return samples


def reason_names(bits: int) -> List[str]:
    """The names of the clock-event reasons set in ``bits`` (unknown bits in hex)."""
    names = [name for bit, name in REASONS.items() if bits & bit]
    unknown = bits & ~sum(REASONS)
    return names + ([hex(unknown)] if unknown else [])


def summarise(samples: List[Sample], ms_per_call: float) -> Dict[str, object]:
    """A phase's figures: ms per call; the median SM clock, power and temperature of its
    samples after the first :data:`SETTLE` (all of them if there are too few); energy
    per call in joules (median power x time); every clock-event reason seen."""
    if not samples:
        raise ValueError("no nvidia-smi samples in the phase")
    kept = samples[SETTLE:] if len(samples) > SETTLE + 10 else samples
    watts = statistics.median(s.watts for s in kept)
    seen = 0
    for s in kept:
        seen |= s.reasons
    return {"ms": ms_per_call, "sm_mhz": statistics.median(s.sm_mhz for s in kept),
            "watts": watts, "celsius": statistics.median(s.celsius for s in kept),
            "joules": watts * ms_per_call / 1000.0, "reasons": reason_names(seen),
            "samples": len(kept)}


def _graph(method: str, dtype: torch.dtype, head_dim: int, pattern: str = "dense",
           mode: str = "fwd+bwd"):
    """(CUDA graph of :data:`CALLS` calls of ``method`` on ``pattern`` in ``mode``, what it
    reads)."""
    import sparseflash
    from benchmarks.peers import METHODS
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, N, head_dim, device="cuda", dtype=dtype,
                           requires_grad=True) for _ in range(3))
    grad = torch.randn(B, H, N, head_dim, device="cuda", dtype=dtype)
    layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=H, device="cuda")
    forward = METHODS[method](q, k, v, layout, is_causal=pattern.strip() == "causal")

    def call():
        if mode == "fwd":
            forward()
        else:
            torch.autograd.grad(forward(), (q, k, v), grad)

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # compile, autotune, warm up outside the capture
            call()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            call()
    torch.cuda.synchronize()
    return graph, (q, k, v, grad, forward)


def _smi_id() -> str:
    """nvidia-smi's name for the current CUDA device: its UUID, which CUDA_VISIBLE_DEVICES
    does not renumber (the index where torch gives no UUID)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    uuid = str(getattr(props, "uuid", "") or "")
    if not uuid:
        return str(torch.cuda.current_device())
    return uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"


def measure(method: str, dtype: torch.dtype, head_dim: int, seconds: float,
            pattern: str = "dense", mode: str = "fwd+bwd"):
    """:func:`summarise` of ``method``'s graph replayed for ``seconds`` under sampling."""
    graph, keep = _graph(method, dtype, head_dim, pattern, mode)
    graph.replay()
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", "-i", _smi_id(),
                            f"--query-gpu={QUERY}", "--format=csv,noheader,nounits",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    replays = 0
    start.record()
    while time.time() - t0 < seconds:
        graph.replay()
        replays += 1
        if replays % 4 == 0:
            torch.cuda.synchronize()  # keep the host's queue short
    end.record()
    torch.cuda.synchronize()
    smi.terminate()
    out, _ = smi.communicate()
    ms = start.elapsed_time(end) / (replays * CALLS)
    del graph, keep
    torch.cuda.empty_cache()
    return summarise(parse_samples(out), ms)


def format_row(method: str, dtype: str, row: Dict[str, object]) -> str:
    return (f"{method:12} {dtype:9} {row['ms']:8.3f} {row['sm_mhz']:7.0f} "
            f"{row['watts']:6.1f} {row['joules']:6.2f} {row['celsius']:4.0f}  "
            f"{row['samples']:7d}  {' '.join(row['reasons']) or '-'}")


HEADER = (f"{'method':12} {'dtype':9} {'ms/call':>8} {'SM MHz':>7} {'W':>6} {'J/call':>6} "
          f"{'C':>4}  samples  clock-event reasons seen")


def main(argv=None) -> int:
    from benchmarks.cpu_backend import append_record
    from benchmarks.peers import DENSE_ONLY, METHODS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--methods", nargs="+", default=["sparseflash", "sdpa-cudnn"],
                        choices=sorted(METHODS))
    parser.add_argument("--pattern", default="dense",
                        help="a pattern string (block 128); dense by default")
    parser.add_argument("--mode", choices=("fwd+bwd", "fwd"), default="fwd+bwd")
    parser.add_argument("--seconds", type=float, default=6.0, help="per phase")
    parser.add_argument("--out", type=Path, help="a JSON file to add this run's record to")
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    dense_only = [m for m in args.methods if m in DENSE_ONLY]
    if dense_only and args.pattern.strip() not in ("dense", "causal"):
        parser.error(f"{', '.join(dense_only)} can only run dense or causal attention, "
                     f"not {args.pattern!r}")
    if not torch.cuda.is_available():
        print("benchmarks.clocks needs a CUDA GPU and nvidia-smi", file=sys.stderr)
        return 2
    gpu = torch.cuda.get_device_name()
    print(torch.__version__, gpu, f"D={args.head_dim}", args.pattern, args.mode)
    print(HEADER)
    rows = []
    for method in args.methods:
        for dtype in (torch.bfloat16, torch.float16, torch.float16, torch.bfloat16):
            name = str(dtype).removeprefix("torch.")
            row = measure(method, dtype, args.head_dim, args.seconds, args.pattern,
                          args.mode)
            print(format_row(method, name, row), flush=True)
            rows.append({"method": method, "dtype": name, "D": args.head_dim,
                         "pattern": args.pattern, "N": N, "mode": args.mode, **row})
    if args.out:
        # The command as the other benchmarks record it: arguments with spaces quoted.
        command = "python -m benchmarks.clocks " + " ".join(
            f"'{a}'" if " " in a else a for a in (sys.argv[1:] if argv is None else argv))
        append_record(args.out, {
            "command": command, "gpu": gpu, "torch": torch.__version__,
            "triton": __import__("triton").__version__, "python": platform.python_version(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "note": args.note, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
