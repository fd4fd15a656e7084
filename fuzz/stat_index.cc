// libFuzzer target: the store's index reader (StatIndex::load), which also reads the workspace's
// own .git/index as a seed, a file a hostile repository controls. The input gets a correct SHA-1
// appended (else nearly every input would stop at the checksum), so the parser itself is driven.
// Whatever loads must write and load back to the same entries.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "snapshot/sha1.h"
#include "snapshot/stat_index.h"

using namespace candor;

namespace {

const std::string& scratch() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/candor-fuzz-index-XXXXXX";
    return std::string(::mkdtemp(tmpl));
  }();
  return dir;
}

bool same(const snapshot::StatEntry& a, const snapshot::StatEntry& b) {
  return a.path == b.path && a.ctime_s == b.ctime_s && a.ctime_ns == b.ctime_ns && a.mtime_s == b.mtime_s &&
         a.mtime_ns == b.mtime_ns && a.dev == b.dev && a.ino == b.ino && a.mode == b.mode && a.uid == b.uid &&
         a.gid == b.gid && a.size == b.size && git_oid_equal(&a.id, &b.id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  snapshot::Sha1 sum;
  sum.update(bytes.data(), bytes.size());
  bytes += sum.final();
  const std::string in = scratch() + "/in", out = scratch() + "/out";
  std::ofstream(in, std::ios::binary | std::ios::trunc) << bytes;
  auto loaded = snapshot::StatIndex::load(in);
  if (!loaded.ok()) return 0;
  ::unlink(out.c_str());
  if (!loaded->write(out).ok()) __builtin_trap();
  // The store's own index is mapped: read either way, the same entries.
  auto again = snapshot::StatIndex::load(out, true);
  if (!again.ok() || again->size() != loaded->size()) __builtin_trap();
  for (std::size_t i = 0; i < loaded->size(); ++i) {
    if (!same(loaded->at(i), again->at(i))) __builtin_trap();
  }
  return 0;
}
