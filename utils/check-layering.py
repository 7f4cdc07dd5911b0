#!/usr/bin/env python3
"""Checks that Kiln's layers depend only on the layers below them.

usage: check-layering.py ROOT

The areas of include/kiln/ and lib/, from the bottom up, are Support,
Dialect, Transforms, Conversion, Runtime, Target, Engine, API and Import. A file may
include the kiln headers of its own area and of the areas below it, with
these limits:
  - Support includes nothing but the C++ standard library and itself;
  - Conversion does not include Transforms (the kernel contract and the
    per-op facts are the dialect's);
  - the Runtime includes no MLIR header and nothing of the dialect, the
    Transforms or Conversion: it loads and runs artifacts, the targets
    compile them;
  - the API includes only the API, the Engine and Support, and its public
    headers include no MLIR or LLVM header;
  - the importers (Import) build on the API as its users do: they include
    the API, the Engine (to print a recorded graph) and Support, and their
    public headers include no MLIR or LLVM header;
  - a private header (under lib/) is included only from its own directory,
    so that no backend reads another's internals.
Prints one line per violation and exits 1 if there is any.
"""

import os
import re
import sys

AREAS = ["Support", "Dialect", "Transforms", "Conversion", "Runtime",
         "Target", "Engine", "API", "Import"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def area_of(rel):
    parts = rel.split("/")
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "kiln":
        return parts[2] if parts[2] in AREAS else None
    if parts[0] == "lib" and len(parts) > 1:
        return parts[1] if parts[1] in AREAS else None
    return None


def violations(root):
    found = []
    for top in ("include", "lib"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".td", ".def", ".inc")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                area = area_of(rel)
                if area is None:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m:
                            why = check(rel, area, m.group(1))
                            if why:
                                found.append("%s:%d: includes %s: %s" %
                                             (rel, lineno, m.group(1), why))
    return found


def check(rel, area, inc):
    level = AREAS.index(area)
    if inc.startswith("lib/") or inc.startswith("../"):
        here = os.path.dirname(rel)
        target = os.path.dirname(os.path.normpath(
            os.path.join(here, inc) if inc.startswith("../") else inc))
        if target != here:
            return "a private header of another directory"
        return None
    if area == "Support" and (inc.startswith("mlir/") or
                              inc.startswith("llvm/")):
        return "Support depends on the C++ standard library only"
    if area == "Runtime" and inc.startswith("mlir/"):
        return "the Runtime includes no MLIR header"
    if area in ("API", "Import") and rel.startswith("include/") and (
            inc.startswith("mlir/") or inc.startswith("llvm/")):
        return "a public header includes MLIR or LLVM"
    if not inc.startswith("kiln/"):
        return None
    parts = inc.split("/")
    if len(parts) < 3 or parts[1] not in AREAS:
        return None  # kiln/Kiln.h and generated files
    dep = parts[1]
    if AREAS.index(dep) > level:
        return "%s is above %s" % (dep, area)
    if area == "Support" and dep != "Support":
        return "Support depends on nothing else"
    if area == "Conversion" and dep == "Transforms":
        return "Conversion does not depend on Transforms"
    if area == "Runtime" and dep in ("Dialect", "Transforms", "Conversion"):
        return "the Runtime runs artifacts; compiling is the targets'"
    if area == "API" and dep not in ("API", "Engine", "Support"):
        return "the API depends on the Engine and Support only"
    if area == "Import" and dep not in ("Import", "API", "Engine", "Support"):
        return "an importer depends on the API, the Engine and Support only"
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    found = violations(sys.argv[1])
    for v in found:
        print(v)
    if found:
        print("%d layering violation(s)" % len(found))
        return 1
    print("layering: every include is allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
