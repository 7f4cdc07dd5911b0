# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = ["tensor-opt", "tensor-run", "FileCheck", "not", "count"]
# The ONNX importer's tools, where it is built (libonnx-dev).
if getattr(config, "kiln_onnx", False):
    config.available_features.add("onnx")
    tools.append("tensor-translate")
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Scripts under utils/ (run with %python) and generated files in the build.
config.substitutions.append(("%kiln_src_root", config.kiln_src_root))
config.substitutions.append(("%kiln_obj_root", config.kiln_obj_root))

# ptxas (from a CUDA toolkit) assembles the PTX of the GPU tests: they need
# no GPU, only the assembler. %check-ptx runs it on every gpu.binary.
import shutil
import sys

ptxas = shutil.which("ptxas")
if not ptxas and os.path.exists("/usr/local/cuda/bin/ptxas"):
    ptxas = "/usr/local/cuda/bin/ptxas"
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(
        ("%check-ptx",
         "%s %s --ptxas %s" % (sys.executable,
                               os.path.join(config.kiln_src_root, "utils",
                                            "check-ptx.py"), ptxas)))
    config.substitutions.append(("%ptxas", ptxas))

# The host's vector ISAs, for the tests that run the Cpu backend under
# KILN_CPU_ISA: a test of an ISA the host lacks is reported unsupported.
def host_cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()

flags = host_cpu_flags()
if {"avx2", "fma"} <= flags:
    config.available_features.add("avx2")
if {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= flags:
    config.available_features.add("avx512")
