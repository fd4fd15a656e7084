#include "verify/pack_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <openssl/evp.h>
#include <zlib.h>

namespace candor::verify {
namespace {

struct Sha1 {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
  Sha1() { EVP_DigestInit_ex(ctx.get(), EVP_sha1(), nullptr); }
  void update(const void* p, std::size_t n) { EVP_DigestUpdate(ctx.get(), p, n); }
  std::string final() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx.get(), out, &n);
    return std::string(reinterpret_cast<char*>(out), n);
  }
};

void put_u32(std::string& out, std::uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 4);
}

// One object as it sits in the pack: the type-and-size header, then the zlib stream.
struct Packed {
  std::string bytes;
  std::uint32_t crc = 0;
  bool ok = true;
};

Packed pack_one(const PackObject& o) {
  Packed p;
  std::uint64_t size = o.data->size();
  unsigned char c = static_cast<unsigned char>((static_cast<unsigned>(o.type) << 4) | (size & 15));
  size >>= 4;
  while (size != 0) {
    p.bytes.push_back(static_cast<char>(c | 0x80));
    c = static_cast<unsigned char>(size & 0x7f);
    size >>= 7;
  }
  p.bytes.push_back(static_cast<char>(c));
  std::size_t head = p.bytes.size();
  uLongf bound = compressBound(static_cast<uLong>(o.data->size()));
  p.bytes.resize(head + bound);
  p.ok = compress2(reinterpret_cast<Bytef*>(p.bytes.data() + head), &bound,
                   reinterpret_cast<const Bytef*>(o.data->data()), static_cast<uLong>(o.data->size()), Z_BEST_SPEED) == Z_OK;
  p.bytes.resize(head + bound);
  p.crc = static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(p.bytes.data()), static_cast<uInt>(p.bytes.size())));
  return p;
}

bool write_all(int fd, const std::string& s) {
  for (std::size_t done = 0; done < s.size();) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

Status write_file_atomically(const std::string& dir, const std::string& name, const std::string& content) {
  std::string tmp = fmt::format("{}/tmp_{}_XXXXXX", dir, name);
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot create {}: {}", tmp, std::strerror(errno)));
  bool ok = ::fchmod(fd, 0444) == 0 && write_all(fd, content);
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot write {}/{}: {}", dir, name, std::strerror(err)));
  }
  return ok_status();
}

Result<std::string> write_pack_files(const std::string& pack_dir, std::vector<PackObject> objects, const std::string& marker) {
  std::sort(objects.begin(), objects.end(), [](const PackObject& a, const PackObject& b) { return git_oid_cmp(&a.id, &b.id) < 0; });
  std::vector<Packed> packed(objects.size());
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (std::size_t i = t; i < objects.size(); i += threads) packed[i] = pack_one(objects[i]);
      });
    }
    for (auto& th : pool) th.join();
  }
  std::string pack = "PACK";
  put_u32(pack, 2);
  put_u32(pack, static_cast<std::uint32_t>(objects.size()));
  std::vector<std::uint64_t> offsets(objects.size());
  for (std::size_t i = 0; i < packed.size(); ++i) {
    if (!packed[i].ok) return make_error(ErrorCode::kIo, "snapshot: cannot compress an object");
    offsets[i] = pack.size();
    pack += packed[i].bytes;
    packed[i].bytes = std::string();
  }
  Sha1 pack_sum;
  pack_sum.update(pack.data(), pack.size());
  std::string checksum = pack_sum.final();
  pack += checksum;

  std::string idx = "\377tOc";
  put_u32(idx, 2);
  std::size_t at = 0;
  for (unsigned first = 0; first < 256; ++first) {
    while (at < objects.size() && objects[at].id.id[0] <= first) ++at;
    put_u32(idx, static_cast<std::uint32_t>(at));
  }
  for (const auto& o : objects) idx.append(reinterpret_cast<const char*>(o.id.id), GIT_OID_RAWSZ);
  for (const auto& p : packed) put_u32(idx, p.crc);
  std::string large;
  for (std::uint64_t off : offsets) {
    if (off < 0x80000000u) {
      put_u32(idx, static_cast<std::uint32_t>(off));
    } else {
      put_u32(idx, 0x80000000u | static_cast<std::uint32_t>(large.size() / 8));
      put_u32(large, static_cast<std::uint32_t>(off >> 32));
      put_u32(large, static_cast<std::uint32_t>(off));
    }
  }
  idx += large;
  idx += checksum;
  Sha1 idx_sum;
  idx_sum.update(idx.data(), idx.size());
  idx += idx_sum.final();

  git_oid name;
  git_oid_fromraw(&name, reinterpret_cast<const unsigned char*>(checksum.data()));
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &name);
  std::string base = fmt::format("pack-{}", hex);
  TRY_STATUS(write_file_atomically(pack_dir, base + ".pack", pack));
  if (!marker.empty()) TRY_STATUS(write_file_atomically(pack_dir, base + "." + marker, ""));
  TRY_STATUS(write_file_atomically(pack_dir, base + ".idx", idx));
  return std::string(hex);
}

}  // namespace candor::verify
