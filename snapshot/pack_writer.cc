#include "snapshot/pack_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <zlib.h>

#include "snapshot/sha1.h"

namespace candor::snapshot {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 4);
}

// Compresses objects one after another, each a zlib stream of its own (as git's loose objects and
// packs hold them). A stream is set up once per thread and reset per object: compress2 sets one
// up per object, allocating and clearing ~300 KB, which for a 100-byte file costs more than
// compressing it. Small objects get a small window and hash table (cheaper to reset; an object
// smaller than the window compresses about as well); any zlib reader inflates either.
class Deflater {
 public:
  Deflater() = default;
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    for (auto& s : streams_) {
      if (s.ready) deflateEnd(&s.z);
    }
  }

  // Appends `o` as it sits in a pack to `out`: its type-and-size header, then its zlib stream.
  // Returns the CRC-32 of those bytes, or nullopt when zlib failed.
  std::optional<std::uint32_t> append(const PackObject& o, std::string& out) {
    std::size_t start = out.size();
    std::uint64_t size = o.data->size();
    unsigned char c = static_cast<unsigned char>((static_cast<unsigned>(o.type) << 4) | (size & 15));
    size >>= 4;
    while (size != 0) {
      out.push_back(static_cast<char>(c | 0x80));
      c = static_cast<unsigned char>(size & 0x7f);
      size >>= 7;
    }
    out.push_back(static_cast<char>(c));
    Stream& s = streams_[o.data->size() <= kSmall ? 0 : 1];
    if (!s.ready) {
      bool small = &s == &streams_[0];
      if (deflateInit2(&s.z, Z_BEST_SPEED, Z_DEFLATED, small ? 12 : 15, small ? 4 : 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return std::nullopt;
      s.ready = true;
    } else if (deflateReset(&s.z) != Z_OK) {
      return std::nullopt;
    }
    uLong bound = deflateBound(&s.z, static_cast<uLong>(o.data->size()));
    std::size_t head = out.size();
    out.resize(head + bound);
    s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(o.data->data()));
    s.z.avail_in = static_cast<uInt>(o.data->size());
    s.z.next_out = reinterpret_cast<Bytef*>(out.data() + head);
    s.z.avail_out = static_cast<uInt>(bound);
    if (deflate(&s.z, Z_FINISH) != Z_STREAM_END) return std::nullopt;
    out.resize(head + (bound - s.z.avail_out));
    return static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(out.data() + start), static_cast<uInt>(out.size() - start)));
  }

 private:
  static constexpr std::size_t kSmall = 4096;  // the small stream's window
  struct Stream {
    z_stream z{};
    bool ready = false;
  };
  Stream streams_[2];  // small objects, the rest
};

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

Status sync_folder(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  bool ok = fd >= 0 && ::fsync(fd) == 0;
  int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok) return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot sync {}: {}", dir, std::strerror(err)));
  return ok_status();
}

Status write_files_atomically(const std::string& dir, const std::vector<NamedContent>& files, bool sync_dir) {
  struct Temp {
    std::string path;
    int fd = -1;
  };
  std::vector<Temp> temps;
  auto fail = [&](const std::string& name, int err) {
    for (auto& t : temps) {
      if (t.fd >= 0) ::close(t.fd);
      ::unlink(t.path.c_str());
    }
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot write {}/{}: {}", dir, name, std::strerror(err)));
  };
  // All written first, then all synced: on ext4 (ordered data) the first sync's journal commit
  // takes the others' data and names with it, so the rest cost next to nothing, where a write and
  // a sync per file cost a commit each (each waiting for whatever else the machine was writing).
  for (const auto& f : files) {
    Temp t{fmt::format("{}/tmp_{}_XXXXXX", dir, f.name)};
    t.fd = ::mkstemp(t.path.data());
    if (t.fd < 0) return fail(f.name, errno);
    temps.push_back(t);
    if (::fchmod(t.fd, 0444) != 0 || !write_all(t.fd, *f.content)) return fail(f.name, errno);
  }
  // On disk before it has its name (docs/design.md, Durability).
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::fdatasync(temps[i].fd) != 0) return fail(files[i].name, errno);
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    bool closed = ::close(temps[i].fd) == 0;
    temps[i].fd = -1;
    if (!closed) return fail(files[i].name, errno);
  }
  // Renamed in the order given: the last one is what makes the others visible to readers.
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(temps[i].path.c_str(), (dir + "/" + files[i].name).c_str()) != 0) {
      int err = errno;
      temps.erase(temps.begin(), temps.begin() + static_cast<std::ptrdiff_t>(i));  // those renamed stay
      return fail(files[i].name, err);
    }
  }
  return sync_dir ? sync_folder(dir) : ok_status();
}

Status write_file_atomically(const std::string& dir, const std::string& name, const std::string& content,
                             bool sync_dir) {
  return write_files_atomically(dir, {{name, &content}}, sync_dir);
}

Result<std::string> write_pack_files(const std::string& pack_dir, std::vector<PackObject> objects,
                                     const std::string& marker) {
  std::sort(objects.begin(), objects.end(),
            [](const PackObject& a, const PackObject& b) { return git_oid_cmp(&a.id, &b.id) < 0; });
  // Each thread packs a contiguous share of the objects into a body of its own; the pack is the
  // bodies one after another (no allocation per object).
  unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4));
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, objects.size()));
  std::vector<std::string> bodies(threads);
  std::vector<std::uint64_t> offsets(objects.size());  // within its body until the bodies are joined
  std::vector<std::uint32_t> crcs(objects.size());
  std::vector<char> failed(threads, 0);
  auto share = [&](unsigned t) { return objects.size() * t / threads; };
  {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        Deflater deflater;
        std::string& body = bodies[t];
        for (std::size_t i = share(t); i < share(t + 1); ++i) {
          offsets[i] = body.size();
          auto crc = deflater.append(objects[i], body);
          if (!crc) {
            failed[t] = 1;
            return;
          }
          crcs[i] = *crc;
        }
      });
    }
    for (auto& th : pool) th.join();
  }
  if (std::find(failed.begin(), failed.end(), 1) != failed.end())
    return make_error(ErrorCode::kIo, "snapshot: cannot compress an object");
  std::string pack = "PACK";
  put_u32(pack, 2);
  put_u32(pack, static_cast<std::uint32_t>(objects.size()));
  std::size_t total = pack.size() + GIT_OID_RAWSZ;
  for (const auto& body : bodies) total += body.size();
  pack.reserve(total);
  for (unsigned t = 0; t < threads; ++t) {
    for (std::size_t i = share(t); i < share(t + 1); ++i) offsets[i] += pack.size();
    pack += bodies[t];
    bodies[t] = std::string();
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
  for (std::uint32_t crc : crcs) put_u32(idx, crc);
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
  // The index last: it makes the pack visible to readers. The folder is synced once, after it.
  const std::string empty;
  std::vector<NamedContent> files = {{base + ".pack", &pack}};
  if (!marker.empty()) files.push_back({base + "." + marker, &empty});
  files.push_back({base + ".idx", &idx});
  TRY_STATUS(write_files_atomically(pack_dir, files, true));
  return std::string(hex);
}

}  // namespace candor::snapshot
