#!/usr/bin/env python3
"""Writes, checks and compares .npy files for the tensor-run tests.

Only the standard library is used (struct, ast), so the tests run where
NumPy is not installed. `check` reads a file the way NumPy's format module
does and also enforces the rules NumPy follows when it writes, so a file
that passes is one NumPy reads back unchanged.

usage:
  npy.py write FILE DTYPE SHAPE [VALUE...] [options]
      DTYPE: f64 f32 f16 i64 i32 i16 i8 u8 bool
      SHAPE: 2x3, 4, or 'scalar' for rank 0
      VALUE: one per element; none gives 0, 1, 2, ... (modulo 2 for bool)
      --descr D      write descr D instead of the dtype's (e.g. '<c8')
      --fortran      claim fortran_order: True
      --drop N       leave out the last N bytes of data
      --header-shape S  claim shape S (as SHAPE) in the header
      --version V    write format version V (1, 2 or 3)
  npy.py raw FILE TEXT             write TEXT as the whole file
  npy.py truncate FILE N           keep the first N bytes of FILE
  npy.py check FILE                validate FILE; print dtype, shape, values
  npy.py compare A B [--tol T]     exit 1 unless A and B hold the same
                                   dtype, shape and values (within T)
"""

import ast
import struct
import sys

DTYPES = {
    "f64": ("<f8", "d"),
    "f32": ("<f4", "f"),
    "f16": ("<f2", "e"),
    "i64": ("<i8", "q"),
    "i32": ("<i4", "i"),
    "i16": ("<i2", "h"),
    "i8": ("|i1", "b"),
    "u8": ("|u1", "B"),
    "bool": ("|b1", "?"),
}
BY_DESCR = {descr: (name, fmt) for name, (descr, fmt) in DTYPES.items()}


def fail(msg):
    print(f"npy.py: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_shape(text):
    if text == "scalar":
        return ()
    return tuple(int(d) for d in text.split("x"))


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def shape_literal(shape):
    # NumPy writes repr(tuple): (3,) for one dimension, () for none.
    return repr(tuple(shape))


def header_bytes(descr, fortran, shape, version):
    header = (f"{{'descr': '{descr}', 'fortran_order': {fortran}, "
              f"'shape': {shape_literal(shape)}, }}")
    prefix = 10 if version == 1 else 12
    pad = (64 - (prefix + len(header) + 1) % 64) % 64
    header = (header + " " * pad + "\n").encode("latin1")
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header


def cmd_write(args):
    opts = {"--descr": None, "--fortran": False, "--drop": 0, "--version": 1,
            "--header-shape": None}
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--fortran":
            opts[a] = True
        elif a in opts:
            i += 1
            opts[a] = args[i]
        else:
            pos.append(a)
        i += 1
    if len(pos) < 3:
        fail("write needs FILE DTYPE SHAPE")
    path, dtype, shape = pos[0], pos[1], parse_shape(pos[2])
    descr, fmt = DTYPES[dtype]
    n = numel(shape)
    if len(pos) > 3:
        values = pos[3:]
        if len(values) != n:
            fail(f"shape {shape} needs {n} values, got {len(values)}")
    else:
        values = [str(i % 2 if dtype == "bool" else i) for i in range(n)]
    if dtype == "bool":
        values = [v.lower() in ("1", "true") for v in values]
    elif dtype.startswith("f"):
        values = [float(v) for v in values]
    else:
        values = [int(v) for v in values]
    data = struct.pack("<" + fmt * n, *values)
    if int(opts["--drop"]):
        data = data[: -int(opts["--drop"])]
    if opts["--header-shape"]:
        shape = parse_shape(opts["--header-shape"])
    head = header_bytes(opts["--descr"] or descr, opts["--fortran"], shape,
                        int(opts["--version"]))
    with open(path, "wb") as f:
        f.write(head + data)


def read(path):
    """(dtype name, shape, values), validated as NumPy would write it."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        fail(f"{path}: bad magic {raw[:6]!r}")
    version = raw[6]
    if version == 1:
        (length,), start = struct.unpack("<H", raw[8:10]), 10
    elif version in (2, 3):
        (length,), start = struct.unpack("<I", raw[8:12]), 12
    else:
        fail(f"{path}: unknown version {version}")
    header = raw[start:start + length].decode("latin1")
    if (start + length) % 64 != 0:
        fail(f"{path}: the data starts at byte {start + length}, "
             "not at a multiple of 64")
    if not header.endswith("\n"):
        fail(f"{path}: the header does not end with a newline")
    d = ast.literal_eval(header)
    if not isinstance(d, dict) or sorted(d) != ["descr", "fortran_order",
                                                "shape"]:
        fail(f"{path}: the header is not NumPy's dict: {header!r}")
    if not isinstance(d["shape"], tuple) or not all(
            isinstance(x, int) and x >= 0 for x in d["shape"]):
        fail(f"{path}: 'shape' is not a tuple of sizes: {d['shape']!r}")
    if d["fortran_order"] is not False:
        fail(f"{path}: fortran_order is {d['fortran_order']!r}")
    if d["descr"] not in BY_DESCR:
        fail(f"{path}: unknown descr {d['descr']!r}")
    name, fmt = BY_DESCR[d["descr"]]
    n = numel(d["shape"])
    data = raw[start + length:]
    size = struct.calcsize("<" + fmt * n)
    if len(data) != size:
        fail(f"{path}: {len(data)} bytes of data, the header promises {size}")
    return name, d["shape"], list(struct.unpack("<" + fmt * n, data))


def fmt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def cmd_check(args):
    name, shape, values = read(args[0])
    print(f"{name} {shape_literal(shape)} "
          f"[{', '.join(fmt_value(v) for v in values)}]")


def cmd_compare(args):
    tol = 0.0
    if "--tol" in args:
        k = args.index("--tol")
        tol = float(args[k + 1])
        args = args[:k] + args[k + 2:]
    a, b = read(args[0]), read(args[1])
    if a[:2] != b[:2]:
        fail(f"{args[0]} is {a[0]}{list(a[1])}, {args[1]} is {b[0]}{list(b[1])}")
    for i, (x, y) in enumerate(zip(a[2], b[2])):
        if x != y and not abs(x - y) <= tol * max(1.0, abs(x), abs(y)):
            fail(f"element {i} differs: {x} vs {y}")
    print("equal")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "write":
        cmd_write(args)
    elif cmd == "raw":
        with open(args[0], "wb") as f:
            f.write(args[1].encode("latin1"))
    elif cmd == "truncate":
        with open(args[0], "rb") as f:
            raw = f.read()
        with open(args[0], "wb") as f:
            f.write(raw[: int(args[1])])
    elif cmd == "check":
        cmd_check(args)
    elif cmd == "compare":
        cmd_compare(args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
