//===- tensor-run.cpp - Run a kiln function on .npy inputs ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   tensor-run FILE.mlir [--function NAME] [--device flex|cpu|cuda]
//              [--input NAME=FILE.npy]... [FILE.npy]...
//              [--output-dir DIR] [--repeat N] [--print]
//
// Inputs bind to the function's arguments by name (%arg0, or the argument's
// position as a number) or, for positional files, in order. Each output is
// written as DIR/<function>_<i>.npy. --repeat reports the median time of N
// runs after one warm-up; --print prints small results.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/Compiler.h"
#include "kiln/Runtime/MLIRContext.h"
#include "kiln/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <sys/stat.h>

using namespace kiln;
using namespace kiln::detail;

namespace {

struct Options {
  std::string file, function = "main", device = "cpu", outputDir = ".";
  std::vector<std::pair<std::string, std::string>> named;
  std::vector<std::string> positional;
  int repeat = 0;
  bool print = false;
};

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr,
               "tensor-run: %s\n"
               "usage: tensor-run FILE.mlir [--function NAME] "
               "[--device flex|cpu|cuda] [--input NAME=FILE.npy]... "
               "[FILE.npy]... [--output-dir DIR] [--repeat N] [--print]\n",
               why.c_str());
  std::exit(2);
}

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> std::string {
      std::string prefix = std::string(flag) + "=";
      if (a.rfind(prefix, 0) == 0)
        return a.substr(prefix.size());
      if (i + 1 >= argc)
        usage(std::string(flag) + " needs a value");
      return argv[++i];
    };
    auto is = [&](const char *flag) {
      return a == flag || a.rfind(std::string(flag) + "=", 0) == 0;
    };
    if (is("--function")) {
      o.function = value("--function");
    } else if (is("--device")) {
      o.device = value("--device");
    } else if (is("--output-dir")) {
      o.outputDir = value("--output-dir");
    } else if (is("--repeat")) {
      std::string v = value("--repeat");
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (!end || *end || n < 1)
        usage("--repeat needs a positive count, got '" + v + "'");
      o.repeat = static_cast<int>(n);
    } else if (a == "--print") {
      o.print = true;
    } else if (is("--input")) {
      std::string v = value("--input");
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        usage("--input needs NAME=FILE.npy, got '" + v + "'");
      o.named.push_back({v.substr(0, eq), v.substr(eq + 1)});
    } else if (a == "--help" || a == "-h") {
      usage("runs a kiln function on .npy inputs");
    } else if (!a.empty() && a[0] == '-') {
      usage("unknown option " + a);
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      o.positional.push_back(a);
    }
  }
  if (o.file.empty())
    usage("no .mlir file given");
  return o;
}

DispatchDevice deviceNamed(const std::string &name) {
  if (name == "flex")
    return DispatchDevice::flex();
  if (name == "cpu")
    return DispatchDevice::cpu();
  if (name == "cuda")
    return DispatchDevice::cuda(0);
  throw Error("unknown device '" + name + "' (flex, cpu or cuda)");
}

