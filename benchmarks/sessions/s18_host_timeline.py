"""Session 18 probe: where the host time of one ``sparseflash.attention`` fwd+bwd goes now
(Gluon forward and dK/dV launches with tensor descriptors, fastlaunch's direct launches).

    python benchmarks/sessions/s18_host_timeline.py [--head-dims 64 128] [--iters 40]

As session 11's ``s11_host_timeline.py`` (which instrumented ``JITFunction.run``, no longer
on the hot path): ``time.perf_counter_ns`` at the entry and exit of each layer on whichever
thread runs it, with the GPU kept busy ahead so no launch waits for it. Layers: the public
function, the autograd Function's two implementations, the launchers, every
``fastlaunch.Kernel`` call, inside it the compiled kernel's ``run`` (Triton's
``CudaLauncher.__call__``) and inside that its ``launch`` (on Triton 3.6 the Python that
encodes tensor descriptors, wrapping the C launcher), the Gluon descriptor constructions
and every ``torch.empty``/``empty_like``. Prints the median of each interval between
consecutive stamps, then the uninstrumented host time and that of an autograd Function
that does nothing (the engine's own share).
"""

import argparse
import statistics
import time
from collections import defaultdict

import torch
import triton

import sparseflash
from sparseflash import functional
from sparseflash.kernels import fastlaunch, hopper, launch

STAMPS: list = []
ON = [False]


def stamp(label: str) -> None:
    if ON[0]:
        STAMPS.append((label, time.perf_counter_ns()))


def timed(fn, label: str):
    def wrapper(*args, **kwargs):
        stamp(label + " >")
        try:
            return fn(*args, **kwargs)
        finally:
            stamp(label + " <")
    return wrapper


def kernel_name(kernel) -> str:
    fn = kernel.fn
    return getattr(fn, "__name__", None) or fn.fn.__name__


def instrument() -> None:
    functional._forward_impl = timed(functional._forward_impl, "forward_impl")
    functional._backward_impl = timed(functional._backward_impl, "backward_impl")
    launch.forward = timed(launch.forward, "launch.forward")
    launch.backward = timed(launch.backward, "launch.backward")
    hopper.forward = timed(hopper.forward, "hopper.forward")
    hopper.descriptor = timed(hopper.descriptor, "descriptor")
    from sparseflash.kernels import hopper_backward
    hopper_backward.dkdv = timed(hopper_backward.dkdv, "hopper.dkdv")
    torch.empty = timed(torch.empty, "empty")
    torch.empty_like = timed(torch.empty_like, "empty_like")
    call = fastlaunch.Kernel.__call__

    def kernel_call(self, *args, **kwargs):
        name = kernel_name(self)
        stamp(f"Kernel {name} >")
        try:
            return call(self, *args, **kwargs)
        finally:
            stamp(f"Kernel {name} <")
    fastlaunch.Kernel.__call__ = kernel_call


def instrument_compiled() -> None:
    """Stamp ``run`` and ``run.launch`` of every kernel compiled so far (after warm-up)."""
    from sparseflash.kernels import hopper_backward
    kernels = [launch._forward, launch._dkdv, launch._dq, launch._merge, launch._sum_split,
               getattr(hopper, "_KERNEL", None), getattr(hopper_backward, "_KERNEL", None)]
    for kernel in kernels:
        if kernel is None:
            continue
        name = kernel_name(kernel)
        for compiled, _, _ in kernel.compiled.values():
            runner = compiled.run
            if hasattr(runner, "launch") and not hasattr(runner.launch, "stamped"):
                runner.launch = timed(runner.launch, f"C {name}")
                runner.launch.stamped = True
                compiled._run = timed(runner, f"run {name}")


def keep_busy() -> None:
    busy = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    for _ in range(40):
        busy = busy @ busy.T * 1e-4  # ~40 ms of GPU work ahead of the launches


def host_ms(fn, iters: int) -> float:
    """Median host time of one call, ms (a median: this host stalls now and then)."""
    keep_busy()
    times = []
    for _ in range(iters):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    torch.cuda.synchronize()
    return 1000 * statistics.median(times)


