//===- Compile.cpp - From a graph to an executable ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Compile.h"
#include "CompileWatchdog.h"
#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Engine/OpVocabulary.h"
#include "kiln/Runtime/KernelCache.h"
#include "kiln/Support/Env.h"
#include "kiln/Target/Target.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <unordered_map>

using namespace kiln;
using namespace kiln::detail;

namespace {

/// The shape of `type` with that of `shape` (same element type and
/// encoding).
mlir::Type withShape(mlir::Type type, llvm::ArrayRef<int64_t> shape) {
  auto t = llvm::cast<mlir::RankedTensorType>(type);
  return mlir::RankedTensorType::get(shape, t.getElementType(),
                                     t.getEncoding());
}

/// Gives `op` the result shapes its type inference derives from its
/// operands (kiln.grad: those of the values it differentiates by); false
/// when it cannot.
bool reinferShapes(mlir::Operation *op) {
  if (auto grad = llvm::dyn_cast<mlir::kiln::GradOp>(op)) {
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      op->getResult(i).setType(op->getOperand(i + 1).getType());
    return true;
  }
  // A one-hot's classes are only in its result type: the indices' shape
  // plus that last dim.
  if (auto oneHot = llvm::dyn_cast<mlir::kiln::OneHotOp>(op)) {
    llvm::SmallVector<int64_t> shape(oneHot.getIndices().getType().getShape());
    shape.push_back(oneHot.getResult().getType().getShape().back());
    mlir::Value result = oneHot.getResult();
    result.setType(withShape(result.getType(), shape));
    return true;
  }
  auto infer = llvm::dyn_cast<mlir::InferTypeOpInterface>(op);
  // A creation op (no operands) has the shape it was recorded with: it
  // does not depend on S.
  if (!infer)
    return op->getNumOperands() == 0;
  llvm::SmallVector<mlir::Type> types;
  mlir::ScopedDiagnosticHandler quiet(
      op->getContext(), [](mlir::Diagnostic &) { return mlir::success(); });
  if (mlir::failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types)) ||
      types.size() != op->getNumResults())
    return false;
  for (auto [r, t] : llvm::zip(op->getResults(), types)) {
    auto shaped = llvm::dyn_cast<mlir::RankedTensorType>(t);
    if (!shaped)
      return false;
    r.setType(withShape(r.getType(), shaped.getShape()));
  }
  return true;
}

