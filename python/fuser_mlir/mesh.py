"""Device meshes and shards, computed exactly as compiled programs do."""

from ._mesh import Mesh, local_shape, shard_offset


def shard(tensor, dim_axes, mesh, device):
    """Returns `device`'s shard of a global tensor, or None if it holds none.

    `tensor` is anything sliceable with a `shape` (a NumPy array, a PyTorch
    tensor); `dim_axes` lists per dim the mesh axes that split it, outermost
    first, as in `#fuser.sharding`.
    """
    shape = [int(size) for size in tensor.shape]
    offsets = shard_offset(shape, dim_axes, mesh, device)
    if offsets is None:
        return None
    sizes = local_shape(shape, dim_axes, mesh, device)
    return tensor[tuple(slice(o, o + s) for o, s in zip(offsets, sizes))]


__all__ = ["Mesh", "local_shape", "shard", "shard_offset"]
