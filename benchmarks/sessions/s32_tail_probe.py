"""Session 32 probe: how much of the dense backward is its last wave.

    python benchmarks/sessions/s32_tail_probe.py [--heads 16 33 66] [--head-dims 64 128]

The fused backward runs a program per 128-key column of every head: at N = 16K, B = 1 and
16 heads (the README's setting) that is 2048 programs on an SM each, 15.5 waves on 132
SMs, so the last wave leaves about half of them idle. If every column takes the same time,
the kernel takes 16 columns' time for 15.5 columns' work: 3% of it idle. **Prediction:**
at 33 and 66 heads (32 and 64 full waves) the dense backward's TFLOP/s rises by ~3% over
16 heads', which is about its distance from cuDNN's backward (NOTES v33: 2.5-5%); cuDNN's
own rate moves by what its own decomposition leaves over.

For each head dim and head count: sparseflash and cuDNN (SDPA's cuDNN backend), the dense
fwd+bwd and the forward alone from CUDA graphs, the backward by difference, bf16, B = 1,
N = 16K; two rounds, the methods alternating. Outputs are checked against each other
first.
"""

import argparse

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench_cudagraph

import sparseflash


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--heads", type=int, nargs="+", default=[16, 33, 66])
    parser.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--seq-len", type=int, default=16384)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), f"{sms} SMs | ms from CUDA graphs, backward "
          "TFLOP/s (2.5 x 4 B H N^2 D / (fwd+bwd - fwd))", flush=True)
    N = args.seq_len
    layout = sparseflash.compile_layout("dense", N, block=128, device="cuda")

    def cudnn(q, k, v):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v)

    def ours(q, k, v):
        return sparseflash.attention(q, k, v, layout)

    methods = {"sparseflash": ours, "cudnn": cudnn}
    for d in args.head_dims:
        for heads in args.heads:
            g = torch.Generator(device="cuda").manual_seed(0)
            q, k, v = (torch.randn(1, heads, N, d, device="cuda", dtype=torch.bfloat16,
                                   generator=g).requires_grad_() for _ in range(3))
            grad = torch.randn_like(q)
            with torch.no_grad():
                err = (ours(q, k, v).float() - cudnn(q, k, v).float()).abs().max().item()
            flops = 4 * heads * N * N * d
            waves = heads * (N // 128) / sms
            print(f"D={d} H={heads}: {heads * (N // 128)} columns, {waves:.2f} waves; "
                  f"max |sparseflash - cudnn| {err:.3g}", flush=True)
            for r in range(args.rounds):
                parts = []
                for name, fn in methods.items():
                    def step():
                        torch.autograd.grad(fn(q, k, v), (q, k, v), grad)

                    def forward():
                        with torch.no_grad():
                            fn(q, k, v)

                    step()
                    torch.cuda.synchronize()
                    both = do_bench_cudagraph(step, rep=300)
                    fwd = do_bench_cudagraph(forward, rep=300)
                    bwd = both - fwd
                    parts.append(f"{name} fwd {fwd:.3f} bwd {bwd:.3f} "
                                 f"({2.5 * flops / bwd * 1e-9:.0f})")
                print(f"  round {r}: " + " | ".join(parts), flush=True)
            del q, k, v, grad
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
