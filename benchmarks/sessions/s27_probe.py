"""Session 27 probe: two questions before choosing the session's kernel work.

    python benchmarks/sessions/s27_probe.py [a] [b]

(A) Is there a last-wave loss? At 16K tokens and 16 heads a dense call has 2,048 query
tiles (forward) and 2,048 key columns (backward) on 132 SMs: 15.5 programs an SM, so the
last wave runs half full (~3% of the time if every program takes as long). 33 heads make
4,224 tiles, 32 exact waves. Dense TFLOP/s at H=16 and H=33 (and cuDNN's, which tiles its
own way), fwd and fwd+bwd, timed from CUDA graphs (``do_bench_cudagraph``: no host time).

(B) What key padding costs today: it sends every call to the Triton kernels (the Gluon
ones have no padding). B=4, N=4096, 16 heads, lengths uniform in [N-20, N] (trailing
padding, as the FlashAttention paper's E.6 setup), against the same call unpadded.

Every timed call's output is first checked against SDPA with the same mask.
"""

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench_cudagraph

import sparseflash


def timed(fn):
    """Median ms of ``fn`` replayed from a CUDA graph."""
    return do_bench_cudagraph(fn, rep=200)


def fwd_bwd(forward, inputs, grad):
    def step():
        out = forward()
        torch.autograd.grad(out, inputs, grad)
    return step


def check(out, ref, what):
    err = (out.float() - ref.float()).abs().max().item()
    assert err < 2e-2, f"{what}: max error {err}"


def part_a():
    print("(A) last wave: dense, B=1, N=16384, bf16")
    N = 16384
    for d in (64, 128):
        for H in (16, 33):
            gen = torch.Generator(device="cuda").manual_seed(0)
            q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16,
                                   generator=gen).requires_grad_() for _ in range(3))
            grad = torch.randn_like(q)
            layout = sparseflash.compile_layout("dense", N, block=128, device=q.device)
            flops = 4 * H * N * N * d
            with torch.no_grad():
                ref = F.scaled_dot_product_attention(q, k, v)
                check(sparseflash.attention(q, k, v, layout), ref, f"D={d} H={H}")
            rows = []
            for name, forward in (("sparseflash", lambda: sparseflash.attention(q, k, v, layout)),
                                  ("cudnn", lambda: _cudnn(q, k, v))):
                with torch.no_grad():
                    fwd = timed(forward)
                both = timed(fwd_bwd(forward, (q, k, v), grad))
                rows.append(f"{name} fwd {fwd:.3f} ms {flops / fwd * 1e-9:.1f} TFLOP/s, "
                            f"fwd+bwd {both:.3f} ms {3.5 * flops / both * 1e-9:.1f}")
            print(f"D={d} H={H}: " + " | ".join(rows), flush=True)
            del q, k, v, grad


def _cudnn(q, k, v):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v)


def part_b():
    print("(B) key padding: B=4, N=4096, H=16, lengths uniform in [N-20, N], bf16")
    B, H, N = 4, 16, 4096
    gen = torch.Generator(device="cpu").manual_seed(0)
    lengths = torch.randint(N - 20, N + 1, (B,), generator=gen)
    pad = (torch.arange(N)[None, :] >= lengths[:, None]).cuda()
    for d in (64, 128):
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16,
                               generator=g).requires_grad_() for _ in range(3))
        grad = torch.randn_like(q)
        for pattern in ("dense", "local(3)"):
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            flops = 4 * B * H * N * N * d * layout.density
            rows = []
            for name, mask in (("unpadded", None), ("padded", pad)):
                def forward(mask=mask):
                    return sparseflash.attention(q, k, v, layout, key_padding_mask=mask)
                if pattern == "dense":
                    with torch.no_grad():
                        attn = None if mask is None else ~mask[:, None, None, :]
                        check(forward(), F.scaled_dot_product_attention(q, k, v, attn_mask=attn),
                              f"D={d} {pattern} {name}")
                with torch.no_grad():
                    fwd = timed(forward)
                both = timed(fwd_bwd(forward, (q, k, v), grad))
                rows.append(f"{name} fwd {fwd:.3f} ms ({flops / fwd * 1e-9:.0f}) "
                            f"fwd+bwd {both:.3f} ms ({3.5 * flops / both * 1e-9:.0f})")
            print(f"D={d} {pattern}: " + " | ".join(rows), flush=True)


def main():
    import sys
    parts = sys.argv[1:] or ["a", "b"]
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name())
    if "a" in parts:
        part_a()
    if "b" in parts:
        part_b()


if __name__ == "__main__":
    main()
