//===- ErrorTest.cpp - User errors throw where the op is written ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each test runs one statement, the op call itself, on pending operands, and
// checks that it throws kiln::Error with a message naming the op, the shapes
// and the dtypes, and that nothing ran: the error comes from recording, not
// from a later materialization.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

using namespace kiln;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

int64_t executed() { return backendCounters(flexDevice()).executedOps; }

/// A pending f32 tensor of `shape` (exp of ones: nothing has run yet).
Tensor pending(Shape shape, DType dtype = DType::F32) {
  return exp(Tensor::ones(std::move(shape), DType::F32, flexDevice()))
      .cast(dtype);
}

/// `statement` throws kiln::Error whose message contains every one of
/// `parts`, and runs no op on Flex while doing so.
::testing::AssertionResult throwsAt(const std::function<void()> &statement,
                                    std::vector<std::string> parts) {
  int64_t before = executed();
  std::string message;
  try {
    statement();
    return ::testing::AssertionFailure() << "no error was thrown";
  } catch (const Error &e) {
    message = e.what();
  } catch (const std::exception &e) {
    return ::testing::AssertionFailure()
           << "threw a non-kiln exception: " << e.what();
  }
  if (executed() != before)
    return ::testing::AssertionFailure()
           << "ops ran before the error: " << message;
  for (const std::string &p : parts)
    if (message.find(p) == std::string::npos)
      return ::testing::AssertionFailure()
             << "message \"" << message << "\" lacks \"" << p << "\"";
  return ::testing::AssertionSuccess() << message;
}

TEST(ErrorTest, ShapeMismatch) {
  Tensor a = pending({2, 3}), b = pending({4});
  EXPECT_TRUE(
      throwsAt([&] { (void)(a + b); }, {"kiln.add", "[2, 3]", "[4]", "f32"}));
  EXPECT_TRUE(throwsAt([&] { (void)where(a > 0.0, a, b); },
                       {"kiln.where", "[2, 3]", "[4]"}));
}

TEST(ErrorTest, PadValueOutsideTheDType) {
  Tensor flags = pending({2, 3}, DType::Bool), counts = pending({2, 3}, DType::I32);
  EXPECT_TRUE(throwsAt([&] { (void)pad(flags, {1, 0}, {0, 1}, 7); },
                       {"kiln.pad", "pad value 7", "not a bool", "bool[2, 3]"}));
  EXPECT_TRUE(throwsAt([&] { (void)pad(counts, {1, 0}, {0, 1}, 0.5); },
                       {"kiln.pad", "not an integer", "i32[2, 3]"}));
}

TEST(ErrorTest, BadAxis) {
  Tensor a = pending({2, 3});
  EXPECT_TRUE(throwsAt([&] { (void)sum(a, {2}); },
                       {"kiln.sum", "axis 2", "rank 2", "f32[2, 3]"}));
  EXPECT_TRUE(throwsAt([&] { (void)a.softmax(-3); },
                       {"kiln.softmax", "axis -3", "rank 2"}));
  EXPECT_TRUE(throwsAt([&] { (void)argmax(a, 5); }, {"kiln.argmax", "axis 5"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)sum(a, {1, -1});
      },
      {"kiln.sum", "appears twice"}));
}

TEST(ErrorTest, DTypeMismatch) {
  Tensor a = pending({2, 3}), b = pending({2, 3}, DType::I32);
  EXPECT_TRUE(
      throwsAt([&] { (void)(a * b); }, {"kiln.mul", "f32", "i32", "cast"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)concat({a, b}, 0);
      },
      {"kiln.concat", "f32", "i32"}));
}

TEST(ErrorTest, DTypeNotAcceptedByTheOp) {
  Tensor i = pending({3}, DType::I32), f = pending({3}),
         u = pending({3}, DType::U8);
  EXPECT_TRUE(throwsAt([&] { (void)exp(i); }, {"kiln.exp", "float", "i32"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)logicalAnd(f, f); }, {"kiln.and", "bool", "f32"}));
  EXPECT_TRUE(throwsAt([&] { (void)-u; }, {"kiln.neg", "signed", "u8"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)where(f, f, f); }, {"kiln.where", "bool", "f32"}));
  EXPECT_TRUE(throwsAt([&] { (void)mean(i); }, {"kiln.mean", "i32"}));
}

