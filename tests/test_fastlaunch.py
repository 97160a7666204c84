"""The direct launch path (``kernels.fastlaunch.Kernel``) on a stand-in for a compiled
Triton kernel, so that it runs without a GPU: the second launch of an argument signature
calls the compiled kernel's C launcher with exactly the arguments ``JITFunction.run``
would pass, and every change Triton could specialise on goes back through Triton.
(On a GPU, ``tests/test_gpu.py`` checks the real kernels' results both ways.)"""

import pytest
import torch

from sparseflash.kernels import fastlaunch
from sparseflash.kernels.fastlaunch import Kernel


def toy_kernel(A, B, scale, seed, stride_a, n, BLOCK: "constexpr", EVEN: "constexpr" = True):
    """Only its signature is read: two pointers, two scalars, two ints, two constexprs."""


class FakeCompiled:
    """A compiled kernel: ``run`` is its C launcher."""
    function, packed_metadata = "cu-function", "packed-metadata"

    def __init__(self):
        self.launches = []

    def run(self, *args):
        self.launches.append(args)


class FakeJit:
    """Stands in for a JITFunction: each ``run`` binds, 'compiles' and launches."""

    def __init__(self):
        self.fn = toy_kernel
        self.compiled = FakeCompiled()
        self.runs = []

    def run(self, *args, grid, warmup, **kwargs):
        self.runs.append((args, grid, kwargs))
        return self.compiled


@pytest.fixture
def kernel(monkeypatch):
    monkeypatch.setattr(fastlaunch, "direct_launch_enabled", lambda: True)
    monkeypatch.setattr(fastlaunch, "_current_device", lambda: 0)
    monkeypatch.setattr(fastlaunch, "_current_stream", lambda device: 1234)
    monkeypatch.setattr(fastlaunch, "_launch_hooks_set", lambda: False)
    return Kernel(FakeJit())


def _launch(kernel, a, b, seed=7, stride=64, n=100, block=32):
    kernel((3, 2), ("key",), (a, b), (0.5, seed), (stride, n), BLOCK=block)


def test_second_launch_goes_straight_to_the_c_launcher(kernel):
    a, b = torch.zeros(64), torch.zeros(64)
    _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 1 and not kernel.fn.compiled.launches
    args, grid, kwargs = kernel.fn.runs[0]
    assert args == (a, b, 0.5, 7, 64, 100) and grid == (3, 2) and kwargs == {"BLOCK": 32}
    _launch(kernel, a, b, seed=8)  # a new seed of the same width: same kernel
    assert len(kernel.fn.runs) == 1
    (launch,) = kernel.fn.compiled.launches
    # grid (x, y, z), stream, function, metadata, no launch metadata or hooks, then every
    # parameter in signature order, the constexprs included (EVEN from its default).
    assert launch[:9] == (3, 2, 1, 1234, "cu-function", "packed-metadata", None, None, None)
    # Tensors go in as their addresses (the C launcher then skips its driver query).
    assert launch[9:11] == (a.data_ptr(), b.data_ptr())
    assert launch[11:] == (0.5, 8, 64, 100, 32, True)


@pytest.mark.parametrize("change", ["stride", "n", "seed width", "dtype", "constexpr"])
def test_anything_triton_specialises_on_goes_through_triton(kernel, change):
    a, b = torch.zeros(64), torch.zeros(64)
    _launch(kernel, a, b)
    _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 1
    changed = {"stride": dict(stride=1), "n": dict(n=96),
               "seed width": dict(seed=2**40), "dtype": dict(b=torch.zeros(64).half()),
               "constexpr": dict(block=64)}[change]
    _launch(kernel, **{"a": a, "b": b, **changed})
    assert len(kernel.fn.runs) == 2, "a changed signature must be bound by Triton again"
    _launch(kernel, **{"a": a, "b": b, **changed})
    assert len(kernel.fn.runs) == 2 and len(kernel.fn.compiled.launches) == 2


