"""One rank of the tensor runs of the TP MLP library given on the command
line (program x [8, 64], w1 [256, 64] split on rows, w2 [64, 256] split on
columns over a 1-D mesh of any size; f32 or bf16). With `--torch` the inputs are PyTorch tensors on the
device the program runs on (the rank's GPU for a `cuda` library); without,
NumPy arrays seen only through DLPack, as another array library's tensors
would be. Runs global inputs and pieces, whole outputs and pieces, checks
them against the MLP computed by the tensor library, and the errors. Prints
one line per rank."""

import gc
import sys

import numpy as np

from fuser_mlir import Mesh, runtime, shard
from rank_support import expect_error


class DLPackOnly:
    """A tensor of a library the runtime does not know: DLPack only."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def gelu_tanh(x, tanh):
    return 0.5 * x * (1 + tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


class NumpyTensors:
    """Inputs through DLPack only; outputs read with numpy.from_dlpack."""

    tolerance = 1e-3

    def __init__(self, library):
        assert library.target == "cpu", "NumPy tensors are on the CPU"
        self.dtype = np.float32

    def make(self, array):
        return DLPackOnly(np.ascontiguousarray(array, dtype=self.dtype))

    def read(self, tensor):
        assert isinstance(tensor, runtime.Tensor), type(tensor)
        return np.from_dlpack(tensor).astype(np.float32)

    def mlp(self, x, w1, w2):
        return gelu_tanh(x @ w1.T, np.tanh) @ w2.T

    def wrong_dtype(self, array):
        return DLPackOnly(array.astype(np.float64))


class TorchTensors:
    """PyTorch tensors on the program's device."""

    def __init__(self, library):
        import torch

        self.torch = torch
        on_gpu = library.target == "cuda"
        self.device = (torch.device("cuda", runtime.device_index()) if on_gpu
                       else torch.device("cpu"))
        if on_gpu:
            torch.cuda.set_device(self.device)
        element = library.inputs(library.programs[0])[0]["dtype"]
        self.dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[element]
        self.tolerance = 1e-3 if element == "f32" else 3e-2

    def make(self, array):
        return self.torch.from_numpy(np.ascontiguousarray(array)).to(
            self.device, self.dtype)

    def read(self, tensor):
        assert isinstance(tensor, self.torch.Tensor), type(tensor)
        assert tensor.device == self.device and tensor.dtype == self.dtype, (
            tensor.device, tensor.dtype)
        return tensor.float().cpu().numpy()

    def mlp(self, x, w1, w2):
        torch = self.torch
        values = [torch.from_numpy(v).to(self.device, self.dtype).float()
                  for v in (x, w1, w2)]
        h = values[0] @ values[1].T
        y = gelu_tanh(h, torch.tanh) @ values[2].T
        return y.cpu().numpy()

    def wrong_dtype(self, array):
        return self.torch.from_numpy(array.astype(np.float64)).to(self.device)


def main(path, use_torch):
    library = runtime.Library(path)
    program = library.programs[0]
    tensors = (TorchTensors if use_torch else NumpyTensors)(library)
    rank = runtime.rank()
    generator = np.random.default_rng(7)
    x = generator.uniform(-1, 1, (8, 64)).astype(np.float32)
    w1 = generator.uniform(-1, 1, (256, 64)).astype(np.float32)
    w2 = generator.uniform(-1, 1, (64, 256)).astype(np.float32)
    expected = tensors.mlp(x, w1, w2)
    bound = tensors.tolerance * np.abs(expected).max()

    def check(name, output):
        values = tensors.read(output)
        assert values.shape == (8, 64), (name, values.shape)
        error = np.abs(values - expected).max()
        assert error < bound, (name, error, bound)

    inputs = [tensors.make(v) for v in (x, w1, w2)]
    y, = library.run(program, inputs)
    check("global inputs, whole output", y)
    mesh = Mesh(library.inputs(program)[1]["mesh_shape"])
    pieces = [tensors.make(v) for v in
              (x, shard(w1, [[0], []], mesh, rank), shard(w2, [[], [0]], mesh, rank))]
    y_piece, = library.run(program, pieces, pieces=True, gather=False)
    # The output keeps what it views alive when the inputs are gone.
    del pieces
    gc.collect()
    check("pieces in place, output in place", y_piece)
    if use_torch and tensors.device.type == "cuda":
        # On the caller's stream: a stream of its own, PyTorch's current.
        torch = tensors.torch
        side = torch.cuda.Stream(tensors.device)
        with torch.cuda.stream(side):
            y_side, = library.run(program, inputs, gather=False)
            y_side = y_side + 0
        side.synchronize()
        check("on a side stream", y_side)

    expect_error(ValueError, f"{program} takes 3 inputs, not 2",
                 lambda: library.run(program, inputs[:2]))
    expect_error(TypeError, "input #0 is float64; the program takes",
                 lambda: library.run(program, [tensors.wrong_dtype(x)] + inputs[1:]))
    if mesh.num_devices > 1:
        expect_error(ValueError, "input #1 has shape [256, 64]; the program takes [",
                     lambda: library.run(program, inputs, pieces=True))
    expect_error(TypeError, "inputs mix arrays and tensors",
                 lambda: library.run(program, [x] + inputs[1:]))
    if not use_torch:
        every_other_column = np.repeat(w1, 2, axis=1)[:, ::2]
        expect_error(ValueError, "input #1's last dim has stride 2",
                     lambda: library.run(program, [inputs[0], DLPackOnly(every_other_column),
                                                   inputs[2]]))
    if use_torch and tensors.device.type == "cuda":
        expect_error(ValueError, "input #0 is on the CPU; the program runs on GPU",
                     lambda: library.run(program, [inputs[0].cpu()] + inputs[1:]))
    print(f"rank {rank} of {runtime.world_size()}: {program} "
          f"{'torch' if use_torch else 'dlpack'} {library.target} ok")


if __name__ == "__main__":
    main(sys.argv[1], "--torch" in sys.argv[2:])
