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
