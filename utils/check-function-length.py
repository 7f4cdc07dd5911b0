#!/usr/bin/env python3
"""Fails when a function in Kiln's sources is longer than a limit.

usage: check-function-length.py [--max N] ROOT [SUBDIR...]

Reads every .cpp and .h under ROOT/lib (or the SUBDIRs of ROOT given) and
measures each function body: the lines from the line of its opening brace
to the line of its closing one. A function body is a brace block that
follows a parameter list (`) {`, `) const {`, `) override {`, a
constructor's initializer list, ...) and that is not itself inside a
function: lambdas, loops and local classes count toward the function that
holds them. Comments, string and character literals are blanked first, so
braces in them do not count. Prints one line per function over the limit
(default 200) and exits 1 if there is any.
"""

import os
import re
import sys

CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof",
           "alignof", "decltype", "noexcept", "static_assert", "defined"}


def blank(text):
    """The source with comments and literals replaced by spaces (newlines
    kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (
                i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and \
                    i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n" or
                           text[:i].rsplit("\n", 1)[-1].strip() == ""):
            # A preprocessor line (with its continuations).
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def opens_function(before):
    """Whether a `{` preceded by `before` (the code since the last `;`,
    `{` or `}`) opens a function body."""
    s = before.strip()
    # Trailing qualifiers and a trailing return type.
    s = re.sub(r"(\s*(const|override|final|noexcept(\s*\([^()]*\))?|"
               r"mutable|volatile|&&?|->\s*[\w:<>,\s*&]+))+\s*$", "", s)
    # A constructor's initializer list: `) : a(x), b{y}`.
    m = re.search(r"\)\s*:\s*[\w:]+\s*[({]", s)
    if m and not re.search(r"\b(case|default|public|private|protected)\b",
                           s[m.start():]):
        s = s[:m.start() + 1]
    if not s.endswith(")"):
        return False
    # The name before the parameter list.
    depth, i = 0, len(s) - 1
    while i >= 0:
        if s[i] == ")":
            depth += 1
        elif s[i] == "(":
            depth -= 1
            if depth == 0:
                break
        i -= 1
    head = s[:i].rstrip()
    m = re.search(r"([~\w]+|operator\s*[^\w\s]+)\s*(<[^<>]*>)?$", head)
    if not m:
        return False  # a lambda's `](...)`, a cast, ...
    word = m.group(1)
    if word in CONTROL or head.endswith("]"):
        return False
    return True


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    found = []
    stack = []  # for each open brace: (is a function body, line, name)
    start = 0   # where the code before the next brace begins
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            start = i + 1
        elif c == "{":
            inside = any(s[0] for s in stack)
            before = text[start:i]
            is_fn = not inside and opens_function(before)
            name = ""
            if is_fn:
                head = before.strip()
                m = re.search(r"([~\w:]+|operator\s*\S+)\s*\(", head)
                name = m.group(1) if m else "?"
            stack.append((is_fn, line, name))
            start = i + 1
        elif c == "}":
            if stack:
                is_fn, first, name = stack.pop()
                if is_fn:
                    found.append((name, first, line))
            start = i + 1
    return found


def main(argv):
    limit = 200
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--max":
        limit = int(args[1])
        args = args[2:]
    if not args:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = args[0]
    dirs = args[1:] or ["lib"]
    long = []
    for d in dirs:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                for fn, first, last in functions(path):
                    n = last - first + 1
                    if n > limit:
                        long.append((n, "%s:%d: %s is %d lines long (at most "
                                     "%d)" % (rel, first, fn, n, limit)))
    for _, msg in sorted(long, key=lambda x: x[1]):
        print(msg)
    if long:
        print("function length: %d function(s) over %d lines" %
              (len(long), limit))
        return 1
    print("function length: every function has at most %d lines" % limit)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
