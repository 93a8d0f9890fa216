# PyTorch's share of the tensor-parallel MLP on one GPU (the layer of
# compute-only.mlir), three times, for per-kernel profiles with ncu.
import torch, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
w1 = torch.randn(16384, 8192, device="cuda", dtype=torch.bfloat16) / 90
w2 = torch.randn(8192, 16384, device="cuda", dtype=torch.bfloat16) / 128
for _ in range(3):
    y = F.linear(F.gelu(F.linear(x, w1), approximate="tanh"), w2)
torch.cuda.synchronize()