TEST(ErrorTest, TensorsOnTwoDevices) {
  Tensor a = pending({3});
  DispatchDevice cpu(DeviceKind::Cpu, 0);
  Tensor b;
  try {
    b = Tensor::ones({3}, DType::F32, DispatchDevice::cpu());
  } catch (const Error &e) {
    // Without the JIT there is no second device to mix with; the device
    // itself must say so.
    EXPECT_TRUE(throwsAt([] { (void)DispatchDevice::cpu(); },
                         {"cpu", "not available"}));
    GTEST_SKIP() << e.what();
  }
  EXPECT_TRUE(throwsAt([&] { (void)(a + b); },
                       {"kiln.add", "two devices", "flex", "cpu", ".to("}));
}

TEST(ErrorTest, DevicesThatDoNotExist) {
  DispatchDevice flex1(DeviceKind::Flex, 1);
  EXPECT_TRUE(throwsAt([&] { (void)Tensor::ones({2}, DType::F32, flex1); },
                       {"flex:1", "does not exist"}));
  BackendTensor bt = pending({2}).try_into_backend<Flex>();
  EXPECT_TRUE(throwsAt([&] { (void)Tensor::from_backend(bt, flex1); },
                       {"flex:1", "does not exist"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)Tensor::from_backend(bt, DispatchDevice(DeviceKind::Cuda, 0));
      },
      {"cuda:0", "not available"}));
}

TEST(ErrorTest, TwoCheckpointingStrategiesInOneOp) {
  DispatchDevice balanced =
      DispatchDevice::autodiff(flexDevice(), CheckpointingStrategy::Balanced);
  DispatchDevice disabled =
      DispatchDevice::autodiff(flexDevice(), CheckpointingStrategy::Disabled);
  Tensor a = Tensor::ones({3}, DType::F32, balanced) * 2.0;
  Tensor b = Tensor::ones({3}, DType::F32, disabled) * 3.0;
  EXPECT_TRUE(throwsAt([&] { (void)(a + b); },
                       {"kiln.add", "two checkpointing strategies", "balanced",
                        "disabled", "f32[3]"}));
  // An untracked operand mixes with either.
  EXPECT_EQ((a + pending({3})).checkpointing, CheckpointingStrategy::Balanced);
}

TEST(ErrorTest, SchemeOfANonQuantizedTensor) {
  Tensor a = pending({2, 3});
  EXPECT_TRUE(throwsAt([&] { (void)a.scheme(); },
                       {"scheme", "f32[2, 3]", "not quantized"}));
}

TEST(ErrorTest, ReadingWithTheWrongElementType) {
  Tensor a = pending({2, 3});
  EXPECT_TRUE(throwsAt([&] { (void)a.toVector<double>(); },
                       {"toVector", "f32[2, 3]", "f64", "cast"}));
  Tensor s = pending({});
  EXPECT_TRUE(
      throwsAt([&] { (void)s.item<int32_t>(); }, {"item", "f32", "i32"}));
}

TEST(ErrorTest, ReshapeToAnotherElementCount) {
  Tensor a = pending({2, 3});
  EXPECT_TRUE(throwsAt([&] { (void)a.reshape({4}); },
                       {"kiln.reshape", "[2, 3]", "[4]", "6 elements"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)a.reshape({-1, -1});
      },
      {"kiln.reshape", "more than one -1"}));
}

TEST(ErrorTest, MatmulInnerDimMismatch) {
  Tensor a = pending({2, 3}), b = pending({4, 5});
  EXPECT_TRUE(throwsAt([&] { (void)matmul(a, b); },
                       {"kiln.matmul", "[2, 3]", "[4, 5]", "f32"}));
}

