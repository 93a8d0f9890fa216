"""Copies a library fuser-compile wrote, changing fields of the metadata it
carries (the string fuser_program_metadata, also in LIBRARY.json): a
corrupted or foreign artifact. The document is written again compactly,
padded with spaces to its length, so that the library stays loadable.

Usage: rewrite-metadata.py LIBRARY OUT PATH=JSON...
PATH: keys and list indices separated by dots (programs.0.inputs.1.shape).
"""
import json
import sys

library, out = sys.argv[1], sys.argv[2]
text = open(library + ".json").read()
contents = open(library, "rb").read()
start = contents.index(text.encode() + b"\0")
document = json.loads(text)
for assignment in sys.argv[3:]:
    path, value = assignment.split("=", 1)
    *parents, last = [int(key) if key.isdigit() else key
                      for key in path.split(".")]
    field = document
    for key in parents:
        field = field[key]
    field[last] = json.loads(value)
rewritten = json.dumps(document, separators=(",", ":")).encode()
if len(rewritten) > len(text):
    sys.exit("the rewritten metadata is longer than the original")
rewritten += b" " * (len(text) - len(rewritten))
with open(out, "wb") as file:
    file.write(contents[:start] + rewritten + contents[start + len(text):])
