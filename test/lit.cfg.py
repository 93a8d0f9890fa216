# -*- Python -*-
import os
import shlex

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Fuser-MLIR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fuser_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "lib"]

config.substitutions.append(("%fuser_src_root", config.fuser_src_root))
config.substitutions.append(("%fuser_obj_root", config.fuser_obj_root))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# pipelining=auto plans with the built-in calibration unless a test names
# one: the machine's own (fuser-calibrate's, in the user's folder) would
# make plans depend on where the tests run.
config.environment["FUSER_CALIBRATION"] = "builtin"
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["fuser-opt", "fuser-fuzz"],
                                   [config.fuser_tools_dir])

# Sanitized builds (cmake/FuserSanitize.cmake): our programs run with the
# build's sanitizer options (the caller's own settings win), MPI ranks with
# theirs, and uninstrumented programs that load our libraries (python3,
# Debian's mlir-opt) in the environment they need.
for entry in filter(None, config.fuser_sanitizer_environment.split(";")):
    name, value = entry.split("=", 1)
    config.environment[name] = os.environ.get(name, value)
# ASan's allocator holds freed memory back (its quarantine), so resident
# memory is not the program's there: the soak is UNSUPPORTED: asan.
if "address" in config.fuser_sanitize.split(","):
    config.available_features.add("asan")
uninstrumented_prefix = ""
if config.fuser_sanitizer_interpreter_environment:
    uninstrumented_prefix = "env " + " ".join(
        shlex.quote(entry)
        for entry in config.fuser_sanitizer_interpreter_environment.split(";")) + " "
    llvm_config.add_tool_substitutions(
        [ToolSubst("python3", command=uninstrumented_prefix + "python3")])
    config.substitutions = [
        (name, uninstrumented_prefix + value if name == "%python" else value)
        for name, value in config.substitutions]

# End-to-end runs: compiled programs executed on MPI ranks.
if os.path.exists(os.path.join(config.fuser_tools_dir, "fuser-exec")):
    config.available_features.add("mpi")
    llvm_config.add_tool_substitutions(
        ["fuser-compile", "fuser-exec", "fuser-calibrate"],
        [config.fuser_tools_dir])
    mpirun = ["mpirun --allow-run-as-root --oversubscribe -x FUSER_TIMEOUT_S=30"]
    mpirun += filter(None, config.fuser_sanitizer_mpirun_options.split(";"))
    config.substitutions.append(("%mpirun", " ".join(mpirun)))

# Generated PTX is assembled for sm_90 where a CUDA toolkit is installed.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
ptxas = os.path.join(cuda_home, "bin", "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# Upstream tools built on libMLIR.so (Debian's mlir-opt) load our plugin.
upstream_mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
plugin = os.path.join(config.fuser_obj_root, "lib", "libFuserMLIRPlugin.so")
if os.path.exists(upstream_mlir_opt) and os.path.exists(plugin):
    config.available_features.add("mlir-opt-plugin")
    config.substitutions.append(("%mlir_opt", uninstrumented_prefix + upstream_mlir_opt))
    config.substitutions.append(("%fuser_plugin", plugin))
