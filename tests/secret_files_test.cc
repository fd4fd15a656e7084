// The credential predicates (sandbox/secret_files.h) as tables, and the scan that masks credential
// files for shell steps.
#include <doctest/doctest.h>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "sandbox/process_sandbox.h"
#include "sandbox/secret_files.h"
#include "sandbox/workspace_policy.h"
#include "tests/kernel_facts.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::needs;
using candor::testing::write_file;

TEST_SUITE("sandbox") {
  TEST_CASE("credential file names are matched case-insensitively, with the common names and no templates") {
    for (const std::string& path : std::vector<std::string>{
             ".env", ".ENV", "App/.Env", ".env.local", ".ENV.PRODUCTION", "prod.env", "deploy/STAGING.ENV", ".envrc",
             "certs/server.pem", "CERTS/SERVER.PEM", "tls.key", "ID_RSA", "id_ed25519_sk", "home/.ssh/id_ed25519",
             ".SSH/config", ".aws/credentials", ".kube/config", "x/.KUBE/config", ".netrc", "x/.npmrc", "keystore.p12",
             ".git-credentials", "credentials.json", "config/Credentials.json", ".my.cnf", "AuthKey_ABC123.p8",
             "putty.ppk", ".pgpass",
             // backups and editor copies of one (red team, round four: `.pgpass.bak` was no credential)
             ".pgpass.bak", ".env.orig", "tls.key.old", ".netrc~", "id_rsa.backup", ".npmrc.save",
             // Terraform state (every secret its resources were given, in clear) and its backup
             "terraform.tfstate", "infra/prod.tfstate", "TERRAFORM.TFSTATE.BACKUP", ".terraform/terraform.tfstate",
             "wp-config.php", "blog/WP-Config.php", ".dockercfg", ".s3cfg", ".boto", ".terraformrc", "terraform.rc",
             // deep, upper case, and names longer than the buffer a name is lower-cased in
             "a/b/c/d/.AZURE/x.txt", "x/.Docker/config.json", "a/.GNUPG/y", "keys/Id_Ecdsa",
             "c/" + std::string(300, 'k') + ".PEM", std::string(200, 'n') + "/.ENV"}) {
      CAPTURE(path);
      CHECK(sandbox::looks_secret(path));
    }
    for (const std::string& path : std::vector<std::string>{
             ".env.example", ".ENV.SAMPLE", ".env.template", "example.env", "sample.env", "id_rsa.pub", "ID_RSA.PUB",
             "keys.txt", "envoy.yaml", "src/key.cc", "environment.md", "README.md", "monkey", "pem/readme", "envrc.md",
             "kube/config", "credentials.md", "src/credentials.py", "dotenv.js",
             // left out on purpose (docs/sandbox.md): templates, and names too common to refuse
             "wp-config-sample.php", "tfstate.md", "src/tfstate.go", "terraform.tfvars", "secrets.yml", "auth.json",
             "boto.py", "s3cfg.example", "notes.bak", "README.md.orig",
             // a folder named like a secret one only in part, an extension only in part, long names
             ".sshd/config", ".awsx/c", "ssh/id", "x.pem.txt", "key", std::string(300, '.') + "/a.txt",
             std::string(300, 'k') + ".txt"}) {
      CAPTURE(path);
      CHECK_FALSE(sandbox::looks_secret(path));
    }
  }

  TEST_CASE("a credential file 40 folders deep is found by the scan that masks it for shell steps") {
    std::string root = make_temp_dir("ws");
    std::string deep;
    for (int i = 0; i < 40; ++i) deep += fmt::format("d{}/", i);
    write_file(root + "/" + deep + ".env", "DB_PASSWORD=x\n");
    write_file(root + "/" + deep + "PROD.ENV", "DB_PASSWORD=x\n");
    auto ws = sandbox::Workspace::open(root);
    REQUIRE(ws.ok());
    sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**ws);
    std::string real = (*ws)->root();
    CHECK(std::find(policy.secret_files.begin(), policy.secret_files.end(), real + "/" + deep + ".env") !=
          policy.secret_files.end());
    CHECK(std::find(policy.secret_files.begin(), policy.secret_files.end(), real + "/" + deep + "PROD.ENV") !=
          policy.secret_files.end());
    CHECK((*ws)->stat(deep + ".env")->credential);
  }

  // Not as root (root opens every folder): as `nobody`, in a child, so the test must start as root
  // to become another user (CI runs as root). A step runs as the same user and could chmod its own
  // folder open, reading a .env the scan never saw to mask.
  TEST_CASE("a folder of candor's own user it cannot open stops the credential scan; another user's does not" *
            needs(::geteuid() == 0, "root (to become another user)")) {
    char base_template[] = "/tmp/candor-nobody-XXXXXX";
    REQUIRE(::mkdtemp(base_template) != nullptr);
    std::string base = base_template;
    std::filesystem::create_directories(base + "/root-only");
    write_file(base + "/root-only/.env", "DB_PASSWORD=x\n");
    REQUIRE(::chmod((base + "/root-only").c_str(), 0700) == 0);
    REQUIRE(::chown(base.c_str(), 65534, 65534) == 0);
    REQUIRE(::chmod(base.c_str(), 0755) == 0);
    // In the child as nobody: 0 when the scan's error names `expect` (or, with "", has none).
    auto scan_as_nobody = [&](bool lock_own_folder, const std::string& expect) {
      pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
        if (lock_own_folder) {
          if (::mkdir((base + "/locked").c_str(), 0700) != 0) ::_exit(4);
          std::ofstream(base + "/locked/.env") << "DB_PASSWORD=x\n";
          if (::chmod((base + "/locked").c_str(), 0) != 0) ::_exit(5);
        }
        auto ws = sandbox::Workspace::open(base);
        if (!ws.ok()) ::_exit(6);
        sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**ws);
        bool as_expected = expect.empty() ? policy.secret_scan_error.empty()
                                          : policy.secret_scan_error.find(expect) != std::string::npos;
        ::_exit(as_expected ? 0 : 1);
      }
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      REQUIRE(WIFEXITED(status));
      return WEXITSTATUS(status);
    };
    CHECK(scan_as_nobody(false, "") == 0);       // root-only/ is closed to nobody's steps as well
    CHECK(scan_as_nobody(true, "locked") == 0);  // locked/ is nobody's own: the scan says it cannot see it
    ::chmod((base + "/locked").c_str(), 0700);
    std::filesystem::remove_all(base);
  }

  TEST_CASE("the start's scan finds every credential file a full walk finds, with the identity lstat gives") {
    // The scan lists folders without a stat per file (only names like a credential file's are
    // stat'ed): it must still find each one, in any case, at any depth, in ignored folders too.
    std::string root = make_temp_dir("ws");
    for (int i = 0; i < 300; ++i) write_file(root + fmt::format("/src/m{}/f{}.txt", i % 17, i), "x\n");
    write_file(root + "/.gitignore", "build/\n");
    for (const char* path : {".env", "src/m3/PROD.ENV", "src/m3/deep/er/id_rsa", "build/.env", "build/out/Server.PEM",
                             ".aws/credentials", "src/m9/.npmrc"}) {
      write_file(root + "/" + path, "secret\n");
    }
    std::filesystem::create_symlink("src/m3/PROD.ENV", root + "/link.env");  // a symlink is not masked: not a file
    auto ws = sandbox::Workspace::open(root);
    REQUIRE(ws.ok());
    std::string real = (*ws)->root();
    std::map<std::string, sandbox::FileIdentity> expected;  // every credential file, by a walk of its own
    for (auto it = std::filesystem::recursive_directory_iterator(real);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      std::string rel = std::filesystem::relative(it->path(), real).string();
      if (it->is_symlink() || !it->is_regular_file() || !sandbox::looks_secret(rel)) continue;
      struct stat st {};
      REQUIRE(::lstat(it->path().c_str(), &st) == 0);
      expected[real + "/" + rel] =
          sandbox::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    }
    REQUIRE(expected.size() >= 6);
    sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**ws);
    CHECK(policy.secret_scan_error == "");
    REQUIRE(policy.secret_files.size() == policy.secret_identities.size());
    std::map<std::string, sandbox::FileIdentity> found;
    for (std::size_t i = 0; i < policy.secret_files.size(); ++i)
      found[policy.secret_files[i]] = policy.secret_identities[i];
    CHECK(found == expected);
  }

  TEST_CASE("credential variables are scrubbed by name and by value; --pass-env keeps one on purpose") {
    struct Row {
      const char* entry;
      bool scrubbed;
    };
    const std::vector<Row> rows = {
        {"DATABASE_URL=postgres://u:pw@db.internal:5432/app", true},
        {"REDIS_URL=redis://:s3cret@cache:6379/0", true},
        {"PIP_EXTRA_INDEX_URL=https://pypi.org/simple https://me:tok@pkgs.example.com/simple", true},
        {"SENTRY_DSN=https://abc@o1.ingest.sentry.io/1", true},
        {"DSN=x", true},
        {"SMTP_PASS=x", true},
        {"MYSQL_PWD=x", true},
        {"CI_JOB_JWT=x", true},
        {"CI_JOB_JWT_V2=x", true},
        {"KEY_PASSPHRASE=x", true},
        {"SESSION=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", true},
        {"AUTH_HEADER=Bearer eyJhbGciOiJub25lIn0.eyJhIjoxfQ.", true},
        {"DEPLOY_KEY_PEM=-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----", true},
        {"OPENAI_API_KEY=sk-1", true},
        {"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0/B0/XXXX", true},
        {"DISCORD_WEBHOOK=https://discord.com/api/webhooks/1/abc", true},
        {"WEBHOOK_URL=https://example.com/hook/abc", true},
        {"PRIVATE_KEY_B64=LS0tLS1CRUdJTg==", true},
        {"SSH_PRIVATE_KEY=x", true},
        {"MONGODB_URI=mongodb+srv://app:pa/ss?w0rd@cluster0.example.net/db", true},
        {"REDIS_URL=rediss://default:p#ss@cache:6380", true},
        {"CACHE_URI=redis://cache:6379?password=r3dis", true},
        {"BLOB_URL=https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=abcDEF", true},
        {"REGISTRY_URL=http://localhost:4873/@scope/pkg", false},
        {"DOCS_URL=https://example.com/search?q=password", false},
        {"PATH=/usr/bin:/bin", false},
        {"HOME=/home/u", false},
        {"PWD=/work", false},
        {"OLDPWD=/work", false},
        {"HOMEPAGE_URL=https://user@example.com/x", false},
        {"UPSTREAM=https://example.com:8443/path", false},
        {"GIT_URL=git@github.com:org/repo.git", false},
        {"BYPASS=1", false},
        {"EDITOR=vim", false},
        {"JAVA_OPTS=-Dfoo=eyJ", false},
    };
    std::vector<std::string> storage;
    for (const auto& row : rows) storage.emplace_back(row.entry);
    std::vector<char*> environ_in;
    for (auto& s : storage) environ_in.push_back(s.data());
    environ_in.push_back(nullptr);
    std::vector<std::string> kept = sandbox::scrubbed_environment(environ_in.data(), {}, "");
    for (const auto& row : rows) {
      CAPTURE(row.entry);
      bool present = std::find(kept.begin(), kept.end(), row.entry) != kept.end();
      CHECK(present == !row.scrubbed);
    }
    std::vector<std::string> passed = sandbox::scrubbed_environment(environ_in.data(), {"DATABASE_URL"}, "");
    CHECK(std::find(passed.begin(), passed.end(), std::string(rows[0].entry)) != passed.end());
    CHECK(std::find(passed.begin(), passed.end(), std::string(rows[1].entry)) == passed.end());
  }
}
