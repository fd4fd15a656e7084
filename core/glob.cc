#include "core/glob.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

namespace candor {
namespace {

// ASCII only, whatever the locale: git's wildmatch uses its own ctype (sane_ctype.h).
bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_alpha(unsigned char c) { return is_upper(c) || is_lower(c); }
unsigned char lower(unsigned char c) { return is_upper(c) ? static_cast<unsigned char>(c - 'A' + 'a') : c; }

using Predicate = bool (*)(unsigned char);

struct CharClass {
  std::string_view name;
  Predicate test;
};

const std::array<CharClass, 12>& char_classes() {
  static const std::array<CharClass, 12> classes = {{
      {"alnum", [](unsigned char c) { return is_alpha(c) || is_digit(c); }},
      {"alpha", [](unsigned char c) { return is_alpha(c); }},
      {"blank", [](unsigned char c) { return c == ' ' || c == '\t'; }},
      {"cntrl", [](unsigned char c) { return c < 0x20 || c == 0x7f; }},
      {"digit", [](unsigned char c) { return is_digit(c); }},
      {"graph", [](unsigned char c) { return c > 0x20 && c < 0x7f; }},
      {"lower", [](unsigned char c) { return is_lower(c); }},
      {"print", [](unsigned char c) { return c >= 0x20 && c < 0x7f; }},
      {"punct", [](unsigned char c) { return c > 0x20 && c < 0x7f && !is_alpha(c) && !is_digit(c); }},
      {"space", [](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }},
      {"upper", [](unsigned char c) { return is_upper(c); }},
      {"xdigit", [](unsigned char c) { return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f'); }},
  }};
  return classes;
}

Error invalid(std::string message) { return make_error(ErrorCode::kInvalidInput, std::move(message)); }

// Reads the bracket expression opening at p[open] (git's rules: `!` or `^` negates, a first `]`
// is literal, `\` escapes, `a-z` is a range unless '-' is first or last, `[:name:]` a class, and a
// `[:` without its `:]` a literal '['). Returns the set and where the expression ends.
// With `case_fold` every letter in the set brings its other case, before a negation: `[!a]` then
// matches neither 'a' nor 'A'. (git folds the text only, so its `[!A]` matches 'A' when folding;
// nothing candor matches with case folded depends on that: see snapshot/ignore_prefilter.cc.)
Result<std::pair<std::bitset<256>, std::size_t>> read_bracket(std::string_view p, std::size_t open, bool case_fold) {
  auto unclosed = [&] {
    return invalid(fmt::format("the '[' at offset {} is never closed (write \\[ for a literal '[')", open));
  };
  std::bitset<256> set;
  std::size_t i = open + 1;
  bool negated = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negated) ++i;
  int prev = -1;  // the last single character read: the start of a range
  for (bool first = true;; first = false) {
    if (i >= p.size()) return unclosed();
    auto c = static_cast<unsigned char>(p[i]);
    if (c == ']' && !first) {
      ++i;
      break;
    }
    if (c == '\\') {
      if (++i >= p.size()) return unclosed();
      auto escaped = static_cast<unsigned char>(p[i++]);
      set.set(escaped);
      prev = escaped;
    } else if (c == '-' && prev >= 0 && i + 1 < p.size() && p[i + 1] != ']') {
      i += 1;
      auto end = static_cast<unsigned char>(p[i]);
      if (end == '\\') {
        if (++i >= p.size()) return unclosed();
        end = static_cast<unsigned char>(p[i]);
      }
      ++i;
      for (int x = prev; x <= end; ++x) set.set(static_cast<std::size_t>(x));  // z-a: empty, as in git
      prev = -1;
    } else if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
      std::size_t close = p.find(']', i + 2);
      if (close == std::string_view::npos) return unclosed();
      if (close == i + 2 || p[close - 1] != ':') {  // no ":]": the '[' is a character like any other
        set.set('[');
        prev = '[';
        ++i;
        continue;
      }
      std::string_view name = p.substr(i + 2, close - 1 - (i + 2));
      const CharClass* found = nullptr;
      for (const auto& cc : char_classes()) {
        if (cc.name == name) found = &cc;
      }
      if (found == nullptr) {
        return invalid(
            fmt::format("[:{}:] is not a character class (alnum, alpha, blank, cntrl, digit, graph, lower, print, "
                        "punct, space, upper, xdigit)",
                        name));
      }
      for (int x = 0; x < 256; ++x) {
        if (found->test(static_cast<unsigned char>(x))) set.set(static_cast<std::size_t>(x));
      }
      prev = -1;
      i = close + 1;
    } else {
      set.set(c);
      prev = c;
      ++i;
    }
  }
  if (case_fold) {
    for (std::size_t x = 'a'; x <= 'z'; ++x) {
      std::size_t up = x - 'a' + 'A';
      bool either = set.test(x) || set.test(up);
      set.set(x, either);
      set.set(up, either);
    }
  }
  if (negated) set.flip();
  set.reset('/');  // WM_PATHNAME: a bracket never matches '/', negated or not
  return std::make_pair(set, i);
}

}  // namespace

Status validate_glob(std::string_view glob) {
  auto compiled = Glob::compile(glob);
  if (!compiled.ok()) return compiled.error();
  return ok_status();
}

Result<Glob> Glob::compile(std::string_view p, bool case_fold) {
  if (p.empty()) return invalid("empty");
  if (p.size() > kMaxGlobBytes)
    return invalid(fmt::format("{} bytes, over the {} a glob may have", p.size(), kMaxGlobBytes));
  if (p.find('\0') != std::string_view::npos) return invalid("holds a NUL byte");
  Glob g;
  g.pattern_ = std::string(p);
  g.case_fold_ = case_fold;
  auto literal = [&](unsigned char c) { g.nodes_.push_back({Kind::kChar, case_fold ? lower(c) : c, 0}); };
  for (std::size_t i = 0; i < p.size();) {
    char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) return invalid("ends with a lone backslash (write \\\\ for a backslash)");
      literal(static_cast<unsigned char>(p[i + 1]));
      i += 2;
    } else if (c == '?') {
      g.nodes_.push_back({Kind::kAny});
      ++i;
    } else if (c == '[') {
      TRY(auto bracket, read_bracket(p, i, case_fold));
      g.nodes_.push_back({Kind::kClass, 0, static_cast<std::uint32_t>(g.sets_.size())});
      g.sets_.push_back(bracket.first);
      i = bracket.second;
    } else if (c == '*') {
      std::size_t end = p.find_first_not_of('*', i);
      if (end == std::string_view::npos) end = p.size();
      // `**` is git's only between slashes or at an end (`\/` counts as a slash after it);
      // elsewhere two stars are one.
      bool after_slash = i == 0 || p[i - 1] == '/';
      bool before_slash =
          end == p.size() || p[end] == '/' || (p[end] == '\\' && end + 1 < p.size() && p[end + 1] == '/');
      if (end - i >= 2 && after_slash && before_slash) {
        if (end < p.size() && p[end] == '/') {
          // `**/`: nothing, or anything ending in '/' (zero or more folders).
          g.nodes_.push_back({Kind::kDirsEntry});
          g.nodes_.push_back({Kind::kDirsLoop});
          end += 1;
        } else {
          g.nodes_.push_back({Kind::kStarStar});
        }
      } else {
        g.nodes_.push_back({Kind::kStar});
      }
      i = end;
    } else {
      literal(static_cast<unsigned char>(c));
      ++i;
    }
  }
  g.literal_ = std::all_of(g.nodes_.begin(), g.nodes_.end(), [](const Node& n) { return n.kind == Kind::kChar; });
  return g;
}

