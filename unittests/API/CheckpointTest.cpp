//===- CheckpointTest.cpp - Hugging Face checkpoints give transformers' logits
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The tiny checkpoints of Inputs/hf (made by tools/peers/make_hf_fixtures.py
// with transformers: a grouped-query Llama in f32, a tied-embedding Llama in
// bf16 shards, a GPT-2 in f16) load with nn::fromPretrained and give
// transformers' logits for the stored ids, and its greedy continuation of
// the stored prompt, on Flex and on Cpu. Broken directories fail with
// errors that name what is wrong.
//
//===----------------------------------------------------------------------===//

#include "ErrorMessage.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace kiln;
using test::errorMessage;

namespace {

const std::string kHf = KILN_TEST_INPUTS "/hf/";

/// A little-endian C-order .npy of '<f4' or '<i8' (what the fixtures hold).
struct Npy {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

Npy readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw std::runtime_error("not a .npy file: " + path);
  size_t headerLen = static_cast<unsigned char>(bytes[8]) |
                     (static_cast<unsigned char>(bytes[9]) << 8);
  std::string header = bytes.substr(10, headerLen);
  Npy out;
  size_t open = header.find("'shape': (") + 10;
  std::string dims = header.substr(open, header.find(')', open) - open);
  std::stringstream ds(dims);
  for (std::string d; std::getline(ds, d, ',');)
    if (d.find_first_not_of(' ') != std::string::npos)
      out.shape.push_back(std::stoll(d));
  const char *data = bytes.data() + 10 + headerLen;
  size_t n = bytes.size() - 10 - headerLen;
  if (header.find("'<f4'") != std::string::npos) {
    for (size_t i = 0; i < n / 4; ++i) {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      out.values.push_back(f);
    }
  } else if (header.find("'<i8'") != std::string::npos) {
    for (size_t i = 0; i < n / 8; ++i) {
      int64_t v;
      std::memcpy(&v, data + 8 * i, 8);
      out.values.push_back(static_cast<double>(v));
    }
  } else {
    throw std::runtime_error("unexpected dtype in " + path);
  }
  return out;
}

std::vector<int64_t> asInts(const Npy &a) {
  return std::vector<int64_t>(a.values.begin(), a.values.end());
}

class CheckpointTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

} // namespace

TEST_P(CheckpointTest, GivesTransformersLogitsAndGreedyTokens) {
  auto [name, deviceName] = GetParam();
  DispatchDevice dev =
      deviceName == "cpu" ? DispatchDevice::cpu() : DispatchDevice::flex();
  std::string dir = kHf + name;
  std::unique_ptr<nn::CausalLM> model = nn::fromPretrained(dir, dev);
  Npy ids = readNpy(dir + "/ids.npy"), want = readNpy(dir + "/logits.npy");
  DispatchTensor logits = model->forward(
      DispatchTensor::fromVector<int64_t>(asInts(ids), Shape(ids.shape), dev));
  ASSERT_EQ(logits.shape(), Shape(want.shape));
  std::vector<float> got = logits.toVector<float>();
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want.values[i]));
  EXPECT_LE(worst, 1e-4) << "largest logit difference";

  std::vector<int64_t> prompt = asInts(readNpy(dir + "/prompt.npy"));
  int64_t before = backendCounters(dev).compiles;
  std::vector<int64_t> greedy = model->generate(prompt, 20, {0.0});
  EXPECT_EQ(greedy, asInts(readNpy(dir + "/greedy.npy")));
  if (deviceName == "cpu")
    EXPECT_LE(backendCounters(dev).compiles - before, 3);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CheckpointTest,
    ::testing::Combine(::testing::Values("llama-gqa", "llama-tied", "gpt2"),
                       ::testing::Values("flex", "cpu")),
    [](const auto &info) {
      std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
      for (char &c : n)
        if (c == '-')
          c = '_';
      return n;
    });

