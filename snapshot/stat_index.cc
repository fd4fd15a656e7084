#include "snapshot/stat_index.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "snapshot/sha1.h"

namespace candor::snapshot {
namespace {

constexpr std::size_t kHeader = 12;    // "DIRC", version, entry count
constexpr std::size_t kFixed = 62;     // an entry before its path: ten numbers, the id, the flags
constexpr std::size_t kChecksum = 20;  // SHA-1 of everything before it
constexpr std::uint16_t kNameMask = 0x0fff;
constexpr std::uint16_t kExtended = 0x4000;
constexpr std::uint16_t kStageMask = 0x3000;
constexpr std::uint16_t kAssumeValid = 0x8000;
constexpr std::uint16_t kSkipWorktree = 0x4000;  // extended flags
constexpr std::uint16_t kIntentToAdd = 0x2000;

std::uint32_t get_u32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}
std::uint16_t get_u16(const unsigned char* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

std::string hex(std::string_view raw) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// An mmap'd file, unmapped when it goes.
struct Unmap {
  std::size_t bytes = 0;
  void operator()(char* p) const {
    if (p != nullptr) ::munmap(p, bytes);
  }
};

// The whole of `file` (read into `data`, or mapped), or the errno that stopped the read (ENOENT:
// there is none).
struct FileBytes {
  LargeBuffer data;
  std::unique_ptr<char, Unmap> mapping;
  std::size_t size = 0;
  std::int64_t mtime_s = 0;
  int error = 0;
};

// `mapped`: mmap'd rather than read (an empty file is read: there is nothing to map).
FileBytes whole_file(const std::string& file, bool mapped) {
  FileBytes out;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = errno;
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    out.error = S_ISREG(st.st_mode) || st.st_mode == 0 ? errno : EINVAL;
    ::close(fd);
    return out;
  }
  out.size = static_cast<std::size_t>(st.st_size);
  out.mtime_s = st.st_mtim.tv_sec;
  if (mapped && out.size > 0) {
    void* p = ::mmap(nullptr, out.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
      out.error = errno;
      return out;
    }
    out.mapping = std::unique_ptr<char, Unmap>(static_cast<char*>(p), Unmap{out.size});
    return out;
  }
  try {
    out.data = large_buffer(out.size + 1);
  } catch (const std::bad_alloc&) {  // a file of any size can be there (a sparse one costs no disk)
    out.error = ENOMEM;
    ::close(fd);
    return out;
  }
  for (std::size_t got = 0; got < out.size;) {
    ssize_t n = ::read(fd, out.data.get() + got, out.size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out.error = n < 0 ? errno : EIO;  // shorter than its stat said: another writer is not ours
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return out;
}

}  // namespace

StatEntry stat_entry(const struct stat& st, const git_oid& id, std::string_view path) {
  StatEntry e;
  e.ctime_s = static_cast<std::uint32_t>(st.st_ctim.tv_sec);
  e.ctime_ns = static_cast<std::uint32_t>(st.st_ctim.tv_nsec);
  e.mtime_s = static_cast<std::uint32_t>(st.st_mtim.tv_sec);
  e.mtime_ns = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
  e.dev = static_cast<std::uint32_t>(st.st_dev);
  e.ino = static_cast<std::uint32_t>(st.st_ino);
  e.mode = git_file_mode(st);
  e.full_mode = st.st_mode;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.size = static_cast<std::uint32_t>(st.st_size);
  e.id = id;
  e.path = path;
  return e;
}

bool stat_matches(const StatEntry& e, const FileStat& f) {
  // git records a size of 0 for an entry that was racily clean when it wrote the index ("smudged"):
  // only the empty blob's size is truly 0, so for any other id the stat data vouch for nothing.
  static constexpr unsigned char kEmptyBlob[GIT_OID_RAWSZ] = {0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6,
                                                              0x43, 0x4b, 0x8b, 0x29, 0xae, 0x77, 0x5a,
                                                              0xd8, 0xc2, 0xe4, 0x8c, 0x53, 0x91};
  if (e.size == 0 && std::memcmp(e.id.id, kEmptyBlob, GIT_OID_RAWSZ) != 0) return false;
  return e.mode == f.mode && e.size == static_cast<std::uint32_t>(f.size) &&
         e.mtime_s == static_cast<std::uint32_t>(f.mtime_s) && e.mtime_ns == static_cast<std::uint32_t>(f.mtime_ns) &&
         e.ctime_s == static_cast<std::uint32_t>(f.ctime_s) && e.ctime_ns == static_cast<std::uint32_t>(f.ctime_ns) &&
         e.ino == static_cast<std::uint32_t>(f.ino) && e.uid == f.uid && e.gid == f.gid;
}

Result<StatIndex> StatIndex::load(const std::string& file, bool mapped) {
  StatIndex index;
  FileBytes bytes = whole_file(file, mapped);
  if (bytes.error == ENOENT) return index;
  if (bytes.error != 0)
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot read {}: {}", file, std::strerror(bytes.error)));
  auto bad = [&file](const std::string& what) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("snapshot: {} is not an index git could read: {}", file, what));
  };
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.mapping ? bytes.mapping.get() : bytes.data.get());
  const std::size_t size = bytes.size;
  if (size < kHeader + kChecksum || std::memcmp(p, "DIRC", 4) != 0) return bad("no index header");
  const std::uint32_t version = get_u32(p + 4);
  if (version != 2 && version != 3) return bad(fmt::format("version {} (2 and 3 are read)", version));
  const std::size_t end = size - kChecksum;
  Sha1 sum;
  sum.update(p, end);
  std::string digest = sum.final();
  if (std::memcmp(digest.data(), p + end, kChecksum) != 0) return bad("its checksum does not match its content");
  const std::uint32_t count = get_u32(p + 8);
  if (count > (end - kHeader) / (kFixed + 2)) return bad(fmt::format("{} entries cannot fit in {} bytes", count, size));
  index.entries_.reserve(count + count / 8 + 64);  // room for what scans add (see put_sorted)
  std::size_t at = kHeader;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (end - at < kFixed + 2) return bad(fmt::format("entry {} is cut short", i));
    const unsigned char* e = p + at;
    StatEntry entry;
    std::uint32_t* numbers[] = {&entry.ctime_s, &entry.ctime_ns, &entry.mtime_s, &entry.mtime_ns, &entry.dev,
                                &entry.ino,     &entry.mode,     &entry.uid,     &entry.gid,      &entry.size};
    for (std::size_t n = 0; n < 10; ++n) *numbers[n] = get_u32(e + 4 * n);
    std::memcpy(entry.id.id, e + 40, GIT_OID_RAWSZ);
    const std::uint16_t flags = get_u16(e + 60);
    std::size_t fixed = kFixed;
    std::uint16_t extended = 0;
    if ((flags & kExtended) != 0) {
      if (version < 3) return bad(fmt::format("entry {} has extended flags in a version 2 index", i));
      extended = get_u16(e + kFixed);
      fixed += 2;
    }
    const char* name = reinterpret_cast<const char*>(e + fixed);
    const std::size_t room = end - at - fixed;
    const void* nul = std::memchr(name, '\0', room);
    if (nul == nullptr) return bad(fmt::format("entry {} has no end to its path", i));
    const std::size_t length = static_cast<std::size_t>(static_cast<const char*>(nul) - name);
    if (length == 0 || ((flags & kNameMask) != kNameMask && length != (flags & kNameMask))) {
      return bad(fmt::format("entry {} has a path of the wrong length", i));
    }
    // An entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
    const std::size_t padded = (fixed + length + 8) & ~std::size_t{7};
    if (padded > end - at) return bad(fmt::format("entry {} is cut short", i));
    at += padded;
    // A merge conflict's side, or an entry git does not compare with the file (assume-valid,
    // skip-worktree, intent-to-add): nothing its stat data could vouch for.
    if ((flags & (kStageMask | kAssumeValid)) != 0 || (extended & (kSkipWorktree | kIntentToAdd)) != 0) continue;
    entry.path = std::string_view(name, length);
    if (!index.entries_.empty() && !(index.entries_.back().path < entry.path)) {
      return bad(fmt::format("entry {} ({}) is out of order", i, entry.path));
    }
    index.entries_.push_back(entry);
  }
  // What follows the entries (extensions: a tree cache, ...) is not needed here.
  if (bytes.mapping) {
    const char* from = bytes.mapping.get();
    index.copy_paths_from(from, from + size);
  } else {
    index.file_ = std::move(bytes.data);
  }
  index.checksum_ = hex(digest);
  index.file_mtime_s_ = bytes.mtime_s;
  return index;
}

