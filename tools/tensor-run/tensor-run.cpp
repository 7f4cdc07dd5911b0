//===- tensor-run.cpp - Run a kiln function on .npy inputs ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   tensor-run FILE.mlir|MODEL.onnx [--function NAME] [--device flex|cpu|cuda]
//              [--input NAME=FILE.npy]... [FILE.npy]...
//              [--output-dir DIR] [--repeat N] [--print]
//
// Inputs bind to the function's arguments by name (%arg0, or the argument's
// position as a number) or, for positional files, in order. Each output is
// written as DIR/<function>_<i>.npy. An .onnx model binds its inputs by
// their ONNX names and writes each output as DIR/<output name>.npy. --repeat
// reports the median time of N runs after one warm-up; --print prints small
// results.
//
//===----------------------------------------------------------------------===//

#include "Repeat.h"

#include "kiln/API/Device.h"
#ifdef KILN_HAVE_ONNX
#include "RunOnnx.h"
#endif
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Engine/Compile.h"
#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/Npy.h"
#include "kiln/Support/Nesting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

using namespace kiln;
using namespace kiln::detail;

namespace {

constexpr long kMaxRepeat = 1000000;

struct Options {
  std::string file, function = "main", device = "cpu", outputDir = ".";
  std::vector<std::pair<std::string, std::string>> named;
  std::vector<std::string> positional;
  int repeat = 0;
  bool print = false;
};

constexpr const char *kUsage =
    "usage: tensor-run FILE.mlir|MODEL.onnx [--function NAME] "
    "[--device flex|cpu|cuda] "
    "[--input NAME=FILE.npy]... [FILE.npy]... [--output-dir DIR] "
    "[--repeat N] [--print]\n";

/// A command-line mistake: exit status 2, as for other Unix tools.
[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr, "tensor-run: %s\n%s", why.c_str(), kUsage);
  std::exit(2);
}

[[noreturn]] void help() {
  std::printf(
      "%s\n"
      "Runs function NAME (default: main) of FILE.mlir on .npy inputs and "
      "writes\n"
      "each result to DIR/NAME_<i>.npy (default DIR: the current "
      "directory).\n"
      "An ONNX model binds its inputs by their ONNX names and writes each\n"
      "output to DIR/<output name>.npy.\n\n"
      "  --function NAME        the function to run\n"
      "  --device DEVICE        flex, cpu (default) or cuda\n"
      "  --input NAME=FILE.npy  binds an argument by name: %%arg0, arg0 or 0\n"
      "  FILE.npy               binds the arguments in order\n"
      "  --output-dir DIR       where results are written (created if "
      "missing)\n"
      "  --repeat N             times N runs after a warm-up; prints the "
      "median\n"
      "  --print                prints each result (64 values at most)\n\n"
      "Exit status: 0 on success, 1 for an error in the files or the run, "
      "2 for a\nmistake on the command line.\n",
      kUsage);
  std::exit(0);
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
      errno = 0;
      long n = std::strtol(v.c_str(), &end, 10);
      // strtol skips leading blanks and wraps nothing into int: reject both.
      if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0])) ||
          *end || errno || n < 1 || n > kMaxRepeat)
        usage("--repeat needs a count from 1 to " + std::to_string(kMaxRepeat) +
              ", got '" + v + "'");
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
      help();
    } else if (!a.empty() && a[0] == '-') {
      usage("unknown option " + a);
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      o.positional.push_back(a);
    }
  }
  if (o.file.empty())
    usage("no .mlir or .onnx file given");
  // A misspelt device is a usage error, found before anything is compiled;
  // a device that is known but missing (cuda) is a runtime error.
  if (o.device != "flex" && o.device != "cpu" && o.device != "cuda")
    usage("unknown device '" + o.device + "' (flex, cpu or cuda)");
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

bool isStatic(mlir::Type t) {
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(t);
  return !shaped || shaped.hasStaticShape();
}

/// Backends compile static shapes only (the API records nothing else), so a
/// function with dynamic dimensions is given the inputs' shapes, and each
/// op's result type is inferred again from its operands.
void specialize(mlir::func::FuncOp main, const std::vector<Buffer> &args) {
  if (llvm::all_of(main.getArgumentTypes(), isStatic))
    return;
  mlir::Block &body = main.getBody().front();
  for (auto [arg, buffer] : llvm::zip(body.getArguments(), args)) {
    auto t = llvm::cast<mlir::RankedTensorType>(arg.getType());
    arg.setType(mlir::RankedTensorType::get(buffer.shape, t.getElementType(),
                                            t.getEncoding()));
  }
  for (mlir::Operation &op : body.without_terminator()) {
    auto infer = llvm::dyn_cast<mlir::InferTypeOpInterface>(op);
    if (!infer) {
      if (!llvm::all_of(op.getResultTypes(), isStatic))
        throw Error("cannot give " + op.getName().getStringRef().str() +
                    " static shapes: it does not infer its result types");
      continue;
    }
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(infer.inferReturnTypes(
            op.getContext(), op.getLoc(), op.getOperands(),
            op.getRawDictionaryAttrs(), op.getPropertiesStorage(),
            op.getRegions(), types)))
      throw Error("the inputs' shapes do not fit " +
                  op.getName().getStringRef().str() +
                  " (see the diagnostic above)");
    for (auto [result, type] : llvm::zip(op.getResults(), types))
      result.setType(type);
  }
  main.setType(
      mlir::FunctionType::get(main.getContext(), body.getArgumentTypes(),
                              body.getTerminator()->getOperandTypes()));
}

