#!/usr/bin/env python3
"""Compares two float32 or float64 .npy files element by element.

usage: compare-npy.py GOT.npy WANT.npy TOLERANCE

Exits 0 when the shapes agree and every |got - want| <= TOLERANCE *
max(1, max |want|); else prints the first difference and exits 1. Needs
no numpy (lit runs on the system Python).
"""

import ast
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not an .npy file" % path)
    major = data[6]
    if major == 1:
        n = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        n = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + n].decode("latin1"))
    code = {"<f4": "f", "<f8": "d"}.get(header["descr"])
    if code is None or header["fortran_order"]:
        sys.exit("%s: %s is not a C-ordered float array" %
                 (path, header["descr"]))
    body = data[start + n:]
    count = len(body) // struct.calcsize(code)
    return tuple(header["shape"]), struct.unpack("<%d%s" % (count, code), body)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    (gs, got), (ws, want) = read(sys.argv[1]), read(sys.argv[2])
    if gs != ws:
        sys.exit("shapes differ: %s and %s" % (gs, ws))
    scale = max([1.0] + [abs(w) for w in want])
    tol = float(sys.argv[3]) * scale
    for i, (g, w) in enumerate(zip(got, want)):
        if not abs(g - w) <= tol:
            sys.exit("element %d: %r, expected %r" % (i, g, w))
    return 0


if __name__ == "__main__":
    sys.exit(main())
