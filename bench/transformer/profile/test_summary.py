#!/usr/bin/env python3
"""Tests of summary.py: which launches of an ncu CSV are one execution."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name",'
          '"Context","Stream","Block Size","Grid Size","Device","CC",'
          '"Section Name","Metric Name","Metric Unit","Metric Value"\n')


def csv_text(launches):
    rows = [HEADER]
    for index, (name, microseconds) in enumerate(launches):
        rows.append(f'"{index}","1","p","h","{name}","1","7","(256, 1, 1)",'
                    f'"(1, 1, 1)","0","9.0","Command line profiler metrics",'
                    f'"gpu__time_duration.sum","nsecond","{microseconds * 1000:,.0f}"\n')
    return "".join(rows)


class Executions(unittest.TestCase):
    def launches(self, rows, noise=""):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(noise + csv_text(rows))
        try:
            return summary.launches(f.name)
        finally:
            os.remove(f.name)

    def test_reads_microseconds_past_the_program_lines(self):
        rows = self.launches([("gpt_backward_kernel_0", 1.5)],
                             noise="fuser-exec: gpt_backward on 1 ranks\n")
        self.assertEqual(rows, [("gpt_backward_kernel_0", 1.5)])

    def test_the_last_execution_is_the_repeated_suffix(self):
        # The first execution also times GEMM candidates.
        execution = [("k0", 1.0), ("gemm", 5.0), ("k1", 2.0)]
        tuning = [("gemm", 6.0), ("gemm", 7.0)]
        rows = [("k0", 1.0), ("gemm", 5.0)] + tuning + [("k1", 2.0)] + \
            execution + execution
        self.assertEqual(summary.last_execution(rows), execution)

    def test_pytorch_iterations_end_at_spin_kernels(self):
        rows = [("a", 1.0), (summary.SPIN, 1.0), ("b", 2.0), ("c", 3.0),
                (summary.SPIN, 1.0)]
        self.assertEqual(summary.last_iteration(rows), [("b", 2.0), ("c", 3.0)])

    def test_kinds(self):
        self.assertEqual(summary.kind("nvjet_sm90_tst_256x128_NNT"), "gemm")
        self.assertEqual(summary.kind("gpt_forward_kernel_3"), "ours")
        self.assertEqual(summary.kind("ncclDevKernel_AllReduce"), "nccl")
        self.assertEqual(summary.kind(
            "cudnn_generated_fort_native_sdpa_sm90_flash_bprop"), "attention")


if __name__ == "__main__":
    unittest.main()