TEST(ErrorTest, ConcatRankMismatch) {
  Tensor a = pending({2, 3}), b = pending({3});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)concat({a, b}, 0);
      },
      {"kiln.concat", "[3]", "rank", "f32[2, 3]"}));
  EXPECT_TRUE(
      throwsAt([] { (void)concat({}, 0); }, {"kiln.concat", "at least one"}));
}

TEST(ErrorTest, SliceBadStep) {
  Tensor a = pending({4, 5});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)a.slice({0, 0}, {4, 5}, {1, 0});
      },
      {"kiln.slice", "step 0", "dim 1", "f32[4, 5]"}));
  EXPECT_TRUE(throwsAt([&] { (void)a.slice({0}, {4}); },
                       {"kiln.slice", "one entry per dim", "rank 2"}));
}

TEST(ErrorTest, ConvChannelsAndGroups) {
  Tensor x = pending({1, 4, 8, 8}), w = pending({6, 3, 3, 3});
  EXPECT_TRUE(throwsAt([&] { (void)conv2d(x, w); },
                       {"kiln.conv2d", "[6, 3, 3, 3]", "f32[1, 4, 8, 8]"}));
  ConvOptions grouped;
  grouped.groups = 3;
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)conv2d(x, pending({6, 1, 3, 3}), {}, grouped);
      },
      {"kiln.conv2d", "not divisible by groups 3"}));
}

TEST(ErrorTest, RmsNormAndActivationArguments) {
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)rmsNorm(pending({2, 8}), pending({4}));
      },
      {"kiln.rms_norm", "weight of shape [4] must be [8]", "f32[2, 8]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)rmsNorm(pending({2, 8}), pending({8}, DType::BF16));
      },
      {"kiln.rms_norm", "bf16[8]"}));
  EXPECT_TRUE(throwsAt([&] { (void)rmsNorm(pending({}), std::nullopt); },
                       {"kiln.rms_norm", "input must have rank >= 1"}));
  EXPECT_TRUE(throwsAt([&] { (void)rmsNorm(pending({3}), std::nullopt, -1.0); },
                       {"kiln.rms_norm", "eps must be >= 0"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)rmsNorm(pending({3}, DType::I32), std::nullopt); },
               {"kiln.rms_norm", "i32[3]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)rope(pending({4, 7}));
      },
      {"kiln.rope", "the last dim D must be static, even", "f32[4, 7]"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)rope(pending({8})); }, {"kiln.rope", "rank >= 2"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)rope(pending({4, 8}), -1.0);
      },
      {"kiln.rope", "theta must be finite and > 0"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)rope(pending({4, 8}), 1e4, pending({2}, DType::I64));
      },
      {"kiln.rope", "the offset must be a rank-0 i64 tensor"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)rope(pending({4, 8}), 1e4, pending({}, DType::F32));
      },
      {"kiln.rope", "f32[]"}));
  EXPECT_TRUE(throwsAt([&] { (void)leakyRelu(pending({3}), NAN); },
                       {"kiln.leaky_relu", "negative_slope must be finite"}));
  EXPECT_TRUE(throwsAt([&] { (void)elu(pending({3}), INFINITY); },
                       {"kiln.elu", "alpha must be finite"}));
  EXPECT_TRUE(throwsAt([&] { (void)softplus(pending({3}), 0.0); },
                       {"kiln.softplus", "beta must be finite and > 0"}));
  EXPECT_TRUE(throwsAt([&] { (void)softplus(pending({3}), 1.0, NAN); },
                       {"kiln.softplus", "threshold must not be NaN"}));
  EXPECT_TRUE(throwsAt([&] { (void)mish(pending({3}, DType::I64)); },
                       {"kiln.mish", "i64[3]"}));
}

