// candor's one glob dialect (core/glob.h): git's wildmatch, table-driven (cases written after the
// semantics git's t/t3070-wildmatch.sh checks), what makes a glob invalid, gitignore's anchoring,
// and an oracle: the same patterns and paths asked of `git check-ignore`.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/glob.h"
#include "tests/test_support.h"

namespace candor {
namespace {

struct MatchRow {
  const char* pattern;
  const char* text;
  bool match;       // case-sensitive
  int folded = -1;  // with case folding; -1 = as `match`
};

}  // namespace

TEST_SUITE("core") {
  TEST_CASE("wildmatch: git's dialect with WM_PATHNAME, and with case folding") {
    const MatchRow rows[] = {
        // Literals, `?`, `*`, escapes
        {"foo", "foo", true},
        {"foo", "bar", false},
        {"???", "foo", true},
        {"??", "foo", false},
        {"*", "foo", true},
        {"*", "", true},
        {"f*", "foo", true},
        {"*f", "foo", false},
        {"*foo*", "foo", true},
        {"*ob*a*r*", "foobar", true},
        {"*ab", "aaaaaaabababab", true},
        {R"(foo\*)", "foo*", true},
        {R"(foo\*bar)", "foobar", false},
        {R"(f\\oo)", R"(f\oo)", true},
        {R"(\a\b)", "ab", true},
        {"b*a", "aaabbb", false},
        {"*ba*", "aabcaa", false},
        {"*X*i", "abcXdefXghi", true},
        {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true},
        {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false},
        // Brackets: sets, ranges, negation, a first ']' literal, escapes inside
        {"*[al]?", "ball", true},
        {"[ten]", "ten", false},
        {"**[!te]", "ten", true},
        {"**[!ten]", "ten", false},
        {"t[a-g]n", "ten", true},
        {"t[!a-g]n", "ten", false},
        {"t[!a-g]n", "ton", true},
        {"t[^a-g]n", "ton", true},
        {"a[]]b", "a]b", true},
        {"a[]-]b", "a-b", true},
        {"a[]-]b", "a]b", true},
        {"a[]-]b", "aab", false},
        {"a[]a-]b", "aab", true},
        {"]", "]", true},
        {"a[c-c]st", "acrt", false},
        {"a[c-c]rt", "acrt", true},
        {"[!]-]", "]", false},
        {"[!]-]", "a", true},
        {R"([\\-^])", "]", true},
        {R"([\\-^])", "[", false},
        {R"([\-_])", "-", true},
        {R"([\]])", "]", true},
        {R"([\]])", R"(\])", false},
        {R"([A-\\])", "G", true},
        {"[,]", ",", true},
        {R"([\\,])", ",", true},
        {R"([\\,])", R"(\)", true},
        {R"([[-\]])", "[", true},
        {R"([[-\]])", "-", false},
        {R"([-\]])", "-", true},
        {"[z-a]", "m", false},
        {"[[:foo]", "[", true},  // "[:" without ":]": a '[' like any other
        {"[[:foo]", ":", true},
        // POSIX classes
        {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true},
        {"[[:digit:][:upper:][:space:]]", "a", false, true},
        {"[[:digit:][:upper:][:space:]]", "A", true},
        {"[[:digit:][:upper:][:space:]]", "1", true},
        {"[[:digit:][:upper:][:space:]]", " ", true},
        {"[[:digit:][:upper:][:space:]]", ".", false},
        {"[[:digit:][:punct:][:space:]]", ".", true},
        {"[[:xdigit:]]", "5", true},
        {"[[:xdigit:]]", "f", true},
        {"[[:xdigit:]]", "D", true},
        {"[[:xdigit:]]", "g", false},
        {"[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:"
         "]]",
         "_", true},
        {"[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".", true},
        {"[a-c[:digit:]x-z]", "5", true},
        {"[a-c[:digit:]x-z]", "b", true},
        {"[a-c[:digit:]x-z]", "y", true},
        {"[a-c[:digit:]x-z]", "q", false},
        {"[[:alpha:]].txt", "a.txt", true},
        {"[[:alpha:]].txt", "1.txt", false},
        {"[[:blank:]]", "\t", true},
        {"[[:cntrl:]]", "\x7f", true},
        {"[[:graph:]]", " ", false},
        {"[[:print:]]", " ", true},
        {"[[:alpha:]]", "\xc3", false},  // ASCII classes, whatever the locale
        // '/': `*`, `?` and brackets never match it
        {"foo*bar", "foo/baz/bar", false},
        {"foo**bar", "foo/baz/bar", false},
        {"foo**bar", "foobazbar", true},
        {"foo?bar", "foo/bar", false},
        {"foo[/]bar", "foo/bar", false},
        {"foo[^a-z]bar", "foo/bar", false},
        {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", false},
        {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true},
        {"foo/*/bar", "foo//bar", true},
        {"*/foo", "bar/baz/foo", false},
        {"*/*/*", "foo/bb/aa/rr", false},
        {"foo/*", "foo/bar", true},
        {"foo/*", "foo/bar/baz", false},
        // `**` forms
        {"**", "", true},
        {"**", "foo/bar", true},
        {"foo/**", "foo/bar/baz", true},
        {"foo/**", "foo/", true},
        {"foo/**", "foo", false},
        {"foo/**/bar", "foo/baz/bar", true},
        {"foo/**/**/bar", "foo/baz/bar", true},
        {"foo/**/bar", "foo/b/a/z/bar", true},
        {"foo/**/**/bar", "foo/b/a/z/bar", true},
        {"foo/**/bar", "foo/bar", true},
        {"foo/**/**/bar", "foo/bar", true},
        {"foo/**/bar", "foo//bar", true},
        {"**/foo", "foo", true},
        {"**/foo", "XXX/foo", true},
        {"**/foo", "bar/baz/foo", true},
        {"**/bar*", "foo/bar/baz", false},
        {"**/bar/*", "deep/foo/bar/baz", true},
        {"**/bar/*", "deep/foo/bar/baz/", false},
        {"**/bar/**", "deep/foo/bar/baz/", true},
        {"**/bar/*", "deep/foo/bar", false},
        {"**/bar/**", "deep/foo/bar/", true},
        {"**/bar**", "foo/bar/baz", false},
        {"*/bar/**", "foo/bar/baz/x", true},
        {"*/bar/**", "deep/foo/bar/baz/x", false},
        {"**/bar/*/*", "deep/foo/bar/baz/x", true},
        {"**/**/**", "foo/bb/aa/rr", true},
        {"**foo", "a/foo", false},  // not between slashes: one star
        {"**foo", "xfoo", true},
        {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false},
        {"*/*X*/*/*i", "ab/cXd/efXg/hi", true},
        {"**/*X*/**/*i", "ab/cXd/efXg/hi", true},
        {"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
        // Case folding
        {"FOO", "foo", false, true},
        {"[A-Z]", "a", false, true},
        {"[a-z]", "A", false, true},
        {"[[:upper:]]", "a", false, true},
        {"[[:lower:]]", "A", false, true},
        {"[!a]", "A", true, false},  // folding before negation: [!a] refuses both cases
        {"*.TXT", "notes.txt", false, true},
        {"a/**/B", "A/x/b", false, true},
    };
    int n = 0;
    for (const auto& row : rows) {
      std::string pattern = row.pattern, text = row.text;
      CAPTURE(pattern);
      CAPTURE(text);
      REQUIRE(validate_glob(pattern).ok());
      CHECK(wildmatch(pattern, text) == row.match);
      CHECK(wildmatch(pattern, text, true) == (row.folded < 0 ? row.match : row.folded == 1));
      ++n;
    }
    CHECK(n >= 60);
  }

  TEST_CASE("validate_glob says what is wrong with a glob git would not read to its end") {
    struct Row {
      std::string glob;
      std::string error;  // "" = valid
    };
    const std::vector<Row> rows = {
        {"a[b", "the '[' at offset 1 is never closed (write \\[ for a literal '[')"},
        {"[]", "the '[' at offset 0 is never closed (write \\[ for a literal '[')"},
        {"[!]", "the '[' at offset 0 is never closed"},
        {"x[[:alpha:]", "the '[' at offset 1 is never closed"},
        {R"(a[\)", "the '[' at offset 1 is never closed"},
        {"x[[:nope:]]",
         "[:nope:] is not a character class (alnum, alpha, blank, cntrl, digit, graph, lower, print, punct, space, "
         "upper, xdigit)"},
        {"[[::]]", "[::] is not a character class"},
        {R"(abc\)", "ends with a lone backslash (write \\\\ for a backslash)"},
        {"", "empty"},
        {std::string("a\0b", 3), "holds a NUL byte"},
        {std::string(5000, 'a'), "5000 bytes, over the 4096 a glob may have"},
        {"[[:alpha:]].txt", ""},
        {R"(a[\]]b)", ""},
        {"[[:foo]", ""},
        {"[[:]]", ""},
        {"**/x/**", ""},
        {R"(\[)", ""},
    };
    for (const auto& row : rows) {
      CAPTURE(row.glob);
      Status s = validate_glob(row.glob);
      if (row.error.empty()) {
        CHECK(s.ok());
      } else {
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().code == ErrorCode::kInvalidInput);
        CHECK(s.error().message.rfind(row.error, 0) == 0);
        CHECK_FALSE(wildmatch(row.glob, "a[b"));  // an invalid glob matches nothing, as in git
      }
    }
  }

  TEST_CASE("path globs: gitignore's anchoring, folders covering their files") {
    struct Row {
      const char* glob;
      const char* path;
      bool match;
      bool root_anchored;  // Anchor::kRoot
    };
    const Row rows[] = {
        {"*.css", "css/style.css", true, false},
        {"*.css", "style.css", true, true},
        {"*.css", "a.css/inner.txt", true, true},  // the folder a.css matches: what is in it too
        {"docs/", "docs/a/b.md", true, true},
        {"docs/", "docs", false, false},  // a trailing '/': the folder's contents, never a file so named
        {"docs/", "x/docs/y", true, false},
        {"docs", "docs/a/b.md", true, true},
        {"/docs", "x/docs/y", false, false},
        {"src/*.c", "src/a.c", true, true},
        {"src/*.c", "x/src/a.c", false, false},
        {"src/*.c", "src/sub/a.c", false, false},
        {"./src/**", "src/a/b", true, true},
        {"**/gen", "a/b/gen/x.c", true, true},
        {"[[:alpha:]]*.cfg", "a.cfg", true, true},
        {"[[:alpha:]]*.cfg", "conf/b.cfg", true, false},
        {"[[:alpha:]]*.cfg", "1.cfg", false, false},
        {"a[\\]]b", "a]b", true, true},
        {"README.md", "docs/README.md", true, false},
    };
    for (const auto& row : rows) {
      std::string glob = row.glob, path = row.path;
      CAPTURE(glob);
      CAPTURE(path);
      auto g = PathGlob::compile(row.glob);
      REQUIRE(g.ok());
      CHECK(g->matches(row.path) == row.match);
      CHECK(PathGlob::compile(row.glob, PathGlob::Anchor::kRoot)->matches(row.path) == row.root_anchored);
    }
    CHECK(PathGlob::compile(".github/**")->literal_first_component());
    CHECK_FALSE(PathGlob::compile("*.yml")->literal_first_component());
    CHECK_FALSE(PathGlob::compile("[.]github/**")->literal_first_component());
    for (const char* nothing : {"/", "./", "//"}) {
      auto g = PathGlob::compile(nothing);
      REQUIRE_FALSE(g.ok());
      CHECK(g.error().message == "names nothing (only '/' or './' are left of it)");
    }
  }

  TEST_CASE("path globs: what a link at a folder would put beneath it (may_match_beneath)") {
    struct Row {
      const char* glob;
      const char* folder;
      bool beneath;
    };
    const Row rows[] = {
        {".github/workflows/**", ".github/workflows", true},  // the link stands where the files would be
        {".github/workflows/*.yml", ".github/workflows", true},
        {".github/workflows/**", ".github", true},  // a link higher up holds them too
        {".github/workflows/**", ".githubx", false},
        {".github/workflows/**", "src", false},
        {".github/workflows/ci.yml", ".github/workflows", true},
        {".github/workflows/ci.yml", ".github/workflow", false},
        {"**/.candor/**", "sub/.candor", true},
        {"**/.candor/**", ".candor", true},
        {"**/.candor/**", "sub/candor", false},  // a link's own name must be what the glob names there
        {"**/.candor/**", "a/b/.candor", true},
        {"src/**/gen/*.c", "src/x/gen", true},
        {"src/**/gen/*.c", "src/x", false},
        {"docs/*.md", "docs", true},
        {"docs/*.md", "doc", false},
        {"docs/[a-c]*/x", "docs/b1", true},
        {"docs/[a-c]*/x", "docs/d1", false},
        {"*.yml", "ci", false},          // a name at any depth: the link adds no name not already listed
        {".gitlab-ci.yml", "x", false},  // anchored, and nothing beneath x can be it
    };
    for (const auto& row : rows) {
      std::string glob = row.glob, folder = row.folder;
      CAPTURE(glob);
      CAPTURE(folder);
      auto g = PathGlob::compile(glob);
      REQUIRE(g.ok());
      CHECK(g->may_match_beneath(folder) == row.beneath);
    }
  }

  TEST_CASE("property: path globs decide as git check-ignore does") {
    // Random globs from the pieces .gitignore files and configs are made of, random paths from
    // names that match them and names that do not; git is asked about every path at once per glob.
    const std::vector<std::string> pieces = {"a",    "b",           "ab",    "x.c", "*",  "?",   "**",           "[ab]",
                                             "[!a]", "[[:digit:]]", "[a-c]", "*.c", "a*", "\\a", "[[:alpha:]]*", "1"};
    const std::vector<std::string> names = {"a",  "b", "ab", "ba",  "x.c", "y.c", "1",
                                            "a1", "c", "bb", "abc", "1.c", "xa"};
    std::mt19937 rng(20261125);
    std::string repo = testing::make_temp_dir("oracle");
    REQUIRE(testing::run_command({"/usr/bin/git", "init", "-q", repo}).exit_code == 0);
    int compared = 0, matched = 0;
    for (int round = 0; round < 120; ++round) {
      std::string glob = rng() % 4 == 0 ? "/" : "";
      for (unsigned parts = 1 + rng() % 3, i = 0; i < parts; ++i)
        glob += (i ? "/" : "") + pieces[rng() % pieces.size()];
      if (rng() % 4 == 0) glob += "/";
      auto compiled = PathGlob::compile(glob);
      REQUIRE(compiled.ok());
      std::vector<std::string> paths;
      std::string input;
      for (int k = 0; k < 30; ++k) {
        std::string path;
        for (unsigned depth = 1 + rng() % 4; depth > 0; --depth)
          path += (path.empty() ? "" : "/") + names[rng() % names.size()];
        paths.push_back(path);
        input += path + "\n";
      }
      testing::write_file(repo + "/.gitignore", glob + "\n");
      std::string list = repo + "/../paths-" + std::to_string(round);
      testing::write_file(list, input);
      auto r = testing::run_command({"/bin/sh", "-c",
                                     "git -c core.excludesFile=/dev/null -c core.ignoreCase=false check-ignore "
                                     "--no-index --stdin < " +
                                         list},
                                    {"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}, repo);
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));
      std::set<std::string> ignored;
      for (std::size_t start = 0, nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
        ignored.insert(r.out.substr(start, nl - start));
      }
      for (const auto& path : paths) {
        CAPTURE(glob);
        CAPTURE(path);
        CHECK(compiled->matches(path) == (ignored.count(path) == 1));
        ++compared;
        matched += ignored.count(path) == 1;
      }
    }
    CHECK(compared == 3600);
    CHECK(matched > 300);  // the vocabulary makes both answers common, or the oracle says little
    CHECK(compared - matched > 300);
  }
}

}  // namespace candor
