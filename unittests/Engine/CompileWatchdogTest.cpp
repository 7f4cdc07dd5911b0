//===- CompileWatchdogTest.cpp - A time limit on each compile -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// KILN_COMPILE_TIMEOUT is read once per process, so each case runs in a
// child of its own (threadsafe death tests re-execute the binary). A
// "compile" that never ends is a loop that waits to be killed: the abort
// always comes, however slow the host.
//
//===----------------------------------------------------------------------===//

#include "CompileWatchdog.h"
#include "kiln/Support/Error.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace kiln;
using namespace kiln::detail;

namespace {

[[noreturn]] void compileForEver() {
  while (true)
    std::this_thread::sleep_for(std::chrono::seconds(1));
}

TEST(CompileWatchdogDeathTest, AHangPrintsTheGraphAndAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ::setenv("KILN_COMPILE_TIMEOUT", "0.2", 1);
        CompileWatchdog watch("cpu", [] { return std::string("@main graph"); });
        compileForEver();
      },
      "kiln: a compile ran longer than KILN_COMPILE_TIMEOUT \\(0.2 s\\) and "
      "is taken for a hang: the cpu compile of\n@main graph");
}

TEST(CompileWatchdogDeathTest, OnlyTheCompileThatHangsIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ::setenv("KILN_COMPILE_TIMEOUT", "0.2", 1);
        {
          CompileWatchdog done("cpu", [] { return std::string("first"); });
        }
        CompileWatchdog watch("flex", [] { return std::string("second"); });
        compileForEver();
      },
      "the flex compile of\nsecond");
}

TEST(CompileWatchdogTest, WithoutALimitTheGraphIsNotEvenPrinted) {
  // The parent process has no KILN_COMPILE_TIMEOUT (ctest sets none for
  // this binary): the description is never asked for.
  if (std::getenv("KILN_COMPILE_TIMEOUT"))
    GTEST_SKIP() << "KILN_COMPILE_TIMEOUT is set for this run";
  bool asked = false;
  {
    CompileWatchdog watch("cpu", [&] {
      asked = true;
      return std::string();
    });
  }
  EXPECT_FALSE(asked);
}

TEST(CompileWatchdogDeathTest, ABadLimitIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("KILN_COMPILE_TIMEOUT", "ten", 1);
        try {
          CompileWatchdog watch("cpu", [] { return std::string(); });
        } catch (const Error &e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(3);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(3),
      "KILN_COMPILE_TIMEOUT is 'ten'; expected a number of seconds from 0 "
      "\\(no limit\\) to 1000000");
}

} // namespace
