// The per-workspace snapshot repository on disk: its creation (safe when many runs start at once)
// and the settings every handle on it uses, so that nothing of the user's git configuration or the
// workspace's .gitattributes changes what a snapshot holds.
#pragma once

#include <string>

#include <git2.h>

#include "core/result.h"

namespace candor::snapshot {

// The repository's own config only, for every handle on it: settings in the user's home (a
// global core.excludesFile, core.ignoreCase) cannot change what a snapshot holds, and a home the
// process cannot read is no error. Ignore rules then come from the workspace's .gitignore files
// and config snapshot.ignore alone: core.excludesFile points at a file that is never created, so
// libgit2 does not fall back to ~/.config/git/ignore either, which a step could edit.
// `repo_path` is where the repository is now; `final_path`, where it will be used from (they differ
// while create_repository builds it in a private folder).
Status use_own_config(git_repository* repo, const std::string& repo_path, const std::string& final_path);

// Many runs may start at once on a workspace the store has never seen. Each builds the repository
// in a folder of its own and renames it into place; a run that loses the race removes its copy
// and opens the winner's. (Initialising in place raced on `config.lock`.)
Status create_repository(const std::string& repo_path, const std::string& workspace_root);

// Rewrites info/exclude when it is not what this candor writes (a store made by an older one).
Status refresh_exclude(const std::string& repo_path);

// Beside the index: the tree its contents make, and the index file's checksum when it was saved,
// "<tree id> <checksum>". Good only for that very file: an index written since (by another run,
// or by `candor gc`), edited or removed makes it stale, and the tree is built again.
inline constexpr const char* kIndexTree = "candor-index-tree";

// The tree saved beside the repository's index (at `repo_path`, of `entries` entries, whose file's
// checksum is `index_checksum`) when it still describes that index and `objects` holds it, else "".
std::string read_index_tree(const std::string& repo_path, std::size_t entries, const std::string& index_checksum,
                            git_odb* objects);

}  // namespace candor::snapshot
