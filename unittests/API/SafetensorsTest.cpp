//===- SafetensorsTest.cpp - nn::save and nn::load ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace kiln;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "kiln-" + std::to_string(::getpid()) + "-" +
         name;
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string loadError(const nn::NamedParameters &p, const std::string &path) {
  try {
    nn::load(p, path);
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::vector<float>> snapshot(nn::GPT &gpt) {
  std::vector<std::vector<float>> v;
  for (DispatchTensor *p : gpt.parameters())
    v.push_back(p->toVector<float>());
  return v;
}

const nn::GPTConfig kTiny{/*vocab=*/16, /*layers=*/1, /*heads=*/2, /*dim=*/8,
                          /*context=*/4};

TEST(SafetensorsTest, SaveThenLoadIsBitExact) {
  DispatchDevice ad = DispatchDevice::autodiff(DispatchDevice::cpu(),
                                               CheckpointingStrategy::Balanced);
  nn::GPT a(kTiny, ad, 1), b(kTiny, ad, 2);
  std::string path = tempPath("roundtrip.safetensors");
  nn::save(a.namedParameters(), path);
  ASSERT_NE(snapshot(a), snapshot(b));
  nn::load(b.namedParameters(), path);
  EXPECT_EQ(snapshot(a), snapshot(b));
  // The loaded parameters are trained like the others.
  for (DispatchTensor *p : b.parameters())
    EXPECT_TRUE(p->checkpointing.has_value());
  DispatchTensor x = DispatchTensor::fromVector<int64_t>({1, 2, 3, 4}, {1, 4},
                                                         DispatchDevice::cpu());
  Gradients g = backward(b.loss(x, x));
  EXPECT_TRUE(g.has(b.head.weight));
  // The header names every parameter by its module path.
  std::string bytes = readBytes(path);
  EXPECT_NE(bytes.find("\"blocks.0.attn.qkv.weight\""), std::string::npos);
  EXPECT_NE(bytes.find("\"lnf.bias\""), std::string::npos);
  EXPECT_EQ(bytes.size() % 8, 0u);
  std::remove(path.c_str());
}

// A file written by the reference implementation (the safetensors Python
// package with numpy): every dtype it holds reads as written.
TEST(SafetensorsTest, ReadsAFileOfAnIndependentWriter) {
  std::string path = std::string(KILN_TEST_INPUTS) + "/independent.safetensors";
  DispatchDevice flex = DispatchDevice::flex();
  DispatchTensor weight = DispatchTensor::zeros({2, 3}, DType::F32, flex);
  DispatchTensor bias = DispatchTensor::zeros({3}, DType::F32, flex);
  DispatchTensor steps = DispatchTensor::zeros({2, 2}, DType::I64, flex);
  DispatchTensor half = DispatchTensor::zeros({4}, DType::F32, flex);
  DispatchTensor mask = DispatchTensor::zeros({3}, DType::Bool, flex);
  nn::load({{"layer.weight", &weight},
            {"layer.bias", &bias},
            {"steps", &steps},
            {"half", &half},
            {"mask", &mask}},
           path);
  EXPECT_EQ(weight.toVector<float>(),
            (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
  // F64 into an f32 parameter, F16 into f32: converted.
  EXPECT_EQ(bias.toVector<float>(), (std::vector<float>{1.5f, -2.25f, 3.0f}));
  EXPECT_EQ(steps.toVector<int64_t>(), (std::vector<int64_t>{7, -8, 9, 10}));
  EXPECT_EQ(half.toVector<float>(),
            (std::vector<float>{0.5f, -1.0f, 2.0f, 65504.0f}));
  EXPECT_EQ(mask.toVector<bool>(), (std::vector<bool>{true, false, true}));
}

// Each broken file is an error that names the file and what is wrong, and
// the model keeps every parameter it had.
TEST(SafetensorsTest, ABadFileIsAnErrorAndLoadsNothing) {
  DispatchDevice cpu = DispatchDevice::cpu();
  nn::GPT saved(kTiny, cpu, 1), model(kTiny, cpu, 2);
  std::string good = tempPath("good.safetensors"),
              bad = tempPath("bad.safetensors");
  nn::save(saved.namedParameters(), good);
  std::string bytes = readBytes(good);
  auto before = snapshot(model);
  auto expectError = [&](const std::string &fileBytes,
                         const std::string &fragment) {
    writeBytes(bad, fileBytes);
    std::string e = loadError(model.namedParameters(), bad);
    EXPECT_NE(e.find(fragment), std::string::npos) << e;
    EXPECT_NE(e.find(bad), std::string::npos) << e;
    EXPECT_EQ(snapshot(model), before);
  };
  SCOPED_TRACE("truncated data");
  expectError(bytes.substr(0, bytes.size() - 5), "runs past the end");
  SCOPED_TRACE("truncated header");
  expectError(bytes.substr(0, 40), "header length");
  SCOPED_TRACE("no header length");
  expectError("abc", "fewer than the 8");
  SCOPED_TRACE("corrupt JSON");
  {
    std::string b = bytes;
    b[8] = '#';
    expectError(b, "not JSON");
  }
  SCOPED_TRACE("a huge header length");
  {
    std::string b = bytes;
    b[6] = '\x7f';
    expectError(b, "header length");
  }
  SCOPED_TRACE("a bad dtype");
  {
    std::string b = bytes;
    size_t at = b.find("\"F32\"");
    ASSERT_NE(at, std::string::npos);
    b.replace(at, 5, "\"X32\"");
    expectError(b, "dtype \"X32\" is not one Kiln reads");
  }

  // Another model's file: shapes or names that do not match.
  std::string other = tempPath("other.safetensors");
  nn::GPT wider({16, 1, 2, 12, 4}, cpu, 3);
  nn::save(wider.namedParameters(), other);
  std::string e = loadError(model.namedParameters(), other);
  EXPECT_EQ(e, "nn::load: tensor 'wte.weight' of " + other +
                   " is [16, 12], the parameter is [16, 8]");
  EXPECT_EQ(snapshot(model), before);
  nn::GPT deeper({16, 2, 2, 8, 4}, cpu, 3);
  e = loadError(deeper.namedParameters(), good);
  EXPECT_EQ(e, "nn::load: " + good + " has no tensor 'blocks.1.ln1.weight'");
  EXPECT_EQ(loadError(model.namedParameters(), tempPath("missing")),
            "nn::load: cannot open " + tempPath("missing"));
  for (const std::string &p : {good, bad, other})
    std::remove(p.c_str());
}

TEST(SafetensorsTest, AFailedSaveLeavesNoFile) {
  nn::GPT gpt(kTiny, DispatchDevice::flex(), 1);
  std::string dir = tempPath("no-such-dir") + "/model.safetensors";
  try {
    nn::save(gpt.namedParameters(), dir);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("nn::save: cannot write"),
              std::string::npos)
        << e.what();
  }
  DispatchTensor a =
      DispatchTensor::ones({2}, DType::F32, DispatchDevice::flex());
  std::string twice = tempPath("twice.safetensors");
  try {
    nn::save({{"a", &a}, {"a", &a}}, twice);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "safetensors: two tensors are named 'a'");
  }
  EXPECT_FALSE(std::ifstream(twice).good());
}

} // namespace