TEST(CheckpointErrorTest, BrokenDirectoriesSayWhatIsWrong) {
  namespace fs = std::filesystem;
  DispatchDevice flex = DispatchDevice::flex();
  fs::path tmp = fs::temp_directory_path() /
                 ("kiln-checkpoint-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  int copies = 0;
  auto copyOf = [&](const std::string &name) {
    fs::path d = tmp / (name + "-" + std::to_string(copies++));
    fs::create_directories(d);
    for (const auto &e : fs::directory_iterator(kHf + name))
      fs::copy(e.path(), d / e.path().filename());
    return d.string();
  };
  auto write = [](const std::string &path, const std::string &text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  };
  auto replaceIn = [&](const std::string &path, const std::string &from,
                       const std::string &to) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    size_t at = s.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    write(path, s);
  };

  EXPECT_EQ(
      errorMessage([&] { nn::fromPretrained((tmp / "none").string(), flex); }),
      "fromPretrained: cannot open the config " + (tmp / "none").string() +
          "/config.json");

  std::string unknown = copyOf("gpt2");
  replaceIn(unknown + "/config.json", "\"gpt2\"", "\"bert\"");
  EXPECT_NE(errorMessage([&] {
              nn::fromPretrained(unknown, flex);
            }).find("model_type \"bert\""),
            std::string::npos);

  // A wrong size in the config: the tensors no longer fit, by name.
  std::string shapes = copyOf("llama-gqa");
  replaceIn(shapes + "/config.json", "\"intermediate_size\": 48",
            "\"intermediate_size\": 40");
  EXPECT_EQ(errorMessage([&] { nn::fromPretrained(shapes, flex); }),
            "fromPretrained: tensor 'model.layers.0.mlp.gate_proj.weight' of " +
                shapes +
                "/model.safetensors is [48, 32], the parameter is "
                "[40, 32]");

  // One layer fewer: layer 1's tensors are extra.
  std::string extra = copyOf("llama-gqa");
  replaceIn(extra + "/config.json", "\"num_hidden_layers\": 2",
            "\"num_hidden_layers\": 1");
  EXPECT_NE(errorMessage([&] {
              nn::fromPretrained(extra, flex);
            }).find("has tensor 'model.layers.1."),
            std::string::npos);

  // One layer more: layer 2's tensors are missing.
  std::string missing = copyOf("llama-gqa");
  replaceIn(missing + "/config.json", "\"num_hidden_layers\": 2",
            "\"num_hidden_layers\": 3");
  EXPECT_NE(errorMessage([&] {
              nn::fromPretrained(missing, flex);
            }).find("has no tensor 'model.layers.2."),
            std::string::npos);

  // A shard cut short.
  std::string cut = copyOf("llama-tied");
  fs::path shard = fs::path(cut) / "model-00002-of-00003.safetensors";
  fs::resize_file(shard, fs::file_size(shard) / 2);
  EXPECT_NE(errorMessage([&] {
              nn::fromPretrained(cut, flex);
            }).find("model-00002-of-00003.safetensors"),
            std::string::npos);

  std::string badJson = copyOf("gpt2");
  write(badJson + "/config.json", "{\"model_type\": \"gpt2\",");
  EXPECT_NE(errorMessage([&] {
              nn::fromPretrained(badJson, flex);
            }).find("is not JSON"),
            std::string::npos);

  std::string scaled = copyOf("llama-gqa");
  replaceIn(scaled + "/config.json", "\"rope_type\": \"default\"",
            "\"rope_type\": \"yarn\"");
  EXPECT_NE(errorMessage([&] {
              nn::fromPretrained(scaled, flex);
            }).find("rope_type \"yarn\""),
            std::string::npos);
  fs::remove_all(tmp);
}

TEST(LlamaTest, Q8DecodingStaysCloseAndCompilesLittle) {
  nn::LlamaConfig c;
  c.vocab = 64;
  c.hidden = 64;
  c.intermediate = 96;
  c.layers = 2;
  c.heads = 4;
  c.kvHeads = 2;
  c.maxPositions = 40;
  DispatchDevice cpu = DispatchDevice::cpu();
  nn::Llama model(c, cpu, 3);
  std::vector<int64_t> f = model.generate({1, 2, 3}, 16, {0.0});
  int64_t before = backendCounters(cpu).compiles;
  nn::SampleOptions o{0.0};
  o.q8 = true;
  std::vector<int64_t> q = model.generate({1, 2, 3}, 16, o);
  EXPECT_LE(backendCounters(cpu).compiles - before, 3);
  // q8 weights change the logits by a little: greedy decoding mostly
  // agrees with f32.
  int same = 0;
  for (size_t i = 0; i < f.size() && f[i] == q[i]; ++i)
    ++same;
  EXPECT_GE(same, 4);
  // A second q8 call reuses the quantized weights and the executables.
  before = backendCounters(cpu).compiles;
  EXPECT_EQ(model.generate({1, 2, 3}, 16, o), q);
  EXPECT_EQ(backendCounters(cpu).compiles, before);
}

TEST(CheckpointErrorTest, GenerateChecksItsArguments) {
  std::unique_ptr<nn::CausalLM> model =
      nn::fromPretrained(kHf + "llama-gqa", DispatchDevice::flex());
  EXPECT_EQ(errorMessage([&] { model->generate({}, 3); }),
            "Llama::generate: the prompt is empty");
  EXPECT_EQ(errorMessage([&] { model->generate({96}, 3); }),
            "Llama::generate: prompt token 96 is out of range for a vocabulary "
            "of 96");
  EXPECT_EQ(errorMessage([&] {
              model->generate({1, 2}, 63);
            }),
            "Llama::generate: 2 + 63 tokens exceed the 64 positions of the "
            "model");
  nn::SampleOptions o;
  o.topP = 0;
  EXPECT_EQ(errorMessage([&] { model->generate({1}, 3, o); }),
            "Llama::generate: top_p must be in (0, 1], got 0.000000");
  // Sampling is seeded: the same seed, the same tokens; top_p keeps them
  // in the vocabulary.
  o.topP = 0.9;
  o.temperature = 0.8;
  o.seed = 3;
  std::vector<int64_t> a = model->generate({1, 2, 3}, 8, o);
  EXPECT_EQ(a, model->generate({1, 2, 3}, 8, o));
  for (int64_t t : a)
    EXPECT_TRUE(t >= 0 && t < 96);
}