TEST(ErrorTest, CrossEntropyShapesAndOptions) {
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)crossEntropy(pending({2, 5, 3}), pending({2, 4}, DType::I64));
      },
      {"kiln.cross_entropy",
       "logits [2, 5, 3] and labels [2, 4] disagree on dim 2 of the logits"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)crossEntropy(pending({2, 5, 3}), pending({2}, DType::I64));
      },
      {"kiln.cross_entropy",
       "labels must be [N, d...] for logits [2, 5, 3], got [2]"}));
  EXPECT_TRUE(throwsAt(
      [&] { (void)crossEntropy(pending({5}), pending({}, DType::I64)); },
      {"kiln.cross_entropy", "logits must be [N, C, d...], got [5]"}));
  CrossEntropyOptions o;
  o.labelSmoothing = 1.5;
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)crossEntropy(pending({2, 5}), pending({2}, DType::I64), o);
      },
      {"kiln.cross_entropy", "label_smoothing must be in [0, 1], got 1.5"}));
}

TEST(ErrorTest, SortArguments) {
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)argsort(pending({2, 3}), 2);
      },
      {"kiln.argsort", "axis 2 is out of range for rank 2"}));
  EXPECT_TRUE(throwsAt([&] { (void)sort(pending({3}, DType::Bool)); },
                       {"kiln.argsort", "bool[3]"}));
}

TEST(ErrorTest, NormalizationShapes) {
  Tensor x = pending({2, 3, 4, 4});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)batchNorm(x, pending({3}), pending({4}), std::nullopt,
                        std::nullopt);
      },
      {"kiln.batch_norm", "var of shape [4] must be [3]", "f32[2, 3, 4, 4]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)batchNorm(x, pending({3}), pending({3}), pending({3}, DType::F16),
                        std::nullopt);
      },
      {"kiln.batch_norm", "f16[3]"}));
  Tensor running = pending({3});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)batchNormTraining(x, &running, nullptr, std::nullopt,
                                std::nullopt);
      },
      {"kiln.batch_norm", "give both running statistics or neither"}));
  Tensor runningVar = pending({3});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)batchNormTraining(pending({1, 3}), &running, &runningVar,
                                std::nullopt, std::nullopt);
      },
      {"kiln.batch_norm", "more than one value per channel"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)batchNormTraining(x, nullptr, nullptr, std::nullopt, std::nullopt,
                                1.5);
      },
      {"kiln.batch_norm", "momentum must be in [0, 1]"}));
  EXPECT_TRUE(throwsAt([&] { (void)groupNorm(x, 2); },
                       {"kiln.group_norm", "groups 2 does not divide the 3 "
                                           "channels"}));
  EXPECT_TRUE(throwsAt([&] { (void)instanceNorm(pending({5})); },
                       {"kiln.group_norm", "rank >= 2", "f32[5]"}));
}

TEST(ErrorTest, ConvTransposeShapes) {
  Tensor x = pending({1, 4, 5, 5}), w = pending({4, 3, 3, 3});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)convTranspose2d(x, w, std::nullopt, {{2, 2}, {}, {2, 0}, {}, 1});
      },
      {"kiln.conv_transpose2d", "output_padding [2, 0] must be smaller"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)convTranspose2d(x, pending({3, 3, 3, 3}));
      },
      {"kiln.conv_transpose2d", "expects 3 input channels",
       "f32[1, 4, 5, 5]"}));
  EXPECT_TRUE(throwsAt([&] { (void)convTranspose1d(x, w); },
                       {"kiln.conv_transpose1d", "input must have rank 3"}));
}

TEST(ErrorTest, PoolOptions) {
  Tensor x = pending({1, 3, 8, 8});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)avgPool(x, {{2, 2}, {}, {}, {2, 2}});
      },
      {"kiln.avg_pool", "average pooling has no dilation"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)maxPool(x, {{2}}); },
               {"kiln.max_pool", "input must have rank 3", "f32[1, 3, 8, 8]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)maxPoolWithIndices(x, {{3, 3}, {1, 1}, {2, 2}});
      },
      {"kiln.max_pool", "padding [2, 2] exceeds half the window"}));
}