/// Builds func @main from a subgraph: one argument per leaf, one result per
/// target, one kiln op per pending node. With `leafShapes`, the arguments
/// have those shapes and every op's result shapes are inferred from its
/// operands (each node's inferred shape in `nodeShapes`); null when an op
/// cannot infer them.
mlir::OwningOpRef<mlir::ModuleOp>
buildModule(mlir::MLIRContext &ctx, const Subgraph &g,
            const std::vector<std::vector<int64_t>> *leafShapes = nullptr,
            std::vector<std::vector<int64_t>> *nodeShapes = nullptr,
            std::vector<std::vector<bool>> *marks = nullptr) {
  mlir::OpBuilder b(&ctx);
  mlir::Location loc = b.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);

  llvm::SmallVector<mlir::Type> argTypes, resultTypes;
  for (size_t i = 0; i < g.leaves.size(); ++i)
    argTypes.push_back(mlir::kiln::tensorTypeFor(
        ctx, g.leaves[i]->dtype,
        leafShapes ? (*leafShapes)[i] : g.leaves[i]->shape));
  for (const NodePtr &t : g.targets)
    resultTypes.push_back(mlir::kiln::tensorTypeFor(ctx, t->dtype, t->shape));

  b.setInsertionPointToEnd(module->getBody());
  auto func = mlir::func::FuncOp::create(
      b, loc, "main", b.getFunctionType(argTypes, resultTypes));
  mlir::Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);

  std::unordered_map<const Node *, mlir::Value> values;
  for (size_t i = 0; i < g.leaves.size(); ++i)
    values[g.leaves[i].get()] = body->getArgument(i);

  // Gradient nodes of one loss become one kiln.grad op, built where the
  // first of them appears (every wrt value and the loss are defined by then).
  std::unordered_map<const Node *, mlir::Operation *> gradOps;
  std::unordered_map<const Node *, unsigned> gradIndex;
  // A value recorded under NoGradGuard from tracked inputs is a constant
  // to differentiation: a kiln.detach stops gradients through it.
  bool differentiates =
      std::any_of(g.nodes.begin(), g.nodes.end(), [](const NodePtr &n) {
        return n->op && std::strcmp(n->op, ops::Grad::name) == 0;
      });
  for (const NodePtr &n : g.nodes) {
    if (n->op && std::strcmp(n->op, ops::Grad::name) == 0) {
      const Node *loss = n->inputs[0].get();
      mlir::Operation *&op = gradOps[loss];
      if (!op) {
        llvm::SmallVector<const Node *> group;
        for (const NodePtr &m : g.nodes)
          if (m->op && std::strcmp(m->op, ops::Grad::name) == 0 &&
              m->inputs[0].get() == loss) {
            gradIndex[m.get()] = group.size();
            group.push_back(m.get());
          }
        mlir::OperationState state(loc, ops::Grad::name);
        state.addOperands(values.at(loss));
        for (const Node *m : group) {
          state.addOperands(values.at(m->inputs[1].get()));
          state.addTypes(mlir::kiln::tensorTypeFor(ctx, m->dtype, m->shape));
        }
        state.addAttribute(mlir::kiln::kStrategyAttr,
                           b.getStringAttr(loss->checkpointing
                                               ? loss->checkpointing->str()
                                               : std::string("balanced")));
        op = b.create(state);
        if (leafShapes)
          reinferShapes(op);
      }
      values[n.get()] = op->getResult(gradIndex.at(n.get()));
      continue;
    }
    mlir::OperationState state(loc, n->op);
    for (const NodePtr &in : n->inputs)
      state.addOperands(values.at(in.get()));
    for (const NodeAttr &a : n->attrs) {
      mlir::Attribute attr;
      switch (a.kind) {
      case NodeAttr::Kind::I64:
        attr = b.getI64IntegerAttr(a.i);
        break;
      case NodeAttr::Kind::F64:
        attr = b.getF64FloatAttr(a.f);
        break;
      case NodeAttr::Kind::I64Array:
        attr = b.getDenseI64ArrayAttr(a.ints);
        break;
      case NodeAttr::Kind::I32Array: {
        llvm::SmallVector<int32_t> v(a.ints.begin(), a.ints.end());
        attr = b.getDenseI32ArrayAttr(v);
        break;
      }
      case NodeAttr::Kind::F64Array:
        attr = b.getDenseF64ArrayAttr(a.reals);
        break;
      case NodeAttr::Kind::Unit:
        attr = b.getUnitAttr();
        break;
      case NodeAttr::Kind::Enum:
        attr = b.getI32IntegerAttr(static_cast<int32_t>(a.i));
        break;
      }
      state.addAttribute(a.name, attr);
    }
    state.addTypes(mlir::kiln::tensorTypeFor(ctx, n->dtype, n->shape));
    mlir::Operation *op = b.create(state);
    // Shapes the graph recorded with this S follow the dynamic dims; which
    // entries did is the graph's key (`marks`).
    if (leafShapes && !n->inputs.empty()) {
      llvm::SmallVector<bool> relaxed =
          mlir::kiln::relaxRecordedShape(op, n->inputs[0]->shape);
      if (marks && llvm::is_contained(relaxed, true))
        (*marks)[static_cast<size_t>(&n - g.nodes.data())].assign(
            relaxed.begin(), relaxed.end());
    }
    if (leafShapes && !reinferShapes(op))
      return nullptr;
    values[n.get()] = op->getResult(0);
    if (differentiates && !n->checkpointing && n->dtype.isFloat() &&
        std::any_of(n->inputs.begin(), n->inputs.end(),
                    [](const NodePtr &in) { return in->checkpointing; })) {
      mlir::OperationState detach(loc, ops::Detach::name);
      detach.addOperands(op->getResult(0));
      detach.addTypes(op->getResult(0).getType());
      values[n.get()] = b.create(detach)->getResult(0);
    }
  }
  if (nodeShapes) {
    nodeShapes->clear();
    for (const NodePtr &n : g.nodes) {
      auto t = llvm::cast<mlir::RankedTensorType>(values.at(n.get()).getType());
      nodeShapes->emplace_back(t.getShape().begin(), t.getShape().end());
    }
  }

  llvm::SmallVector<mlir::Value> results;
  for (const NodePtr &t : g.targets)
    results.push_back(values.at(t.get()));
  mlir::func::ReturnOp::create(b, loc, results);
  if (leafShapes)
    func.setType(
        b.getFunctionType(argTypes, mlir::ValueRange(results).getTypes()));
  return module;
}

