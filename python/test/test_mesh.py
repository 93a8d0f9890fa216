"""Tests of the fuser_mlir.mesh bindings (run by scripts/test.sh)."""

import unittest

from fuser_mlir import Mesh, local_shape, shard, shard_offset


class Grid:
    """A minimal sliceable 2-D table, so the tests need no NumPy."""

    def __init__(self, rows, cols):
        self.data = [[r * cols + c for c in range(cols)] for r in range(rows)]
        self.shape = (rows, cols)

    def __getitem__(self, index):
        rows, cols = index
        picked = [row[cols] for row in self.data[rows]]
        grid = Grid(0, 0)
        grid.data = picked
        grid.shape = (len(picked), len(picked[0]) if picked else 0)
        return grid


class MeshTest(unittest.TestCase):
    def test_teams_of_rank_five(self):
        mesh = Mesh([2, 4])
        self.assertEqual(mesh.num_devices, 8)
        self.assertEqual(mesh.team(5, [1]), [4, 5, 6, 7])
        self.assertEqual(mesh.team(5, [0]), [1, 5])
        self.assertEqual(mesh.index_in_team(5, [0]), 1)
        self.assertEqual(mesh.coordinates_of(5), [1, 1])
        self.assertIsNone(mesh.coordinates_of(9))

    def test_explicit_devices(self):
        mesh = Mesh([2, 2], devices=[0, 2, 1, 3])
        self.assertEqual(mesh.team(2, [1]), [0, 2])

    def test_local_shape_and_offset(self):
        mesh = Mesh([2, 4])
        self.assertEqual(local_shape([16, 32], [[0, 1], []], mesh, 6), [2, 32])
        self.assertEqual(shard_offset([16, 32], [[0, 1], []], mesh, 6), [12, 0])
        self.assertIsNone(local_shape([16, 32], [[0], []], Mesh([2], [4, 5]), 0))

    def test_shard_cuts_the_block_of_the_device(self):
        grid = Grid(4, 6)
        piece = shard(grid, [[], [0]], Mesh([2]), 1)
        self.assertEqual(piece.shape, (4, 3))
        self.assertEqual(piece.data[0], [3, 4, 5])

    def test_bad_input_raises(self):
        with self.assertRaisesRegex(ValueError, "mesh of 4 positions has 3 device ids"):
            Mesh([2, 2], devices=[0, 1, 2])
        with self.assertRaisesRegex(ValueError, "device id -1 at position 0 is negative"):
            Mesh([2], devices=[-1, 0])
        with self.assertRaisesRegex(ValueError, "device id 3 appears at positions 0 and 1"):
            Mesh([2], devices=[3, 3])
        with self.assertRaisesRegex(ValueError, "mesh axis 1 has size 0"):
            Mesh([2, 0])
        with self.assertRaisesRegex(ValueError, "more than 1048576 positions"):
            Mesh([4000000000, 4000000000])
        with self.assertRaisesRegex(ValueError, "every device id or none"):
            Mesh([2], devices=[])
        with self.assertRaisesRegex(ValueError, "not divisible by 2"):
            local_shape([5], [[0]], Mesh([2]), 0)
        with self.assertRaisesRegex(ValueError, "out of range"):
            Mesh([2]).team(0, [1])
        with self.assertRaisesRegex(ValueError, "describes 1 dims"):
            shard_offset([4, 4], [[0]], Mesh([2]), 0)


if __name__ == "__main__":
    unittest.main()
