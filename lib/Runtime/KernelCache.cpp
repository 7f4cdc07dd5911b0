//===- KernelCache.cpp - Compiled kernels on disk -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One file per compiled graph, named by a hash of its key. The file holds
// the full key (a hash collision is a miss, not a wrong kernel), the object
// and a checksum of both. Writers write a temporary file and rename it, so a
// reader sees a whole entry or none; a torn or damaged entry fails its
// checksum, is reported once, removed, and compiled again.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/KernelCache.h"
#include "kiln/Support/Env.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::detail;

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'O', 'B', 'J', 1};

uint64_t fnv1a(const std::string &a, const std::string &b = "") {
  uint64_t h = 1469598103934665603ull;
  for (const std::string *s : {&a, &b})
    for (unsigned char c : *s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  return h;
}

void makeDirs(const std::string &path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/')
    cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty())
      continue;
    cur += part + "/";
    ::mkdir(cur.c_str(), 0755);
  }
}

std::string fileFor(const std::string &dir, const std::string &key) {
  return dir + "/" + kernelcache::hashOf(key) + ".kobj";
}

void reportOnce(const std::string &path, const char *why) {
  static std::mutex mu;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mu);
  if (reported.insert(path).second)
    std::fprintf(stderr,
                 "kiln: discarding corrupt kernel cache entry %s (%s); "
                 "recompiling\n",
                 path.c_str(), why);
}

bool readU64(std::istream &in, uint64_t &v) {
  return static_cast<bool>(in.read(reinterpret_cast<char *>(&v), 8));
}

} // namespace

std::string kernelcache::hashOf(const std::string &key) {
  char name[17];
  std::snprintf(name, sizeof name, "%016llx",
                static_cast<unsigned long long>(fnv1a(key)));
  return name;
}

std::string kernelcache::directory() {
  static const std::string dir = [] {
    std::string d = env::cacheDir();
    if (!d.empty())
      makeDirs(d);
    return d;
  }();
  return dir;
}

std::optional<std::string> kernelcache::load(const std::string &key) {
  std::string dir = directory();
  if (dir.empty())
    return std::nullopt;
  std::string path = fileFor(dir, key);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  auto corrupt = [&](const char *why) -> std::optional<std::string> {
    in.close();
    reportOnce(path, why);
    std::remove(path.c_str());
    return std::nullopt;
  };
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0)
    return corrupt("bad header");
  uint64_t keyLen = 0, objLen = 0, sum = 0;
  if (!readU64(in, keyLen) || keyLen > (1ull << 32))
    return corrupt("truncated");
  std::string storedKey(keyLen, '\0');
  if (!in.read(storedKey.data(), keyLen) || !readU64(in, objLen) ||
      objLen > (1ull << 34))
    return corrupt("truncated");
  std::string object(objLen, '\0');
  if (!in.read(object.data(), objLen) || !readU64(in, sum))
    return corrupt("truncated");
  if (sum != fnv1a(storedKey, object))
    return corrupt("checksum mismatch");
  if (storedKey != key)
    return std::nullopt; // another graph with the same hash
  return object;
}

void kernelcache::store(const std::string &key, const std::string &object) {
  std::string dir = directory();
  if (dir.empty())
    return;
  std::string path = fileFor(dir, key);
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(reinterpret_cast<uintptr_t>(&object));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return; // a read-only cache directory only costs the warm start
    uint64_t keyLen = key.size(), objLen = object.size(),
             sum = fnv1a(key, object);
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char *>(&keyLen), 8);
    out.write(key.data(), key.size());
    out.write(reinterpret_cast<const char *>(&objLen), 8);
    out.write(object.data(), object.size());
    out.write(reinterpret_cast<const char *>(&sum), 8);
    // Most of the entry is still in the stream's buffer here: only closing
    // writes it, so a full disk shows up in close(), not in write().
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    std::remove(tmp.c_str());
}
