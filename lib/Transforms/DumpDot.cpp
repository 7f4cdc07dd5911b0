//===- DumpDot.cpp - Draw graph functions with Graphviz -------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// MLIR's --view-op-graph draws every op and region; a fused graph reads
// better as what the runtime executes: kernel calls, layout ops (views) and
// constants between the function's arguments and results. Kernel calls are
// labelled with what they fuse, so the fusion policy can be read off the
// picture.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Fusion.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDUMPDOT
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// `s` as the inside of a double-quoted DOT string.
std::string escape(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string typeLabel(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return escape(s);
}

/// A kiln op's name without the dialect prefix; other ops keep theirs.
std::string opLabel(Operation *op) {
  StringRef name = op->getName().getStringRef();
  name.consume_front("kiln.");
  return name.str();
}

class GraphWriter {
public:
  explicit GraphWriter(raw_ostream &os) : os(os) {}

  void write(ModuleOp module) {
    os << "digraph kiln {\n";
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(kKernelKindAttr))
        writeFunction(module, fn);
    os << "}\n";
  }

private:
  void writeFunction(ModuleOp module, func::FuncOp fn) {
    os << "  subgraph \"cluster_" << escape(fn.getName()) << "\" {\n"
       << "    label = \"@" << escape(fn.getName()) << "\";\n";
    DenseMap<Value, int> source;
    for (BlockArgument a : fn.getArguments()) {
      int id = node("shape=ellipse", "%arg" + std::to_string(a.getArgNumber()));
      source[a] = id;
    }
    for (Operation &op : fn.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
          int id = node("shape=ellipse", "result " + std::to_string(i));
          edge(source, v, id);
        }
        continue;
      }
      // --kiln-fuse copies constants into the kernels that read them and
      // leaves the original for DCE: a node for it would dangle.
      if (isa<ConstantOp>(op) && op.use_empty())
        continue;
      int id = opNode(module, &op);
      for (Value v : op.getOperands())
        edge(source, v, id);
      for (Value r : op.getResults())
        source[r] = id;
    }
    os << "  }\n";
  }

  int opNode(ModuleOp module, Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      std::optional<KernelKind> kind =
          callee ? kernelKindOf(callee) : std::nullopt;
      if (kind && !callee.isExternal()) {
        // Constants inside a kernel are operands of its ops, not work.
        std::string fused;
        for (Operation &inner : callee.getBody().front().without_terminator())
          if (!isa<ConstantOp>(inner))
            fused += (fused.empty() ? "" : " ") + opLabel(&inner);
        return node("shape=box, style=filled",
                    stringifyKernelKind(*kind).str() + "\\n" + fused);
      }
      return node("shape=box", "call @" + call.getCallee().str());
    }
    if (isa<ConstantOp>(op))
      return node("shape=box, style=dotted", opLabel(op));
    if (isViewOp(op))
      return node("shape=box, style=dashed", opLabel(op));
    return node("shape=box", opLabel(op));
  }

  /// `label` may hold DOT escapes (\n), so only quotes are escaped here.
  int node(StringRef attrs, const std::string &label) {
    int id = next++;
    std::string quoted;
    for (char c : label) {
      if (c == '"')
        quoted += '\\';
      quoted += c;
    }
    os << "    n" << id << " [" << attrs << ", label=\"" << quoted << "\"];\n";
    return id;
  }

  void edge(const DenseMap<Value, int> &source, Value v, int to) {
    auto it = source.find(v);
    // A value from outside the entry block (none in a kiln graph) has no
    // node to start from.
    if (it == source.end())
      return;
    os << "    n" << it->second << " -> n" << to << " [label=\""
       << typeLabel(v.getType()) << "\"];\n";
  }

  raw_ostream &os;
  int next = 0;
};

struct KilnDumpDot : mlir::kiln::impl::KilnDumpDotBase<KilnDumpDot> {
  using Base::Base;

  void runOnOperation() override {
    if (output.empty()) {
      GraphWriter(llvm::errs()).write(getOperation());
      return;
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "kiln-dump-dot: " << error;
      return signalPassFailure();
    }
    GraphWriter(file->os()).write(getOperation());
    file->os().flush();
    file->keep();
  }
};

} // namespace