def test_a_bound_launch_remembers_what_it_launched(kernel, monkeypatch):
    """``Kernel.bind`` fixes the grid, key, integers and constexprs (the launchers keep
    such launches per set of shapes): a repeat launch needs no lookup, and whatever still
    varies (dtypes, scalar widths, alignment, launch hooks) is checked every time."""
    launch = kernel.bind((3, 2), ("key",), (64, 100), BLOCK=32)
    a, b = torch.zeros(64), torch.zeros(64)
    launch((a, b), (0.5, 7))  # through Triton, which compiles
    launch((a, b), (0.5, 8))  # found among the kernel's compiled signatures
    kernel.compiled.clear()   # ...and remembered by the launch itself
    c = torch.zeros(64)
    launch((c, b), (0.25, 9))
    assert len(kernel.fn.runs) == 1
    launches = kernel.fn.compiled.launches
    assert len(launches) == 2 and launches[1][9:] == (c.data_ptr(), b.data_ptr(), 0.25, 9,
                                                      64, 100, 32, True)
    for tensors, scalars in (((a, b.half()), (0.5, 7)),     # another dtype
                             ((a, b), (0.5, 2**40)),        # a 64-bit seed
                             ((torch.zeros(65)[1:], b), (0.5, 7))):  # unaligned
        launch(tensors, scalars)
    assert len(kernel.fn.runs) == 4 and len(launches) == 2
    monkeypatch.setattr(fastlaunch, "_launch_hooks_set", lambda: True)
    launch((a, b), (0.5, 7))
    assert len(kernel.fn.runs) == 5 and len(launches) == 2


def test_unaligned_tensors_always_go_through_triton(kernel):
    storage = torch.zeros(65)
    a, b = storage[1:], torch.zeros(64)  # 4 bytes past a 16-byte boundary
    assert a.data_ptr() % 16
    for _ in range(3):
        _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 3 and not kernel.fn.compiled.launches


def test_launch_hooks_keep_the_full_path(kernel, monkeypatch):
    a, b = torch.zeros(64), torch.zeros(64)
    _launch(kernel, a, b)
    monkeypatch.setattr(fastlaunch, "_launch_hooks_set", lambda: True)
    _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 2 and not kernel.fn.compiled.launches


def test_off_switch(kernel, monkeypatch):
    monkeypatch.setattr(fastlaunch, "direct_launch_enabled", lambda: False)
    a, b = torch.zeros(64), torch.zeros(64)
    for _ in range(3):
        _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 3 and not kernel.fn.compiled.launches