class Nothing(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--patterns", nargs="+",
                   default=["local(3)", "local(1) | global(1) | random(2)"])
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--iters", type=int, default=40)
    p.add_argument("--host-only", action="store_true",
                   help="only the uninstrumented host times (for A/B runs of two trees)")
    args = p.parse_args()
    N, H = args.seq_len, 16
    print(f"triton {triton.__version__}, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}")
    calls = {}
    for D in args.head_dims:
        q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16)
                   .requires_grad_() for _ in range(3))
        grad = torch.randn_like(q)
        for pattern in args.patterns:
            def fwd_bwd(pattern=pattern, q=q, k=k, v=v, grad=grad):
                stamp("call >")
                out = sparseflash.attention(q, k, v, pattern)
                stamp("attention <")
                torch.autograd.grad(out, (q, k, v), grad)
                stamp("grad <")
            calls[(D, pattern)] = fwd_bwd
            for _ in range(5):
                fwd_bwd()
        x = q.detach().clone().requires_grad_()
        calls[(D, "autograd Function doing nothing")] = (
            lambda x=x, grad=grad: torch.autograd.grad(Nothing.apply(x), (x,), grad))
    torch.cuda.synchronize()
    for _ in range(3):
        for name, fwd_bwd in calls.items():  # plain host time, before any stamp exists
            print(f"{name}: fwd+bwd host time {host_ms(fwd_bwd, args.iters):.3f} ms "
                  "(uninstrumented, median)")

    if args.host_only:
        return
    instrument()
    instrument_compiled()
    for name, fwd_bwd in calls.items():
        if "nothing" in name[1]:
            continue
        intervals = defaultdict(list)
        for _ in range(3):
            keep_busy()
            for _ in range(args.iters):
                STAMPS.clear()
                ON[0] = True
                fwd_bwd()
                ON[0] = False
                for i, ((a, ta), (b, tb)) in enumerate(zip(STAMPS, STAMPS[1:])):
                    intervals[(i, a, b)].append((tb - ta) / 1000)
            torch.cuda.synchronize()
        total = sum(statistics.median(x) for x in intervals.values())
        print(f"\n{name}, N={N}: median us between consecutive stamps "
              f"(sum of medians {total:.1f} us)")
        for (i, a, b), xs in sorted(intervals.items()):
            print(f"  {statistics.median(xs):8.1f}  {a:36s} -> {b}")
    ON[0] = False
    descriptor_costs(args.iters)


def per_call_us(fn, reps: int = 2000) -> float:
    started = time.perf_counter_ns()
    for _ in range(reps):
        fn()
    return (time.perf_counter_ns() - started) / reps / 1000


def descriptor_costs(iters: int) -> None:
    """Host cost of one Gluon descriptor: built as now, built without the dataclass's
    checks, and encoded into a CUtensorMap as the launcher does on every launch."""
    from sparseflash.kernels import hopper_backward
    q = torch.randn(1, 16, 16384, 64, device="cuda", dtype=torch.bfloat16)
    TensorDescriptor = hopper.TensorDescriptor
    layout = hopper._shared_layout(64, 64, q.dtype)
    flat = q.view(-1, 64)

    def unchecked():
        d = object.__new__(TensorDescriptor)
        d.base, d.shape, d.strides, d.block_shape, d.layout, d.padding = (
            flat, list(flat.shape), [64, 1], [64, 64], layout, "zero")
        return d

    def checked():
        return TensorDescriptor(flat, list(flat.shape), [64, 1], [64, 64], layout)

    for _ in range(3):
        print(f"descriptor: checked {per_call_us(checked):.2f} us, "
              f"unchecked {per_call_us(unchecked):.2f} us")
    try:
        from triton.backends.nvidia import driver as nv
    except ImportError:
        return
    for kernel in (getattr(hopper, "_KERNEL", None), getattr(hopper_backward, "_KERNEL", None)):
        for compiled, _, _ in (kernel.compiled.values() if kernel else ()):
            meta = getattr(compiled.metadata, "tensordesc_meta", None)
            if not meta:
                continue
            desc = checked()
            args = (desc, meta[0]) if nv.make_tensordesc_arg.__code__.co_argcount == 2 else (
                desc, meta[0], None)
            for _ in range(3):
                print(f"make_tensordesc_arg: {per_call_us(lambda: nv.make_tensordesc_arg(*args)):.2f} us")
            return


if __name__ == "__main__":
    main()
