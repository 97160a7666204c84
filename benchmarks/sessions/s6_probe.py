"""Session 6 probe: which Hopper features Triton on the device exposes (tensor descriptors
made in-kernel, warp specialisation of a loop). Prints one line per feature."""
import torch
import triton
import triton.language as tl


def _alloc(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


@triton.jit
def _copy(X, Y, N, BLOCK: tl.constexpr, WS: tl.constexpr):
    desc = tl.make_tensor_descriptor(X, shape=[N, 64], strides=[64, 1], block_shape=[BLOCK, 64])
    acc = tl.zeros((BLOCK, 64), tl.float32)
    for i in tl.range(0, tl.cdiv(N, BLOCK), warp_specialize=WS):
        acc += desc.load([i * BLOCK, 0]).to(tl.float32)
    tl.store(Y + tl.arange(0, BLOCK)[:, None] * 64 + tl.arange(0, 64)[None, :], acc)


print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
triton.set_allocator(_alloc)
x = torch.randn(1000, 64, device="cuda", dtype=torch.float16)
for ws in (False, True):
    try:
        y = torch.empty(128, 64, device="cuda")
        _copy[(1,)](x, y, 1000, BLOCK=128, WS=ws)
        ref = torch.nn.functional.pad(x.float(), (0, 0, 0, 24)).view(8, 128, 64).sum(0)
        print(f"descriptor load, warp_specialize={ws}: ok, max err",
              (y - ref).abs().max().item())
    except Exception as e:  # report, do not stop: this is a probe
        print(f"descriptor load, warp_specialize={ws}: FAILED {type(e).__name__}: {str(e)[:300]}")
