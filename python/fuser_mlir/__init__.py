"""Python interface to Fuser-MLIR."""

from .builder import FusionDefinition, Sharding, Tensor
from .mesh import Mesh, local_shape, shard, shard_offset

__all__ = ["FusionDefinition", "Mesh", "Sharding", "Tensor", "local_shape",
           "shard", "shard_offset"]
