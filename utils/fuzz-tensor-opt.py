#!/usr/bin/env python3
"""Deterministic mutation fuzzer for tensor-opt.

Takes .mlir inputs (the kiln lit tests), cuts them into small seeds (each
function, and each op alone in a function), adds the generic form of each
seed, and applies seeded random mutations: byte flips, truncation, token
deletion, duplication and swaps, numbers swapped for huge, negative or zero
values, dense literals swapped for splats, one dim size changed in every
type, and dtypes, dims and op names swapped for others. Every mutant goes
through tensor-opt once only parsed and verified, once through
--kiln-decompose --canonicalize --cse and, when `tensor-opt --help` lists
it, once through --kiln-fuse.

tensor-opt must exit with 0 (accepted) or 1 (rejected with a diagnostic).
Anything else (a signal, an abort, a timeout) is a failure: the mutant is
printed as a reproducer and the script exits with 1. Mutants are run in
batches through -split-input-file; a failing batch is rerun one mutant at a
time to find the reproducer.

usage: fuzz-tensor-opt.py --tensor-opt PATH [--seed N] [--count N] FILE...
"""

import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile

SPLIT = "// -----"

MODES = {
    "parse": [],
    "pipeline": ["--kiln-decompose", "--canonicalize", "--cse"],
}
# Run only when tensor-opt has the pass.
OPTIONAL_MODES = {
    "fuse": ["--kiln-fuse"],
}

TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # strings
    r"|0x[0-9A-Fa-f]+"
    r"|-?\d+\.\d*(?:[eE][-+]?\d+)?|-?\d+(?:[eE][-+]?\d+)?"
    r"|[%@#^!][\w.$#-]*"  # SSA values, symbols, attribute aliases
    r"|[A-Za-z_][\w.$]*"  # keywords, op names, types
    r"|->|\S"
)
# A number on its own, not the digits of a name, a type or a dim list.
NUMBER = re.compile(
    r"(?<![\w.#%])(?:0x[0-9A-Fa-f]+|-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(?![\w.])"
)
DTYPE = re.compile(r"\b(?:f64|f32|f16|bf16|i64|i32|i16|i8|ui8|i1)\b")
TENSOR_TYPE = re.compile(r"tensor<[^<>]*(?:<[^<>]*>[^<>]*)?>")

INTERESTING_NUMBERS = [
    "0", "1", "-1", "2", "3", "-3", "7", "32", "64", "255", "256", "-128",
    "2147483647", "-2147483648", "4294967296", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "18446744073709551616",
    "99999999999999999999999", "0.5", "-0.0", "1.0e+308", "-1.0e+308",
    "1.0e+400", "4.9e-324", "0x7FF8000000000000", "0x7FF0000000000000",
    "0xFFF0000000000000",
]

DTYPES = [
    "f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "ui8", "i1",
    # Not kiln dtypes: each must be rejected cleanly.
    "i4", "i128", "ui64", "si32", "index", "f8E4M3FN", "f80", "tf32",
    "complex<f32>", "none", "vector<4xf32>", "tensor<2xf32>",
]

DIMS = ["?", "0", "1", "2", "3", "4", "64", "1000000", "3037000500",
        "4611686018427387904", "9223372036854775807"]

# A dense literal of a whole tensor, and the splats that can replace it so
# that a retyped constant still parses.
DENSE = re.compile(r"dense<\[[^<>]*\]>")
SPLATS = ["dense<0>", "dense<1>", "dense<-1>", "dense<2>", "dense<true>",
          "dense<false>", "dense<0.0>", "dense<1.0>", "dense<-0.5>",
          "dense<1.0e+308>", "dense<0x7FF8000000000000>",
          "dense<-9223372036854775808>", "dense<255>"]

# Crashes of upstream MLIR that no dialect code can prevent; mutants that
# match are not run.
KNOWN_UPSTREAM_CRASHES = [
    # The builtin parser segfaults on a dense array of index
    # (llvm/llvm-project#179045, fixed after LLVM 22).
    re.compile(rb"array\s*<\s*index\b"),
]


def split_functions(text):
    """Top-level functions of a module, each as its own text."""
    funcs, current, depth = [], [], 0
    for line in text.splitlines():
        if not current and not line.lstrip().startswith("func.func"):
            continue
        current.append(line)
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            funcs.append("\n".join(current) + "\n")
            current, depth = [], 0
    return funcs


