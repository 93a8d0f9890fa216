"""Python interface to Fuser-MLIR."""

from .mesh import Mesh, local_shape, shard, shard_offset

__all__ = ["Mesh", "local_shape", "shard", "shard_offset"]