Status StatIndex::write(const std::string& file) {
  std::size_t total = kHeader + kChecksum;
  for (const StatEntry& e : entries_) total += (kFixed + e.path.size() + 8) & ~std::size_t{7};
  LargeBuffer buffer = large_buffer(total);  // fresh memory: see large_pages.h
  char* const start = buffer.get();
  char* at = start;
  auto put_u32 = [&at](std::uint32_t v) {
    *at++ = static_cast<char>(v >> 24);
    *at++ = static_cast<char>(v >> 16);
    *at++ = static_cast<char>(v >> 8);
    *at++ = static_cast<char>(v);
  };
  std::memcpy(at, "DIRC", 4);
  at += 4;
  put_u32(2);
  put_u32(static_cast<std::uint32_t>(entries_.size()));
  for (const StatEntry& e : entries_) {
    for (std::uint32_t n : {e.ctime_s, e.ctime_ns, e.mtime_s, e.mtime_ns, e.dev, e.ino, e.mode, e.uid, e.gid, e.size})
      put_u32(n);
    std::memcpy(at, e.id.id, GIT_OID_RAWSZ);
    at += GIT_OID_RAWSZ;
    const auto flags = static_cast<std::uint16_t>(std::min<std::size_t>(e.path.size(), kNameMask));
    *at++ = static_cast<char>(flags >> 8);
    *at++ = static_cast<char>(flags & 0xff);
    std::memcpy(at, e.path.data(), e.path.size());
    const std::size_t padding = ((kFixed + e.path.size() + 8) & ~std::size_t{7}) - kFixed - e.path.size();
    std::memset(at + e.path.size(), 0, padding);
    at += e.path.size() + padding;
  }
  Sha1 sum;
  sum.update(start, static_cast<std::size_t>(at - start));
  const std::string digest = sum.final();
  std::memcpy(at, digest.data(), kChecksum);
  const std::string_view out(start, total);

  const std::string lock = file + ".lock";
  auto failed = [&](const char* what, int err) {
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot {} {}: {}", what, lock, std::strerror(err)));
  };
  int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return failed("create", errno);
  for (std::size_t done = 0; done < out.size();) {
    ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(lock.c_str());
      return failed("write", err);
    }
    done += static_cast<std::size_t>(n);
  }
  bool synced = ::fdatasync(fd) == 0;
  int sync_err = errno;
  if (::close(fd) != 0 || !synced || ::rename(lock.c_str(), file.c_str()) != 0) {
    if (!synced) errno = sync_err;
    int err = errno;
    ::unlink(lock.c_str());
    return failed("save", err);
  }
  // The rename itself on disk: the index names only objects already there (docs/design.md, Durability).
  std::string folder = file.substr(0, file.rfind('/') == std::string::npos ? 0 : file.rfind('/'));
  if (int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  checksum_ = hex(digest);
  return ok_status();
}

