//===- OnnxTest.cpp - ONNX models as Kiln graphs --------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Models built here with the protobuf classes: their numbers against a
// hand computation, one compile for every batch size, fine-tuning an
// imported classifier (Cpu against Flex), external data, the imported
// module, and the error of every kind of bad input. The ops themselves are
// checked by the ONNX backend test suite (tools/onnx-conformance).
//
//===----------------------------------------------------------------------===//

#include "ErrorMessage.h"
#include "NumericTest.h"

#include "kiln/Import/Onnx.h"
#include "kiln/Kiln.h"
#include "kiln/Runtime/Npy.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace kiln;
using kiln::test::errorMessage;
/// Kiln's importer, beside the protobuf classes of ::onnx.
namespace konnx = kiln::onnx;

namespace {

/// A graph under construction.
struct Builder {
  ::onnx::ModelProto model;
  ::onnx::GraphProto *g;

  explicit Builder(int64_t opset = 17, int64_t ir = 8) {
    model.set_ir_version(ir);
    auto *o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = model.mutable_graph();
    g->set_name("g");
  }

  /// A tensor value; a dim of -1 is the symbol "N".
  static void typeOf(::onnx::ValueInfoProto *v, const std::string &name,
                     int32_t elem, const std::vector<int64_t> &dims) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto *s = t->mutable_shape();
    for (int64_t d : dims) {
      auto *dim = s->add_dim();
      if (d < 0)
        dim->set_dim_param("N");
      else
        dim->set_dim_value(d);
    }
  }
  void input(const std::string &name, std::vector<int64_t> dims,
             int32_t elem = ::onnx::TensorProto::FLOAT) {
    typeOf(g->add_input(), name, elem, dims);
  }
  void output(const std::string &name, std::vector<int64_t> dims,
              int32_t elem = ::onnx::TensorProto::FLOAT) {
    typeOf(g->add_output(), name, elem, dims);
  }
  ::onnx::NodeProto *node(const std::string &op,
                          std::vector<std::string> inputs,
                          std::vector<std::string> outputs,
                          const std::string &name = "") {
    auto *n = g->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(g->node_size())
                             : name);
    for (auto &i : inputs)
      n->add_input(i);
    for (auto &o : outputs)
      n->add_output(o);
    return n;
  }
  ::onnx::TensorProto *init(const std::string &name, std::vector<int64_t> dims,
                            std::vector<float> values) {
    auto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
    return t;
  }
  static void intAttr(::onnx::NodeProto *n, const std::string &name,
                      int64_t v) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }

  std::string save(const std::string &file) const {
    std::string path = ::testing::TempDir() + file;
    std::ofstream f(path, std::ios::binary);
    model.SerializeToOstream(&f);
    return path;
  }
};

std::vector<float> range(size_t n, float scale, float shift = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::sin(0.7f * i + 0.3f) * scale + shift;
  return v;
}

/// x [N, 3] -> Gemm(W1 [3, 4], b1) -> Relu -> MatMul(W2 [4, 2]) -> Softmax.
Builder mlp() {
  Builder b;
  b.input("x", {-1, 3});
  b.output("y", {-1, 2});
  b.init("w1", {3, 4}, range(12, 0.8f));
  b.init("b1", {4}, range(4, 0.1f));
  b.init("w2", {4, 2}, range(8, 0.6f, 0.1f));
  b.node("Gemm", {"x", "w1", "b1"}, {"h"});
  b.node("Relu", {"h"}, {"r"});
  b.node("MatMul", {"r", "w2"}, {"z"});
  Builder::intAttr(b.node("Softmax", {"z"}, {"y"}), "axis", 1);
  return b;
}

std::vector<float> mlpReference(const std::vector<float> &x, int64_t n) {
  std::vector<float> w1 = range(12, 0.8f), b1 = range(4, 0.1f),
                     w2 = range(8, 0.6f, 0.1f), y(n * 2);
  for (int64_t i = 0; i < n; ++i) {
    double r[4], z[2];
    for (int j = 0; j < 4; ++j) {
      double h = b1[j];
      for (int k = 0; k < 3; ++k)
        h += x[i * 3 + k] * w1[k * 4 + j];
      r[j] = std::max(h, 0.0);
    }
    for (int j = 0; j < 2; ++j) {
      z[j] = 0;
      for (int k = 0; k < 4; ++k)
        z[j] += r[k] * w2[k * 2 + j];
    }
    double m = std::max(z[0], z[1]);
    double e0 = std::exp(z[0] - m), e1 = std::exp(z[1] - m);
    y[i * 2] = e0 / (e0 + e1);
    y[i * 2 + 1] = e1 / (e0 + e1);
  }
  return y;
}

