// The last guard before a prompt leaves the machine: whatever a caller built (the planner's
// observations, the judge's evidence, the reviewer's tool results), no secret value of the run
// reaches the provider. The places that make the text mask it already; this catches a path that
// did not.
#include "core/secret_masker.h"
#include "llm/provider.h"

namespace candor::llm {
namespace {

class MaskingProvider final : public Provider {
 public:
  MaskingProvider(std::unique_ptr<Provider> inner, std::shared_ptr<const SecretMasker> masker)
      : inner_(std::move(inner)), masker_(std::move(masker)) {}
  Result<Reply> complete(const Request& request) override {
    Request masked = request;
    masker_->mask_in_place(masked.system);
    for (auto& m : masked.messages) masker_->mask_in_place(m.content);
    return inner_->complete(masked);
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<Provider> inner_;
  std::shared_ptr<const SecretMasker> masker_;
};

}  // namespace

std::unique_ptr<Provider> mask_requests(std::unique_ptr<Provider> provider,
                                        std::shared_ptr<const SecretMasker> masker) {
  if (masker == nullptr || masker->empty()) return provider;
  return std::make_unique<MaskingProvider>(std::move(provider), std::move(masker));
}

}  // namespace candor::llm
