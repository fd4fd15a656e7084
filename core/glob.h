// The one glob dialect of candor (docs/design.md, Trust boundary: Scope): git's wildmatch, as git
// matches pathspecs and .gitignore patterns (WM_PATHNAME). Scope, sensitive paths, `covers`,
// `file_search`'s `glob`, `secrets.allow` and the ignore prefilter all use it.
//
//   `*`      any run of characters but '/'           `?`  one character but '/'
//   `**`     between slashes or at an end: `**/x` is x at any depth (also the root's), `x/**` all
//            beneath x, `a/**/b` zero or more folders between; elsewhere it is `*`
//   `[...]`  one character but '/': `[abc]`, ranges `[a-z]`, negation `[!a]` or `[^a]`, classes
//            `[[:alpha:]]` (alnum alpha blank cntrl digit graph lower print punct space upper
//            xdigit, ASCII), `]` first is literal (`[]a]`), `\` escapes inside too
//   `\c`     the character c itself
//
// A glob git would not read to its end is invalid (validate_glob says why), never "matches
// nothing" in silence. Matching is a set-of-states walk over the pattern, linear in the text times
// the pattern: no backtracking, no regex, whatever the pattern.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace candor {

// Longer globs are refused: no glob needs it, and matching cost grows with the length.
inline constexpr std::size_t kMaxGlobBytes = 4096;

// Ok, or kInvalidInput saying precisely what is wrong: "empty", "the '[' at offset 1 is never
// closed (write \[ for a literal '[')", "[:nope:] is not a character class (...)", "ends with a lone
// backslash", a NUL byte, over kMaxGlobBytes. The message does not repeat the glob.
Status validate_glob(std::string_view glob);

// A compiled glob over a whole text ("a/b/c" for a path). Immutable; copyable; safe to share
// between threads.
class Glob {
 public:
  // kInvalidInput as validate_glob. `case_fold`: ASCII letters match either case (in classes too).
  static Result<Glob> compile(std::string_view pattern, bool case_fold = false);

  bool matches(std::string_view text) const;
  // Whether the glob matches `path` ("a/b/c": when `whole`) or a folder on its way ("a", "a/b").
  bool matches_path_or_folder(std::string_view path, bool whole) const;
  const std::string& pattern() const { return pattern_; }
  bool case_fold() const { return case_fold_; }

 private:
  enum class Kind : std::uint8_t { kChar, kAny, kClass, kStar, kStarStar, kDirsEntry, kDirsLoop };
  struct Node {
    Kind kind;
    unsigned char c = 0;    // kChar
    std::uint32_t set = 0;  // kClass: index into sets_
  };
  using CharSet = std::bitset<256>;

  Glob() = default;
  bool accepts(std::size_t node, unsigned char c) const;
  template <typename States>
  void enter(std::size_t node, States& states) const;
  template <typename States>
  bool run(std::string_view text, bool at_folders) const;

  std::string pattern_;
  bool case_fold_ = false;
  bool literal_ = true;  // only kChar nodes: a comparison
  std::vector<Node> nodes_;
  std::vector<CharSet> sets_;
};

// wildmatch(pattern, text) with WM_PATHNAME; an invalid pattern matches nothing, as in git.
bool wildmatch(std::string_view pattern, std::string_view text, bool case_fold = false);

// A glob over workspace-relative paths with gitignore's anchoring, the rules scope, sensitive
// paths, `covers`, `secrets.allow` and `file_search` share:
//   - a leading "./" and a leading '/' are dropped; the '/' anchors the glob at the root;
//   - a trailing '/' names a folder: it matches what lies beneath, never a file of that name;
//   - a glob with no other '/' matches a name at any depth (`*.css`, `node_modules/`);
//     with one it is anchored at the root (`src/**`, `docs/*.md`);
//   - a glob that matches a folder on a path's way matches the path (the folder covers its files).
// Anchor::kRoot reads even a bare name as anchored (`README.md` is the root's only): what names a
// path explicitly (verify/scope.h).
class PathGlob {
 public:
  enum class Anchor { kAsWritten, kRoot };

  // kInvalidInput as validate_glob, and "names nothing" for "/", "./" and the like.
  static Result<PathGlob> compile(std::string_view pattern, Anchor anchor = Anchor::kAsWritten, bool case_fold = false);

  bool matches(std::string_view path) const;
  // The glob as written.
  const std::string& pattern() const { return written_; }
  // The first path component holds no wildcard (`.github/**`, `dir/x`, `Makefile`).
  bool literal_first_component() const;
  // Whether the glob matches `folder` or could match a path beneath it (`.github/workflows/*.yml`
  // and `.github/workflows`): what a link at `folder` leading to another folder would put there.
  // A glob that is not anchored matches names at any depth and is not asked.
  bool may_match_beneath(std::string_view folder) const;

 private:
  PathGlob(std::string written, std::string body, Glob glob, bool anchored, bool folder_only)
      : written_(std::move(written)),
        body_(std::move(body)),
        glob_(std::move(glob)),
        anchored_(anchored),
        folder_only_(folder_only) {}

  std::string written_;
  std::string body_;  // what is matched: no "./", leading or trailing '/'
  Glob glob_;
  bool anchored_;
  bool folder_only_;
};

// PathGlob::compile(pattern).matches(path); an invalid glob matches nothing. For a glob used
// once; compile it when it is used for many paths.
bool path_glob_matches(std::string_view pattern, std::string_view path);

}  // namespace candor