/// Collects diagnostics so that a failure can name them in the error.
struct DiagnosticCollector {
  explicit DiagnosticCollector(mlir::MLIRContext &ctx)
      : handler(&ctx, [this](mlir::Diagnostic &d) {
          llvm::raw_string_ostream os(text);
          os << d << "\n";
          return mlir::success();
        }) {}
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

/// The context compiles build their modules in, one per thread and renewed
/// every few hundred compiles. Loading the dialects (kiln, and the ones the
/// CPU pipeline lowers through) costs more than compiling a small graph,
/// and a miss is on the user's critical path; the renewal bounds the types
/// and attributes a long-lived context keeps uniqued. Nothing outlives a
/// compile in it: executables hold plain data, not IR.
mlir::MLIRContext &compileContext() {
  thread_local std::unique_ptr<mlir::MLIRContext> ctx;
  thread_local int uses = 0;
  if (!ctx || ++uses > 512) {
    ctx.reset();
    ctx = createContext();
    uses = 0;
  }
  return *ctx;
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

/// The disk-cache key of graph `key` for `target` (empty: the target keeps
/// no artifacts on disk).
std::string diskKeyOf(Target &target, const std::string &key) {
  std::string d = target.diskKey();
  return d.empty() ? std::string() : key + "|" + d;
}

/// Prints the one KILN_LOG=compile line of a compile or a disk hit.
void logCompile(Backend &backend, const Executable &exe, size_t ops,
                const std::string &passes, double totalMs) {
  if (!env::logEnabled("compile"))
    return;
  const Executable::CompileLog &log = exe.compileLog;
  std::fprintf(stderr,
               "kiln: compile %s%s%s: %zu ops in %lld kernels%s%s, %s, "
               "%s%s%.2f ms total\n",
               backend.name().c_str(), log.id.empty() ? "" : " ",
               log.id.c_str(), ops, static_cast<long long>(exe.kernelCount()),
               log.kernels.empty() ? "" : " ", log.kernels.c_str(),
               passes.c_str(), log.phases.c_str(),
               log.phases.empty() ? "" : ", ", totalMs);
}

/// The executable of `key` from the disk cache, or null on a miss: the
/// stored artifact is handed to the backend, with no pass and no MLIR. An
/// entry that does not read back or load is a miss (the compile replaces
/// it).
std::unique_ptr<Executable> loadFromDisk(Backend &backend, Target &target,
                                         const std::string &key, size_t ops) {
  std::string full = diskKeyOf(target, key);
  if (full.empty())
    return nullptr;
  auto start = std::chrono::steady_clock::now();
  std::optional<std::string> bytes = kernelcache::load(full);
  if (!bytes)
    return nullptr;
  std::optional<Artifact> artifact = deserialize(*bytes);
  if (!artifact)
    return nullptr;
  std::unique_ptr<Executable> exe;
  try {
    exe = backend.load(*artifact);
  } catch (const Error &) {
    return nullptr;
  }
  backend.counters.diskHits.fetch_add(1);
  char phases[64];
  std::snprintf(phases, sizeof phases, "%.2f ms load", msSince(start));
  exe->compileLog = {kernelcache::hashOf(full) + " (from the disk cache)",
                     artifact->summary, phases};
  logCompile(backend, *exe, ops, "no passes", msSince(start));
  return exe;
}

/// compileModule past the disk cache's lookup.
std::unique_ptr<Executable> compileModuleNow(mlir::ModuleOp module,
                                             Backend &backend,
                                             const std::string &key,
                                             size_t ops);

} // namespace

namespace {

/// The leaves' shapes with their dynamic dims `?`.
std::vector<std::vector<int64_t>> dynamicLeafShapes(const Subgraph &g,
                                                    const DynamicDims &dyn) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < g.leaves.size(); ++i) {
    shapes.push_back(g.leaves[i]->shape);
    for (size_t k = 0; k < shapes.back().size() && k < 64; ++k)
      if (dyn.leafDims[i] >> k & 1)
        shapes.back()[k] = mlir::ShapedType::kDynamic;
  }
  return shapes;
}

} // namespace

