"""Session 24: what a short fwd+bwd costs once the host's launches are out of the way.
Eager calls against the same call captured in a CUDA graph and replayed, for sparseflash
and FlexAttention (identical block mask), in one process.

    python benchmarks/sessions/s24_graph_timing.py

Calls 3, 5 and 7 had the short D=64 fwd+bwd rows at 0.60 ms of wall time in most
processes and 0.82-1.13 ms in some, their kernels 0.59-0.62 ms throughout: the host's
launches (~0.7-0.9 ms a call on those machines, s24_backward_timeline.py) set the pace.
A CUDA graph replays the captured kernels with one launch. Each captured call is checked
against an eager one on the same inputs (output and dK, dV within bf16 rounding, dQ too:
both methods sum it in an order that varies), then both are timed with do_bench (median,
L2 flushed before each), fwd+bwd at 16K tokens (B=1, N=16K), 16 heads, bf16.
"""

import torch
import triton

import sparseflash
from benchmarks.peers import flex_method

PATTERNS = ["local(3)", "local(1) | global(1) | random(2)", "local(1)", "butterfly"]


def _graphed(step):
    """``step`` (returns tensors) captured in a CUDA graph -> (replay, captured outputs)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = step()
    return graph.replay, outs


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    B, H, N = 1, 16, 16384
    for d in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16,
                               generator=gen).requires_grad_() for _ in range(3))
        grad = torch.randn(q.shape, device="cuda", dtype=q.dtype, generator=gen)
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            flops = 3.5 * 4 * B * H * N * N * d * layout.density
            methods = {"sparseflash": lambda: sparseflash.attention(q, k, v, layout),
                       "flex": flex_method(q, k, v, layout)}
            for name, forward in methods.items():
                def step(forward=forward):
                    out = forward()
                    return (out, *torch.autograd.grad(out, (q, k, v), grad))
                try:
                    replay, captured = _graphed(step)
                except Exception as exc:  # noqa: BLE001
                    print(f"D={d} {pattern:34s} {name:11s} capture failed: {exc!r}"[:300])
                    continue
                replay()
                expected = step()
                err = max((a.float() - b.float()).abs().max().item()
                          for a, b in zip(captured, expected))
                eager = triton.testing.do_bench(step, warmup=25, rep=200)
                graphed = triton.testing.do_bench(replay, warmup=25, rep=200)
                print(f"D={d:3d} {pattern:34s} {name:11s} eager {eager:7.3f} ms "
                      f"({flops / eager / 1e9:5.0f} TFLOP/s)  graph {graphed:7.3f} ms "
                      f"({flops / graphed / 1e9:5.0f} TFLOP/s)  graph vs eager "
                      f"max|diff| {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