def single_op_seeds(func):
    """One function per op of `func`, with the same arguments."""
    lines = func.splitlines()
    header, body = lines[0], lines[1:-1]
    return [
        f"{header}\n{line}\n  return\n}}\n"
        for line in body
        if re.search(r"\bkiln\.\w+", line) and "return" not in line
    ]


def strip_comments(text):
    return "\n".join(
        line for line in text.splitlines() if not line.lstrip().startswith("//")
    )


def load_seeds(paths):
    seeds = []
    for path in paths:
        with open(path) as f:
            text = f.read()
        for section in text.split(SPLIT):
            for func in split_functions(strip_comments(section)):
                seeds.append(func)
                seeds.extend(single_op_seeds(func))
    return seeds


def generic_forms(tool, seeds):
    """The generic form of every seed that tensor-opt accepts."""
    joined = f"\n{SPLIT}\n".join(seeds)
    proc = subprocess.run(
        [tool, "-split-input-file", "--mlir-print-op-generic", "-"],
        input=joined.encode(),
        capture_output=True,
        timeout=120,
    )
    out = proc.stdout.decode(errors="replace")
    return [s.strip() + "\n" for s in out.split(SPLIT) if "kiln." in s]


class Mutator:
    def __init__(self, rng, op_names):
        self.rng = rng
        self.op_names = op_names

    def tokens(self, text):
        return [(m.start(), m.end()) for m in TOKEN.finditer(text)]

    def byte_flip(self, data):
        if not data:
            return data
        i = self.rng.randrange(len(data))
        if self.rng.random() < 0.8:
            b = self.rng.randrange(32, 127)
        else:
            b = self.rng.randrange(256)
        return data[:i] + bytes([b]) + data[i + 1 :]

    def truncate(self, data):
        return data[: self.rng.randrange(len(data) + 1)]

    def token_edit(self, data, kind):
        text = data.decode(errors="replace")
        toks = self.tokens(text)
        if not toks:
            return data
        s, e = self.rng.choice(toks)
        if kind == "delete":
            text = text[:s] + text[e:]
        elif kind == "duplicate":
            text = text[:e] + " " + text[s:e] + text[e:]
        else:  # swap with another token
            s2, e2 = self.rng.choice(toks)
            if s2 < s:
                s, e, s2, e2 = s2, e2, s, e
            if e <= s2:
                text = (text[:s] + text[s2:e2] + text[e:s2] + text[s:e]
                        + text[e2:])
        return text.encode()

    def replace_match(self, data, pattern, choices):
        text = data.decode(errors="replace")
        matches = list(re.finditer(pattern, text))
        if not matches:
            return data
        m = self.rng.choice(matches)
        new = self.rng.choice(choices)
        return (text[: m.start()] + new + text[m.end() :]).encode()

    def retype(self, data):
        """Replaces every occurrence of one tensor type by a variant with
        another dtype or dim, so that the uses of a value keep agreeing and
        the mutant reaches the verifiers and passes."""
        text = data.decode(errors="replace")
        types = sorted(set(TENSOR_TYPE.findall(text)))
        if not types:
            return data
        old = self.rng.choice(types)
        if self.rng.random() < 0.5:
            new = DTYPE.sub(lambda m: self.rng.choice(DTYPES), old, count=1)
        else:
            dims = list(re.finditer(r"(?<=[<x])(?:\d+|\?)(?=x)", old))
            if dims:
                m = self.rng.choice(dims)
                new = old[: m.start()] + self.rng.choice(DIMS) + old[m.end() :]
            else:
                new = old.replace("tensor<", "tensor<" + self.rng.choice(DIMS)
                                  + "x", 1)
        return text.replace(old, new).encode()

    def rescale(self, data):
        """Replaces one static dim size by another in every tensor type, so
        that the whole function keeps agreeing (and a splat constant then
        has a new shape)."""
        text = data.decode(errors="replace")
        sizes = sorted({m.group(0) for t in TENSOR_TYPE.findall(text)
                        for m in re.finditer(r"(?<=[<x])\d+(?=x)", t)})
        if not sizes:
            return data
        old = self.rng.choice(sizes)
        new = self.rng.choice(DIMS[1:])
        return TENSOR_TYPE.sub(
            lambda m: re.sub(rf"(?<=[<x]){old}(?=x)", new, m.group(0)),
            text).encode()

    def mutate(self, data):
        for _ in range(self.rng.choice([1, 1, 2, 3])):
            kind = self.rng.choice([
                "byte", "truncate", "delete", "delete", "duplicate", "swap",
                "number", "number", "number", "number", "dtype", "dim",
                "type", "type", "type", "op", "op", "splat", "splat", "rescale",
            ])
            if kind == "byte":
                data = self.byte_flip(data)
            elif kind == "truncate":
                data = self.truncate(data)
            elif kind in ("delete", "duplicate", "swap"):
                data = self.token_edit(data, kind)
            elif kind == "number":
                data = self.replace_match(data, NUMBER, INTERESTING_NUMBERS)
            elif kind == "dtype":
                data = self.replace_match(data, DTYPE, DTYPES)
            elif kind == "dim":
                data = self.replace_match(data, r"(?<=[<x])(?:\d+|\?)(?=x)",
                                          DIMS)
            elif kind == "type":
                data = self.retype(data)
            elif kind == "rescale":
                data = self.rescale(data)
            elif kind == "splat":
                data = self.replace_match(data, DENSE, SPLATS)
            else:
                data = self.replace_match(data, r"\bkiln\.\w+",
                                          self.op_names)
        return data


