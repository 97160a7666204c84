"""sparseflash: block-sparse FlashAttention for PyTorch.

Write a sparsity pattern as a string, compile it to a block layout, and run exact attention
over the non-zero blocks only::

    import sparseflash
    out = sparseflash.attention(q, k, v, "local(2) | global(1) | butterfly")

Importing the package never touches a GPU; Triton is imported on first use of its kernels.
"""

from .layout import Layout, LayoutError, Pattern, compile_layout, nnz_growth, parse

__version__ = "0.1.0"

__all__ = ["Layout", "LayoutError", "Pattern", "compile_layout", "nnz_growth", "parse",
           "attention", "BlockSparseAttention"]


def __getattr__(name):
    # The attention function and module import torch.nn / kernels lazily, keeping
    # `import sparseflash` cheap and free of device queries. The first lookup binds the
    # name here, so later `sparseflash.attention` lookups skip this function (a few
    # microseconds of every call).
    if name == "attention":
        from .functional import attention as value
    elif name == "BlockSparseAttention":
        from .nn import BlockSparseAttention as value
    else:
        raise AttributeError(f"module 'sparseflash' has no attribute '{name}'")
    globals()[name] = value
    return value
