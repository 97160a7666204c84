"""Bad input to ``sparseflash.attention`` gets a clear exception (type and message), never an
assert, a kernel fault or a silent fallback."""

import os

# TRITON_INTERPRET is set by tests/conftest.py on machines without CUDA.

import pytest  # noqa: E402
import torch  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash import LayoutError, compile_layout  # noqa: E402


def qkv(B=1, Hq=2, Hkv=2, N=32, Nk=32, D=16, dtype=torch.float32, device="cpu"):
    return (torch.randn(B, Hq, N, D, dtype=dtype, device=device),
            torch.randn(B, Hkv, Nk, D, dtype=dtype, device=device),
            torch.randn(B, Hkv, Nk, D, dtype=dtype, device=device))


def attention(q, k, v, layout="dense", **kw):
    kw.setdefault("block", 16)
    kw.setdefault("backend", "torch")
    return sparseflash.attention(q, k, v, layout, **kw)


# ----------------------------------------------------------------------------- tensors
@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_not_a_tensor(which):
    t = dict(zip("qkv", qkv()))
    t[which] = t[which].tolist()
    with pytest.raises(TypeError, match=f"{which} must be a torch.Tensor"):
        attention(t["q"], t["k"], t["v"])


@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_wrong_rank(which):
    t = dict(zip("qkv", qkv()))
    t[which] = t[which][0]
    with pytest.raises(ValueError, match=rf"{which} must have shape \(B, H, N, D\)"):
        attention(t["q"], t["k"], t["v"])


def test_k_v_shapes_differ():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="k and v must have the same shape"):
        attention(q, k, v[:, :, :20])


def test_batch_sizes_differ():
    q, _, _ = qkv(B=2)
    _, k, v = qkv(B=1)
    with pytest.raises(ValueError, match="batch sizes differ"):
        attention(q, k, v)


def test_head_dims_differ():
    q, _, _ = qkv(D=32)
    _, k, v = qkv(D=16)
    with pytest.raises(ValueError, match="head dims differ"):
        attention(q, k, v)


def test_value_head_dim_differs():
    q, k, _ = qkv(D=16)
    v = torch.randn(1, 2, 32, 32)
    with pytest.raises(ValueError, match="k and v must have the same shape"):
        attention(q, k, v)


@pytest.mark.parametrize("D", [8, 15, 257, 512])
def test_head_dim_out_of_range(D):
    with pytest.raises(ValueError, match="outside the supported range 16..256"):
        attention(*qkv(D=D))


@pytest.mark.parametrize("Hq,Hkv", [(3, 2), (4, 3), (2, 4)])
def test_heads_not_a_multiple(Hq, Hkv):
    with pytest.raises(ValueError, match="must be a multiple of the number of key/value heads"):
        attention(*qkv(Hq=Hq, Hkv=Hkv))


def test_empty_sequence():
    with pytest.raises(ValueError, match="sequence lengths must be positive"):
        attention(*qkv(N=0))
    with pytest.raises(ValueError, match="sequence lengths must be positive"):
        attention(*qkv(Nk=0))


@pytest.mark.parametrize("dtype", [torch.float64, torch.int32, torch.int64, torch.bool,
                                   torch.complex64], ids=str)
def test_unsupported_dtype(dtype):
    q, k, v = (t.to(dtype) for t in qkv())
    with pytest.raises(TypeError, match="supported: float16, bfloat16, float32"):
        attention(q, k, v)


@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_one_unsupported_dtype(which):
    t = dict(zip("qkv", qkv()))
    t[which] = t[which].double()
    with pytest.raises(TypeError, match=f"{which} has dtype torch.float64"):
        attention(t["q"], t["k"], t["v"])


@pytest.mark.parametrize("dtypes", [(torch.float16, torch.float32, torch.float32),
                                    (torch.float32, torch.bfloat16, torch.bfloat16),
                                    (torch.float16, torch.float16, torch.bfloat16)])
def test_mixed_dtypes(dtypes):
    q, k, v = (t.to(d) for t, d in zip(qkv(), dtypes))
    with pytest.raises(TypeError, match="q, k, v must share a dtype"):
        attention(q, k, v)


@pytest.mark.parametrize("backend", ["torch", "triton"])
def test_mixed_devices(backend):
    """CPU and 'meta' tensors (a second device that exists without a GPU)."""
    q, _, _ = qkv()
    _, k, v = qkv(device="meta")
    with pytest.raises(ValueError, match="must be on one device"):
        attention(q, k, v, backend=backend)
    with pytest.raises(ValueError, match="must be on one device"):
        attention(q, k, torch.randn(v.shape), backend=backend)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_mixed_cpu_cuda():
    q, _, _ = qkv()
    _, k, v = qkv(device="cuda")
    with pytest.raises(ValueError, match="must be on one device"):
        attention(q, k, v)


# ----------------------------------------------------------------------------- block
@pytest.mark.parametrize("block", [0, 8, 24, 48, 100, -16, 16.0, True, "16"])
def test_bad_block(block):
    with pytest.raises(ValueError, match="block must be a power of two >= 16"):
        attention(*qkv(), block=block)


# ----------------------------------------------------------------------------- layout
def test_layout_wrong_seq_len():
    lay = compile_layout("local(1)", 64, block=16)
    with pytest.raises(LayoutError, match="layout was compiled for seq_len=64"):
        attention(*qkv(N=32, Nk=32), lay)


def test_layout_wrong_kv_seq_len():
    lay = compile_layout("local(1)", 32, kv_seq_len=48, block=16)
    with pytest.raises(LayoutError, match="kv_seq_len=48"):
        attention(*qkv(N=32, Nk=32), lay)


