// SHA-1 through OpenSSL (hardware-accelerated where the CPU has it): the checksums git puts at the
// end of its packs, pack indexes and index files.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <openssl/evp.h>

namespace candor::snapshot {

class Sha1 {
 public:
  Sha1() { EVP_DigestInit_ex(ctx_.get(), EVP_sha1(), nullptr); }
  void update(const void* p, std::size_t n) { EVP_DigestUpdate(ctx_.get(), p, n); }
  // The 20 raw bytes of the digest.
  std::string final() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_.get(), out, &n);
    return std::string(reinterpret_cast<char*>(out), n);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

}  // namespace candor::snapshot
