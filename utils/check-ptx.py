#!/usr/bin/env python3
"""Checks the PTX that the GPU pipeline leaves in gpu.binary ops.

Reads MLIR text (the output of tensor-opt ... --kiln-gpu-kernels-to-ptx),
takes the PTX of every gpu.binary (gpu-module-to-binary with
cubin-format=isa stores it as the object's `assembly` string) and runs
`ptxas -arch=<arch>` on each, once per --arch. Prints one line per binary
and arch ("<binary>: ptxas sm_90 ok"), then, with --print, every PTX text
after a "// PTX <binary>" header, so that FileCheck can look inside.

Fails (exit 1, with ptxas's messages) when ptxas rejects a module or when
the input holds no gpu.binary at all.

usage: check-ptx.py --ptxas PATH [--arch sm_90]... [--print] INPUT.mlir|-
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

BINARY = re.compile(r"gpu\.binary\s+@([\w$.]+)")
ASSEMBLY = re.compile(r'assembly\s*=\s*"((?:[^"\\]|\\.)*)"')


def unescape(s):
    """Decodes an MLIR string literal body (\\XX hex escapes, \\\\, \\")."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            if nxt in '\\"':
                out.append(ord(nxt))
                i += 2
                continue
            if i + 2 < len(s) and re.match(r"[0-9A-Fa-f]{2}", s[i + 1:i + 3]):
                out.append(int(s[i + 1:i + 3], 16))
                i += 3
                continue
            if nxt == "n":
                out.append(10)
                i += 2
                continue
            if nxt == "t":
                out.append(9)
                i += 2
                continue
        out.extend(c.encode("utf-8"))
        i += 1
    return out.decode("utf-8")


def binaries(text):
    """(name, ptx) for every gpu.binary with an assembly object."""
    found = []
    for m in BINARY.finditer(text):
        # The binary's objects run to the end of its line.
        end = text.find("\n", m.end())
        line = text[m.end():end if end >= 0 else len(text)]
        for a in ASSEMBLY.finditer(line):
            found.append((m.group(1), unescape(a.group(1))))
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ptxas", required=True)
    p.add_argument("--arch", action="append", default=[])
    p.add_argument("--print", action="store_true")
    p.add_argument("input")
    args = p.parse_args()
    text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    found = binaries(text)
    if not found:
        print("check-ptx: no gpu.binary with PTX in the input", file=sys.stderr)
        return 1
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, ptx in found:
            path = os.path.join(tmp, name + ".ptx")
            with open(path, "w") as f:
                f.write(ptx)
            for arch in args.arch or ["sm_90"]:
                r = subprocess.run(
                    [args.ptxas, "-arch=" + arch, path, "-o", os.devnull],
                    capture_output=True, text=True)
                if r.returncode != 0:
                    failed = True
                    print("%s: ptxas %s FAILED\n%s%s" %
                          (name, arch, r.stdout, r.stderr))
                else:
                    print("%s: ptxas %s ok" % (name, arch))
    if args.print:
        for name, ptx in found:
            print("// PTX %s" % name)
            print(ptx)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