bool Glob::accepts(std::size_t node, unsigned char c) const {
  const Node& n = nodes_[node];
  switch (n.kind) {
    case Kind::kChar:
      return (case_fold_ ? lower(c) : c) == n.c;
    case Kind::kAny:
      return c != '/';
    case Kind::kClass:
      return sets_[n.set].test(c);
    default:
      return false;
  }
}

namespace {

// The set of active nodes: one word for globs of up to 63 nodes (almost all), else a vector.
class SmallStates {
 public:
  explicit SmallStates(std::size_t) {}
  bool test(std::size_t k) const { return (bits_ >> k) & 1U; }
  void set(std::size_t k) { bits_ |= std::uint64_t{1} << k; }
  void clear() { bits_ = 0; }
  bool any() const { return bits_ != 0; }
  void swap(SmallStates& other) { std::swap(bits_, other.bits_); }

 private:
  std::uint64_t bits_ = 0;
};

class LargeStates {
 public:
  explicit LargeStates(std::size_t size) : bits_(size, 0) {}
  bool test(std::size_t k) const { return bits_[k] != 0; }
  void set(std::size_t k) { bits_[k] = 1; }
  void clear() { std::fill(bits_.begin(), bits_.end(), 0); }
  bool any() const { return std::find(bits_.begin(), bits_.end(), 1) != bits_.end(); }
  void swap(LargeStates& other) { bits_.swap(other.bits_); }

