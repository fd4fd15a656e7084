// Which values of a credential file are masked (sandbox/credential_values.h), as a table: one row
// per format, each naming a value that must be found and configuration that must not be masked.
#include <doctest/doctest.h>

#include <algorithm>

#include "sandbox/credential_values.h"

using namespace candor;

namespace {

bool has(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

struct Row {
  const char* name;
  const char* content;
  std::vector<std::string> found;
  std::vector<std::string> not_found;
};

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("the values of a credential file: secrets by key, by shape and by format; configuration kept") {
    const std::vector<Row> rows = {
        {".env",
         "NODE_ENV=production\nDB_HOST=localhost\nDB_PASSWORD=hunter2-pw\nexport API_TOKEN='tok-12345678'\n# c\n",
         {"hunter2-pw", "tok-12345678"},
         {"production", "localhost"}},
        {".env",
         "STRIPE=sk_live_51H8x7yEXAMPLEkey\nGREETING=hello world again\n",
         {"sk_live_51H8x7yEXAMPLEkey"},
         {"hello world again"}},
        {"credentials",
         "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = "
         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = us-east-1\n",
         {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
         {"us-east-1"}},
        {"terraform.tfstate",
         "{\"resources\":[{\"instances\":[{\"attributes\":{\"password\":\"tf-db-pass-1\",\"name\":\"main-database\","
         "\"private_key_pem\":\"-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA1234\\nabcdEFGH5678ijkl\\n-----END "
         "RSA PRIVATE KEY-----\\n\"}}]}]}",
         {"tf-db-pass-1", "MIIEpAIBAAKCAQEA1234", "abcdEFGH5678ijkl"},
         {"main-database"}},
        {"wp-config.php",
         "<?php\ndefine( 'DB_PASSWORD', 'wp-db-s3cret' );\ndefine( 'DB_NAME', 'wordpress' );\n$table_prefix = 'wp_';\n",
         {"wp-db-s3cret"},
         {"wordpress"}},
        {".pgpass",
         "# host:port:db:user:password\ndb.internal:5432:app:app:pg-pass\\:word1\n",
         {"pg-pass\\:word1"},
         {"db.internal"}},
        {".netrc",
         "machine api.example.com login alice password netrc-s3cret\n",
         {"netrc-s3cret"},
         {"api.example.com"}},
        {".git-credentials",
         "https://alice:ghp_abcdefgh12345678@github.com\n",
         {"ghp_abcdefgh12345678", "https://alice:ghp_abcdefgh12345678@github.com"},
         {}},
        {".vault-token", "hvs.CAESIJ1xexample\n", {"hvs.CAESIJ1xexample"}, {}},
        {"config.json",
         "{\"auths\": {\"registry.example.com\": {\"auth\": \"YWxpY2U6cGFzcw==\"}}}",
         {"YWxpY2U6cGFzcw=="},
         {"registry.example.com"}},
        {"id_ed25519",
         "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACBexample12\n-----END OPENSSH "
         "PRIVATE KEY-----\n",
         {"b3BlbnNzaC1rZXktdjEAAAAA", "QyNTUxOQAAACBexample12"},
         {}},
        {"secrets.yaml",
         "database:\n  password: \"yaml-pass-1\"\n  host: db.example.com\n",
         {"yaml-pass-1"},
         {"db.example.com"}},
        {".env", "REDIS_URL=redis://:r3dis-pw@cache:6379/0\n", {"r3dis-pw", "redis://:r3dis-pw@cache:6379/0"}, {}},
    };
    for (const auto& row : rows) {
      CAPTURE(row.name);
      CAPTURE(row.content);
      auto values = sandbox::credential_file_values(row.name, row.content);
      for (const auto& v : row.found) {
        CAPTURE(v);
        CHECK(has(values, v));
      }
      for (const auto& v : row.not_found) {
        CAPTURE(v);
        CHECK_FALSE(has(values, v));
      }
    }
  }

  TEST_CASE("a binary credential file gives no values; a certificate's body is public") {
    CHECK(sandbox::credential_file_values("store.p12", std::string("\x30\x82\0\0secret-bytes-here", 20)).empty());
    auto cert = sandbox::credential_file_values(
        "server.pem", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----\n");
    CHECK_FALSE(has(cert, "MIIDdzCCAl+gAwIBAgIE"));
  }

  TEST_CASE("a credential variable's values: the value, a URL's password and its credential parameters") {
    auto url = sandbox::credential_variable_values("mongodb://app:m0ngo-pw@h1,h2/db?replicaSet=rs&authSource=admin");
    CHECK(has(url, "m0ngo-pw"));
    CHECK(has(url, "mongodb://app:m0ngo-pw@h1,h2/db?replicaSet=rs&authSource=admin"));
    auto sas = sandbox::credential_variable_values("https://acct.blob.core.windows.net/c?sv=2022&sig=abcDEF123xyz");
    CHECK(has(sas, "abcDEF123xyz"));
  }
}