std::string describe(DType d, const std::vector<int64_t> &shape) {
  std::string s = d.str() + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int run(const Options &o) {
  DispatchDevice device = deviceNamed(o.device);
  Backend &backend = getBackend(device.kind(), device.index());

  auto ctx = createContext();
  std::string diagnostics;
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler handler(sources, ctx.get(),
                                           llvm::errs());
  mlir::OwningOpRef<mlir::ModuleOp> parsed =
      mlir::parseSourceFile<mlir::ModuleOp>(o.file, sources, ctx.get());
  if (!parsed)
    throw Error("cannot parse " + o.file);
  auto fn = parsed->lookupSymbol<mlir::func::FuncOp>(o.function);
  if (!fn || fn.isExternal()) {
    std::string names;
    for (auto f : parsed->getOps<mlir::func::FuncOp>())
      names += (names.empty() ? "" : ", ") + f.getName().str();
    throw Error("no function @" + o.function + " in " + o.file +
                (names.empty() ? "" : " (it has: " + names + ")"));
  }

  // Bind inputs.
  unsigned nargs = fn.getNumArguments();
  std::vector<std::string> files(nargs);
  if (o.positional.size() > nargs)
    throw Error("@" + o.function + " takes " + std::to_string(nargs) +
                " inputs, but " + std::to_string(o.positional.size()) +
                " files were given");
  for (size_t i = 0; i < o.positional.size(); ++i)
    files[i] = o.positional[i];
  for (const auto &[name, file] : o.named) {
    std::string n = name[0] == '%' ? name.substr(1) : name;
    if (n.rfind("arg", 0) == 0)
      n = n.substr(3);
    char *end = nullptr;
    long index = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || !end || *end || index < 0 || index >= (long)nargs)
      throw Error("--input " + name + ": @" + o.function +
                  " has no argument named " + name + " (use %arg0 .. %arg" +
                  std::to_string(nargs ? nargs - 1 : 0) + ")");
    files[index] = file;
  }
  std::vector<Buffer> args;
  for (unsigned i = 0; i < nargs; ++i) {
    if (files[i].empty())
      throw Error("no input for argument %arg" + std::to_string(i) + " of @" +
                  o.function);
    DType want = dtypeOf(fn.getArgument(i).getType());
    auto shapeType =
        llvm::cast<mlir::RankedTensorType>(fn.getArgument(i).getType());
    std::vector<int64_t> wantShape(shapeType.getShape().begin(),
                                   shapeType.getShape().end());
    NpyArray a = readNpy(files[i]);
    if (a.dtype != want)
      throw Error(files[i] + ": holds " + a.dtype.str() + " values, but %arg" +
                  std::to_string(i) + " of @" + o.function + " is " +
                  describe(want, wantShape));
    bool fits = a.shape.size() == wantShape.size();
    for (size_t d = 0; fits && d < wantShape.size(); ++d)
      fits = mlir::ShapedType::isDynamic(wantShape[d]) ||
             wantShape[d] == a.shape[d];
    if (!fits)
      throw Error(files[i] + ": has shape " + describe(a.dtype, a.shape) +
                  ", but %arg" + std::to_string(i) + " of @" + o.function +
                  " is " + describe(want, wantShape));
    args.push_back(backend.upload(a.dtype, a.shape, a.data.data()));
  }

  // Compile @main: the chosen function, alone.
  auto module = mlir::ModuleOp::create(parsed->getLoc());
  mlir::OpBuilder b(ctx.get());
  b.setInsertionPointToEnd(module.getBody());
  auto main = llvm::cast<mlir::func::FuncOp>(b.clone(*fn));
  main.setName("main");
  main.setPublic();
  mlir::OwningOpRef<mlir::ModuleOp> owned(module);
  if (mlir::failed(mlir::verify(module)))
    throw Error("@" + o.function + " does not verify");
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  std::unique_ptr<Executable> exe =
      compileModule(module, backend, "tensor-run:" + text);

  std::vector<bool> donated(args.size(), false);
  auto runOnce = [&]() {
    std::vector<Buffer> copy = args;
    return exe->run(copy, donated);
  };
  std::vector<Buffer> results = runOnce();
  if (o.repeat > 0) {
    std::vector<double> times;
    for (int r = 0; r < o.repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      results = runOnce();
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count());
    }
    std::sort(times.begin(), times.end());
    std::printf("median %.4f ms over %d runs (min %.4f, max %.4f) on %s\n",
                times[times.size() / 2], o.repeat, times.front(),
                times.back(), device.str().c_str());
  }

  ::mkdir(o.outputDir.c_str(), 0755);
  for (size_t i = 0; i < results.size(); ++i) {
    const Buffer &r = results[i];
    NpyArray a;
    a.dtype = r.dtype;
    a.shape = r.shape;
    a.data.resize(r.numel() * r.dtype.byteSize());
    backend.download(r, a.data.data());
    std::string path =
        o.outputDir + "/" + o.function + "_" + std::to_string(i) + ".npy";
    writeNpy(path, a);
    if (o.print)
      std::printf("%s = %s\n", path.c_str(), formatNpy(a, 64).c_str());
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseArgs(argc, argv);
  try {
    return run(o);
  } catch (const Error &e) {
    std::fprintf(stderr, "tensor-run: error: %s\n", e.what());
    return 1;
  }
}