 private:
  std::vector<std::uint8_t> bits_;
};

}  // namespace

// Marks `node` active in `states`, with every node reachable from it without reading a character.
template <typename States>
void Glob::enter(std::size_t node, States& states) const {
  while (true) {
    if (node >= nodes_.size()) {
      states.set(nodes_.size());  // the end: a match if the text ends here too
      return;
    }
    if (states.test(node)) return;
    states.set(node);
    switch (nodes_[node].kind) {
      case Kind::kStar:
      case Kind::kStarStar:
        ++node;  // may match nothing
        break;
      case Kind::kDirsEntry:
        enter(node + 1, states);  // the loop (which reads a character before it can leave)
        node += 2;                // or no folder at all
        break;
      default:
        return;
    }
  }
}

// Every node that could be reached after each character, at once: no backtracking.
template <typename States>
bool Glob::run(std::string_view text, bool at_folders) const {
  States states(nodes_.size() + 1), next(nodes_.size() + 1);
  enter(0, states);
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    // The text up to here is a folder on the path's way: a match there is a match.
    if (at_folders && c == '/' && states.test(nodes_.size())) return true;
    next.clear();
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
      if (!states.test(k)) continue;
      switch (nodes_[k].kind) {
        case Kind::kStar:
          if (c != '/') enter(k, next);
          break;
        case Kind::kStarStar:
          enter(k, next);
          break;
        case Kind::kDirsEntry:
          break;  // reads nothing itself
        case Kind::kDirsLoop:
          enter(k, next);
          if (c == '/') enter(k + 1, next);
          break;
        default:
          if (accepts(k, c)) enter(k + 1, next);
          break;
      }
    }
    if (!next.any()) return false;
    states.swap(next);
  }
  return states.test(nodes_.size());
}

bool Glob::matches(std::string_view text) const {
  if (literal_) {
    if (text.size() != nodes_.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (!accepts(i, static_cast<unsigned char>(text[i]))) return false;
    }
    return true;
  }
  return nodes_.size() < 64 ? run<SmallStates>(text, false) : run<LargeStates>(text, false);
}

bool Glob::matches_path_or_folder(std::string_view path, bool whole) const {
  if (literal_) {
    for (std::size_t end = path.find('/'); end != std::string_view::npos; end = path.find('/', end + 1)) {
      if (matches(path.substr(0, end))) return true;
    }
    return whole && matches(path);
  }
  bool small = nodes_.size() < 64;
  if (whole) return small ? run<SmallStates>(path, true) : run<LargeStates>(path, true);
  // Folders only: the path's own end does not count; its deepest folder is tested at its end.
  std::size_t last = path.rfind('/');
  if (last == std::string_view::npos) return false;
  return small ? run<SmallStates>(path.substr(0, last), true) : run<LargeStates>(path.substr(0, last), true);
}