int run(const Options &o) {
  DispatchDevice device = deviceNamed(o.device);
  Backend &backend = getBackend(device.kind(), device.index());

  auto ctx = createContext();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> source =
      llvm::MemoryBuffer::getFile(o.file, /*IsText=*/true);
  if (!source)
    throw Error(o.file + ": cannot read the file (" +
                source.getError().message() + ")");
  // The parser recurses per nesting level: refuse what would overflow it.
  if (std::optional<kiln::TextPosition> at =
          kiln::findDeepNesting((*source)->getBuffer()))
    throw Error(o.file + ":" + std::to_string(at->line) + ":" +
                std::to_string(at->column) + ": nesting deeper than " +
                std::to_string(kiln::kMaxNesting) +
                " levels of brackets; tensor-run does not parse it");
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(*source), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sources, ctx.get(), llvm::errs());
  // Only the function that runs has to verify, and a verifier error should
  // say so rather than "cannot parse".
  mlir::ParserConfig config(ctx.get(), /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> parsed =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, config);
  if (!parsed)
    throw Error("cannot parse " + o.file + " (see the diagnostic above)");
  auto fn = parsed->lookupSymbol<mlir::func::FuncOp>(o.function);
  if (!fn || fn.isExternal()) {
    std::string names;
    for (auto f : parsed->getOps<mlir::func::FuncOp>())
      if (!f.isExternal())
        names += (names.empty() ? "" : ", @") + f.getName().str();
    throw Error(
        "no function @" + o.function + " in " + o.file +
        (names.empty() ? " (it has none)" : " (it has: @" + names + ")"));
  }
  if (mlir::failed(mlir::verify(fn)))
    throw Error("@" + o.function + " in " + o.file +
                " does not verify (see the diagnostic above)");
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
    if (!llvm::isa<mlir::RankedTensorType>(type))
      throw Error("argument %arg" + std::to_string(i) + " of @" + o.function +
                  " is not a ranked tensor");

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
    if (n.empty() || !std::isdigit(static_cast<unsigned char>(n[0])) || *end ||
        index >= (long)nargs)
      throw Error("--input " + name + ": @" + o.function +
                  " has no argument named " + name +
                  (nargs ? " (use %arg0 .. %arg" + std::to_string(nargs - 1) +
                               " or 0 .. " + std::to_string(nargs - 1) + ")"
                         : " (it takes no arguments)"));
    if (!files[index].empty())
      throw Error("--input " + name + ": argument %arg" +
                  std::to_string(index) + " of @" + o.function +
                  " already has an input (" + files[index] + ")");
    files[index] = file;
  }
  std::vector<Buffer> args;
  for (unsigned i = 0; i < nargs; ++i) {
    if (files[i].empty())
      throw Error("no input for argument %arg" + std::to_string(i) + " of @" +
                  o.function);
    DType want = mlir::kiln::dtypeOf(fn.getArgument(i).getType());
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
  specialize(main, args);
  if (mlir::failed(mlir::verify(module)))
    throw Error("@" + o.function + " does not verify");
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  size_t ops = std::distance(main.getBody().front().begin(),
                             main.getBody().front().end()) -
               1; // the return
  std::unique_ptr<Executable> exe =
      compileModule(module, backend, "tensor-run:" + text, ops);

  std::vector<bool> donated(args.size(), false);
  auto runOnce = [&]() {
    std::vector<Buffer> copy = args;
    return exe->run(copy, donated);
  };
  std::vector<Buffer> results = runOnce();
  if (o.repeat > 0)
    tools::timeRepeats(o.repeat, device.str(), [&] { results = runOnce(); });

  if (std::error_code ec = llvm::sys::fs::create_directories(o.outputDir))
    throw Error(o.outputDir + ": cannot create the output directory (" +
                ec.message() + ")");
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
    if (o.file.size() > 5 && o.file.substr(o.file.size() - 5) == ".onnx") {
#ifdef KILN_HAVE_ONNX
      if (o.function != "main")
        usage("--function does not apply to an .onnx model");
      tools::OnnxRun r{o.file,       o.device, o.outputDir, o.named,
                       o.positional, o.repeat, o.print};
      return tools::runOnnx(r);
#else
      throw Error(o.file + ": this tensor-run was built without ONNX "
                           "(libonnx-dev)");
#endif
    }
    return run(o);
  } catch (const Error &e) {
    std::fprintf(stderr, "tensor-run: error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    // Out of memory and the like: still an error, not an abort.
    std::fprintf(stderr, "tensor-run: error: %s\n", e.what());
    return 1;
  }
}
