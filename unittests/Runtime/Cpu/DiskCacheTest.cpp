//===- DiskCacheTest.cpp - The Cpu backend's kernel cache on disk ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The cache directory is read once per process, and the point of the cache
// is what a second process finds, so every scenario runs this binary again
// as a child (the disabled test CpuCacheChild.DISABLED_Run) with its own
// KILN_CACHE_DIR. The child materializes one fixed graph on the Cpu backend
// and writes its counters and values to a file; its stderr is captured.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"
#include "kiln/Support/CpuIsa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace kiln;

namespace {

constexpr const char *kChildOut = "KILN_CACHE_TEST_OUT";
constexpr const char *kChildFileLimit = "KILN_CACHE_TEST_FSIZE";

/// Softmax over a matmul with a bias (a reduction kernel and a matmul
/// kernel with its epilogue), plus an elementwise chain: three kinds of
/// generated code in one object. `variant` changes the graph's structure.
std::vector<Tensor> childGraph(int variant, int64_t rows = 6) {
  DispatchDevice cpu = DispatchDevice::cpu();
  std::vector<float> xs(rows * 8), ws(8 * 5), bs(5);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  for (size_t i = 0; i < ws.size(); ++i)
    ws[i] = 0.05f * static_cast<float>(i % 11) - 0.2f;
  for (size_t i = 0; i < bs.size(); ++i)
    bs[i] = 0.5f * static_cast<float>(i);
  Tensor x = Tensor::fromVector<float>(xs, {rows, 8}, cpu);
  Tensor w = Tensor::fromVector<float>(ws, {8, 5}, cpu);
  Tensor b = Tensor::fromVector<float>(bs, {5}, cpu);
  Tensor y = (x.matmul(w) + b).softmax(1);
  Tensor z = exp(x * 0.5 + 1.0).sum(1, false);
  if (variant)
    z = z * 3.0;
  return {y, z};
}

/// The gradient of an embedding's table: a generic kernel (a scatter_add
/// into zeros) whose lowering keeps a constant as a global.
std::vector<Tensor> embeddingGradient() {
  auto dev = DispatchDevice::autodiff(DispatchDevice::cpu(),
                                      CheckpointingStrategy::Balanced);
  nn::Embedding table(10, 4, dev, 5);
  Tensor idx = Tensor::fromVector<int64_t>({1, 3, 3, 7, 0, 1}, {2, 3},
                                           DispatchDevice::cpu());
  Tensor loss = sum(table.forward(idx) * 2.0);
  return {loss, backward(loss).get(table.weight)};
}

/// What one child process did.
struct ChildRun {
  int status = -1;
  std::string err;
  int64_t compiles = -1, diskHits = -1;
  /// Runs of the graph passes, MLIR modules built: none on a disk hit.
  int64_t graphPasses = -1, mlirModules = -1;
  std::vector<float> values;
};

class TempDir {
public:
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "kiln-cache-XXXXXX";
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    ::chmod(path_.c_str(), 0755);
    std::string cmd = "rm -rf '" + path_ + "'";
    (void)std::system(cmd.c_str());
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

std::string selfPath() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, n) : "";
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> out;
  for (const std::string &n : listDir(dir))
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".kobj") == 0)
      out.push_back(dir + "/" + n);
  return out;
}

