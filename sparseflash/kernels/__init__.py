"""Triton kernels. Importing this package does not import Triton; ``launch`` does."""

import os
from typing import Tuple

import torch


def triton_available(device: torch.device) -> Tuple[bool, str]:
    """Whether the Triton kernels can run for tensors on ``device``, and why not."""
    try:
        import triton  # noqa: F401
    except ImportError:
        return False, "triton is not installed"
    if device.type == "cuda":
        return True, ""
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        return True, ""
    return False, (f"tensors are on {device.type}; the Triton kernels need CUDA, or "
                   "TRITON_INTERPRET=1 to run them in the interpreter on CPU")