class OnnxDevices : public ::testing::TestWithParam<const char *> {
protected:
  DispatchDevice device() const {
    return std::string(GetParam()) == "cpu" ? DispatchDevice::cpu()
                                            : DispatchDevice::flex();
  }
};

TEST_P(OnnxDevices, MlpMatchesHandComputation) {
  std::string path = mlp().save("mlp.onnx");
  konnx::Model m = konnx::Model::load(path, device());
  ASSERT_EQ(m.inputs().size(), 1u);
  EXPECT_EQ(m.inputs()[0].name, "x");
  EXPECT_EQ(m.inputs()[0].dims, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(m.inputs()[0].symbols[0], "N");
  EXPECT_EQ(m.outputs()[0].name, "y");
  EXPECT_EQ(m.opset(), 17);
  std::vector<float> x = range(15, 1.5f);
  auto y = m({DispatchTensor::fromVector<float>(x, {5, 3}, device())});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].shape(), Shape({5, 2}));
  std::vector<float> got = y[0].toVector<float>(), want = mlpReference(x, 5);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  // By name.
  auto named =
      m.run({{"x", DispatchTensor::fromVector<float>(x, {5, 3}, device())}});
  EXPECT_EQ(named.at("y").toVector<float>(), got);
}

INSTANTIATE_TEST_SUITE_P(FlexAndCpu, OnnxDevices,
                         ::testing::Values("flex", "cpu"));

TEST(OnnxImport, SymbolicBatchCompilesOnce) {
  std::string path = mlp().save("mlp_batch.onnx");
  DispatchDevice cpu = DispatchDevice::cpu();
  konnx::Model m = konnx::Model::load(path, cpu);
  auto run = [&](int64_t n) {
    std::vector<float> x = range(n * 3, 1.2f, 0.05f * n);
    std::vector<float> got =
        m({DispatchTensor::fromVector<float>(x, {n, 3}, cpu)})[0]
            .toVector<float>();
    std::vector<float> want = mlpReference(x, n);
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5) << "batch " << n << " " << i;
  };
  run(3);
  int64_t compiles = backendCounters(cpu).compiles;
  run(7);
  run(1);
  EXPECT_EQ(backendCounters(cpu).compiles, compiles)
      << "a new batch size recompiled the imported model";
}

TEST(OnnxImport, TrainableClassifierFineTunesAndMatchesFlex) {
  // logits = x W + b; Kiln's cross entropy on top.
  Builder b;
  b.input("x", {-1, 4});
  b.output("logits", {-1, 3});
  b.init("w", {4, 3}, range(12, 0.3f));
  b.init("b", {3}, {0.f, 0.f, 0.f});
  b.node("Gemm", {"x", "w", "b"}, {"logits"});
  std::string path = b.save("classifier.onnx");

  std::vector<float> x = range(32, 1.0f);
  std::vector<int64_t> labels{0, 1, 2, 1, 0, 2, 2, 1};
  auto lossOf = [&](konnx::Model &m, const DispatchDevice &dev) {
    DispatchTensor xs = DispatchTensor::fromVector<float>(x, {8, 4}, dev);
    DispatchTensor ys = DispatchTensor::fromVector<int64_t>(labels, {8}, dev);
    return crossEntropy(m({xs})[0], ys);
  };
  // The gradients of the first step on Cpu against Flex.
  auto gradients = [&](const DispatchDevice &inner) {
    DispatchDevice dev =
        DispatchDevice::autodiff(inner, CheckpointingStrategy::Disabled);
    konnx::LoadOptions trainable;
    trainable.trainable = true;
    konnx::Model m = konnx::Model::load(path, dev, trainable);
    Gradients g = backward(lossOf(m, dev));
    std::vector<std::vector<float>> out;
    for (auto &[name, p] : m.namedParameters())
      out.push_back(g.get(*p).toVector<float>());
    return out;
  };
  auto flex = gradients(DispatchDevice::flex());
  auto cpu = gradients(DispatchDevice::cpu());
  ASSERT_EQ(flex.size(), 2u);
  for (size_t p = 0; p < flex.size(); ++p)
    for (size_t i = 0; i < flex[p].size(); ++i)
      EXPECT_NEAR(cpu[p][i], flex[p][i], 1e-5) << p << " " << i;
  EXPECT_GT(std::abs(flex[0][0]) + std::abs(flex[1][0]), 0.0);

  DispatchDevice dev = DispatchDevice::autodiff(
      DispatchDevice::cpu(), CheckpointingStrategy::Disabled);
  konnx::LoadOptions trainable;
  trainable.trainable = true;
  konnx::Model m = konnx::Model::load(path, dev, trainable);
  std::vector<DispatchTensor *> params;
  for (auto &[name, p] : m.namedParameters())
    params.push_back(p);
  optim::SGD sgd(params, 0.5);
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    DispatchTensor loss = lossOf(m, dev);
    Gradients g = backward(loss);
    sgd.step(g);
    last = loss.item<float>();
    if (step == 0)
      first = last;
  }
  EXPECT_LT(last, 0.8 * first) << "20 SGD steps: " << first << " -> " << last;
}

