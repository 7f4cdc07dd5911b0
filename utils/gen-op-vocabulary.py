#!/usr/bin/env python3
"""Writes the C++ vocabulary of the kiln ops, read off ODS.

usage: gen-op-vocabulary.py KilnOps.json OUT.inc

KilnOps.json is `llvm-tblgen --dump-json` of KilnOps.td. For every op
`kiln.some_op`, OUT.inc declares, in namespace kiln::detail::ops, a struct
`SomeOp` with
  - `name`, the op's full name ("kiln.some_op");
  - one static function per attribute of the op, named after it in
    camelBack, that makes the recorded attribute (a kiln::detail::NodeAttr
    under the ODS name) from a value of the attribute's kind: an int64_t
    (I64Attr), a double (F64Attr), a std::vector<int64_t>
    (DenseI64ArrayAttr), a std::vector<double> (DenseF64ArrayAttr), nothing (UnitAttr, present when set), or the
    enum's C++ enum class (I32EnumAttr);
  - one constexpr bool per Kiln fact (Kiln_Fact trait) of the dialect,
    named after the fact in camelBack (`needsElements`, `checksIndices`):
    true when the op has it.
The enums are declared once, with the cases and values of ODS. So the C++
API names ops, attributes and facts through types the dialect generates:
a misspelt attribute, or one of the wrong kind, does not compile.
"""

import json
import re
import sys


def camel(name, upper):
    parts = [p for p in re.split(r"[_\W]+", name) if p]
    out = "".join(p[:1].upper() + p[1:] for p in parts)
    if not upper:
        out = out[:1].lower() + out[1:]
    return out


def base_attr(records, rec):
    """The attribute under DefaultValuedAttr / OptionalAttr wrappers."""
    while rec.get("baseAttr"):
        rec = records[rec["baseAttr"]["def"]]
    return rec


def attribute_kind(records, name, rec):
    rec = base_attr(records, rec)
    supers = rec["!superclasses"]
    if rec["!name"] == "DenseI64ArrayAttr":
        return ("array", None)
    if rec["!name"] == "DenseF64ArrayAttr":
        return ("f64array", None)
    if rec["!name"] == "UnitAttr":
        return ("unit", None)
    if rec["!name"] == "F64Attr":
        return ("f64", None)
    if rec["!name"] == "I64Attr":
        return ("i64", None)
    if "I32EnumAttr" in supers:
        return ("enum", rec)
    if "ElementsAttrBase" in supers or rec["!name"] == "ElementsAttr":
        return (None, None)  # a constant's value: the engine builds it
    raise SystemExit("gen-op-vocabulary: attribute %s has a kind the "
                     "vocabulary does not know: %s" % (name, rec["!name"]))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        records = json.load(f)
    enums = {}
    structs = []
    facts_of = {}
    for rec_name in records["!instanceof"]["Kiln_Op"]:
        facts_of[rec_name] = set()
        for trait in records[rec_name]["traits"]:
            t = records.get(trait.get("def", ""))
            if t and "Kiln_Fact" in t["!superclasses"]:
                facts_of[rec_name].add(t["trait"])
    all_facts = sorted(set().union(*facts_of.values()))
    for rec_name in sorted(records["!instanceof"]["Kiln_Op"]):
        op = records[rec_name]
        full = "kiln." + op["opName"]
        lines = ["struct %s {" % camel(op["opName"], True),
                 '  static constexpr const char *name = "%s";' % full]
        for arg, arg_name in op["arguments"]["args"]:
            rec = records[arg["def"]]
            if "TypeConstraint" in rec["!superclasses"]:
                continue
            kind, enum = attribute_kind(records, full + "." + arg_name, rec)
            fn = camel(arg_name, False)
            if kind == "array":
                lines.append("  static NodeAttr %s(std::vector<int64_t> v) "
                             "{ return NodeAttr::array(\"%s\", std::move(v)); }"
                             % (fn, arg_name))
            elif kind == "f64array":
                lines.append("  static NodeAttr %s(std::vector<double> v) "
                             "{ return NodeAttr::f64Array(\"%s\", "
                             "std::move(v)); }" % (fn, arg_name))
            elif kind == "unit":
                lines.append("  static NodeAttr %s() { return "
                             "NodeAttr::unit(\"%s\"); }" % (fn, arg_name))
            elif kind == "f64":
                lines.append("  static NodeAttr %s(double v) { return "
                             "NodeAttr::f64(\"%s\", v); }" % (fn, arg_name))
            elif kind == "i64":
                lines.append("  static NodeAttr %s(int64_t v) { return "
                             "NodeAttr::i64(\"%s\", v); }" % (fn, arg_name))
            elif kind == "enum":
                cls = enum["className"]
                enums[cls] = [(records[e["def"]]["symbol"],
                               records[e["def"]]["value"])
                              for e in enum["enumerants"]]
                lines.append("  static NodeAttr %s(%s v) { return "
                             "NodeAttr::enumeration(\"%s\", "
                             "static_cast<int64_t>(v)); }"
                             % (fn, cls, arg_name))
        for fact in all_facts:
            lines.append("  static constexpr bool %s = %s;" %
                         (camel(fact, False),
                          "true" if fact in facts_of[rec_name] else "false"))
        lines.append("};")
        structs.append("\n".join(lines))
    out = ["// Generated by utils/gen-op-vocabulary.py from KilnOps.td; do "
           "not edit.", ""]
    for cls, cases in sorted(enums.items()):
        out.append("enum class %s : int64_t {" % cls)
        for sym, value in cases:
            out.append("  %s = %d," % (camel(sym, True), value))
        out.append("};")
    out.append("")
    out.extend(structs)
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
