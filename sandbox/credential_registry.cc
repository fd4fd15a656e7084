#include "sandbox/credential_registry.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sandbox/blob_id.h"
#include "sandbox/credential_values.h"
#include "sandbox/workspace.h"

namespace candor::sandbox {

void CredentialRegistry::add_file(const std::string& rel_path, FileIdentity id, std::string_view content) {
  add_identity(rel_path, id);
  add_content(rel_path, content);
}

void CredentialRegistry::add_content(const std::string& rel_path, std::string_view content) {
  paths_.insert(rel_path);
  learn(rel_path, content);
}

void CredentialRegistry::learn(const std::string& rel_path, std::string_view content) const {
  if (content.find_first_not_of(" \t\r\n") != std::string_view::npos && content.size() <= kMaxContentIdentity) {
    sizes_.insert(content.size());
    content_ids_.insert(git_blob_id(content));
  }
  std::string_view name(rel_path);
  if (std::size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  for (const auto& value : credential_file_values(name, content)) masker_->add(value);
}

void CredentialRegistry::add_identity(const std::string& rel_path, FileIdentity id, const std::string& why) {
  if (id != FileIdentity{}) identities_.insert(id);  // {0, 0}: the walk gave none
  paths_.insert(rel_path);
  if (!why.empty()) unread_.push_back(fmt::format("{}: {}", rel_path, why));
}

void CredentialRegistry::add_variable(std::string_view value) {
  for (const auto& v : credential_variable_values(value)) masker_->add(v);
}

void CredentialRegistry::add_environment(char** environ_in, const std::vector<std::string>& passed) {
  for (char** e = environ_in; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string name(entry.substr(0, eq));
    std::string_view value = entry.substr(eq + 1);
    if (std::find(passed.begin(), passed.end(), name) != passed.end()) continue;
    if (names_a_secret(name) || looks_like_credential_value(value)) add_variable(value);
  }
}

bool CredentialRegistry::has_content(std::string_view bytes) const {
  return has_size(bytes.size()) && has_content_id(git_blob_id(bytes));
}

namespace {

// All of `fd`, which fstat said is `size` bytes; kIo when it is not.
Result<std::string> read_exactly(int fd, std::size_t size) {
  std::string out(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(ErrorCode::kIo, std::strerror(errno));
    if (n == 0) return make_error(ErrorCode::kIo, "it shrank while it was read");
    done += static_cast<std::size_t>(n);
  }
  return out;
}

void read_file(const Workspace& workspace, const std::string& rel, FileIdentity walked, CredentialRegistry& registry) {
  // The walk's identity, whatever happens below: the file it saw is the one steps must not reach.
  registry.add_identity(rel, walked);
  auto fd = workspace.open_regular_file(rel);
  struct stat st {};
  if (!fd.ok()) return registry.add_identity(rel, walked, fd.error().message);
  if (::fstat(fd->get(), &st) != 0) return registry.add_identity(rel, walked, std::strerror(errno));
  FileIdentity read_id{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  if (static_cast<std::uint64_t>(st.st_size) > kMaxContentIdentity) {
    return registry.add_identity(
        rel, read_id,
        fmt::format("over {} MiB: known by its name and inode only, its values not masked", kMaxContentIdentity >> 20));
  }
  auto content = read_exactly(fd->get(), static_cast<std::size_t>(st.st_size));
  if (!content.ok()) return registry.add_identity(rel, read_id, content.error().message);
  registry.add_file(rel, read_id, *content);
}

}  // namespace

void read_credential_files(const Workspace& workspace, const SandboxPolicy& policy, CredentialRegistry& registry) {
  const std::string prefix = workspace.root() + "/";
  for (std::size_t i = 0; i < policy.secret_files.size(); ++i) {
    const std::string& path = policy.secret_files[i];
    if (path.compare(0, prefix.size(), prefix) != 0) continue;  // make_sandbox_policy names files beneath the root only
    FileIdentity walked = i < policy.secret_identities.size() ? policy.secret_identities[i] : FileIdentity{};
    read_file(workspace, path.substr(prefix.size()), walked, registry);
  }
}

std::shared_ptr<const CredentialRegistry> read_credentials(const Workspace& workspace, const SandboxPolicy& policy,
                                                           char** environ_in) {
  auto registry = std::make_shared<CredentialRegistry>();
  read_credential_files(workspace, policy, *registry);
  registry->add_environment(environ_in, policy.pass_env);
  return registry;
}

}  // namespace candor::sandbox
