//===- Report.cpp - The table and the JSON file ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace bench;

static std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// JSON has no NaN or infinity: they become null.
static std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  return format("%.6g", v);
}

std::string bench::jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20)
        out += format("\\u%04x", c);
      else
        out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void Record::add(const std::string &key, double v, const char *fmt) {
  extra.push_back({key, jsonNumber(v), key + "=" + format(fmt, v)});
}
void Record::add(const std::string &key, int64_t v) {
  extra.push_back({key, std::to_string(v), key + "=" + std::to_string(v)});
}
void Record::add(const std::string &key, const std::string &v, bool show) {
  extra.push_back({key, jsonString(v), show ? key + "=" + v : ""});
}
void Record::addBool(const std::string &key, bool v) {
  extra.push_back({key, v ? "true" : "false", key + "=" + (v ? "yes" : "no")});
}
void Record::addHidden(const std::string &key, double v) {
  extra.push_back({key, jsonNumber(v), ""});
}

void Table::header() {
  std::fprintf(out, "%-24s %-8s %3s %10s %10s %10s %7s %7s  %s\n", "workload",
               "backend", "thr", "median_ms", "min_ms", "max_ms", "ratio",
               "vs_hand", "notes");
  std::fprintf(out, "%s\n", std::string(110, '-').c_str());
  std::fflush(out);
}

void Table::legend(const std::string &workload, const std::string &text) {
  if (std::find(legends.begin(), legends.end(), workload) != legends.end())
    return;
  legends.push_back(workload);
  std::fprintf(out, "# %s: %s\n", workload.c_str(), text.c_str());
  std::fflush(out);
}

void Table::note(const std::string &text) {
  std::fprintf(out, "# %s\n", text.c_str());
  std::fflush(out);
}

void Table::row(const Record &r) {
  auto cell = [](bool has, double v, const char *fmt) {
    return has ? format(fmt, v) : std::string("-");
  };
  bool timed = !r.stats.ms.empty();
  std::string notes;
  if (!r.ok())
    notes = r.status;
  for (const Record::Field &f : r.extra)
    if (!f.text.empty())
      notes += (notes.empty() ? "" : "  ") + f.text;
  std::fprintf(out, "%-24s %-8s %3d %10s %10s %10s %7s %7s  %s\n",
               r.workload.c_str(), r.backend.c_str(), r.threads,
               cell(timed, r.stats.median(), "%.3f").c_str(),
               cell(timed, r.stats.min(), "%.3f").c_str(),
               cell(timed, r.stats.max(), "%.3f").c_str(),
               cell(r.ratio.has_value(), r.ratio.value_or(0), "%.3f").c_str(),
               cell(r.vsHand.has_value(), r.vsHand.value_or(0), "%.3f").c_str(),
               notes.c_str());
  std::fflush(out);
}

bool bench::writeJson(const std::string &path,
                      const std::vector<Record> &records, std::string &error) {
  std::ofstream f(path);
  if (!f) {
    error = "cannot write " + path;
    return false;
  }
  f << "[\n";
  for (size_t i = 0; i < records.size(); ++i) {
    const Record &r = records[i];
    bool timed = !r.stats.ms.empty();
    auto num = [&](double v) { return timed ? jsonNumber(v) : "null"; };
    f << "  {\"workload\": " << jsonString(r.workload)
      << ", \"backend\": " << jsonString(r.backend)
      << ", \"threads\": " << r.threads
      << ", \"median_ms\": " << num(r.stats.median())
      << ", \"min_ms\": " << num(r.stats.min())
      << ", \"max_ms\": " << num(r.stats.max()) << ", \"ratio\": "
      << (r.ratio ? jsonNumber(*r.ratio) : "null")
      << ", \"ratio_of\": " << jsonString(r.ratioOf) << ", \"vs_hand\": "
      << (r.vsHand ? jsonNumber(*r.vsHand) : "null")
      << ", \"status\": " << jsonString(r.status) << ", \"runs\": "
      << r.stats.ms.size();
    for (const Record::Field &e : r.extra)
      f << ", " << jsonString(e.key) << ": " << e.json;
    f << "}" << (i + 1 < records.size() ? "," : "") << "\n";
  }
  f << "]\n";
  if (!f) {
    error = "error writing " + path;
    return false;
  }
  return true;
}