@pytest.mark.parametrize("block", [32, 128])  # 128, the default for strings, is no exception
def test_layout_wrong_block(block):
    lay = compile_layout("local(1)", 32, block=16)
    with pytest.raises(LayoutError, match=f"block={block} was passed but the layout was "
                                          "compiled with block=16"):
        attention(*qkv(), lay, block=block)


def test_layout_carries_its_block():
    q, k, v = qkv()
    lay = compile_layout("local(1)", 32, block=16)
    out = sparseflash.attention(q, k, v, lay, backend="torch")
    same = sparseflash.attention(q, k, v, "local(1)", block=16, backend="torch")
    torch.testing.assert_close(out, same, rtol=0, atol=0)


def test_layout_wrong_heads():
    lay = compile_layout("per_head(local(0), causal)", 32, block=16, num_heads=2)
    with pytest.raises(LayoutError, match="layout has 2 heads but is used with 4"):
        attention(*qkv(Hq=4, Hkv=4), lay)
    # One head per *kv* head is not enough either (H of the layout is 1 or Hq).
    with pytest.raises(LayoutError, match="layout has 2 heads but is used with 4"):
        attention(*qkv(Hq=4, Hkv=2), lay)


@pytest.mark.parametrize("shape", [(1, 3, 3), (1, 2, 2), (1, 3, 2), (2, 2), (2, 2, 3, 3)])
def test_block_mask_wrong_shape(shape):
    # N=32, Nk=40, block 16 -> (H or 1, 2, 3)
    mask = torch.ones(shape, dtype=torch.bool)
    with pytest.raises(LayoutError, match=r"expected \(H or 1, 2, 3\)"):
        attention(*qkv(N=32, Nk=40), mask)


def test_block_mask_wrong_heads():
    mask = torch.ones(3, 2, 2, dtype=torch.bool)
    with pytest.raises(LayoutError, match="block mask has 3 heads; expected 1 or 2"):
        attention(*qkv(Hq=2), mask)


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.uint8], ids=str)
def test_block_mask_not_bool(dtype):
    mask = torch.ones(1, 2, 2, dtype=dtype)
    with pytest.raises(LayoutError, match="must be a bool tensor"):
        attention(*qkv(), mask)


@pytest.mark.parametrize("layout", [3, None, [[True]], 1.5])
def test_layout_wrong_type(layout):
    with pytest.raises(TypeError, match="layout must be a pattern string, a Layout or a bool"):
        attention(*qkv(), layout)


def test_bad_pattern_string():
    with pytest.raises(LayoutError, match="did you mean 'local'"):
        attention(*qkv(), "locl(1)")


def test_layout_error_is_a_value_error():
    assert issubclass(LayoutError, ValueError)


# ----------------------------------------------------------------------------- dropout
@pytest.mark.parametrize("p", [-0.1, 1.0, 0.99999, 1.5, float("nan"), float("inf"), "0.1", None])
def test_bad_dropout_p(p):
    with pytest.raises(ValueError, match=r"dropout_p must be in \[0, 1 - 2\*\*-16\]"):
        attention(*qkv(), dropout_p=p)


# ----------------------------------------------------------------------------- backend
@pytest.mark.parametrize("backend", ["cuda", "Triton", "", None, "flash"])
def test_bad_backend(backend):
    with pytest.raises(ValueError, match="backend must be one of"):
        attention(*qkv(), backend=backend)


@pytest.mark.parametrize("value", ["0", "", "true"])
def test_triton_on_cpu_without_interpreter(monkeypatch, value):
    """An explicit backend="triton" never falls back to torch: without TRITON_INTERPRET=1
    on CPU it raises (triton_available reads the variable on each call)."""
    from sparseflash.kernels import triton_available

    monkeypatch.setenv("TRITON_INTERPRET", value)
    ok, why = triton_available(torch.device("cpu"))
    assert not ok and "TRITON_INTERPRET=1" in why
    with pytest.raises(RuntimeError, match="backend='triton' cannot run here"):
        attention(*qkv(), backend="triton")
    # auto still works: it picks torch on CPU.
    out = attention(*qkv(), backend="auto")
    assert out.shape == (1, 2, 32, 16)


def test_triton_on_cpu_without_interpreter_unset(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"):
        attention(*qkv(), backend="triton")


# ----------------------------------------------------------------------------- key padding
@pytest.mark.parametrize("shape", [(1, 31), (1, 33), (2, 32), (32,), (1, 1, 32)])
def test_key_padding_wrong_shape(shape):
    kpm = torch.zeros(shape, dtype=torch.bool)
    with pytest.raises(ValueError, match=r"key_padding_mask must have shape \(B, Nk\) = \(1, 32\)"):
        attention(*qkv(), key_padding_mask=kpm)


def test_key_padding_uses_nk_not_n():
    kpm = torch.zeros(1, 20, dtype=torch.bool)  # N=20 but Nk=32
    with pytest.raises(ValueError, match=r"= \(1, 32\)"):
        attention(*qkv(N=20, Nk=32), key_padding_mask=kpm)


@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.float32], ids=str)
def test_key_padding_wrong_dtype(dtype):
    kpm = torch.zeros(1, 32, dtype=dtype)
    with pytest.raises(TypeError, match="key_padding_mask must be a bool tensor"):
        attention(*qkv(), key_padding_mask=kpm)


def test_key_padding_not_a_tensor():
    with pytest.raises(TypeError, match="key_padding_mask must be a bool tensor"):
        attention(*qkv(), key_padding_mask=[[False] * 32])


def test_key_padding_wrong_device():
    kpm = torch.zeros(1, 32, dtype=torch.bool, device="meta")
    with pytest.raises(ValueError, match="key_padding_mask is on meta"):
        attention(*qkv(), key_padding_mask=kpm)
