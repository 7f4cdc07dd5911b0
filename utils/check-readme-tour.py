#!/usr/bin/env python3
"""Compiles the README's C++ API tour as written: the first ```cpp block
under "The C++ API in one screen", as the body of main() in a file that
includes only kiln/Kiln.h (and <iostream>, which the tour prints with).

usage: check-readme-tour.py README.md CXX INCLUDE_DIR WORK_DIR
"""
import os
import subprocess
import sys


def tour(readme):
    text = open(readme, encoding="utf-8").read()
    start = text.index("## The C++ API in one screen")
    begin = text.index("```cpp\n", start) + len("```cpp\n")
    end = text.index("```", begin)
    return text[begin:end]


def main():
    readme, cxx, include, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "readme_tour.cpp")
    with open(path, "w", encoding="utf-8") as f:
        f.write('#include "kiln/Kiln.h"\n#include <iostream>\n\n'
                "int main() {\n" + tour(readme) + "  return 0;\n}\n")
    r = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-Wall",
                        "-Werror", "-I", include, path])
    if r.returncode != 0:
        print("check-readme-tour: the README's tour does not compile "
              "(as %s)" % path, file=sys.stderr)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
