"""``hopper_exp2``: the polynomial exp2 of the Gluon kernels, emulated step for step in
float32 on any machine, its PTX compiled for sm_90, and (on an H100/H200) run against
float64."""

import numpy as np
import pytest
import torch

from sparseflash.kernels import hopper, hopper_exp2


def test_emulated_polynomial_is_as_close_as_the_sfu():
    """Within 2.5e-7 of 2^x relative over the range the kernels use (ex2.approx: 2 ulp)."""
    x = np.concatenate([np.linspace(-126.0, 0.0, 2_000_001, dtype=np.float32),
                        -np.random.default_rng(0).random(200_000, dtype=np.float32),
                        np.float32(0.5) * np.arange(-40, 41, dtype=np.float32)])
    rel = np.abs(hopper_exp2.emulate(x) / np.exp2(x.astype(np.float64)) - 1)
    assert rel.max() < 2.5e-7


def test_emulated_polynomial_edges():
    """Integers give powers of two to the fit's error; deep negatives give 0 as the SFU's
    flush does; NaN stays NaN."""
    x = np.array([-3.0, 0.0, 7.0, -127.0, -200.0, -np.inf, np.nan], dtype=np.float32)
    y = hopper_exp2.emulate(x)
    np.testing.assert_allclose(y[:3], [0.125, 1.0, 128.0], rtol=2e-7)
    assert (y[3:6] == 0).all() and np.isnan(y[6])


def test_asm_takes_the_asked_share():
    """``poly`` of the pack's elements go through the polynomial, the rest through ex2."""
    for poly in range(hopper_exp2.PACK + 1):
        text = hopper_exp2.asm(poly)
        assert text.count("max.NaN.f32") == poly
        assert text.count("ex2.approx.ftz.f32") == hopper_exp2.PACK - poly
    with pytest.raises(ValueError, match="poly must be in"):
        hopper_exp2.asm(9)


needs_hopper = pytest.mark.skipif(
    not (torch.cuda.is_available() and hopper.AVAILABLE
         and torch.cuda.get_device_capability()[0] == 9), reason="needs an sm_90 GPU")


@needs_hopper
@pytest.mark.parametrize("poly", [1, 2, 4])
def test_exp2_mixed_on_gpu_against_float64(poly):
    """The inline PTX on the GPU: every element within 3e-7 of 2^x over [-126, 10], 0
    under -127, NaN for NaN; each element is bit for bit either ``gl.exp2``'s (POLY=0,
    the SFU) or the emulated polynomial's, and some are the polynomial's where the two
    differ (the share really went through it)."""
    gen = torch.Generator().manual_seed(1)
    x = torch.cat([torch.rand(65536, generator=gen) * -126.0, torch.rand(4096, generator=gen)
                   * 10.0, torch.arange(-126, 11, dtype=torch.float32),
                   torch.tensor([-127.0, -300.0, float("-inf"), float("nan")])])
    y = hopper_exp2.exp2_on_gpu(x.cuda(), poly).cpu()
    sfu = hopper_exp2.exp2_on_gpu(x.cuda(), 0).cpu()
    body = x[:-4]
    rel = (y[:-4].double() / torch.exp2(body.double()) - 1).abs()
    assert rel.max().item() < 3e-7
    assert (y[-4:-1] == 0).all() and torch.isnan(y[-1])
    emulated = torch.from_numpy(hopper_exp2.emulate(body.numpy()))
    assert ((y[:-4] == emulated) | (y[:-4] == sfu[:-4])).all()
    taken = (y[:-4] == emulated) & (emulated != sfu[:-4])
    differ = (emulated != sfu[:-4]).sum().item()
    # About poly / PACK of the differing elements (which ones is the compiler's choice).
    assert 0.5 * poly / hopper_exp2.PACK < taken.sum().item() / differ < 2 * poly / hopper_exp2.PACK