TEST(ErrorTest, InterpolateArguments) {
  Tensor x = pending({1, 3, 4, 4});
  EXPECT_TRUE(throwsAt([&] { (void)interpolate(x, {}); },
                       {"kiln.interpolate", "give either a size or a scale"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)interpolate(x, {{8, 8}, {}, "bicubic"});
      },
      {"kiln.interpolate", "mode must be nearest, linear or bilinear",
       "'bicubic'"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)interpolate(x, {{8, 8}, {}, "nearest", true});
      },
      {"kiln.interpolate", "align_corners needs mode linear"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)interpolate(x, {{}, {2.0}});
      },
      {"kiln.interpolate", "scale needs 2 entries, got 1"}));
}

TEST(ErrorTest, AdaptivePoolSizes) {
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)adaptiveAvgPool2d(pending({2, 3, 4}), {1, 1});
      },
      {"kiln.adaptive_avg_pool2d", "NCHW (rank 4)", "f32[2, 3, 4]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)adaptiveMaxPool2d(pending({2, 3, 4, 4}), {2});
      },
      {"kiln.adaptive_max_pool2d", "size needs 2 entries, got 1"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)adaptiveMaxPool2d(pending({2, 3, 4, 4}), {2, 0});
      },
      {"kiln.adaptive_max_pool2d", "size entries must be > 0"}));
}

TEST(ErrorTest, DropoutOffset) {
  EXPECT_TRUE(throwsAt(
      [&] { (void)dropout(pending({4}), 0.5, 1, pending({1}, DType::I64)); },
      {"kiln.dropout", "the offset must be a rank-0 i64 tensor", "i64[1]"}));
  EXPECT_TRUE(throwsAt(
      [&] { (void)dropout(pending({4}), 0.5, 1, pending({}, DType::I32)); },
      {"kiln.dropout", "i32"}));
}

TEST(ErrorTest, CastToQuantized) {
  Tensor a = pending({4});
  EXPECT_TRUE(throwsAt(
      [&] { (void)cast(a, DType::QFloat(QuantScheme::q8PerTensor())); },
      {"kiln.cast", "qfloat<q8/tensor/f32>", "quantize()"}));
}

TEST(ErrorTest, FromVectorCountMismatch) {
  EXPECT_TRUE(throwsAt(
      [] {
        (void)Tensor::fromVector<float>({1, 2, 3, 4, 5}, {2, 3}, flexDevice());
      },
      {"fromVector", "5 values", "[2, 3]", "6 elements"}));
}

TEST(ErrorTest, ItemOfSeveralElements) {
  Tensor a = pending({2, 3});
  EXPECT_TRUE(throwsAt([&] { (void)a.item<float>(); },
                       {"item", "6 elements", "[2, 3]"}));
}

TEST(ErrorTest, EmptyHandle) {
  Tensor empty;
  EXPECT_FALSE(empty.defined());
  EXPECT_TRUE(throwsAt([&] { (void)exp(empty); }, {"kiln.exp", "empty"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)(pending({2}) + empty); }, {"kiln.add", "empty"}));
  EXPECT_TRUE(throwsAt([&] { (void)empty.shape(); }, {"shape", "empty"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)empty.toVector<float>(); }, {"toVector", "empty"}));
  EXPECT_TRUE(throwsAt([&] { empty.sync(); }, {"sync", "empty"}));
}

TEST(ErrorTest, NonIntegerValueForAnIntegerDType) {
  EXPECT_TRUE(
      throwsAt([] { (void)Tensor::full({2}, 0.5, DType::I32, flexDevice()); },
               {"full", "0.5", "i32"}));
  Tensor i = pending({3}, DType::I32);
  EXPECT_TRUE(throwsAt([&] { (void)(i * 0.5); },
                       {"kiln.mul", "not an integer", "i32[3]"}));
  EXPECT_TRUE(throwsAt([&] { (void)maskFill(i, i > 0.0, 1.5); },
                       {"kiln.mask_fill", "not an integer"}));
  EXPECT_TRUE(
      throwsAt([] { (void)Tensor::full({2}, 2, DType::Bool, flexDevice()); },
               {"full", "bool"}));
}

