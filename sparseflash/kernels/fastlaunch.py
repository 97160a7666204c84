"""Launching a Triton kernel again without Triton's per-call argument binding.

``kernel[grid](*args, **constexprs)`` costs 40-75 microseconds of host time per launch on
the H200 machine's CPU before the kernel's C launcher runs (``JITFunction.run``: binding
~70 arguments and asking each how to specialise it, a cache key built from them and a
string of the options; benchmarks/NOTES.md, v13). A short sparse fwd+bwd makes four to
seven launches and is bound by the host, not the GPU. :class:`Kernel` pays that cost on
the first launch of each argument signature, keeps the compiled kernel it got, and calls
its C launcher directly afterwards, with the arguments in the order ``JITFunction.run``
would pass them, except that tensors go in as their addresses: given a tensor, the C
launcher calls its ``data_ptr`` and asks the driver whether the address is device memory
(``cuPointerGetAttribute``), one driver call per pointer argument (15-18 of them for a
backward kernel); given an integer, it takes it as the address. The launchers have
checked the device of every tensor they pass.

What Triton specialises a compiled kernel on must be part of the key under which it is
kept, or a later launch would run a kernel compiled for other arguments. Triton
specialises on each tensor's dtype and on whether its address is 16-byte aligned, and on
each integer's value (1, divisible by 16, 32- or 64-bit). The key holds a superset: the
dtypes, the exact value of every stride and size (whether Triton specialises it or not),
the width of the ``do_not_specialize`` scalars (seed, dropout threshold), the tuning key
and constexprs (which fix the tile), and the device. Launches with a tensor that is not
16-byte aligned, or with a profiler's launch hook set, always take Triton's own path.
"""

from __future__ import annotations

import concurrent.futures
import functools
import inspect
import operator
import os
import warnings
from typing import Optional, Sequence

import torch
import triton

_dtype_of = operator.attrgetter("dtype")
_data_ptr = torch.Tensor.data_ptr
_MAX_SIGNATURES = 1024  # remembered argument signatures per kernel


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def _int_width(x: int) -> int:
    """0, 1, 2: the 32-bit, 64-bit signed and 64-bit unsigned classes Triton types an
    integer argument by."""
    return 0 if -2**31 <= x < 2**31 else 1 if -2**63 <= x < 2**63 else 2


def _launch_hooks_set() -> bool:
    """Whether a profiler (proton, ...) listens to launches: then every launch goes through
    ``JITFunction.run``, which prepares what the hooks read."""
    knobs = getattr(triton, "knobs", None)
    if knobs is None:
        return True  # a Triton without knobs: do not guess its launch protocol
    for hook in (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook):
        if hook is not None and getattr(hook, "calls", True):
            return True
    return False


@functools.lru_cache(maxsize=None)
def device_major(index: int) -> int:
    """The compute capability's major version of CUDA device ``index`` (9: Hopper), asked
    of the driver once per device: the launchers ask on every forward."""
    return torch.cuda.get_device_capability(index)[0]


def _current_device() -> int:
    return torch.cuda.current_device()


def _current_stream(device: int):
    return triton.runtime.driver.active.get_current_stream(device)


def compile_threads(candidates: int) -> int:
    """Threads that compile a key's candidate tiles before the autotuner times them:
    ``SPARSEFLASH_COMPILE_THREADS`` if set (0 or 1: one at a time, inside the autotuner),
    else one per candidate up to the CPU count."""
    setting = os.environ.get("SPARSEFLASH_COMPILE_THREADS")
    if setting is None:
        return min(candidates, os.cpu_count() or 1)
    try:
        return max(int(setting), 0)
    except ValueError:
        raise ValueError("SPARSEFLASH_COMPILE_THREADS must be a whole number of threads "
                         f"(0 or 1: no parallel compiles), got {setting!r}") from None


def compile_in_parallel(fn, configs: Sequence, grid, args: tuple, constexprs: dict) -> bool:
    """Compile ``fn`` for each tile config in ``configs``, for these arguments, on a pool of
    threads, so that the autotuner finds them compiled and only times them.

    The autotuner compiles its candidates one after another, while much of a compile runs
    outside Python (C++ passes, then ptxas in a subprocess), which threads overlap: on a
    2-core machine two threads compiled four forward tiles 1.6x faster than one, and on a
    16-core H200 host a process's first calls of five layouts took 45 s instead of 96
    (benchmarks/NOTES.md, v15). Triton's own ``AsyncCompileMode`` hands the compiles that
    ``JITFunction.run(warmup=True)`` asks for to an executor and waits for them when it
    exits. A candidate that fails to compile is
    left to the autotuner, which skips it as it always did. Returns False, having done
    nothing, where there is nothing to gain (one candidate, one thread), this Triton has
    no ``AsyncCompileMode``, or the caller is inside one already."""
    threads = compile_threads(len(configs))
    if len(configs) < 2 or threads < 2:
        return False
    try:
        from triton.runtime._async_compile import AsyncCompileMode, active_mode
    except ImportError:
        return False
    if active_mode.get() is not None:
        return False  # the caller's own mode is on (one at a time): leave compiles to it
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        with AsyncCompileMode(pool, ignore_errors=True):
            for config in configs:
                fn.run(*args, grid=grid, warmup=True, **constexprs, **config.all_kwargs())
    return True