/// Starts the child; `env` is added to this process's environment, from
/// which every KILN_ variable is dropped first.
pid_t startChild(const std::string &work, const std::string &tag,
                 const std::vector<std::string> &env) {
  std::vector<std::string> vars;
  for (char **e = environ; *e; ++e)
    if (std::strncmp(*e, "KILN_", 5) != 0)
      vars.push_back(*e);
  vars.push_back(std::string(kChildOut) + "=" + work + "/" + tag + ".out");
  vars.insert(vars.end(), env.begin(), env.end());
  std::string exe = selfPath();
  std::vector<std::string> args = {exe,
                                   "--gtest_filter=CpuCacheChild.DISABLED_Run",
                                   "--gtest_also_run_disabled_tests"};
  // Everything the child needs is built before fork: only async-signal-safe
  // calls may follow it.
  std::vector<char *> argv, envp;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string &v : vars)
    envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string errPath = work + "/" + tag + ".err";
  std::string logPath = work + "/" + tag + ".log";
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int log = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0 || log < 0)
      ::_exit(126);
    ::dup2(err, 2);
    ::dup2(log, 1);
    ::execve(exe.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

ChildRun finishChild(pid_t pid, const std::string &work,
                     const std::string &tag) {
  ChildRun r;
  int status = 0;
  if (pid <= 0 || ::waitpid(pid, &status, 0) != pid)
    return r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = readFile(work + "/" + tag + ".err");
  std::ifstream out(work + "/" + tag + ".out");
  out >> r.compiles >> r.diskHits >> r.graphPasses >> r.mlirModules;
  float v;
  while (out >> v)
    r.values.push_back(v);
  return r;
}

ChildRun runChild(const std::string &work, const std::string &tag,
                  const std::vector<std::string> &env) {
  return finishChild(startChild(work, tag, env), work, tag);
}

/// How many lines of `text` match `re`.
int countLines(const std::string &text, const std::regex &re) {
  std::stringstream ss(text);
  std::string line;
  int n = 0;
  while (std::getline(ss, line))
    n += std::regex_match(line, re);
  return n;
}

const std::regex kCorruptLine(
    "kiln: discarding corrupt kernel cache entry .*\\.kobj \\(.*\\); "
    "recompiling");

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(work.path().empty());
    cacheDir = work.path() + "/cache";
  }
  std::string cacheEnv() const { return "KILN_CACHE_DIR=" + cacheDir; }

  /// A first child that compiles and fills the cache.
  ChildRun warmUp() {
    ChildRun first = runChild(work.path(), "first", {cacheEnv()});
    EXPECT_EQ(first.status, 0) << first.err;
    EXPECT_EQ(first.compiles, 1);
    EXPECT_EQ(first.diskHits, 0);
    EXPECT_EQ(entries(cacheDir).size(), 1u);
    return first;
  }

  TempDir work;
  std::string cacheDir;
};

} // namespace

// The child: not run by itself (DISABLED_), only by the tests below.
TEST(CpuCacheChild, DISABLED_Run) {
  const char *out = std::getenv(kChildOut);
  ASSERT_NE(out, nullptr) << "runs only as a child of DiskCacheTest";
  if (const char *limit = std::getenv(kChildFileLimit)) {
    // Writes past the limit fail with EFBIG instead of killing the child.
    std::signal(SIGXFSZ, SIG_IGN);
    rlim_t bytes = std::strtoull(limit, nullptr, 10);
    rlimit r{bytes, bytes};
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &r), 0);
  }
  int variant = std::getenv("KILN_CACHE_TEST_VARIANT") ? 1 : 0;
  std::vector<Tensor> results = std::getenv("KILN_CACHE_TEST_EMBEDDING")
                                    ? embeddingGradient()
                                    : childGraph(variant);
  if (std::getenv("KILN_CACHE_TEST_TWO_GRAPHS"))
    sync(childGraph(1));
  if (std::getenv("KILN_CACHE_TEST_REBATCH"))
    sync(childGraph(variant, 3));
  sync(results);
  BackendCounters c = backendCounters(DispatchDevice::cpu());
  std::ofstream f(out);
  f << c.compiles << " " << c.diskHits << " " << c.graphPasses << " "
    << c.mlirModules << "\n";
  f.precision(9);
  for (const Tensor &t : results)
    for (float v : t.toVector<float>())
      f << v << " ";
  f << "\n";
  ASSERT_TRUE(static_cast<bool>(f));
}

