//===- FlexNNBackwardTest.cpp - NN gradient kernels of Flex vs references -===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// conv2d_backward_input/weight and the pooling backward ops are emitted by
// --kiln-autodiff, not recorded by a public function, so these tests run a
// one-op kiln function on the Flex backend directly.
//
//===----------------------------------------------------------------------===//

#include "FlexTestData.h"
#include "NNReference.h"
#include "NumericTest.h"

#include "kiln/Runtime/Backend.h"
#include "kiln/Engine/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <cstring>
#include <sstream>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::test;

namespace {

struct Operand {
  std::vector<double> values;
  std::vector<int64_t> shape;
};

std::string tensorType(const std::vector<int64_t> &shape, DType dt) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dt.str() + ">";
}

/// `values` stored as `dt`, byte for byte.
std::vector<char> toHost(const std::vector<double> &values, DType dt) {
  std::vector<char> out(values.size() * dt.byteSize());
  for (size_t i = 0; i < values.size(); ++i) {
    char *p = out.data() + i * dt.byteSize();
    float f = static_cast<float>(values[i]);
    uint16_t half = Half::fromFloat(f).bits,
             brain = BFloat16::fromFloat(f).bits;
    switch (dt.kind()) {
    case DTypeKind::F64:
      std::memcpy(p, &values[i], 8);
      break;
    case DTypeKind::F32:
      std::memcpy(p, &f, 4);
      break;
    case DTypeKind::F16:
      std::memcpy(p, &half, 2);
      break;
    default:
      std::memcpy(p, &brain, 2);
      break;
    }
  }
  return out;
}

std::vector<double> fromHost(const std::vector<char> &bytes, DType dt) {
  std::vector<double> out(bytes.size() / dt.byteSize());
  for (size_t i = 0; i < out.size(); ++i) {
    const char *p = bytes.data() + i * dt.byteSize();
    double d;
    float f;
    Half h;
    BFloat16 b;
    switch (dt.kind()) {
    case DTypeKind::F64:
      std::memcpy(&d, p, 8);
      out[i] = d;
      break;
    case DTypeKind::F32:
      std::memcpy(&f, p, 4);
      out[i] = f;
      break;
    case DTypeKind::F16:
      std::memcpy(&h.bits, p, 2);
      out[i] = h.toFloat();
      break;
    default:
      std::memcpy(&b.bits, p, 2);
      out[i] = b.toFloat();
      break;
    }
  }
  return out;
}

/// Runs `%r = <op> %a0, %a1 <attrs> : (...) -> result` on Flex.
std::vector<double> runOnFlex(const std::string &op, const std::string &attrs,
                              const std::vector<Operand> &args,
                              const std::vector<int64_t> &resultShape,
                              DType dt) {
  std::ostringstream text;
  std::string result = tensorType(resultShape, dt), types;
  text << "func.func @main(";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string t = tensorType(args[i].shape, dt);
    text << (i ? ", " : "") << "%a" << i << ": " << t;
    types += (i ? ", " : "") + t;
  }
  text << ") -> " << result << " {\n  %r = " << op << " %a0, %a1 " << attrs
       << " : (" << types << ") -> " << result << "\n  return %r : " << result
       << "\n}\n";
  auto ctx = createContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text.str(), ctx.get());
  if (!module) {
    ADD_FAILURE() << "does not parse:\n" << text.str();
    return {};
  }
  Backend &flex = getBackend(DeviceKind::Flex, 0);
  std::unique_ptr<Executable> exe = compileModule(*module, flex, /*key=*/"");
  std::vector<Buffer> buffers;
  for (const Operand &a : args)
    buffers.push_back(flex.upload(dt, a.shape, toHost(a.values, dt).data()));
  std::vector<Buffer> out =
      exe->run(buffers, std::vector<bool>(args.size(), false));
  std::vector<char> host(numelOf(resultShape) * dt.byteSize());
  flex.download(out.at(0), host.data());
  return fromHost(host, dt);
}

std::string list(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + ", " + std::to_string(b) + "]";
}

std::string convAttrs(const Conv2dParams &p) {
  return "stride " + list(p.sh, p.sw) + " padding " + list(p.ph, p.pw) +
         " dilation " + list(p.dh, p.dw) + " groups " +
         std::to_string(p.groups);
}

/// max_pool2d_backward has no count_include_pad; avg_pool2d_backward may.
std::string poolAttrs(const Pool2dParams &p, bool isAvg) {
  return "kernel " + list(p.kh, p.kw) + " stride " + list(p.sh, p.sw) +
         " padding " + list(p.ph, p.pw) +
         (isAvg && p.countIncludePad ? " count_include_pad" : "");
}

/// Values of `shape` as `dt` holds them.
Operand sample(std::vector<int64_t> shape, DType dt, uint32_t seed) {
  return {sampleValues(numelOf(shape), dt, seed), std::move(shape)};
}

