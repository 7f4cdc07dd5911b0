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

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
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
/// No entry is larger: a bigger file is not one of ours.
constexpr size_t kMaxEntryBytes = size_t(1) << 32;

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

/// Prints "kiln: <doing> kernel cache entry PATH (WHY); recompiling" once
/// per entry.
void reportOnce(const std::string &path, const char *why,
                const char *doing = "discarding corrupt") {
  static std::mutex mu;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mu);
  if (reported.insert(path).second)
    std::fprintf(stderr, "kiln: %s kernel cache entry %s (%s); recompiling\n",
                 doing, path.c_str(), why);
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

namespace {

/// The whole file at `path` if it is a regular file of at most `limit`
/// bytes: a FIFO or device named like an entry would block a plain read.
/// `why` says what is wrong otherwise (empty when the file is missing).
std::optional<std::string> readEntry(const std::string &path, size_t limit,
                                     const char *&why) {
  why = "";
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  struct stat st;
  std::optional<std::string> data;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (static_cast<uint64_t>(st.st_size) > limit) {
    why = "too large";
  } else {
    std::string buf(static_cast<size_t>(st.st_size), '\0');
    size_t got = 0;
    while (got < buf.size()) {
      ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += static_cast<size_t>(n);
    }
    buf.resize(got);
    data = std::move(buf);
  }
  ::close(fd);
  return data;
}

/// Reads fixed-size fields off the front of an entry.
struct Reader {
  const std::string &data;
  size_t at = 0;
  bool u64(uint64_t &v) {
    if (data.size() - at < 8)
      return false;
    std::memcpy(&v, data.data() + at, 8);
    at += 8;
    return true;
  }
  bool bytes(uint64_t n, std::string &out) {
    if (data.size() - at < n)
      return false;
    out.assign(data, at, n);
    at += n;
    return true;
  }
};

} // namespace

std::optional<std::string> kernelcache::load(const std::string &key) {
  std::string dir = directory();
  if (dir.empty())
    return std::nullopt;
  std::string path = fileFor(dir, key);
  const char *why = "";
  std::optional<std::string> data = readEntry(path, kMaxEntryBytes, why);
  if (*why) {
    // Left alone (a later store renames a good entry over it).
    reportOnce(path, why, "skipping");
    return std::nullopt;
  }
  if (!data)
    return std::nullopt;
  auto corrupt = [&](const char *why) -> std::optional<std::string> {
    reportOnce(path, why);
    std::remove(path.c_str());
    return std::nullopt;
  };
  Reader in{*data};
  std::string magic;
  if (!in.bytes(8, magic) || std::memcmp(magic.data(), kMagic, 8) != 0)
    return corrupt("bad header");
  uint64_t keyLen = 0, objLen = 0, sum = 0;
  std::string storedKey, object;
  if (!in.u64(keyLen) || !in.bytes(keyLen, storedKey) || !in.u64(objLen) ||
      !in.bytes(objLen, object) || !in.u64(sum))
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
