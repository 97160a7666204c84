"""Session 25: a fwd+bwd under ``torch.compile(mode="reduce-overhead")``, which puts the
compiled code in CUDA graphs, for sparseflash and FlexAttention (identical block mask),
against eager sparseflash and Flex compiled the usual way (the tables' Flex), in one
process.

    python benchmarks/sessions/s25_compiled_step.py [--head-dims 64 128] [--patterns ...]
        [--layer]

Session 24 found short sparseflash calls host-bound in eager mode and fast in a CUDA graph
captured by hand (``s24_graph_timing.py``), but reduce-overhead did not capture them: the
layout's kernel tables were built inside the traced function (about twenty graphs, their
device copies outputs of a CUDA graph) and a launcher cached a placeholder made in the
graphs' warm-up (``s24_compile_graphs.py``). Session 25 builds the tables in
``compile_layout`` (eagerly under ``torch.compile``) and takes the placeholder from them.

For each method: Inductor's count of skipped CUDA graphs over the warm-up calls, the
largest difference of output and gradients from an eager call on the same inputs, and
the fwd+bwd's ms by do_bench (median, L2 flushed before each), 16K tokens (B=1), 16
heads, bf16, D = 64 and 128; with ``--layer``, a BlockSparseAttention layer's too.

Outcome (call 1, H200, ``results/NVIDIA-H200-compiled-step-s25.log``): no graph skipped,
results within bf16 rounding of eager, but reduce-overhead 0.1-0.56 ms slower than eager
calls for both libraries on that machine's fast host (D=64 `local(3)` 0.900 against 0.728
ms; Flex 1.342 against 1.239): each replay copies the inputs that are not static into the
graphs' buffers. Call 2 adds the static-input rows and whole layers.
"""

import argparse

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


def _timed(label, fn, step, expected, flops):
    """Three warm-up calls of ``step(fn)`` (warm-up, recording, replay), then its check
    against ``expected`` and its do_bench time, printed on one line."""
    counters.clear()
    try:
        for _ in range(3):
            got = [t.clone() for t in step(fn)]
    except Exception as exc:  # noqa: BLE001
        print(f"{label} failed: {exc!r}"[:400], flush=True)
        return
    skips = counters["inductor"]["cudagraph_skips"]
    err = max((a.float() - b.float()).abs().max().item() for a, b in zip(got, expected))
    ms = triton.testing.do_bench(lambda: step(fn), warmup=25, rep=200)
    print(f"{label} {ms:7.3f} ms ({flops / ms / 1e9:4.0f} TFLOP/s)  graphs skipped {skips}  "
          f"max|diff| from eager {err:.1e}", flush=True)


def attention_only(d, patterns, B=1, H=16, N=16384):
    """Each method's fwd+bwd of attention alone. Under reduce-overhead, inputs whose
    address is not marked static are copied into the graphs' own buffers on every replay
    (q, k, v and the output's gradient: 4 x 32 MB at D=64); the "static inputs" rows mark
    them (``torch._dynamo.mark_static_address``), as a training step's activations made
    inside the same compiled graph would be."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16,
                           generator=gen).requires_grad_() for _ in range(3))
    grad = torch.randn(q.shape, device="cuda", dtype=q.dtype, generator=gen)
    static = [t.detach().clone().requires_grad_(t.requires_grad) for t in (q, k, v, grad)]
    for t in static:
        torch._dynamo.mark_static_address(t)
    flex_ro = torch.compile(flex_attention, mode="reduce-overhead", dynamic=False)
    for pattern in patterns:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        flops = 3.5 * 4 * B * H * N * N * d * layout.density

        def eager(q, k, v):
            return sparseflash.attention(q, k, v, layout)

        flex = flex_method(q, k, v, layout)
        compiled = torch.compile(eager, mode="reduce-overhead")
        methods = {
            "sparseflash eager": (eager, False),
            "sparseflash reduce-overhead": (compiled, False),
            "sparseflash reduce-overhead, static inputs": (compiled, True),
            "flex compiled": (lambda q, k, v: flex(), False),
            "flex reduce-overhead": (_reduce_overhead_flex(q, k, v, layout, flex_ro), False),
            "flex reduce-overhead, static inputs": (
                _reduce_overhead_flex(*static[:3], layout, flex_ro), True),
        }

        def step(fn, inputs):
            torch.compiler.cudagraph_mark_step_begin()
            out = fn(*inputs[:3])
            return (out, *torch.autograd.grad(out, inputs[:3], inputs[3]))

        expected = [t.clone() for t in step(eager, (q, k, v, grad))]
        for name, (fn, is_static) in methods.items():
            inputs = static if is_static else (q, k, v, grad)
            _timed(f"D={d:3d} {pattern:34s} {name:43s}", fn,
                   lambda fn, inputs=inputs: step(fn, inputs), expected, flops)


def layer(d, patterns, B=1, H=16, N=16384):
    """A BlockSparseAttention layer's fwd+bwd (projections, attention, output projection;
    input x (B, N, H * d) bf16), eager against compiled with reduce-overhead (x copied on
    each replay, as a model's input is). One eager call first builds the module's layout,
    so the compiled call is one graph. TFLOP/s counts attention's products only."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(B, N, H * d, device="cuda", dtype=torch.bfloat16, generator=gen)
    grad = torch.randn(x.shape, device="cuda", dtype=x.dtype, generator=gen)
    for pattern in patterns:
        module = sparseflash.BlockSparseAttention(H * d, H, pattern).to("cuda", torch.bfloat16)
        params = list(module.parameters())
        flops = 3.5 * 4 * B * H * N * N * d * module.layout_for(N, N, x.device).density

        def step(fn):
            torch.compiler.cudagraph_mark_step_begin()
            out = fn(x)
            return (out, *torch.autograd.grad(out, params, grad))

        expected = [t.clone() for t in step(module)]
        for name, fn in {"layer eager": module,
                         "layer reduce-overhead": torch.compile(module,
                                                                mode="reduce-overhead")}.items():
            _timed(f"D={d:3d} {pattern:34s} {name:43s}", fn, step, expected, flops)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--patterns", nargs="+", default=PATTERNS)
    parser.add_argument("--layer", action="store_true", help="also time whole layers")
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    for d in args.head_dims:
        attention_only(d, args.patterns)
    if args.layer:
        for d in args.head_dims:
            layer(d, args.patterns)


if __name__ == "__main__":
    main()