TEST(OnnxImport, ConstantInitializersAreNotTracked) {
  std::string path = mlp().save("mlp_frozen.onnx");
  DispatchDevice dev = DispatchDevice::autodiff(
      DispatchDevice::cpu(), CheckpointingStrategy::Disabled);
  konnx::Model m = konnx::Model::load(path, dev);
  DispatchTensor x =
      DispatchTensor::fromVector<float>(range(6, 1.0f), {2, 3}, dev);
  Gradients g = backward(sum(m({x})[0] * m({x})[0]));
  for (auto &[name, p] : m.namedParameters())
    EXPECT_FALSE(g.has(*p)) << name << " is a constant, not a parameter";
}

TEST(OnnxImport, ExternalData) {
  Builder b;
  b.input("x", {2});
  b.output("y", {2});
  auto *t = b.g->add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(2);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto kv = [&](const char *k, const std::string &v) {
    auto *e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", "weights.bin");
  kv("offset", "4");
  kv("length", "8");
  b.node("Mul", {"x", "w"}, {"y"});
  std::string path = b.save("external.onnx");
  float data[3] = {99.f, 2.5f, -4.f};
  std::ofstream(::testing::TempDir() + "weights.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(data), sizeof data);
  konnx::Model m = konnx::Model::load(path, DispatchDevice::flex());
  auto y = m({DispatchTensor::fromVector<float>({2.f, 3.f}, {2},
                                                DispatchDevice::flex())});
  EXPECT_EQ(y[0].toVector<float>(), (std::vector<float>{5.f, -12.f}));

  kv("location", "weights.bin"); // a second location entry wins: same file
  t->mutable_external_data(1)->set_value("8");
  std::string bad = b.save("external_past_end.onnx");
  EXPECT_NE(
      errorMessage([&] { konnx::Model::load(bad); }).find("external data"),
      std::string::npos);
}

TEST(OnnxImport, ImportedModuleHasDynamicBatch) {
  std::string text = konnx::importModel(mlp().save("mlp_import.onnx"));
  EXPECT_NE(text.find("func.func @main"), std::string::npos) << text;
  EXPECT_NE(text.find("kiln.matmul"), std::string::npos) << text;
  EXPECT_NE(text.find("kiln.softmax"), std::string::npos) << text;
  EXPECT_NE(text.find("tensor<?x3xf32>"), std::string::npos) << text;
}

//===--- Bad input --------------------------------------------------------===//

std::string loadError(const Builder &b, const std::string &file) {
  std::string path = b.save(file);
  return errorMessage([&] {
    konnx::Model m = konnx::Model::load(path, DispatchDevice::flex());
    std::vector<DispatchTensor> ins;
    for (const auto &info : m.inputs()) {
      std::vector<int64_t> dims;
      for (int64_t d : info.dims)
        dims.push_back(d < 0 ? 2 : d);
      ins.push_back(DispatchTensor::zeros(Shape(dims), info.dtype,
                                          DispatchDevice::flex()));
    }
    m(ins);
  });
}

TEST(OnnxErrors, MissingAndCorruptFiles) {
  EXPECT_NE(errorMessage([] {
              konnx::Model::load("/nonexistent/model.onnx");
            }).find("onnx: cannot open /nonexistent/model.onnx"),
            std::string::npos);
  std::string path = ::testing::TempDir() + "garbage.onnx";
  std::ofstream(path) << "this is not a protobuf \xff\xff\xff\xff";
  EXPECT_NE(errorMessage([&] {
              konnx::Model::load(path);
            }).find("not a valid ONNX model"),
            std::string::npos);
  // Every truncation of a valid model is an error or a model, never a
  // crash.
  std::string bytes;
  mlp().model.SerializeToString(&bytes);
  for (size_t n = 0; n < bytes.size(); n += 7) {
    std::string cut = ::testing::TempDir() + "cut.onnx";
    std::ofstream(cut, std::ios::binary).write(bytes.data(), n);
    std::string msg = errorMessage([&] { konnx::Model::load(cut); });
    EXPECT_TRUE(msg == "no error" || msg.rfind("onnx: ", 0) == 0) << msg;
  }
}

TEST(OnnxErrors, UnknownOpNamesNodeOpDomainAndOpset) {
  Builder b(13);
  b.input("x", {2});
  b.output("y", {2});
  b.node("Frobnicate", {"x"}, {"y"}, "frob_1");
  // Opset 13 passes the checker only with known ops: use IR 9 to skip it.
  b.model.set_ir_version(9);
  EXPECT_EQ(loadError(b, "unknown.onnx"),
            "onnx: node 'frob_1' (Frobnicate, domain ai.onnx, opset 13): "
            "Kiln has no mapping for this op");
}

TEST(OnnxErrors, CheckerFailure) {
  Builder b(13);
  b.input("x", {2});
  b.output("y", {2});
  b.node("Frobnicate", {"x"}, {"y"});
  EXPECT_NE(loadError(b, "checker.onnx").find("fails the ONNX checker"),
            std::string::npos);
}

TEST(OnnxErrors, UnsupportedAttributeAndDomain) {
  Builder b(18, 10);
  b.input("x", {1, 1, 4, 4});
  b.output("y", {1, 1, 2, 2});
  auto *n = b.node("MaxPool", {"x"}, {"y"}, "pool");
  auto *a = n->add_attribute();
  a->set_name("kernel_shape");
  a->set_type(::onnx::AttributeProto::INTS);
  a->add_ints(2);
  a->add_ints(2);
  Builder::intAttr(n, "frobness", 1);
  EXPECT_EQ(loadError(b, "attr.onnx"),
            "onnx: node 'pool' (MaxPool, domain ai.onnx, opset 18): "
            "attribute 'frobness' is not supported");

  Builder d(18, 10);
  d.input("x", {2});
  d.output("y", {2});
  d.node("Relu", {"x"}, {"y"}, "r")->set_domain("com.example");
  EXPECT_EQ(loadError(d, "domain.onnx"),
            "onnx: node 'r' (Relu, domain com.example, opset 18): the domain "
            "is not supported (only the default domain is)");
}

TEST(OnnxErrors, OpsetIrVersionAndDtype) {
  Builder b(22, 10);
  b.input("x", {2});
  b.output("y", {2});
  b.node("Relu", {"x"}, {"y"});
  EXPECT_NE(loadError(b, "opset22.onnx")
                .find("opset 22 of the default domain is not supported "
                      "(1 to 21 are)"),
            std::string::npos);
  Builder ir(18, 11);
  ir.input("x", {2});
  ir.output("y", {2});
  ir.node("Relu", {"x"}, {"y"});
  EXPECT_NE(loadError(ir, "ir11.onnx")
                .find("IR version 11 is not supported (3 to 10 are)"),
            std::string::npos);
  Builder u(18, 10);
  u.input("x", {2}, ::onnx::TensorProto::UINT32);
  u.output("y", {2}, ::onnx::TensorProto::UINT32);
  u.node("Identity", {"x"}, {"y"});
  EXPECT_NE(
      loadError(u, "uint32.onnx").find("Kiln has no dtype for ONNX's uint32"),
      std::string::npos);
}

TEST(OnnxErrors, DataDependentShapesAndControlFlowAreRefused) {
  Builder b(18, 10);
  b.input("x", {4});
  b.output("y", {1, -1}, ::onnx::TensorProto::INT64);
  b.node("NonZero", {"x"}, {"y"}, "nz");
  EXPECT_EQ(loadError(b, "nonzero.onnx"),
            "onnx: node 'nz' (NonZero, domain ai.onnx, opset 18): its output "
            "shape depends on the data, which Kiln does not support");
}

TEST(OnnxErrors, MalformedNodesTheFuzzerFound) {
  // Each of these once read past a shape or divided by zero.
  Builder trilu(18, 10);
  trilu.input("x", {4});
  trilu.output("y", {4});
  trilu.node("Trilu", {"x"}, {"y"}, "t");
  EXPECT_EQ(loadError(trilu, "trilu_rank1.onnx"),
            "onnx: node 't' (Trilu, domain ai.onnx, opset 18): input 0 must "
            "have rank 2 to 64, not shape [4]");
  Builder d2s(18, 10);
  d2s.input("x", {1, 4, 2, 2});
  d2s.output("y", {1, 1, 4, 4});
  Builder::intAttr(d2s.node("DepthToSpace", {"x"}, {"y"}, "d"), "blocksize", 0);
  EXPECT_EQ(loadError(d2s, "d2s_zero.onnx"),
            "onnx: node 'd' (DepthToSpace, domain ai.onnx, opset 18): "
            "attribute 'blocksize' must be 1 or more, not 0");
  Builder ct(18, 10);
  ct.input("x", {1, 2, 3, 3});
  ct.input("w", {2, 2, 3});
  ct.output("y", {1, 2, 5, 5});
  ct.node("ConvTranspose", {"x", "w"}, {"y"}, "ct");
  EXPECT_EQ(loadError(ct, "convtranspose_ranks.onnx"),
            "onnx: node 'ct' (ConvTranspose, domain ai.onnx, opset 18): "
            "needs [N, C, spatial...] and a weight of the same rank");
  Builder conv(18, 10);
  conv.input("x", {1, 1, 4, 4});
  conv.input("w", {1, 1, 3, 3});
  conv.output("y", {1, 1, 2, 2});
  auto *n = conv.node("Conv", {"x", "w"}, {"y"}, "c");
  auto *a = n->add_attribute();
  a->set_name("strides");
  a->set_type(::onnx::AttributeProto::INTS);
  a->add_ints(0);
  a->add_ints(1);
  EXPECT_EQ(loadError(conv, "conv_stride0.onnx"),
            "onnx: node 'c' (Conv, domain ai.onnx, opset 18): attribute "
            "'strides' must hold values from 1 to 16777216, not 0");
  // A shape read from a lazily expanded tensor of 2^40 values: refused by
  // its count, not allocated.
  Builder big(18, 10);
  big.input("x", {2, 3});
  big.output("y", {6});
  auto *one = big.g->add_initializer();
  one->set_name("one");
  one->set_data_type(::onnx::TensorProto::INT64);
  one->add_dims(1);
  one->add_int64_data(6);
  auto *count = big.g->add_initializer();
  count->set_name("count");
  count->set_data_type(::onnx::TensorProto::INT64);
  count->add_dims(1);
  count->add_int64_data(int64_t(1) << 40);
  big.node("Expand", {"one", "count"}, {"s"});
  big.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(loadError(big, "reshape_huge_shape.onnx"),
            "onnx: node 'r' (Reshape, domain ai.onnx, opset 18): input 1 "
            "holds 1099511627776 values; a list read on the host holds at most "
            "16777216");
}

TEST(OnnxErrors, InputsOfTheWrongKind) {
  std::string path = mlp().save("mlp_inputs.onnx");
  konnx::Model m = konnx::Model::load(path, DispatchDevice::flex());
  DispatchDevice flex = DispatchDevice::flex();
  EXPECT_EQ(errorMessage([&] { m({}); }),
            "onnx: the model takes 1 inputs, not 0");
  EXPECT_EQ(errorMessage([&] {
              m({DispatchTensor::zeros({2, 3}, DType::F64, flex)});
            }),
            "onnx: input 'x' must be f32, not f64");
  EXPECT_EQ(errorMessage([&] {
              m({DispatchTensor::zeros({2, 4}, DType::F32, flex)});
            }),
            "onnx: input 'x' must have dim 1 of 3, not shape [2, 4]");
  EXPECT_EQ(errorMessage([&] { m.run({}); }),
            "onnx: no value for the model's input 'x'");
  EXPECT_EQ(errorMessage([&] {
              m.run({{"x", DispatchTensor::zeros({2, 3}, DType::F32, flex)},
                     {"z", DispatchTensor::zeros({1}, DType::F32, flex)}});
            }),
            "onnx: the model has no input 'z'");
}

TEST(OnnxErrors, ShapeErrorsNameTheNode) {
  Builder b(18, 10);
  b.input("x", {2, 3});
  b.input("w", {4, 5});
  b.output("y", {2, 5});
  b.node("MatMul", {"x", "w"}, {"y"}, "mm");
  std::string msg = loadError(b, "matmul_shapes.onnx");
  EXPECT_EQ(msg.rfind("onnx: node 'mm' (MatMul, domain ai.onnx, opset 18): "
                      "kiln.matmul",
                      0),
            0u)
      << msg;
}

TEST(OnnxErrors, TensorProtoFiles) {
  EXPECT_NE(errorMessage([] {
              konnx::readTensorProto("/nonexistent.pb", DispatchDevice::flex());
            }).find("cannot open"),
            std::string::npos);
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.add_float_data(1.f); // 1 value for 3
  std::string path = ::testing::TempDir() + "short.pb";
  std::ofstream f(path, std::ios::binary);
  t.SerializeToOstream(&f);
  f.close();
  EXPECT_NE(errorMessage([&] {
              konnx::readTensorProto(path, DispatchDevice::flex());
            }).find("holds 4 bytes, not the 12 of 3 f32 values"),
            std::string::npos);
}

//===--- Models exported by PyTorch ---------------------------------------===//

/// tools/peers/make_onnx_fixtures.py's models, each against onnxruntime's
/// outputs at two batch sizes, on Flex and Cpu.
struct Exported {
  const char *name, *exporter;
};

class ExportedModels
    : public ::testing::TestWithParam<std::tuple<Exported, const char *>> {};

detail::NpyArray fixture(const std::string &file) {
  return detail::readNpy(std::string(KILN_TEST_INPUTS) + "/" + file);
}

DispatchTensor tensorOf(const detail::NpyArray &a, const DispatchDevice &d) {
  return DispatchTensor::fromData(a.dtype, a.data.data(),
                                  Shape(a.shape).numel(), Shape(a.shape), d);
}

TEST_P(ExportedModels, MatchOnnxruntimeAtTwoBatchSizes) {
  auto [model, deviceName] = GetParam();
  DispatchDevice device = std::string(deviceName) == "cpu"
                              ? DispatchDevice::cpu()
                              : DispatchDevice::flex();
  std::string base = std::string(model.name) + "." + model.exporter;
  konnx::Model m = konnx::Model::load(
      std::string(KILN_TEST_INPUTS) + "/" + base + ".onnx", device);
  int64_t compiles = 0;
  for (int b = 0; b < 2; ++b) {
    DispatchTensor x = tensorOf(fixture(std::string(model.name) + ".input_" +
                                        std::to_string(b) + ".npy"),
                                device);
    detail::NpyArray want =
        fixture(base + ".output_" + std::to_string(b) + ".npy");
    ASSERT_EQ(want.dtype, DType::F32);
    DispatchTensor y = m({x})[0];
    ASSERT_EQ(y.shape().dims(), want.shape) << base;
    std::vector<float> got = y.toVector<float>();
    const float *ref = reinterpret_cast<const float *>(want.data.data());
    float scale = 0;
    for (size_t i = 0; i < got.size(); ++i)
      scale = std::max(scale, std::abs(ref[i]));
    // 1e-4 relative to the output's magnitude.
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], ref[i], 1e-4 * scale)
          << base << " batch " << b << " element " << i;
    if (b == 0)
      compiles = backendCounters(device).compiles;
  }
  if (device.kind() == DeviceKind::Cpu &&
      (std::string(model.name) == "resnet18" ||
       std::string(model.name) == "mobilenet"))
    EXPECT_EQ(backendCounters(device).compiles, compiles)
        << base << ": the second batch size compiled again";
}

INSTANTIATE_TEST_SUITE_P(
    PyTorch, ExportedModels,
    ::testing::Combine(::testing::Values(Exported{"resnet18", "torchscript"},
                                         Exported{"resnet18", "dynamo"},
                                         Exported{"mobilenet", "torchscript"},
                                         Exported{"mobilenet", "dynamo"},
                                         Exported{"lstm", "torchscript"},
                                         Exported{"lstm", "dynamo"},
                                         Exported{"gpt2", "dynamo"},
                                         Exported{"llama", "dynamo"}),
                       ::testing::Values("flex", "cpu")),
    [](const auto &info) {
      return std::string(std::get<0>(info.param).name) + "_" +
             std::get<0>(info.param).exporter + "_" + std::get<1>(info.param);
    });

} // namespace
