import pickle
import warnings

import pytest
import torch

import sparseflash
from sparseflash import BlockSparseAttention, LayoutError


def test_matches_multihead_attention_when_dense():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(64, 4, batch_first=True)
    ours = BlockSparseAttention(64, 4, "dense", block=16)
    w = mha.in_proj_weight.detach()
    b = mha.in_proj_bias.detach()
    with torch.no_grad():
        for proj, rows in zip((ours.q_proj, ours.k_proj, ours.v_proj), w.split(64)):
            proj.weight.copy_(rows)
        for proj, bias in zip((ours.q_proj, ours.k_proj, ours.v_proj), b.split(64)):
            proj.bias.copy_(bias)
        ours.out_proj.weight.copy_(mha.out_proj.weight)
        ours.out_proj.bias.copy_(mha.out_proj.bias)
    x = torch.randn(2, 37, 64)
    pad = torch.zeros(2, 37, dtype=torch.bool)
    pad[1, 30:] = True
    expected, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
    got = ours(x, key_padding_mask=pad)
    assert (got - expected).abs().max() < 1e-5


def test_bad_pattern_fails_at_construction():
    with pytest.raises(LayoutError, match="did you mean"):
        BlockSparseAttention(64, 4, "locl(1)")


def test_sparse_forward_backward_and_cache():
    m = BlockSparseAttention(32, 2, "local(1) | global(1)", block=16, num_kv_heads=1,
                             causal=True)
    x = torch.randn(2, 70, 32, requires_grad=True)
    m(x).sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()
    assert len(m._layouts) == 1
    m(torch.randn(1, 70, 32))
    assert len(m._layouts) == 1
    assert "local(1) | global(1)" in repr(m)


def test_cross_attention_shapes():
    m = BlockSparseAttention(32, 2, "dense", block=16)
    out = m(torch.randn(2, 20, 32), torch.randn(2, 50, 32))
    assert out.shape == (2, 20, 32)


def test_state_dict_and_pickle_hold_no_layout_tensors():
    m = BlockSparseAttention(32, 2, "butterfly", block=16)
    m(torch.randn(1, 64, 32))
    state = m.state_dict()
    assert state["_extra_state"] == {"layout": "butterfly", "causal": False, "block": 16}
    assert all(k.split(".")[0].endswith("proj") for k in state if k != "_extra_state")
    clone = pickle.loads(pickle.dumps(m))
    assert clone.pattern == "butterfly" and clone._layouts == {}
    x = torch.randn(1, 64, 32)
    assert torch.equal(clone(x), m(x))


def test_state_dict_round_trip_and_pattern_mismatch_warning():
    m = BlockSparseAttention(32, 2, "local(1)", block=16)
    same = BlockSparseAttention(32, 2, "local(1)", block=16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same.load_state_dict(m.state_dict())
    x = torch.randn(1, 48, 32)
    assert torch.equal(same(x), m(x))
    other = BlockSparseAttention(32, 2, "dense", block=16)
    with pytest.warns(UserWarning, match="keeps its own pattern"):
        other.load_state_dict(m.state_dict())
    assert other.pattern == "dense"


def test_declared_length_is_built_at_construction():
    m = BlockSparseAttention(32, 2, "local(1)", block=16, seq_len=48)
    assert list(m._layouts) == [(48, 48, "cpu")]
    assert m.layout_for(48) is m._layouts[(48, 48, "cpu")]  # the forward's lookup hits it
    cross = BlockSparseAttention(32, 2, "dense", block=16, seq_len=20, kv_seq_len=50)
    assert list(cross._layouts) == [(20, 50, "cpu")]
    assert "seq_len=20, kv_seq_len=50" in repr(cross)
    assert BlockSparseAttention(32, 2, "dense")._layouts == {}  # nothing declared


@pytest.mark.parametrize("kwargs, message", [
    ({"kv_seq_len": 32}, "needs seq_len"),
    ({"seq_len": 0}, "positive int"),
    ({"seq_len": 32.0}, "positive int"),
    ({"seq_len": True}, "positive int"),
    ({"seq_len": 32, "kv_seq_len": -1}, "kv_seq_len must be a positive int"),
])
def test_declared_length_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BlockSparseAttention(32, 2, "dense", block=16, **kwargs)


def test_declared_length_follows_the_module_across_devices():
    """Moving the module drops the old device's layouts and builds the declared one on the
    new device; a dtype change keeps them. The meta device (a model only being described)
    gets none, and to_empty builds it where the weights land."""
    m = BlockSparseAttention(32, 2, "local(1)", block=16, seq_len=48)
    m(torch.randn(1, 64, 32))  # an undeclared length, cached too
    before = m._layouts[(48, 48, "cpu")]
    m.to(torch.float64)
    assert m._layouts[(48, 48, "cpu")] is before and (64, 64, "cpu") in m._layouts
    m.to("meta")
    assert m._layouts == {}
    m.to_empty(device="cpu")
    assert list(m._layouts) == [(48, 48, "cpu")]
    with torch.device("meta"):
        described = BlockSparseAttention(32, 2, "local(1)", block=16, seq_len=48)
    assert described._layouts == {}
    described.to_empty(device="cpu")
    assert list(described._layouts) == [(48, 48, "cpu")]


def test_declared_length_is_rebuilt_by_copies_and_pickles():
    import copy

    m = BlockSparseAttention(32, 2, "butterfly", block=16, seq_len=64)
    x = torch.randn(1, 64, 32)
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert list(clone._layouts) == [(64, 64, "cpu")]
        assert torch.equal(clone(x), m(x))
    # A module pickled before lengths could be declared has neither attribute.
    state = m.__getstate__()
    del state["seq_len"], state["kv_seq_len"]
    old = BlockSparseAttention.__new__(BlockSparseAttention)
    old.__setstate__(state)
    assert old.seq_len is None and old._layouts == {}
    assert torch.equal(old(x), m(x))