TEST(ErrorTest, ScalarOutsideAnIntegerDType) {
  // Converting 255 to i8 was undefined; it is the op's error.
  Tensor b = pending({3}, DType::I8), u = pending({3}, DType::U8);
  EXPECT_TRUE(throwsAt([&] { (void)(b / 255.0); },
                       {"kiln.div", "255 is outside i8's range", "i8[3]"}));
  EXPECT_TRUE(throwsAt([&] { (void)(u + -1.0); },
                       {"kiln.add", "-1 is outside u8's range", "u8[3]"}));
  EXPECT_TRUE(
      throwsAt([] { (void)Tensor::scalar(1e19, DType::I64, flexDevice()); },
               {"scalar", "outside i64's range"}));
  EXPECT_EQ((b * 127.0).dtype(), DType::I8);
}

TEST(ErrorTest, ArangeStepZero) {
  EXPECT_TRUE(
      throwsAt([] { (void)Tensor::arange(0, 4, 0, DType::F32, flexDevice()); },
               {"arange", "step", "non-zero"}));
  EXPECT_TRUE(throwsAt(
      [] { (void)Tensor::arange(0, 4, 0.5, DType::I32, flexDevice()); },
      {"arange", "integers", "i32"}));
}

TEST(ErrorTest, RandNeedsLowBelowHigh) {
  EXPECT_TRUE(throwsAt(
      [] { (void)Tensor::rand({3}, DType::F32, flexDevice(), 1, 2.0, 2.0); },
      {"rand", "low < high"}));
  EXPECT_TRUE(
      throwsAt([] { (void)Tensor::rand({3}, DType::I32, flexDevice(), 1); },
               {"rand", "float", "i32"}));
  EXPECT_TRUE(throwsAt(
      [] { (void)Tensor::randn({3}, DType::F32, flexDevice(), 1, 0, -1); },
      {"randn", "standard deviation"}));
}

TEST(ErrorTest, BadKilnDeviceVariable) {
  const char *old = std::getenv("KILN_DEVICE");
  std::string saved = old ? old : "";
  setenv("KILN_DEVICE", "tpu", 1);
  EXPECT_TRUE(throwsAt([] { (void)DispatchDevice::defaultDevice(); },
                       {"KILN_DEVICE=tpu", "flex, cpu, cuda"}));
  setenv("KILN_DEVICE", "cuda:x", 1);
  EXPECT_TRUE(throwsAt([] { (void)DispatchDevice::defaultDevice(); },
                       {"KILN_DEVICE=cuda:x"}));
  setenv("KILN_DEVICE", "flex", 1);
  EXPECT_EQ(DispatchDevice::defaultDevice(), flexDevice());
  if (old)
    setenv("KILN_DEVICE", saved.c_str(), 1);
  else
    unsetenv("KILN_DEVICE");
}

TEST(ErrorTest, CudaWithoutAGpu) {
  try {
    (void)DispatchDevice::cuda(0);
  } catch (const Error &e) {
    EXPECT_TRUE(throwsAt([] { (void)DispatchDevice::cuda(0); },
                         {"cuda:0", "not available"}));
    EXPECT_TRUE(throwsAt([] { (void)DispatchDevice::cuda(-1); },
                         {"cuda", "-1", "negative"}));
    return;
  }
  GTEST_SKIP() << "a CUDA device is available here";
}

TEST(ErrorTest, ShapeOpArguments) {
  Tensor a = pending({2, 3});
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)a.permute({0, 0});
      },
      {"kiln.permute", "[0, 0]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)a.expand({4, 3, 2});
      },
      {"kiln.expand", "[2, 3]", "[4, 3, 2]"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)split(a, {1, 1}, 1);
      },
      {"kiln.split", "[1, 1]", "add up to 2"}));
  EXPECT_TRUE(
      throwsAt([&] { (void)a.squeeze({0}); }, {"kiln.squeeze", "dim 0"}));
  EXPECT_TRUE(throwsAt([&] { (void)a.narrow(1, 2, 2); },
                       {"kiln.slice", "narrow", "size 3"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)a.assign(pending({3, 2}));
      },
      {"assign", "f32[2, 3]", "f32[3, 2]"}));
}

