#include "snapshot/git_names.h"

#include <string>

namespace candor::snapshot {
namespace {

enum class Verdict { kHeld, kRefused, kAsk };

Verdict first_look(std::string_view path) {
  Verdict out = Verdict::kHeld;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end == start) return Verdict::kRefused;  // a tree has no entry without a name (libgit2's index would take it)
    char first = path[start];
    if (first == '.' || first == 'g' || first == 'G') out = Verdict::kAsk;
    start = end + 1;
  }
  return out;
}

}  // namespace

GitNameCheck::GitNameCheck() {
  git_init_once();
  git_index_new(scratch_.out());
}

bool GitNameCheck::holds(std::string_view path) {
  Verdict verdict = first_look(path);
  if (verdict != Verdict::kAsk) return verdict == Verdict::kHeld;
  if (scratch_.get() == nullptr) return false;  // no check possible: refuse rather than guess
  std::string copy(path);
  git_index_entry entry{};
  entry.mode = GIT_FILEMODE_BLOB;
  entry.path = copy.c_str();
  if (git_index_add(scratch_.get(), &entry) != 0) return false;
  if (++added_ % 4096 == 0) git_index_clear(scratch_.get());  // its entries serve no one
  return true;
}

}  // namespace candor::snapshot
