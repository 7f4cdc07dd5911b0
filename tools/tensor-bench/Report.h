//===- Report.h - Rows of the benchmark table -------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TENSOR_BENCH_REPORT_H
#define KILN_TOOLS_TENSOR_BENCH_REPORT_H

#include "Bench.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// One row: a workload on one backend at one thread count.
struct Record {
  std::string workload, backend;
  int threads = 1;
  /// Empty when the row did not get to timing (an error, a wrong result).
  Stats stats;
  std::optional<double> ratio;
  std::string ratioOf;
  /// Hand-written loop time / this time (> 1: faster than the loop).
  std::optional<double> vsHand;
  /// "ok", or why the figures are missing or not to be trusted:
  /// "WRONG: ...", "ERROR: ...", "skipped: ...".
  std::string status = "ok";
  /// Extra JSON fields, in order: key, JSON text, short text for the table
  /// (empty: not shown there).
  struct Field {
    std::string key, json, text;
  };
  std::vector<Field> extra;

  void add(const std::string &key, double v, const char *fmt = "%.3g");
  void add(const std::string &key, int64_t v);
  void add(const std::string &key, const std::string &v, bool show = true);
  void addBool(const std::string &key, bool v);
  /// Adds to the JSON only.
  void addHidden(const std::string &key, double v);
  bool ok() const { return status == "ok"; }
};

/// The table on stdout, printed row by row as results arrive.
class Table {
public:
  explicit Table(std::FILE *out) : out(out) {}
  void header();
  /// Printed once per workload, before its first row: what the ratio is.
  void legend(const std::string &workload, const std::string &text);
  void row(const Record &r);
  void note(const std::string &text);

private:
  std::FILE *out;
  std::vector<std::string> legends;
};

/// Writes every record as one JSON array.
bool writeJson(const std::string &path, const std::vector<Record> &records,
               std::string &error);

std::string jsonString(const std::string &s);

} // namespace bench

#endif // KILN_TOOLS_TENSOR_BENCH_REPORT_H
