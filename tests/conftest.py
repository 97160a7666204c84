import os

import torch

# Must come before anything imports triton: on machines without a GPU the Triton kernels
# run in the interpreter; on a GPU they are compiled.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
    # @triton.jit reads TRITON_INTERPRET when the kernel modules are imported. Import them
    # now, so that a test that unsets the variable (to check the error without it) cannot
    # be the first importer and leave compiled, un-runnable kernels to the tests after it.
    import sparseflash.kernels.launch  # noqa: E402,F401


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_launch_plans():
    """Each test plans its launches afresh (``launch.clear_plans``): tests swap a
    launcher's kernels or decision functions, which a plan made earlier would keep."""
    launch = sys.modules.get("sparseflash.kernels.launch")
    if launch is not None:
        launch.clear_plans()
    yield
    launch = sys.modules.get("sparseflash.kernels.launch")
    if launch is not None:
        launch.clear_plans()


def pytest_collection_modifyitems(config, items):
    """On a machine with CUDA the interpreter is off (unless TRITON_INTERPRET=1 was set
    before pytest started), so the CPU test files' ``backend="triton"`` cases and the tests
    marked ``triton_on_cpu``, which run the kernels on CPU tensors, cannot run there: they
    are skipped, not failed. The GPU file (``test_gpu.py``) covers the compiled kernels."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return
    skip = pytest.mark.skip(reason="Triton kernels on CPU tensors need TRITON_INTERPRET=1 "
                                   "(set by conftest.py only on machines without CUDA)")
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.path.name != "test_gpu.py" and (params.get("backend") == "triton"
                                                or item.get_closest_marker("triton_on_cpu")):
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "triton_on_cpu: runs the Triton kernels on CPU "
                                       "tensors (in the interpreter); skipped without it")