struct ConvCase {
  const char *what;
  std::vector<int64_t> x, w;
  Conv2dParams p;
};

std::vector<ConvCase> convCases() {
  Conv2dParams plain, strided, grouped, depthwise, padded;
  strided.sh = 2;
  strided.ph = 1;
  strided.pw = 2;
  strided.dh = 2;
  strided.groups = 2;
  grouped.groups = 2;
  depthwise.groups = 4;
  depthwise.sh = depthwise.sw = 2;
  depthwise.ph = depthwise.pw = 1;
  padded.ph = padded.pw = 1;
  return {{"plain", {2, 3, 7, 6}, {4, 3, 3, 2}, plain},
          {"stride, padding, dilation, groups",
           {1, 4, 9, 8},
           {6, 2, 3, 3},
           strided},
          {"pointwise, grouped", {2, 6, 5, 5}, {4, 3, 1, 1}, grouped},
          {"depthwise", {1, 4, 6, 6}, {4, 1, 3, 3}, depthwise},
          {"large", {3, 8, 16, 16}, {16, 8, 3, 3}, padded}};
}

TEST(FlexConv2dBackward, Input) {
  for (DType dt : floatDTypes())
    for (const ConvCase &c : convCases()) {
      std::vector<int64_t> ys = conv2dOutputShape(c.x, c.w, c.p);
      Operand gy = sample(ys, dt, 1), w = sample(c.w, dt, 2);
      std::vector<double> got = runOnFlex("kiln.conv2d_backward_input",
                                          convAttrs(c.p), {gy, w}, c.x, dt);
      std::vector<double> want =
          referenceConv2dBackwardInput(gy.values, w.values, c.x, c.w, c.p);
      EXPECT_TRUE(
          allClose(got, want, tolerance("kiln.conv2d_backward_input", dt)))
          << c.what << " on " << dt.str();
    }
}

TEST(FlexConv2dBackward, Weight) {
  for (DType dt : floatDTypes())
    for (const ConvCase &c : convCases()) {
      std::vector<int64_t> ys = conv2dOutputShape(c.x, c.w, c.p);
      Operand gy = sample(ys, dt, 3), x = sample(c.x, dt, 4);
      std::vector<double> got = runOnFlex("kiln.conv2d_backward_weight",
                                          convAttrs(c.p), {gy, x}, c.w, dt);
      std::vector<double> want =
          referenceConv2dBackwardWeight(gy.values, x.values, c.x, c.w, c.p);
      EXPECT_TRUE(
          allClose(got, want, tolerance("kiln.conv2d_backward_weight", dt)))
          << c.what << " on " << dt.str();
    }
}

const std::vector<Pool2dParams> &poolCases() {
  static const std::vector<Pool2dParams> cases{{3, 2, 2, 2, 1, 1, true},
                                               {3, 2, 2, 2, 1, 1, false},
                                               {3, 3, 1, 1, 1, 1, true},
                                               {2, 2, 2, 2, 0, 0, false}};
  return cases;
}

// Inputs from {0, 1} make most windows tie: the gradient must go to the
// first maximum only.
TEST(FlexPool2dBackward, MaxRoutesToFirstMaximum) {
  std::vector<int64_t> xs{2, 3, 7, 8};
  for (DType dt : floatDTypes())
    for (const Pool2dParams &p : poolCases()) {
      Operand x{sampleValues(numelOf(xs), DType::Bool, 5), xs};
      Operand gy = sample(pool2dOutputShape(xs, p), dt, 6);
      std::vector<double> got = runOnFlex("kiln.max_pool2d_backward",
                                          poolAttrs(p, false), {gy, x}, xs, dt);
      std::vector<double> want =
          referenceMaxPool2dBackward(gy.values, x.values, xs, p);
      EXPECT_TRUE(
          allClose(got, want, tolerance("kiln.max_pool2d_backward", dt)))
          << poolAttrs(p, false) << " on " << dt.str();
    }
}

TEST(FlexPool2dBackward, AvgSpreadsOverWindows) {
  std::vector<int64_t> xs{2, 3, 7, 8};
  for (DType dt : floatDTypes())
    for (const Pool2dParams &p : poolCases()) {
      Operand x = sample(xs, dt, 7);
      Operand gy = sample(pool2dOutputShape(xs, p), dt, 8);
      std::vector<double> got = runOnFlex("kiln.avg_pool2d_backward",
                                          poolAttrs(p, true), {gy, x}, xs, dt);
      std::vector<double> want = referenceAvgPool2dBackward(gy.values, xs, p);
      EXPECT_TRUE(
          allClose(got, want, tolerance("kiln.avg_pool2d_backward", dt)))
          << poolAttrs(p, true) << " on " << dt.str();
    }
}

} // namespace
