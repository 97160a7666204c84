"""Triton kernels (imported only when used)."""
