"""Prints the metadata a library fuser-compile wrote carries inside it (the
NUL-terminated string fuser_program_metadata)."""
import ctypes
import sys

library = ctypes.CDLL(sys.argv[1])
metadata = ctypes.c_char.in_dll(library, "fuser_program_metadata")
sys.stdout.write(ctypes.string_at(ctypes.addressof(metadata)).decode())