def _autotune_cache() -> bool:
    """Whether the autotuner's picks are kept on disk (Triton's ``cache_results``, in
    Triton's cache directory) so that a later process on this machine reuses them instead
    of timing every candidate again: yes unless ``SPARSEFLASH_AUTOTUNE_CACHE=0``."""
    return os.environ.get("SPARSEFLASH_AUTOTUNE_CACHE", "1") != "0"


def direct_launch_enabled() -> bool:
    """Compiled-kernel launches past ``JITFunction.run``: on a GPU, unless
    ``SPARSEFLASH_DIRECT_LAUNCH=0``."""
    return not interpreting() and os.environ.get("SPARSEFLASH_DIRECT_LAUNCH", "1") != "0"


class Kernel:
    """A ``@triton.jit`` kernel, optionally autotuned, launched as
    ``kernel(grid, key, tensors, scalars, ints, **constexprs)``, or bound once with
    ``kernel.bind(grid, key, ints, **constexprs)`` and launched as ``bound(tensors,
    scalars)`` (:class:`Launch`).

    The three argument groups are the kernel's non-constexpr parameters in order:
    ``tensors`` (pointers), ``scalars`` (floats, and the integers the kernel declares
    ``do_not_specialize`` besides ``N``/``Nk``: seed, dropout threshold) and ``ints``
    (strides and sizes). ``grid`` is a tuple or a function of the tile config;
    ``key`` (a tuple) must determine the autotuner's own key together with the constexprs:
    the launchers pass the dtype and the length class. With ``configs`` the kernel is
    autotuned on the first launch of each key and the picked tile remembered (Triton's
    autotuner rebuilds a dict of all ~70 arguments on every launch to find its key).
    Before that first launch the candidates ``prune`` keeps are compiled in parallel
    (:func:`compile_in_parallel`); ``timings`` keeps what the autotuner measured for each
    key, candidate -> [median, 20th, 80th percentile] ms (as first measured, for picks read
    back from Triton's cache).
    """

    def __init__(self, fn, configs: Optional[Sequence] = None, tuning_key: Sequence[str] = (),
                 prune=None):
        self.fn = fn
        self.tuner = None
        self.prune = prune
        self.tuning_key = tuple(tuning_key)
        self._tuner_keys: set = set()  # launch key + tuning-key constexprs seen so far
        if configs is not None:
            options = dict(configs=list(configs), key=list(tuning_key),
                           prune_configs_by={"early_config_prune": prune})
            try:
                self.tuner = triton.autotune(**options, cache_results=_autotune_cache())(fn)
            except TypeError:  # a Triton without cache_results
                self.tuner = triton.autotune(**options)(fn)
        self.direct = True         # False once this Triton's launcher refused a call
        self.picked: dict = {}     # key + constexprs -> Config
        self.timings: dict = {}    # key + constexprs -> {Config: [ms, ms, ms]}
        # argument signature -> (compiled kernel, constexpr tail of its arguments, tile)
        self.compiled: dict = {}
        parameters = inspect.signature(fn.fn if hasattr(fn, "fn") else fn).parameters
        self._names = list(parameters)
        self._defaults = {name: p.default for name, p in parameters.items()
                          if p.default is not inspect.Parameter.empty}

    def _give_up_direct(self, error: Exception) -> None:
        """Every later launch of this kernel goes through Triton; say so once."""
        self.direct = False
        self.compiled.clear()
        name = getattr(self.fn, "__name__", None) or getattr(self.fn.fn, "__name__", "?")
        warnings.warn(f"sparseflash: launching {name} past JITFunction.run failed on Triton "
                      f"{triton.__version__} ({error}); launching it through Triton instead "
                      "(slower on short calls). Please report this.", RuntimeWarning,
                      stacklevel=3)

    def _config(self, key: tuple, static: tuple, grid, args, constexprs):
        """The tile config for this key: from the first launch's tuning, or None. The
        first launch of a key runs (and tunes) through the autotuner itself."""
        config = self.picked.get(static)
        if config is None and self.tuner is not None:
            # Constexprs outside the tuning key (HAS_SPLITS) make a new kernel that reuses
            # the autotuner's pick for its key: compile the candidates only for a key the
            # autotuner has not tuned (in this process) and will time.
            tuner_key = key + tuple((name, constexprs[name]) for name in self.tuning_key
                                    if name in constexprs)
            if not interpreting() and tuner_key not in self._tuner_keys:
                names = dict(zip(self._names, args))
                candidates = (self.prune(self.tuner.configs, names, **constexprs)
                              if self.prune else self.tuner.configs)
                compile_in_parallel(self.fn, candidates, grid, args, constexprs)
            self._tuner_keys.add(tuner_key)
            self.tuner.configs_timings = None
            self.tuner[grid](*args, **constexprs)
            # A Triton without best_config leaves None, and the next launch tunes again.
            self.picked[static] = getattr(self.tuner, "best_config", None)
            self.timings[static] = dict(getattr(self.tuner, "configs_timings", None) or {})
            return None, True
        return config, False

    def bind(self, grid, key: tuple, ints: tuple, **constexprs) -> "Launch":
        """This kernel with its grid, key, integer arguments and constexprs fixed: a
        :class:`Launch`, called with each launch's tensors and scalars."""
        return Launch(self, grid, key, ints, constexprs)

    def __call__(self, grid, key: tuple, tensors: tuple, scalars: tuple, ints: tuple,
                 **constexprs):
        Launch(self, grid, key, ints, constexprs)(tensors, scalars)

    def _remember(self, signature: tuple, compiled, config, n_args: int, constexprs: dict):
        """Keep ``compiled`` (what ``JITFunction.run`` returned for ``signature``) with the
        constexpr tail of its argument list, for direct launches."""
        if not all(hasattr(compiled, a) for a in ("run", "function", "packed_metadata")):
            return
        if len(self.compiled) >= _MAX_SIGNATURES:
            self.compiled.clear()  # every sequence length adds one: keep it bounded
        values = {**constexprs, **(config.kwargs if config is not None else {})}
        tail = tuple(values[name] if name in values else self._defaults[name]
                     for name in self._names[n_args:])
        self.compiled[signature] = (compiled, tail, config.kwargs if config is not None else {})


