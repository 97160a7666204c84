"""Session 8: where the host time of the backward goes when autograd runs it.

    python benchmarks/sessions/s8_backward_host.py --pattern "local(3)" --seq-len 16384

``benchmarks.overhead`` found a ``local(3)`` fwd+bwd needing ~0.76 ms of host time, of
which the launchers account for ~0.21 ms and an empty autograd Function for ~0.09 ms.
The rest is not visible to its cProfile, which profiles only the main thread: autograd
runs a CUDA backward on its own device thread. Here, host time per call (GPU kept busy,
as in ``benchmarks.overhead``) of the pieces, and a cProfile taken inside that thread.
"""

import argparse
import cProfile
import io
import pstats

import torch

import sparseflash
import sparseflash.functional as functional
from benchmarks.overhead import _host_ms, _Identity
from sparseflash.kernels import launch


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--pattern", default="local(3)")
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--iters", type=int, default=50)
    args = p.parse_args()
    N, D = args.seq_len, 64
    q, k, v = (torch.randn(1, 16, N, D, device="cuda", dtype=torch.bfloat16)
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)

    def forward():
        return sparseflash.attention(q, k, v, args.pattern)

    def forward_backward():
        torch.autograd.grad(forward(), (q, k, v), grad)

    out = forward()
    layout = sparseflash.compile_layout(args.pattern, N, block=128, device=q.device)
    tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
    with torch.no_grad():
        o, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)

    def launcher_backward():
        launch.backward(grad, q, k, v, o, lse, tables, meta, D ** -0.5, None, None, 0, 0.0)

    for _ in range(5):
        forward_backward()
    torch.cuda.synchronize()
    rows = {}
    for _ in range(3):  # alternate, keep the last round
        rows["fwd"] = _host_ms(forward, args.iters)
        rows["fwd+bwd"] = _host_ms(forward_backward, args.iters)
        rows["fwd+bwd minus fwd: the backward under autograd"] = rows["fwd+bwd"] - rows["fwd"]
        with torch.no_grad():
            rows["launch.backward on the main thread"] = _host_ms(launcher_backward, args.iters)
        rows["empty Function fwd+bwd"] = _host_ms(
            lambda: torch.autograd.grad(_Identity.apply(q), (q,), grad), args.iters)
    # The same autograd Function signature as sparseflash's, with the kernels taken out:
    # "fake" returns the forward's and backward's results computed once, "launch-only"
    # runs the real launchers but none of attention()'s front end.
    scale = D ** -0.5
    with torch.no_grad():
        grads = launch.backward(grad, q, k, v, o, lse, tables, meta, scale, None, None, 0, 0.0)

    class Signature(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q_, k_, v_, tables_, meta_, scale_, kpm, limits, seed, p_, mode):
            ctx.set_materialize_grads(False)
            if mode in ("fake", "fake forward"):
                out_o, out_lse = o.view_as(o), lse.view_as(lse)
            else:
                out_o, out_lse = launch.forward(q_, k_, v_, tables_, meta, scale_, None, None,
                                                0, 0.0)
            ctx.mark_non_differentiable(out_lse)
            ctx.save_for_backward(q_, k_, v_, out_o, out_lse)
            ctx.mode = mode
            return out_o, out_lse

        @staticmethod
        def backward(ctx, do, dlse):
            q_, k_, v_, o_, lse_ = ctx.saved_tensors
            if ctx.mode in ("fake", "fake backward"):
                dq, dk, dv = grads
            else:
                dq, dk, dv = launch.backward(do, q_, k_, v_, o_, lse_, tables, meta, scale,
                                             None, None, 0, 0.0)
            return dq, dk, dv, None, None, None, None, None, None, None, None

    def signature_call(mode):
        def call():
            out_o, _ = Signature.apply(q, k, v, list(tables), None,
                                       scale, None, None, None, 0.0, mode)
            torch.autograd.grad(out_o, (q, k, v), grad)
        return call

    import queue
    import threading

    def on_other_thread(fn):
        """Run ``fn`` on one long-lived second thread per call, waiting for it, the way
        autograd hands a CUDA backward to its device thread."""
        jobs, done = queue.Queue(), queue.Queue()

        def worker():
            while True:
                job = jobs.get()
                if job is None:
                    return
                with torch.no_grad():
                    job()
                done.put(None)
        threading.Thread(target=worker, daemon=True).start()

        def call():
            jobs.put(fn)
            done.get()
        return call

    for _ in range(3):
        signature_call("launch-only")()
    for _ in range(3):
        rows["same Function, no kernels: fwd+bwd"] = _host_ms(signature_call("fake"), args.iters)
        rows["same Function, launchers only: fwd+bwd"] = _host_ms(
            signature_call("launch-only"), args.iters)
        rows["sparseflash.attention fwd+bwd (again)"] = _host_ms(forward_backward, args.iters)
        rows["same Function, forward launcher only"] = _host_ms(
            signature_call("fake backward"), args.iters)
        rows["same Function, backward launcher only"] = _host_ms(
            signature_call("fake forward"), args.iters)
        with torch.no_grad():
            rows["launch.backward from a plain second thread"] = _host_ms(
                on_other_thread(launcher_backward), args.iters)
    for name, ms in rows.items():
        print(f"  {name:52s} {ms:.3f} ms")

    # cProfile inside autograd's device thread: wrap the backward implementation.
    profiler = cProfile.Profile()
    real = functional._backward_impl

    def profiled(*a, **kw):
        profiler.enable()
        try:
            return real(*a, **kw)
        finally:
            profiler.disable()
    functional._backward_impl = profiled
    for _ in range(args.iters):
        forward_backward()
    torch.cuda.synchronize()
    functional._backward_impl = real
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
    print(f"cProfile of _backward_impl inside autograd's thread, {args.iters} calls:")
    print(text.getvalue())


if __name__ == "__main__":
    main()