// A disk hit rebuilds the executable from the entry alone: no MLIR module
// built or read, no graph pass, no kernel generation (KILN_LOG=kernels
// prints the module after kernel generation, so it prints nothing), no LLVM.
TEST_F(DiskCacheTest, DiskHitRunsNoPass) {
  ChildRun first = warmUp();
  EXPECT_EQ(first.graphPasses, 1);
  EXPECT_EQ(first.mlirModules, 1);
  ChildRun second =
      runChild(work.path(), "second", {cacheEnv(), "KILN_LOG=compile,kernels"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.diskHits, 1);
  EXPECT_EQ(second.graphPasses, 0);
  EXPECT_EQ(second.mlirModules, 0);
  EXPECT_EQ(second.values, first.values);
  EXPECT_NE(second.err.find("(from the disk cache)"), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("no passes"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("in 3 kernels"), std::string::npos) << second.err;
  EXPECT_EQ(second.err.find("func.func"), std::string::npos) << second.err;
  // The cold run did print its kernels: the check above can fail.
  ChildRun cold = runChild(
      work.path(), "cold",
      {"KILN_CACHE_DIR=" + work.path() + "/other", "KILN_LOG=compile,kernels"});
  ASSERT_EQ(cold.status, 0) << cold.err;
  EXPECT_NE(cold.err.find("func.func"), std::string::npos) << cold.err;
  EXPECT_EQ(cold.values, first.values);
}

// (a) A graph compiled by one process is loaded by the next one.
TEST_F(DiskCacheTest, SecondProcessLoadsFromDisk) {
  ChildRun first = warmUp();
  ChildRun second = runChild(work.path(), "second", {cacheEnv()});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.compiles, 1) << "an executable is still built";
  EXPECT_EQ(second.diskHits, 1);
  EXPECT_EQ(second.values, first.values);
  EXPECT_EQ(second.values.size(), 6u * 5u + 6u);
  // Another graph is another entry, not a hit.
  ChildRun other =
      runChild(work.path(), "other", {cacheEnv(), "KILN_CACHE_TEST_VARIANT=1"});
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_EQ(other.diskHits, 0);
  EXPECT_EQ(entries(cacheDir).size(), 2u);
}

// The ISA is part of an entry's key: code compiled for AVX2 is not what a
// process compiling for AVX-512 loads, and each ISA finds its own entry.
TEST_F(DiskCacheTest, EachIsaHasItsOwnEntries) {
  ChildRun avx2 =
      runChild(work.path(), "avx2", {cacheEnv(), "KILN_CPU_ISA=avx2"});
  ASSERT_EQ(avx2.status, 0) << avx2.err;
  EXPECT_EQ(avx2.diskHits, 0);
  ChildRun again =
      runChild(work.path(), "avx2-again", {cacheEnv(), "KILN_CPU_ISA=avx2"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.diskHits, 1);
  EXPECT_EQ(again.values, avx2.values);
  if (!hostHasAvx512())
    GTEST_SKIP() << "the AVX-512 half: " << cpuIsaUnsupported(CpuIsa::Avx512);
  ChildRun avx512 =
      runChild(work.path(), "avx512", {cacheEnv(), "KILN_CPU_ISA=avx512"});
  ASSERT_EQ(avx512.status, 0) << avx512.err;
  EXPECT_EQ(avx512.diskHits, 0) << "AVX-512 loaded the AVX2 entry";
  EXPECT_EQ(entries(cacheDir).size(), 2u);
  ASSERT_EQ(avx512.values.size(), avx2.values.size());
  for (size_t i = 0; i < avx2.values.size(); ++i)
    EXPECT_NEAR(avx512.values[i], avx2.values[i], 1e-5) << "value " << i;
}

// A generic kernel whose lowering made a global (the zeros an embedding's
// gradient scatters into) loads from disk too: the entry's plan holds the
// kernels @main calls, not what their lowering made of them.
TEST_F(DiskCacheTest, GenericKernelWithAConstantLoadsFromDisk) {
  ChildRun first = runChild(work.path(), "first",
                            {cacheEnv(), "KILN_CACHE_TEST_EMBEDDING=1"});
  ASSERT_EQ(first.status, 0) << first.err;
  ChildRun second = runChild(work.path(), "second",
                             {cacheEnv(), "KILN_CACHE_TEST_EMBEDDING=1"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_GE(second.diskHits, 1);
  EXPECT_EQ(second.diskHits, second.compiles) << "a graph was compiled again";
  EXPECT_EQ(second.values, first.values);
  EXPECT_EQ(first.values.size(), 1u + 10u * 4u);
}

// (b) Bytes flipped in the middle of the entry fail its checksum.
TEST_F(DiskCacheTest, FlippedBytesAreReportedOnceAndRecompiled) {
  ChildRun first = warmUp();
  ASSERT_EQ(entries(cacheDir).size(), 1u);
  std::string path = entries(cacheDir)[0];
  std::string bytes = readFile(path);
  ASSERT_GT(bytes.size(), 64u);
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 8; ++i)
    bytes[i] = static_cast<char>(~bytes[i]);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

  ChildRun second = runChild(work.path(), "second", {cacheEnv()});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(countLines(second.err, kCorruptLine), 1) << second.err;
  EXPECT_NE(second.err.find("checksum mismatch"), std::string::npos)
      << second.err;
  EXPECT_EQ(second.diskHits, 0);
  EXPECT_EQ(second.values, first.values);
  // The entry was replaced by a good one.
  ChildRun third = runChild(work.path(), "third", {cacheEnv()});
  ASSERT_EQ(third.status, 0) << third.err;
  EXPECT_EQ(countLines(third.err, kCorruptLine), 0) << third.err;
  EXPECT_EQ(third.diskHits, 1);
  EXPECT_EQ(third.values, first.values);
}

// A FIFO (or any file that is not a regular one) named like an entry would
// block a plain read forever: it is skipped, said once, and a good entry
// replaces it.
TEST_F(DiskCacheTest, AFifoNamedLikeAnEntryIsSkipped) {
  ChildRun first = warmUp();
  ASSERT_EQ(entries(cacheDir).size(), 1u);
  std::string path = entries(cacheDir)[0];
  ASSERT_EQ(std::remove(path.c_str()), 0);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);

  pid_t pid = startChild(work.path(), "fifo", {cacheEnv()});
  bool finished = false;
  for (int i = 0; i < 600 && !finished; ++i) {
    int status;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      finished = true;
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << readFile(work.path() + "/fifo.err");
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  if (!finished) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    FAIL() << "the child hung on a FIFO in the kernel cache";
  }
  std::string err = readFile(work.path() + "/fifo.err");
  EXPECT_NE(err.find("skipping kernel cache entry"), std::string::npos) << err;
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  ChildRun again = runChild(work.path(), "again", {cacheEnv()});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.diskHits, 1);
  EXPECT_EQ(again.values, first.values);
}

// (b) An entry cut short, at several points.
TEST_F(DiskCacheTest, TruncatedEntryIsReportedOnceAndRecompiled) {
  ChildRun first = warmUp();
  ASSERT_EQ(entries(cacheDir).size(), 1u);
  std::string path = entries(cacheDir)[0];
  std::string whole = readFile(path);
  for (size_t keep :
       {size_t(4), size_t(20), whole.size() / 2, whole.size() - 1}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " bytes");
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        << whole.substr(0, keep);
    std::string tag = "cut" + std::to_string(keep);
    ChildRun r = runChild(work.path(), tag, {cacheEnv()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(countLines(r.err, kCorruptLine), 1) << r.err;
    EXPECT_EQ(r.diskHits, 0);
    EXPECT_EQ(r.values, first.values);
    // Recompiled and stored whole again.
    EXPECT_EQ(readFile(path), whole);
  }
}

// (b) Two damaged entries in one process: one report each, and the rest of
// stderr stays quiet.
TEST_F(DiskCacheTest, EachCorruptEntryIsReportedOncePerProcess) {
  ChildRun first = runChild(work.path(), "first",
                            {cacheEnv(), "KILN_CACHE_TEST_TWO_GRAPHS=1"});
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_EQ(entries(cacheDir).size(), 2u);
  for (const std::string &path : entries(cacheDir))
    std::ofstream(path, std::ios::binary | std::ios::trunc) << "KILNOBJ";
  ChildRun second = runChild(work.path(), "second",
                             {cacheEnv(), "KILN_CACHE_TEST_TWO_GRAPHS=1"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(countLines(second.err, kCorruptLine), 2) << second.err;
  EXPECT_EQ(second.compiles, 2);
  EXPECT_EQ(second.diskHits, 0);
  EXPECT_EQ(second.values, first.values);
}

// (c) A write that fails part-way (the file size limit) leaves nothing: no
// temporary file, no entry a later process would trust.
TEST_F(DiskCacheTest, FailedWriteLeavesNoFile) {
  ChildRun r = runChild(work.path(), "limited",
                        {cacheEnv(), std::string(kChildFileLimit) + "=1024"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(listDir(cacheDir), std::vector<std::string>());
  ChildRun next = runChild(work.path(), "next", {cacheEnv()});
  ASSERT_EQ(next.status, 0) << next.err;
  EXPECT_EQ(countLines(next.err, kCorruptLine), 0) << next.err;
  EXPECT_EQ(next.diskHits, 0);
  EXPECT_EQ(next.values, r.values);
}

// (c) A cache directory that cannot be written costs only the warm start.
TEST_F(DiskCacheTest, ReadOnlyDirectoryLeavesNoFile) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root writes into a read-only directory anyway; "
                    "NotADirectory covers the failure for root";
  ASSERT_EQ(::mkdir(cacheDir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(cacheDir.c_str(), 0555), 0);
  ChildRun r = runChild(work.path(), "ro", {cacheEnv()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(r.diskHits, 0);
  EXPECT_EQ(listDir(cacheDir), std::vector<std::string>());
}

TEST_F(DiskCacheTest, NotADirectory) {
  std::ofstream(cacheDir) << "not a directory";
  ChildRun r = runChild(work.path(), "file", {cacheEnv()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(r.diskHits, 0);
  EXPECT_EQ(readFile(cacheDir), "not a directory");
  std::vector<std::string> all = listDir(work.path());
  for (const std::string &n : all)
    EXPECT_EQ(n.find(".tmp"), std::string::npos) << n;
}

// (c) Two processes compiling the same graph at once leave one valid entry
// and no temporary file.
TEST_F(DiskCacheTest, ConcurrentWritersLeaveOneValidEntry) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::string dir = cacheDir + std::to_string(round);
    std::string env = "KILN_CACHE_DIR=" + dir;
    std::string a = "a" + std::to_string(round),
                b = "b" + std::to_string(round);
    pid_t pa = startChild(work.path(), a, {env});
    pid_t pb = startChild(work.path(), b, {env});
    ChildRun ra = finishChild(pa, work.path(), a);
    ChildRun rb = finishChild(pb, work.path(), b);
    ASSERT_EQ(ra.status, 0) << ra.err;
    ASSERT_EQ(rb.status, 0) << rb.err;
    EXPECT_EQ(ra.values, rb.values);
    EXPECT_EQ(listDir(dir).size(), 1u);
    ASSERT_EQ(entries(dir).size(), 1u);
    std::string c = "c" + std::to_string(round);
    ChildRun rc = runChild(work.path(), c, {env});
    ASSERT_EQ(rc.status, 0) << rc.err;
    EXPECT_EQ(countLines(rc.err, kCorruptLine), 0) << rc.err;
    EXPECT_EQ(rc.diskHits, 1);
    EXPECT_EQ(rc.values, ra.values);
  }
}

// (d) KILN_LOG=compile: one line per compile, naming the cache entry, the
// kernels with the ops they fuse, and the time in MLIR and in LLVM.
TEST_F(DiskCacheTest, CompileLogLine) {
  const std::regex line(
      "kiln: compile cpu ([0-9a-f]{16})( \\(from the disk cache\\))?: "
      "[0-9]+ ops in ([0-9]+) kernels \\[(.*)\\], [0-9]+\\.[0-9]{2} ms "
      "passes, [0-9]+\\.[0-9]{2} ms MLIR, ([0-9]+\\.[0-9]{2}) ms LLVM, "
      "[0-9]+\\.[0-9]{2} ms total");
  ChildRun first = runChild(
      work.path(), "first",
      {cacheEnv(), "KILN_LOG=compile", "KILN_CACHE_TEST_TWO_GRAPHS=1"});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.compiles, 2);
  // Every line about compiling is one of these, one per compile.
  EXPECT_EQ(countLines(first.err, std::regex("kiln: .*compile.*")), 2)
      << first.err;
  EXPECT_EQ(countLines(first.err, line), 2) << first.err;
  std::stringstream ss(first.err);
  std::string text;
  std::vector<std::string> hashes;
  while (std::getline(ss, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, line))
      continue;
    EXPECT_FALSE(m[2].matched) << text;
    hashes.push_back(m[1]);
    // Kernels are listed as kind(op op ...), one per kernel.
    int listed = countLines(
        std::regex_replace(m[4].str(), std::regex("\\), "), ")\n"),
        std::regex("(elementwise|reduction|matmul|generic)\\([a-z_0-9 ]+\\)"));
    EXPECT_EQ(listed, std::stoi(m[3])) << text;
  }
  // The hash names the entry on disk.
  for (const std::string &h : hashes) {
    struct stat st;
    EXPECT_EQ(::stat((cacheDir + "/" + h + ".kobj").c_str(), &st), 0) << h;
  }
  // The bias add is fused: into the matmul's epilogue or, read twice, into
  // the softmax row kernel that follows; never a kernel of its own.
  EXPECT_NE(first.err.find("matmul(matmul"), std::string::npos) << first.err;
  EXPECT_EQ(first.err.find("elementwise(add)"), std::string::npos)
      << first.err;

  ChildRun second =
      runChild(work.path(), "second", {cacheEnv(), "KILN_LOG=compile"});
  ASSERT_EQ(second.status, 0) << second.err;
  // A hit runs neither passes nor MLIR nor LLVM: it only loads the entry.
  const std::regex hit(
      "kiln: compile cpu ([0-9a-f]{16}) \\(from the disk cache\\): [0-9]+ "
      "ops in ([0-9]+) kernels \\[(.*)\\], no passes, [0-9]+\\.[0-9]{2} ms "
      "load, [0-9]+\\.[0-9]{2} ms total");
  std::smatch m;
  std::string only = second.err.substr(0, second.err.find('\n'));
  ASSERT_TRUE(std::regex_match(only, m, hit)) << second.err;
  EXPECT_NE(std::find(hashes.begin(), hashes.end(), m[1].str()), hashes.end())
      << only;
  EXPECT_EQ(countLines(second.err, hit), 1) << second.err;
  EXPECT_EQ(countLines(second.err, line), 0) << second.err;
}

// KILN_LOG=recompile gives each compile's reason: the first of a graph,
// then, for the same graph with other sizes, each input dim that changed.
// (The child materializes the 3-row graph first, then the 6-row one.)
TEST_F(DiskCacheTest, RecompileLogNamesTheChangedDim) {
  ChildRun r =
      runChild(work.path(), "rebatch",
               {cacheEnv(), "KILN_LOG=recompile", "KILN_CACHE_TEST_REBATCH=1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.compiles, 2);
  EXPECT_EQ(countLines(r.err, std::regex("kiln: compile cpu: a graph not seen "
                                         "before \\(7 ops, 5 inputs\\)")),
            1)
      << r.err;
  EXPECT_EQ(countLines(r.err, std::regex("kiln: recompile cpu: input 0 "
                                         "\\(f32\\[6, 8\\]\\) dim 0 is 6, "
                                         "was 3")),
            1)
      << r.err;
  // Dim 0 alone changed: it is dynamic from now on, and the recompile is
  // general in it (automatic dynamic dims are on by default).
  EXPECT_EQ(countLines(r.err, std::regex("kiln: compile cpu: for any size of "
                                         "the dynamic dims \\(input 0 dim 0; "
                                         "now 6\\)")),
            1)
      << r.err;
  EXPECT_EQ(countLines(r.err, std::regex("kiln: .*")), 3) << r.err;
}

// KILN_AUTO_DYNAMIC=0: the recompile stays static and says only why.
TEST_F(DiskCacheTest, RecompileStaysStaticWithoutAutoDynamic) {
  ChildRun r = runChild(work.path(), "rebatch",
                        {cacheEnv(), "KILN_LOG=recompile",
                         "KILN_CACHE_TEST_REBATCH=1", "KILN_AUTO_DYNAMIC=0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.compiles, 2);
  EXPECT_EQ(countLines(r.err, std::regex("kiln: recompile cpu: input 0 "
                                         "\\(f32\\[6, 8\\]\\) dim 0 is 6, "
                                         "was 3")),
            1)
      << r.err;
  EXPECT_EQ(countLines(r.err, std::regex("kiln: .*")), 2) << r.err;
}

// Without KILN_LOG nothing is printed.
TEST_F(DiskCacheTest, QuietWithoutLog) {
  ChildRun r = runChild(work.path(), "quiet", {cacheEnv()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}