def _scalar_class(value) -> object:
    """What Triton specialises a scalar argument on: an integer's width, else its type."""
    return _int_width(value) if type(value) is int else type(value)


class Launch:
    """A :class:`Kernel` with its grid, key, integer arguments and constexprs fixed, called
    as ``launch(tensors, scalars)``.

    ``Kernel.__call__`` builds one per launch. A launcher that sees the same shapes again
    keeps its ``Launch`` objects (``launch.py``'s plans): the argument signature's fixed part
    is then built once, and the launch remembers the compiled kernel, constexpr tail and
    grid it last launched, so that a repeat launch looks nothing up. What still varies is
    checked on every call: the tensors' dtypes and 16-byte alignment, the scalars' widths,
    the device, whether direct launches are on and whether a profiler hook is set."""

    __slots__ = ("kernel", "grid", "key", "ints", "constexprs", "static", "_last")

    def __init__(self, kernel: Kernel, grid, key: tuple, ints: tuple, constexprs: dict):
        self.kernel, self.grid, self.key, self.ints = kernel, grid, key, ints
        self.constexprs = constexprs
        self.static = key + tuple(constexprs.items())
        self._last = None  # (varying part of the signature, compiled, tail, grid dims)

    def __call__(self, tensors: tuple, scalars: tuple) -> None:
        kernel = self.kernel
        direct = kernel.direct and direct_launch_enabled()
        if direct:
            device = _current_device()
            addresses = tuple(map(_data_ptr, tensors))
            aligned = not functools.reduce(operator.or_, addresses, 0) & 15
            varying = (tuple(map(_dtype_of, tensors)), tuple(map(_scalar_class, scalars)),
                       device)
            last = self._last
            if last is None or last[0] != varying:
                last = None
                entry = kernel.compiled.get((self.static, self.ints) + varying)
                if entry is not None:
                    compiled, tail, config = entry
                    dims = self.grid(config) if callable(self.grid) else self.grid
                    dims = tuple(dims) + (1,) * (3 - len(dims))
                    last = self._last = (varying, compiled, tail, dims)
            if last is not None and aligned and not _launch_hooks_set():
                _, compiled, tail, dims = last
                try:
                    compiled.run(dims[0], dims[1], dims[2], _current_stream(device),
                                 compiled.function, compiled.packed_metadata, None, None,
                                 None, *addresses, *scalars, *self.ints, *tail)
                    return
                except TypeError as error:
                    # The call is the one JITFunction.run makes in Triton 3.6 and 3.9 (run
                    # on a GPU with 3.6). A launcher that takes other arguments rejects
                    # them before launching: go through Triton from now on.
                    kernel._give_up_direct(error)
                    self._last = None
                    direct = False
        args = tensors + scalars + self.ints
        config, launched = kernel._config(self.key, self.static, self.grid, args,
                                          self.constexprs)
        if launched:
            return
        tile = config.all_kwargs() if config is not None else {}
        compiled = kernel.fn.run(*args, grid=self.grid, warmup=False, **self.constexprs,
                                 **tile)
        if direct and aligned:
            kernel._remember((self.static, self.ints) + varying, compiled, config, len(args),
                             self.constexprs)
