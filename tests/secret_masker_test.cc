// The masker every text leaving candor passes through (core/secret_masker.h): exact bytes,
// overlapping values, JSON keys and values, and what a 64 KiB output with 50 values costs.
#include <doctest/doctest.h>

#include <chrono>
#include <random>

#include <fmt/format.h>

#include "core/secret_masker.h"

using namespace candor;

namespace {

SecretMasker masker_of(std::initializer_list<std::string_view> values) {
  SecretMasker m;
  for (auto v : values) m.add(v);
  return m;
}

}  // namespace

TEST_SUITE("core") {
  TEST_CASE("every occurrence of a value of 8 bytes or more becomes ***, and nothing else changes") {
    SecretMasker m = masker_of({"hunter2-s3cr3t", "short", "1234567"});
    CHECK(m.size() == 1);  // "short" and "1234567" are under 8 bytes
    CHECK(m.mask("a=hunter2-s3cr3t b=hunter2-s3cr3t short 1234567") == "a=*** b=*** short 1234567");
    CHECK(m.mask("hunter2-s3cr3") == "hunter2-s3cr3");  // a prefix is not the value
    CHECK(m.mask("") == "");
    CHECK(m.mask("hunter2-s3cr3t") == "***");
    CHECK(m.holds_secret("x hunter2-s3cr3t y"));
    CHECK_FALSE(m.holds_secret("x hunter2 y"));
  }

  TEST_CASE("overlapping and touching values become one ***, with no piece of either left between them") {
    SecretMasker m = masker_of({"abcdefgh12", "gh12345678", "ZZZZZZZZ"});
    CHECK(m.mask("<abcdefgh12345678>") == "<***>");
    CHECK(m.mask("<abcdefgh12ZZZZZZZZ>") == "<***>");
    CHECK(m.mask("<abcdefgh12-ZZZZZZZZ>") == "<***-***>");
    // A value inside a longer one: the longer one is masked whole.
    SecretMasker nested = masker_of({"s3cr3t-inner", "outer-s3cr3t-inner-end"});
    CHECK(nested.mask("[outer-s3cr3t-inner-end]") == "[***]");
    CHECK(nested.mask("[s3cr3t-inner]") == "[***]");
  }

  TEST_CASE("a value with line breaks is masked line by line, however the lines are joined later") {
    SecretMasker m;
    m.add("MIIEvQIBADANBgkq\r\nhkiG9w0BAQEFAASC\n\nshort\n");
    CHECK(m.size() == 2);
    CHECK(m.mask("MIIEvQIBADANBgkq\\nhkiG9w0BAQEFAASC") == "***\\n***");  // as a JSON string holds it
  }

  TEST_CASE("mask_json masks values and keys at any depth, and leaves other strings alone") {
    SecretMasker m = masker_of({"hunter2-s3cr3t"});
    nlohmann::json j = {{"output", "DB_PASSWORD=hunter2-s3cr3t\n"},
                        {"list", {"ok", {{"deep", {"x hunter2-s3cr3t"}}}}},
                        {"hunter2-s3cr3t", 1},
                        {"n", 7}};
    m.mask_json(j);
    CHECK(j["output"] == "DB_PASSWORD=***\n");
    CHECK(j["list"][0] == "ok");
    CHECK(j["list"][1]["deep"][0] == "x ***");
    CHECK(j.contains("***"));
    CHECK_FALSE(j.dump().find("s3cr3t") != std::string::npos);
    CHECK(j["n"] == 7);
  }

  TEST_CASE("masking a 64 KiB output with 50 values stays linear (measured)") {
    std::mt19937 rng(7);
    auto random_text = [&](std::size_t n, bool lines) {
      std::string s(n, ' ');
      for (char& c : s) c = "abcdefghijklmnopqrstuvwxyz0123456789 =\n"[rng() % (lines ? 39 : 36)];
      return s;
    };
    SecretMasker m;
    std::vector<std::string> values;
    for (int i = 0; i < 50; ++i) values.push_back(fmt::format("value-{:02}-{}", i, random_text(20, false)));
    for (const auto& v : values) m.add(v);
    std::string text = random_text(64 * 1024, true);
    for (int i = 0; i < 50; ++i) text.replace(static_cast<std::size_t>(i) * 1300, values[i].size(), values[i]);
    auto start = std::chrono::steady_clock::now();
    std::string masked;
    constexpr int kRounds = 20;
    for (int i = 0; i < kRounds; ++i) masked = m.mask(text);
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kRounds;
    MESSAGE(fmt::format("mask: 64 KiB, 50 values, 50 occurrences: {:.0f} µs", us));
    for (const auto& v : values) CHECK(masked.find(v) == std::string::npos);
    CHECK(masked.size() == text.size() - 50 * (values[0].size() - 3));
  }
}