std::string kiln::detail::printSubgraph(const Subgraph &g,
                                        const DynamicDims *dynamic) {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (dynamic && !dynamic->empty()) {
    std::vector<std::vector<int64_t>> leafShapes =
                                          dynamicLeafShapes(g, *dynamic),
                                      nodeShapes;
    module = buildModule(compileContext(), g, &leafShapes, &nodeShapes);
  }
  if (!module)
    module = buildModule(compileContext(), g);
  std::string s;
  llvm::raw_string_ostream os(s);
  module->print(os);
  return s;
}

namespace {

/// A size for the dynamic dims far from any a graph is recorded with, for
/// the second point of generalizable()'s check.
constexpr int64_t kProbeSize = 1000003;

/// Whether the graph, built with its dynamic dims as `?`, computes every
/// value's shape from S alone: each node's inferred dynamic dims are S now
/// (`shapes` are its inferred shapes) and stay S at another size, its
/// static dims stay put, and every op infers its shapes.
bool generalizable(mlir::MLIRContext &ctx, const Subgraph &g,
                   const DynamicDims &dyn,
                   const std::vector<std::vector<int64_t>> &shapes) {
  std::vector<std::vector<int64_t>> probe;
  for (size_t i = 0; i < g.leaves.size(); ++i) {
    probe.push_back(g.leaves[i]->shape);
    for (size_t k = 0; k < probe.back().size() && k < 64; ++k)
      if (dyn.leafDims[i] >> k & 1)
        probe.back()[k] = kProbeSize;
  }
  std::vector<std::vector<int64_t>> probed;
  if (!buildModule(ctx, g, &probe, &probed))
    return false;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const std::vector<int64_t> &now = g.nodes[n]->shape;
    if (shapes[n].size() != now.size() || probed[n].size() != now.size())
      return false;
    for (size_t k = 0; k < now.size(); ++k) {
      bool dynamic = mlir::ShapedType::isDynamic(shapes[n][k]);
      if (dynamic ? now[k] != dyn.size || probed[n][k] != kProbeSize
                  : now[k] != shapes[n][k] || probed[n][k] != now[k]) {
        return false;
      }
    }
  }
  return true;
}

} // namespace

