"""What the tests of generated derivative programs share."""

import re

_BWD_INPUTS = re.compile(
    r"func\.func @(\w+)__bwd\(.*fuser\.vjp_inputs = array<i64(?:: ([\d, ]*))?>")


def bwd_inputs(module_text):
    """{f: the inputs of f that @f__bwd takes first} of every @f__bwd in a
    module fuser-generate-vjp ran on."""
    return {found.group(1): [int(i) for i in found.group(2).split(",")]
            if found.group(2) else []
            for found in _BWD_INPUTS.finditer(module_text)}


def without_shared_names(libraries):
    """`libraries` ({path: the names of its programs}) in groups that can
    be loaded into one process: the runtime keys cached buffers by program
    name, so two libraries with a program of the same name run apart."""
    groups = []
    for path, names in libraries.items():
        for group in groups:
            if not any(set(names) & set(other) for other in group.values()):
                group[path] = names
                break
        else:
            groups.append({path: names})
    return groups