bool wildmatch(std::string_view pattern, std::string_view text, bool case_fold) {
  auto g = Glob::compile(pattern, case_fold);
  return g.ok() && g->matches(text);
}

Result<PathGlob> PathGlob::compile(std::string_view pattern, Anchor anchor, bool case_fold) {
  std::string_view p = pattern;
  bool anchored = anchor == Anchor::kRoot;
  while (p.size() > 1 && p.substr(0, 2) == "./") p.remove_prefix(2);
  if (!p.empty() && p.front() == '/') {
    anchored = true;
    p.remove_prefix(1);
  }
  bool folder_only = false;
  while (!p.empty() && p.back() == '/') {
    folder_only = true;
    p.remove_suffix(1);
  }
  if (p.empty()) {
    if (pattern.empty()) return invalid("empty");
    return invalid("names nothing (only '/' or './' are left of it)");
  }
  TRY(Glob glob, Glob::compile(p, case_fold));
  // As git: any '/' left (even in a bracket or escaped) anchors the glob.
  anchored = anchored || p.find('/') != std::string_view::npos;
  return PathGlob(std::string(pattern), std::string(p), std::move(glob), anchored, folder_only);
}

bool PathGlob::matches(std::string_view path) const {
  // The path itself, then each folder on its way: a glob that matches a folder matches what is in it.
  // Anchored, one pass over the path tests every folder at its slash (testing each prefix alone
  // cost the depth times the length: minutes for 10,000 files 100 folders deep).
  if (anchored_) return glob_.matches_path_or_folder(path, !folder_only_);
  for (std::size_t start = 0;;) {
    std::size_t slash = path.find('/', start);
    bool last = slash == std::string_view::npos;
    std::size_t end = last ? path.size() : slash;
    if (!(folder_only_ && last)) {
      std::string_view subject = anchored_ ? path.substr(0, end) : path.substr(start, end - start);
      if (glob_.matches(subject)) return true;
    }
    if (last) return false;
    start = slash + 1;
  }
}

namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Whether glob components `g[i..]` can take folder components `f[j..]` so that the last folder
// component is taken by a glob component of its own (not swallowed by a `**`) and glob components
// are left for what lies beneath.
bool takes_folder(const std::vector<std::string_view>& g, std::size_t i, const std::vector<std::string_view>& f,
                  std::size_t j, bool case_fold) {
  if (j == f.size()) return false;  // only reached through a `**` swallowing the last component
  if (i >= g.size()) return false;
  if (g[i] == "**") {
    // Nothing, or one more folder component, swallowed.
    return takes_folder(g, i + 1, f, j, case_fold) || takes_folder(g, i, f, j + 1, case_fold);
  }
  if (!wildmatch(g[i], f[j], case_fold)) return false;
  if (j + 1 == f.size()) return i + 1 < g.size();
  return takes_folder(g, i + 1, f, j + 1, case_fold);
}

}  // namespace

bool PathGlob::may_match_beneath(std::string_view folder) const {
  if (!anchored_) return false;  // a name at any depth: what a link there leads to holds none not already listed
  if (matches(folder)) return true;
  // A link's own name must be what the glob names there: `**/.candor/**` stands for a link named
  // `.candor`, not for every link (whose target's files are listed at their own paths anyway).
  return takes_folder(components(body_), 0, components(folder), 0, glob_.case_fold());
}

bool PathGlob::literal_first_component() const {
  std::string_view first = std::string_view(body_).substr(0, body_.find('/'));
  return !first.empty() && first.find_first_of("*?[\\") == std::string_view::npos;
}

bool path_glob_matches(std::string_view pattern, std::string_view path) {
  auto g = PathGlob::compile(pattern);
  return g.ok() && g->matches(path);
}

}  // namespace candor
