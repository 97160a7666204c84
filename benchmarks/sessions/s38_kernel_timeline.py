"""Session 38: the kernels of one dense fwd+bwd, sparseflash's and cuDNN's (SDPA), on a
timeline: which launches each makes and how long each kernel runs, so that the dense
backward's 2-3% gap to cuDNN's (README, by difference) can be placed in the main kernel
or in the passes around it.

    python benchmarks/sessions/s38_kernel_timeline.py [--trace DIR]

One eager call each at B=1, H=16, N=16K, bf16, D=64 and 128, behind a 50 ms
``torch.cuda._sleep`` so that the host has queued every launch before the GPU reaches
them (the gaps are the GPU's own); profiler kernel records, one trace each.
"""

import argparse
import os

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

import sparseflash
from benchmarks.sessions.s38_forward_pdl import _kernels, print_kernels


def _timeline(name, run, trace_dir):
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(100_000_000)
        run()
        torch.cuda.synchronize()
    path = os.path.join(trace_dir, f"{name}.json")
    prof.export_chrome_trace(path)
    kernels = _kernels(path)
    total = sum(k[2] for k in kernels)
    span = kernels[-1][1] + kernels[-1][2] - kernels[0][1]
    print(f"{name}: {len(kernels)} kernels, {total:.1f} us of kernels, {span:.1f} us first "
          f"start to last end", flush=True)
    print_kernels(kernels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", default="/tmp/s38-traces")
    args = parser.parse_args()
    os.makedirs(args.trace, exist_ok=True)
    print(torch.__version__, torch.cuda.get_device_name(), flush=True)
    for D in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, do = (torch.randn(1, 16, 16384, D, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        for t in (q, k, v):
            t.requires_grad_(True)

        def ours():
            out = sparseflash.attention(q, k, v, "dense", block=128)
            torch.autograd.backward(out, do)

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                out = F.scaled_dot_product_attention(q, k, v)
            torch.autograd.backward(out, do)

        _timeline(f"d{D}-dense-sparseflash", ours, args.trace)
        _timeline(f"d{D}-dense-cudnn", cudnn, args.trace)


if __name__ == "__main__":
    main()
