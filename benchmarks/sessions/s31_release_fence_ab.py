"""Session 31 probe: the fused backward without the proxy fence before a slot's release.

    python benchmarks/sessions/s31_release_fence_ab.py [--rounds R]

Each consumer warp group of ``hopper_fused`` releases a Q/dO slot once the last tile's
products are done; its LSE and delta rows, read from that slot by plain loads, were used
by then (P^T and dS^T came from them). Until session 31 a ``fence.proxy.async`` preceded
the release, one of the three fences a warp group runs per tile; Nsight Compute put 5.7% of
the D=128 backward's stall samples on those fences (NOTES v24). A write-after-read across
proxies is ordered by the barrier the release arrives on (the loads' values are in
registers before the arrival), as pipelines that hand shared buffers back to the copy
engine commonly rely on. Prediction: without it, 0.5-2% off the backward.

For each head dim and layout, both variants' gradients on the same inputs, twice each:
dK and dV bit for bit equal (a race would move them), dQ to its summation order. Then
fwd+bwd timed from CUDA graphs, the variants alternating.

It ran (call 4) on commit a216cda, whose ``hopper_fused.RELEASE_FENCE`` switched the fence;
the switch was removed after it measured no gain (-0.8% to +0.4%; NOTES v33), so this
script needs that commit's kernel.
"""

import argparse

import torch
import triton
from triton.testing import do_bench_cudagraph

import sparseflash
from sparseflash.kernels import hopper_fused, launch


def use(fence):
    hopper_fused.RELEASE_FENCE = fence
    launch.clear_plans()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), "| fwd+bwd ms from CUDA graphs (TFLOP/s)", flush=True)
    B, H, N = 1, 16, 16384
    for d in (128, 64):
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16,
                               generator=g).requires_grad_() for _ in range(3))
        grad = torch.randn_like(q)
        for pattern in ("dense", "causal", "local(3)", "butterfly",
                        "local(1) | global(1) | random(2)"):
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            flops = 3.5 * 4 * B * H * N * N * d * layout.density

            def step():
                out = sparseflash.attention(q, k, v, layout)
                torch.autograd.grad(out, (q, k, v), grad)

            def grads():
                return torch.autograd.grad(sparseflash.attention(q, k, v, layout), (q, k, v),
                                           grad)

            use(True)
            ref = grads()
            agree = []
            for fence in (True, False):
                use(fence)
                for _ in range(2):
                    got = grads()
                    kv_same = all(torch.equal(a, b) for a, b in zip(got[1:], ref[1:]))
                    dq_err = (got[0].float() - ref[0].float()).abs().max().item()
                    agree.append(kv_same and dq_err <= 1e-2 * max(
                        ref[0].float().abs().max().item(), 1.0))
            print(f"D={d} {pattern}: gradients {'all agree' if all(agree) else 'DISAGREE'} "
                  f"({sum(agree)}/{len(agree)})", flush=True)
            for r in range(args.rounds):
                row = {}
                for fence in (True, False):
                    use(fence)
                    step()
                    torch.cuda.synchronize()
                    row["fence" if fence else "no fence"] = do_bench_cudagraph(step, rep=200)
                print(f"  round {r}: " + " | ".join(
                    f"{name} {ms:.3f} ({flops / ms * 1e-9:.0f})" for name, ms in row.items()),
                    flush=True)
    use(True)


if __name__ == "__main__":
    main()