std::unique_ptr<Executable> kiln::detail::compileSubgraph(
    const Subgraph &g, Backend &backend, const std::string &key,
    const std::vector<bool> &donated, const DynamicDims *dynamic,
    std::string *trueKey) {
  // The key is the recorded graph's: a disk hit builds no module and runs
  // no pass.
  Target &target = getTarget(backend.kind(), backend.index());
  if (std::unique_ptr<Executable> exe =
          loadFromDisk(backend, target, key, g.nodes.size()))
    return exe;
  mlir::MLIRContext &ctx = compileContext();
  DiagnosticCollector diags(ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (dynamic && !dynamic->empty()) {
    std::vector<std::vector<int64_t>> leafShapes =
                                          dynamicLeafShapes(g, *dynamic),
                                      nodeShapes;
    std::vector<std::vector<bool>> marks(g.nodes.size());
    module = buildModule(ctx, g, &leafShapes, &nodeShapes, &marks);
    backend.counters.mlirModules.fetch_add(1);
    if (module && trueKey) {
      std::string own = structuralKey(g, true, dynamic, &marks);
      if (own != key) {
        *trueKey = std::move(own);
        return nullptr;
      }
    }
    if (!module || !generalizable(ctx, g, *dynamic, nodeShapes))
      return nullptr;
  } else {
    module = buildModule(ctx, g);
    backend.counters.mlirModules.fetch_add(1);
  }
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  for (size_t i = 0; i < donated.size(); ++i)
    if (donated[i])
      main.setArgAttr(i, mlir::kiln::kDonatedAttr, mlir::UnitAttr::get(&ctx));
  bool isDynamic = dynamic && !dynamic->empty();
  if (mlir::failed(mlir::verify(*module))) {
    if (isDynamic)
      return nullptr;
    throw Error("internal error: the recorded graph does not verify:\n" +
                diags.text);
  }
  if (!isDynamic)
    return compileModuleNow(*module, backend, key, g.nodes.size());
  // A pass or generator that cannot take the dynamic form leaves the graph
  // to the static compile, which reports any real error.
  try {
    return compileModuleNow(*module, backend, key, g.nodes.size());
  } catch (const Error &e) {
    if (env::logEnabled("recompile"))
      std::fprintf(stderr,
                   "kiln: recompile %s: the dynamic form does not compile, "
                   "compiling for the static sizes: %s\n",
                   backend.name().c_str(), e.what());
    return nullptr;
  }
}

std::unique_ptr<Executable> kiln::detail::compileModule(mlir::ModuleOp module,
                                                        Backend &backend,
                                                        const std::string &key,
                                                        size_t ops) {
  Target &target = getTarget(backend.kind(), backend.index());
  if (std::unique_ptr<Executable> exe = loadFromDisk(backend, target, key, ops))
    return exe;
  return compileModuleNow(module, backend, key, ops);
}

namespace {

std::unique_ptr<Executable> compileModuleNow(mlir::ModuleOp module,
                                             Backend &backend,
                                             const std::string &key,
                                             size_t ops) {
  auto start = std::chrono::steady_clock::now();
  CompileWatchdog watchdog(backend.name(), [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  });
  Target &target = getTarget(backend.kind(), backend.index());
  mlir::MLIRContext *ctx = module.getContext();
  DiagnosticCollector diags(*ctx);
  mlir::PassManager pm(ctx);
  // Differentiate first, with the strategy of the loss's device.
  std::string strategy;
  module.walk([&](mlir::kiln::GradOp g) {
    if (auto s = g->getAttrOfType<mlir::StringAttr>(mlir::kiln::kStrategyAttr))
      strategy = s.getValue().str();
    else if (strategy.empty())
      strategy = "balanced";
  });
  mlir::kiln::GraphPipelineOptions options = targetInfo(backend.kind()).graph;
  options.strategy = strategy;
  mlir::kiln::buildKilnGraphPipeline(pm, options);
  backend.counters.graphPasses.fetch_add(1);
  if (mlir::failed(pm.run(module)))
    throw Error("graph passes failed:\n" + diags.text);
  // Every dynamic dim is S for the kernels and the runtime's views: a
  // graph whose passes made another dynamic size compiles static instead.
  if (mlir::Operation *op = mlir::kiln::findResizedDynamicDim(module)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os, mlir::OpPrintingFlags().skipRegions());
    throw Error("a dynamic dim takes another size than S at: " + text);
  }
  char passes[48];
  std::snprintf(passes, sizeof passes, "%.2f ms passes", msSince(start));

  BuildResult built = target.build(module);
  std::string full = diskKeyOf(target, key);
  if (!full.empty())
    kernelcache::store(full, serialize(built.artifact));
  std::unique_ptr<Executable> exe = backend.load(built.artifact);
  exe->compileLog = {full.empty() ? "" : kernelcache::hashOf(full),
                     built.artifact.summary, built.phases};
  logCompile(backend, *exe, ops, passes, msSince(start));
  return exe;
}

} // namespace