std::size_t StatIndex::lower_bound(std::string_view path) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), path,
                             [](const StatEntry& e, std::string_view p) { return e.path < p; });
  return static_cast<std::size_t>(it - entries_.begin());
}

std::size_t StatIndex::find(std::string_view path) const {
  std::size_t i = lower_bound(path);
  return i < entries_.size() && entries_[i].path == path ? i : npos;
}

std::pair<std::size_t, std::size_t> StatIndex::prefix_range(std::string_view dir) const {
  std::size_t first = lower_bound(dir);
  if (dir.empty()) return {first, entries_.size()};
  // Past the last path beginning with `dir`: the first not sorted before `dir` with its last byte
  // raised by one ("a/b/" -> "a/b0").
  std::string after(dir);
  after.back() = static_cast<char>(after.back() + 1);
  auto it = std::lower_bound(entries_.begin() + static_cast<std::ptrdiff_t>(first), entries_.end(), after,
                             [](const StatEntry& e, std::string_view p) { return e.path < p; });
  return {first, static_cast<std::size_t>(it - entries_.begin())};
}

std::size_t StatIndex::find_in(std::string_view path, std::pair<std::size_t, std::size_t> range) const {
  auto begin = entries_.begin() + static_cast<std::ptrdiff_t>(range.first);
  auto end = entries_.begin() + static_cast<std::ptrdiff_t>(range.second);
  auto it = std::lower_bound(begin, end, path, [](const StatEntry& e, std::string_view p) { return e.path < p; });
  return it != end && it->path == path ? static_cast<std::size_t>(it - entries_.begin()) : npos;
}

