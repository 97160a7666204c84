"""Session 25: a fwd+bwd under ``torch.compile(mode="reduce-overhead")``, which puts the
compiled code in CUDA graphs, for sparseflash and FlexAttention (identical block mask),
against eager sparseflash and Flex compiled the usual way (the tables' Flex), in one
process.

    python benchmarks/sessions/s25_compiled_step.py

Session 24 found short sparseflash calls host-bound in eager mode and fast in a CUDA graph
captured by hand (``s24_graph_timing.py``), but reduce-overhead did not capture them: the
layout's kernel tables were built inside the traced function (about twenty graphs, their
device copies outputs of a CUDA graph) and a launcher cached a placeholder made in the
graphs' warm-up (``s24_compile_graphs.py``). Session 25 builds the tables in
``compile_layout`` (eagerly under ``torch.compile``) and takes the placeholder from them.

For each method: Inductor's count of skipped CUDA graphs over the warm-up calls, the
largest difference of output and gradients from an eager call on the same inputs, and
the fwd+bwd's ms by do_bench (median, L2 flushed before each), 16K tokens (B=1), 16
heads, bf16, D = 64 and 128.
"""

import torch
import triton
from torch._dynamo.utils import counters

from torch.nn.attention.flex_attention import flex_attention

import sparseflash
from benchmarks.peers import flex_block_mask, flex_method

PATTERNS = ["local(3)", "local(1) | global(1) | random(2)", "local(1)", "butterfly"]


def _reduce_overhead_flex(q, k, v, layout, compiled):
    """-> (q, k, v) -> Flex's output, through ``compiled`` (flex_attention compiled with
    mode="reduce-overhead"; the block mask is an argument, so patterns of one shape share
    the compile), with the tables' shallower pipeline where the default is out of shared
    memory."""
    block_mask = flex_block_mask(layout)
    try:
        compiled(q, k, v, block_mask=block_mask)
        return lambda q, k, v: compiled(q, k, v, block_mask=block_mask)
    except Exception as exc:  # noqa: BLE001
        if "out of resource" not in str(exc):
            raise
    print("  flex: default config out of shared memory; using kernel_options="
          "{'num_stages': 2}")
    return lambda q, k, v: compiled(q, k, v, block_mask=block_mask,
                                    kernel_options={"num_stages": 2})


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    B, H, N = 1, 16, 16384
    for d in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16,
                               generator=gen).requires_grad_() for _ in range(3))
        grad = torch.randn(q.shape, device="cuda", dtype=q.dtype, generator=gen)
        flex_ro = torch.compile(flex_attention, mode="reduce-overhead", dynamic=False)
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            flops = 3.5 * 4 * B * H * N * N * d * layout.density

            def eager(q, k, v):
                return sparseflash.attention(q, k, v, layout)

            flex = flex_method(q, k, v, layout)
            methods = {
                "sparseflash eager": eager,
                "sparseflash reduce-overhead": torch.compile(eager, mode="reduce-overhead"),
                "flex compiled": lambda q, k, v: flex(),
                "flex reduce-overhead": _reduce_overhead_flex(q, k, v, layout, flex_ro),
            }

            def step(fn):
                torch.compiler.cudagraph_mark_step_begin()
                out = fn(q, k, v)
                return (out, *torch.autograd.grad(out, (q, k, v), grad))

            expected = [t.clone() for t in step(eager)]
            for name, fn in methods.items():
                counters.clear()
                try:
                    for _ in range(3):  # warm-up, recording, replay
                        got = [t.clone() for t in step(fn)]
                except Exception as exc:  # noqa: BLE001
                    print(f"D={d:3d} {pattern:34s} {name:28s} failed: {exc!r}"[:400],
                          flush=True)
                    continue
                skips = counters["inductor"]["cudagraph_skips"]
                err = max((a.float() - b.float()).abs().max().item()
                          for a, b in zip(got, expected))
                ms = triton.testing.do_bench(lambda: step(fn), warmup=25, rep=200)
                print(f"D={d:3d} {pattern:34s} {name:28s} {ms:7.3f} ms "
                      f"({flops / ms / 1e9:4.0f} TFLOP/s)  graphs skipped {skips}  "
                      f"max|diff| from eager {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