def test_direct_launch_setting(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setenv("SPARSEFLASH_DIRECT_LAUNCH", "0")
    assert not fastlaunch.direct_launch_enabled()
    monkeypatch.setenv("SPARSEFLASH_DIRECT_LAUNCH", "1")
    assert fastlaunch.direct_launch_enabled()
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert not fastlaunch.direct_launch_enabled()


def test_a_launcher_that_refuses_the_arguments_means_triton_from_then_on(kernel):
    """A Triton whose C launcher takes other arguments raises TypeError before launching:
    the launch goes through Triton instead, with a warning, and so do later ones."""
    def refuse(*args):
        raise TypeError("launch() takes 9 positional arguments")
    kernel.fn.compiled.run = refuse
    a, b = torch.zeros(64), torch.zeros(64)
    _launch(kernel, a, b)
    with pytest.warns(RuntimeWarning, match="through Triton"):
        _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 2  # the refused launch went through Triton
    _launch(kernel, a, b)
    assert len(kernel.fn.runs) == 3 and not kernel.direct


class FakeAsyncJit(FakeJit):
    """Records, for each ``run``, whether it came while Triton's AsyncCompileMode was
    active (then a real JITFunction hands the compile to the mode's executor)."""

    def run(self, *args, grid, warmup, **kwargs):
        from triton.runtime import _async_compile
        self.runs.append((warmup, _async_compile.active_mode.get() is not None, kwargs))
        return self.compiled


def test_candidates_compile_under_async_mode(monkeypatch):
    """Every candidate is asked for once with ``warmup=True`` (compile, do not launch)
    inside one AsyncCompileMode, with its tile's options and the launch's constexprs."""
    pytest.importorskip("triton.runtime._async_compile")
    import triton
    monkeypatch.delenv("SPARSEFLASH_COMPILE_THREADS", raising=False)
    fn = FakeAsyncJit()
    configs = [triton.Config({"BLOCK_M": m}, num_warps=w, num_stages=2)
               for m, w in ((64, 4), (32, 8), (16, 4))]
    assert fastlaunch.compile_in_parallel(fn, configs, (1,), (1, 2), {"EVEN": True})
    assert [(warmup, in_mode) for warmup, in_mode, _ in fn.runs] == [(True, True)] * 3
    assert [kw["BLOCK_M"] for _, _, kw in fn.runs] == [64, 32, 16]
    assert all(kw["EVEN"] is True and kw["num_stages"] == 2 for _, _, kw in fn.runs)
    from triton.runtime import _async_compile
    assert _async_compile.active_mode.get() is None  # the mode ended with the call


@pytest.mark.parametrize("setting, candidates, expected", [
    ("0", 8, False), ("1", 8, False), ("4", 8, True), (None, 1, False)])
def test_compile_threads_setting(monkeypatch, setting, candidates, expected):
    """SPARSEFLASH_COMPILE_THREADS=0 or 1 leaves compiling to the autotuner, as does a
    single candidate."""
    pytest.importorskip("triton.runtime._async_compile")
    import triton
    if setting is None:
        monkeypatch.delenv("SPARSEFLASH_COMPILE_THREADS", raising=False)
    else:
        monkeypatch.setenv("SPARSEFLASH_COMPILE_THREADS", setting)
    fn = FakeAsyncJit()
    configs = [triton.Config({"BLOCK_M": 16 * (i + 1)}) for i in range(candidates)]
    assert fastlaunch.compile_in_parallel(fn, configs, (1,), (), {}) is expected
    assert len(fn.runs) == (candidates if expected else 0)


@pytest.mark.parametrize("kind", ["fwd", "dkdv", "dq"])
def test_candidate_tiles_by_layout_block(monkeypatch, kind):
    """On a GPU: tiles fit the layout block; both sides under 64 only where the block
    needs them or nothing wider fits the shared-memory budget."""
    from sparseflash.kernels import launch
    monkeypatch.setattr(launch, "interpreting", lambda: False)
    monkeypatch.delenv("SPARSEFLASH_NO_AUTOTUNE", raising=False)
    configs = launch._candidate_configs(kind)

    def tiles(block, block_d):
        kept = launch._prune(kind, configs, {}, LAYOUT_BLOCK=block, BLOCK_D=block_d)
        return {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"]) for c in kept}
    assert all(max(t) >= 64 for t in tiles(128, 64)) and tiles(128, 64)
    assert tiles(64, 64) and all(max(t) == 64 and min(t) >= 32 for t in tiles(64, 64))
    assert (32, 32) in tiles(32, 64) and all(max(t) == 32 for t in tiles(32, 64))
    assert tiles(16, 64) == {(16, 16)}
    # A head dim so wide that no tile with a 64-wide side fits: the narrow ones stay.
    assert tiles(128, 512) and all(max(t) < 64 for t in tiles(128, 512))


class FakeTuner:
    """Stands in for Triton's autotuner: 'tunes' on each call and picks the first config."""

    def __init__(self, configs):
        self.configs, self.best_config, self.configs_timings = configs, None, None
        self.calls = 0

    def __getitem__(self, grid):
        def run(*args, **constexprs):
            self.calls += 1
            self.best_config = self.configs[0]
            self.configs_timings = {c: [1.0, 1.0, 1.0] for c in self.configs}
        return run


def test_candidates_compile_once_per_autotuner_key(monkeypatch):
    """A constexpr outside the tuning key (as HAS_SPLITS) makes a new kernel but reuses
    the autotuner's pick: its candidates are not compiled again for nothing."""
    import triton
    compiled_for = []
    monkeypatch.setattr(fastlaunch, "compile_in_parallel",
                        lambda fn, configs, grid, args, constexprs: compiled_for.append(
                            dict(constexprs)))
    monkeypatch.setattr(fastlaunch, "interpreting", lambda: False)
    kernel = Kernel(FakeJit())
    kernel.tuner = FakeTuner([triton.Config({"TILE": 64}), triton.Config({"TILE": 32})])
    kernel.tuning_key = ("BLOCK",)
    a, b = torch.zeros(64), torch.zeros(64)
    for block, even in ((32, True), (32, False), (64, True), (32, True)):
        kernel._config(("key",), ("key", ("BLOCK", block), ("EVEN", even)), (1,),
                       (a, b, 0.5, 7, 64, 100), dict(BLOCK=block, EVEN=even))
    assert compiled_for == [dict(BLOCK=32, EVEN=True), dict(BLOCK=64, EVEN=True)]
    assert len(kernel.picked) == 3  # (the fourth launch's key was picked already)
    assert all(len(t) == 2 for t in kernel.timings.values())


def test_a_callers_async_compile_mode_is_left_alone(monkeypatch):
    """Inside a caller's own AsyncCompileMode (only one may be active), the candidates are
    left to the autotuner instead of failing the launch."""
    _async_compile = pytest.importorskip("triton.runtime._async_compile")
    import concurrent.futures

    import triton
    monkeypatch.delenv("SPARSEFLASH_COMPILE_THREADS", raising=False)
    configs = [triton.Config({"BLOCK_M": m}) for m in (64, 32)]
    fn = FakeAsyncJit()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        with _async_compile.AsyncCompileMode(pool):
            assert not fastlaunch.compile_in_parallel(fn, configs, (1,), (), {})
    assert fn.runs == []


def test_compile_threads_setting_must_be_a_number(monkeypatch):
    monkeypatch.setenv("SPARSEFLASH_COMPILE_THREADS", "many")
    with pytest.raises(ValueError, match="SPARSEFLASH_COMPILE_THREADS.*'many'"):
        fastlaunch.compile_threads(4)
