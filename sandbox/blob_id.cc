#include "sandbox/blob_id.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

namespace candor::sandbox {
namespace {

class BlobHasher {
 public:
  explicit BlobHasher(std::size_t size) {
    EVP_DigestInit_ex(ctx_.get(), EVP_sha1(), nullptr);
    std::string header = fmt::format("blob {}", size);
    EVP_DigestUpdate(ctx_.get(), header.c_str(), header.size() + 1);  // with its NUL
  }
  void update(const char* p, std::size_t n) { EVP_DigestUpdate(ctx_.get(), p, n); }
  std::string hex() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_.get(), out, &n);
    std::string text;
    for (unsigned int i = 0; i < n; ++i) text += fmt::format("{:02x}", out[i]);
    return text;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

}  // namespace

std::string git_blob_id(std::string_view content) {
  BlobHasher h(content.size());
  h.update(content.data(), content.size());
  return h.hex();
}

Result<std::string> git_blob_id_of(int fd, std::size_t size) {
  BlobHasher h(size);
  char buf[65536];
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, buf, std::min(sizeof(buf), size - done), static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(ErrorCode::kIo, fmt::format("read for the content check: {}", std::strerror(errno)));
    if (n == 0) return make_error(ErrorCode::kIo, "read for the content check: the file shrank while it was read");
    h.update(buf, static_cast<std::size_t>(n));
    done += static_cast<std::size_t>(n);
  }
  return h.hex();
}

}  // namespace candor::sandbox
