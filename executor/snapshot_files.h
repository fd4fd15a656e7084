// A git tree as a file source for assertions: the pre-run snapshot, where the second evaluation of
// the discriminating check reads (docs/design.md, Trust boundary: a pass covers a path only if the same
// assertion fails on the path's content before the run), or BASE's and HEAD's trees for
// `candor verify --git`.
#pragma once

#include <memory>
#include <string>

#include "assertions/file_source.h"
#include "sandbox/credential_registry.h"
#include "snapshot/trees.h"

namespace candor::executor {

// `trees` borrows its repository; reads `tree` only. Thread-compatible. `secrets` is the
// workspace's own filter (Workspace::secrets()): a path it refuses is flagged as a credential
// file here as there. The snapshot holds no symlink that is followed, so the name decides, and,
// with `credentials` (the run's, borrowed; may be null), the content: a file holding a credential
// file's bytes of the run's start is one under any name, as on the workspace.
class SnapshotFiles final : public assertions::FileSource {
 public:
  SnapshotFiles(snapshot::GitTrees trees, std::string tree, sandbox::SecretFilter secrets,
                std::string absent_phrase = "before the run", const sandbox::CredentialRegistry* credentials = nullptr)
      : trees_(trees),
        tree_(std::move(tree)),
        secrets_(std::move(secrets)),
        absent_phrase_(std::move(absent_phrase)),
        credentials_(credentials) {}

  Result<sandbox::EntryInfo> stat(const std::string& path) const override;
  Result<sandbox::FileContent> read_file(const std::string& path, std::size_t max_bytes) const override;
  // A temporary folder (mode 0555, files 0444) holding only `path` as the snapshot has it; a
  // credential file empty, as the process sandbox shows it to the same program on the workspace.
  Result<std::unique_ptr<assertions::MaterializedFiles>> materialize(const std::string& path) const override;

 private:
  Result<std::string> tree_path(const std::string& path) const;  // normalised, refused when escaping
  bool credential(const std::string& rel, std::string_view content) const;
  snapshot::GitTrees trees_;
  std::string tree_;
  sandbox::SecretFilter secrets_;
  std::string absent_phrase_;  // "before the run", "in BASE": how messages place the tree
  const sandbox::CredentialRegistry* credentials_;
};

}  // namespace candor::executor