def run(tool, mode, data, timeout):
    """Exit status of tensor-opt on `data` (None on timeout)."""
    with tempfile.NamedTemporaryFile(suffix=".mlir", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        proc = subprocess.run(
            [tool, path, "-split-input-file", "-o", os.devnull] + MODES[mode],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
        return proc.returncode, proc.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timed out"
    finally:
        os.unlink(path)


def describe(rc):
    if rc is None:
        return "timed out"
    if rc < 0:
        return f"killed by signal {-rc}"
    return f"exit status {rc}"


def check_batch(tool, mode, batch, timeout):
    """Reproducers (mutant, status, stderr) of one batch in one mode."""
    joined = (f"\n{SPLIT}\n").encode().join(batch)
    rc, _ = run(tool, mode, joined, timeout * 3)
    if rc in (0, 1):
        return []
    failures = []
    for mutant in batch:
        rc, err = run(tool, mode, mutant, timeout)
        if rc not in (0, 1):
            failures.append((mutant, rc, err))
    if not failures:
        failures.append((joined, rc, "only fails as a whole batch"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tensor-opt", required=True, dest="tool")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=1000,
                        help="number of mutants")
    parser.add_argument("--batch", type=int, default=50,
                        help="mutants per tensor-opt run")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds per mutant")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--save", help="directory for reproducers")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    help_text = subprocess.run([args.tool, "--help"], capture_output=True,
                               timeout=60).stdout.decode(errors="replace")
    for mode, flags in OPTIONAL_MODES.items():
        if all(re.search(rf"^\s*{re.escape(f)}\b", help_text, re.M)
               for f in flags):
            MODES[mode] = flags

    seeds = load_seeds(args.files)
    seeds += generic_forms(args.tool, seeds)
    op_names = sorted({n for s in seeds for n in re.findall(r"kiln\.\w+", s)})
    op_names += ["kiln.frobnicate", '"kiln.add"', "func.return", "arith.addf"]

    rng = random.Random(args.seed)
    mutator = Mutator(rng, op_names)
    mutants = [mutator.mutate(rng.choice(seeds).encode())
               for _ in range(args.count)]
    skipped = [m for m in mutants
               if any(p.search(m) for p in KNOWN_UPSTREAM_CRASHES)]
    mutants = [m for m in mutants if m not in skipped]
    batches = [mutants[i : i + args.batch]
               for i in range(0, len(mutants), args.batch)]

    failures = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = [pool.submit(check_batch, args.tool, mode, batch, args.timeout)
                for batch in batches for mode in MODES]
        for job, (batch, mode) in zip(
                jobs, [(b, m) for b in batches for m in MODES]):
            for mutant, rc, err in job.result():
                failures.append((mode, mutant, rc, err))

    for k, (mode, mutant, rc, err) in enumerate(failures):
        flags = " ".join(MODES[mode])
        print(f"FAIL: tensor-opt -split-input-file {flags} gave "
              f"{describe(rc)} on this input:")
        print("----- reproducer -----")
        print(mutant.decode(errors="backslashreplace"))
        print("----- stderr (first lines) -----")
        print("\n".join(err.splitlines()[:25]))
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            path = os.path.join(args.save, f"crash-{args.seed}-{k}.mlir")
            with open(path, "wb") as f:
                f.write(mutant)
            print(f"saved as {path}")

    print(f"{len(seeds)} seeds, {len(mutants)} mutants, seed {args.seed}: "
          f"{len(failures)} failures ({len(skipped)} mutants skipped as known "
          f"upstream crashes; modes: {', '.join(MODES)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
