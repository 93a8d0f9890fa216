"""Writes a .npy file of zeros, or one that is wrong in a chosen way.

Usage: make-npy.py OUT ROWS,COLUMNS [--descr D] [--fortran] [--version V]
                   [--data-bytes N] [--cut N] [--header TEXT]
--descr: the element type it claims (default '<f4'); --fortran: Fortran
order; --version: the format's major version (1 to 3 exist); --data-bytes:
this many bytes of data instead of the shape's; --cut: only the first N
bytes of the file; --header: this header dict instead.
"""
import argparse
import struct

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("shape")
parser.add_argument("--descr", default="<f4")
parser.add_argument("--fortran", action="store_true")
parser.add_argument("--version", type=int, default=1)
parser.add_argument("--data-bytes", type=int)
parser.add_argument("--cut", type=int)
parser.add_argument("--header")
arguments = parser.parse_args()

shape = tuple(int(size) for size in arguments.shape.split(","))
header = arguments.header or (
    "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }"
    % (arguments.descr, arguments.fortran, shape))
header = header.encode() + b"\n"
length = struct.pack("<H" if arguments.version == 1 else "<I", len(header))
count = 1
for size in shape:
    count *= size
data_bytes = arguments.data_bytes
if data_bytes is None:
    data_bytes = count * 4
contents = (b"\x93NUMPY" + bytes([arguments.version, 0]) + length + header +
            bytes(data_bytes))
if arguments.cut is not None:
    contents = contents[:arguments.cut]
with open(arguments.out, "wb") as file:
    file.write(contents)
