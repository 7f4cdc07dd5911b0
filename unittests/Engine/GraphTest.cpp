//===- GraphTest.cpp - dumpGraph prints MLIR that tensor-opt parses -------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The design's debugging loop: a pending graph prints as a kiln module, and
// the same module goes through tensor-opt (parse, verify, passes). The path
// of tensor-opt comes from the build (KILN_TENSOR_OPT).
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace kiln;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

struct ToolResult {
  int status;
  std::string output;
};

/// Runs tensor-opt with `args` on `module` (written to a temporary file).
ToolResult tensorOpt(const std::string &module, const std::string &args = "") {
  char path[] = "/tmp/kiln-graph-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  std::ofstream(path) << module;
  close(fd);
  std::string cmd =
      std::string(KILN_TENSOR_OPT) + " " + args + " " + path + " 2>&1";
  ToolResult r{-1, ""};
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      r.output.append(buf, n);
    r.status = pclose(p);
  }
  unlink(path);
  return r;
}

TEST(GraphTest, DumpParsesBackWithTensorOpt) {
  Tensor a =
      Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, flexDevice());
  Tensor b = Tensor::full({3}, 0.5, DType::F32, flexDevice());
  Tensor c = exp(a * b + 1.0).sum(1);
  Tensor d = softmax(a, -1).transpose().slice({0, 0}, {3, 2}, {2, 1});
  std::string dump = dumpGraph({c, d});
  EXPECT_TRUE(c.isPending()) << "dumping must not materialize";
  for (const char *op :
       {"func.func @main", "kiln.mul", "kiln.add", "kiln.exp", "kiln.sum",
        "kiln.softmax", "kiln.permute", "kiln.slice", "kiln.expand"})
    EXPECT_NE(dump.find(op), std::string::npos) << op << " missing in\n"
                                                << dump;
  ToolResult parsed = tensorOpt(dump);
  ASSERT_EQ(parsed.status, 0) << parsed.output;
  for (const char *op : {"kiln.exp", "kiln.sum", "kiln.softmax", "kiln.slice"})
    EXPECT_NE(parsed.output.find(op), std::string::npos) << parsed.output;
  // The composite decomposes with the same pass the engine runs.
  ToolResult decomposed = tensorOpt(dump, "--kiln-decompose");
  ASSERT_EQ(decomposed.status, 0) << decomposed.output;
  EXPECT_EQ(decomposed.output.find("kiln.softmax"), std::string::npos);
  EXPECT_NE(decomposed.output.find("kiln.reduce_max"), std::string::npos);
  // The values are still right after dumping.
  std::vector<float> v = c.toVector<float>();
  EXPECT_NEAR(v[0], 24.0532f, 1e-3f);
  EXPECT_NEAR(v[1], 107.7991f, 1e-3f);
}

TEST(GraphTest, DumpOfEveryDTypeParses) {
  for (DType dtype :
       {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32,
        DType::I16, DType::I8, DType::U8, DType::Bool}) {
    Tensor x = Tensor::ones({2, 2}, dtype, flexDevice());
    Tensor y = flip(x, {0}) == x;
    ToolResult parsed = tensorOpt(dumpGraph(y.cast(dtype)));
    EXPECT_EQ(parsed.status, 0) << dtype.str() << "\n" << parsed.output;
  }
}

TEST(GraphTest, MaterializedTensorsDumpAnEmptyModule) {
  Tensor x = Tensor::ones({2}, DType::F32, flexDevice()) * 2.0;
  x.sync();
  std::string dump = dumpGraph(x);
  EXPECT_EQ(dump.find("kiln."), std::string::npos) << dump;
  EXPECT_EQ(tensorOpt(dump).status, 0);
}

} // namespace