bool StatIndex::has_prefix(std::string_view dir) const {
  std::size_t i = lower_bound(dir);
  return i < entries_.size() && entries_[i].path.substr(0, dir.size()) == dir;
}

std::string_view StatIndex::own(std::string_view path) { return added_.emplace_back(path); }

void StatIndex::put(const StatEntry& e) { put_sorted({e}); }

void StatIndex::put_sorted(const std::vector<StatEntry>& entries) {
  // Replacements in place; then the new entries merged in from the back, so only the entries
  // after the first new one move, and the vector (loaded with room to spare) is not reallocated:
  // copying 100,000 entries to fresh memory costs ~30 ms of page faults here.
  std::vector<const StatEntry*> added;
  for (const StatEntry& e : entries) {
    std::size_t i = lower_bound(e.path);
    if (i < entries_.size() && entries_[i].path == e.path) {
      std::string_view kept = entries_[i].path;
      entries_[i] = e;
      entries_[i].path = kept;
    } else {
      added.push_back(&e);
    }
  }
  if (added.empty()) return;
  std::size_t old = entries_.size();
  entries_.resize(old + added.size());
  std::size_t to = entries_.size();
  for (std::size_t k = added.size(); k > 0; --k) {
    const StatEntry& e = *added[k - 1];
    while (old > 0 && e.path < entries_[old - 1].path) entries_[--to] = entries_[--old];
    entries_[--to] = e;
    entries_[to].path = own(e.path);
  }
}

bool StatIndex::remove(std::string_view path) {
  std::size_t i = find(path);
  if (i == npos) return false;
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  return true;
}

void StatIndex::remove_all(std::vector<std::string_view> paths) {
  if (paths.empty()) return;
  std::sort(paths.begin(), paths.end());
  auto drop = paths.begin();
  std::erase_if(entries_, [&](const StatEntry& e) {
    while (drop != paths.end() && *drop < e.path) ++drop;
    return drop != paths.end() && *drop == e.path;
  });
}

std::vector<std::string_view> StatIndex::racy() const {
  std::vector<std::string_view> out;
  if (!file_mtime_s_) return out;
  for (const StatEntry& e : entries_) {
    if (static_cast<std::int64_t>(e.mtime_s) >= *file_mtime_s_ - 1) out.push_back(e.path);
  }
  return out;
}

void StatIndex::keep_if(const std::function<bool(const StatEntry&)>& keep) {
  std::erase_if(entries_, [&keep](const StatEntry& e) { return !keep(e); });
}

void StatIndex::release_file() {
  if (!file_) return;
  copy_paths_from(file_.get(), file_.get() + file_.get_deleter().bytes);
}

void StatIndex::copy_paths_from(const char* from, const char* to) {
  auto in_file = [&](std::string_view p) { return !p.empty() && p.data() >= from && p.data() < to; };
  std::size_t total = 0;
  for (const StatEntry& e : entries_) {
    if (in_file(e.path)) total += e.path.size();
  }
  LargeBuffer paths = large_buffer(total + 1);
  char* at = paths.get();
  for (StatEntry& e : entries_) {
    if (!in_file(e.path)) continue;
    std::memcpy(at, e.path.data(), e.path.size());
    e.path = std::string_view(at, e.path.size());
    at += e.path.size();
  }
  file_ = std::move(paths);
}

void StatIndex::clear() {
  entries_.clear();
  added_.clear();
  file_.reset();
  checksum_.clear();
}

}  // namespace candor::snapshot
