import os

import torch

# Must come before anything imports triton: on machines without a GPU the Triton kernels
# run in the interpreter; on a GPU they are compiled.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