TEST(ErrorTest, DeviceAndQuantizationArguments) {
  DispatchDevice ad =
      DispatchDevice::autodiff(flexDevice(), CheckpointingStrategy::Balanced);
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)DispatchDevice::autodiff(ad, CheckpointingStrategy::Disabled);
      },
      {"autodiff", "already an autodiff device"}));
  EXPECT_TRUE(throwsAt(
      [] {
        (void)DispatchDevice::autodiff(DispatchDevice::flex(),
                                       CheckpointingStrategy::Budget(0));
      },
      {"autodiff", "budget", "positive"}));
  Tensor a = pending({2, 6});
  EXPECT_TRUE(throwsAt([&] { (void)dequantize(a); },
                       {"kiln.dequantize", "f32", "not quantized"}));
  EXPECT_TRUE(throwsAt([&] { (void)quantize(a, QuantScheme::q8Block(4)); },
                       {"kiln.quantize", "last dim 6", "block size 4"}));
  EXPECT_TRUE(throwsAt([&] { (void)a.try_into_backend<Cpu>(); },
                       {"try_into_backend", "flex", "cpu"}));
}

} // namespace

// A shape whose element count (or byte size) does not fit in 64 bits is
// refused where it is made: it used to wrap to a negative count.
TEST(ErrorTest, ShapesTooLargeToCount) {
  const int64_t big = int64_t(1) << 40;
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)Shape({big, big}).numel();
      },
      {"[1099511627776, 1099511627776]", "64-bit"}));
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)Tensor::full({big, big}, 1.0, DType::F32, flexDevice());
      },
      {"kiln.expand", "64-bit"}));
  // 2^61 f32 elements count, but 2^63 bytes do not.
  EXPECT_TRUE(throwsAt(
      [&] {
        (void)Tensor::zeros({int64_t(1) << 61}, DType::F32, flexDevice());
      },
      {"kiln.expand", "bytes"}));
}

// Host memory running out is the error a materialization gives, not a
// bare std::bad_alloc; a thread count below one is refused.
TEST(ErrorTest, HostMemoryAndThreadCounts) {
  Tensor huge = Tensor::zeros({int64_t(1) << 40}, DType::F32, flexDevice());
  EXPECT_TRUE(throwsAt([&] { (void)huge.toVector<float>(); },
                       {"toVector", "out of memory", "f32[1099511627776]"}));
  int before = numThreads();
  EXPECT_TRUE(throwsAt([&] { setNumThreads(0); }, {"setNumThreads", ">= 1"}));
  EXPECT_TRUE(throwsAt([&] { setNumThreads(-3); }, {"got -3"}));
  EXPECT_EQ(numThreads(), before);
}

// Reductions over an empty axis are numpy's: max, min, argmax and argmin
// have no value there and refuse it; sum and prod give their identity.
TEST(ErrorTest, ReductionsOverAnEmptyAxis) {
  for (const DispatchDevice &dev :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    Tensor z = Tensor::zeros({0, 3}, DType::F32, dev);
    EXPECT_TRUE(throwsAt([&] { (void)max(z, {0}); },
                         {"kiln.reduce_max", "axis 0 of [0, 3] is empty"}));
    EXPECT_TRUE(throwsAt([&] { (void)min(z, {0}); }, {"kiln.reduce_min"}));
    EXPECT_TRUE(
        throwsAt([&] { (void)argmax(z, 0); }, {"kiln.argmax", "empty"}));
    EXPECT_TRUE(throwsAt([&] { (void)argmin(z, 0); }, {"kiln.argmin"}));
    EXPECT_EQ(sum(z, {0}).toVector<float>(), std::vector<float>(3, 0.0f));
    EXPECT_EQ(prod(z, {0}).toVector<float>(), std::vector<float>(3, 1.0f));
    // Over the other axis there is nothing to reduce to: an empty result.
    EXPECT_EQ(max(z, {1}).shape(), Shape({0}));
  }
}
