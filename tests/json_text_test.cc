// The JSON limits every outside input passes (core/json_text.h): depth and size, with the path
// of the first value too deep; table-driven.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "core/json_text.h"
#include "tests/test_support.h"

namespace candor {
namespace {

std::string nested_arrays(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
}

// `{"type":"not","assertion":` `depth` times inside a plan's first step: what a hostile planner sends.
std::string nested_not(int depth) {
  std::string s = R"({"steps":[{"tool":"file_read","assert":[)";
  for (int i = 0; i < depth; ++i) s += R"({"type":"not","assertion":)";
  s += R"({"type":"file_exists","path":"a"})";
  for (int i = 0; i < depth; ++i) s += "}";
  return s + "]}]}";
}

}  // namespace

TEST_SUITE("core") {
  TEST_CASE("JSON limits: depth 64 is read, 65 is refused with the path of the value too deep") {
    struct Row {
      std::string name;
      std::string text;
      std::string error;  // "" = accepted; else a substring of the message
    };
    std::string key_65 = std::string(64, '{');
    std::vector<Row> rows = {
        {"64 arrays", nested_arrays(64), ""},
        {"65 arrays", nested_arrays(65),
         "doc.json:1:65: refused: JSON nested deeper than 64 levels at $[0][0][0][0][0][0][0][0][0][0]…(51 more "
         "levels)…[0][0][0]"},
        {"objects",
         [] {
           std::string s;
           for (int i = 0; i < 70; ++i) s += R"({"k":)";
           s += "1";
           return s + std::string(70, '}');
         }(),
         "at $.k.k.k.k.k.k.k.k.k.k…(51 more levels)….k.k.k"},
        {"array index counted", "[1,2,[3," + nested_arrays(63) + "]]", "at $[2][1][0][0]"},
        {"keys after values", R"({"a":1,"b":[0,{"c":)" + nested_arrays(64) + "}]}", "at $.b[1].c[0]"},
        {"odd keys quoted", R"({"a b":)" + nested_arrays(64) + "}", R"(at $["a b"][0][0])"},
        {"not nested", nested_not(100),
         "at $.steps[0].assert[0].assertion.assertion.assertion.assertion.assertion.assertion…"},
        {"brackets in strings ignored", R"({"s":")" + std::string(200, '[') + R"("})", ""},
        {"escaped quote keeps the string open",
         R"(["\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["])", ""},
        {"escaped backslash ends the string", R"(["\\",)" + nested_arrays(64) + "]", "at $[1][0]"},
        {"a key with brackets", R"({"[[[[":)" + nested_arrays(63) + "}", ""},
        {"unicode escapes", R"({"\u005b\u005b":[1]})", ""},
        {"64 exactly, then closed and opened again", "[" + nested_arrays(63) + "," + nested_arrays(63) + "]", ""},
        {"size cap", std::string(20000, ' ') + "1", "doc.json: refused: 19.5 KiB of JSON, over the limit of 9.8 KiB"},
        {"invalid JSON is the parser's", "[1,", "doc.json:1:4: not valid JSON"},
        {"a NUL ends nothing: what follows is not dropped", std::string("{\"a\": 1}\0{\"b\"", 14),
         "doc.json:1:9: not valid JSON: a NUL byte"},
        {"too deep before invalid", nested_arrays(65).substr(0, 70), "refused: JSON nested deeper than 64"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.name);
      auto parsed = parse_json_text(row.text, "doc.json", JsonLimits{10000, kMaxJsonDepth});
      if (row.error.empty()) {
        CHECK(parsed.ok());
        if (!parsed.ok()) MESSAGE(parsed.error().message);
      } else {
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().code == ErrorCode::kInvalidInput);
        CAPTURE(parsed.error().message);
        CHECK(parsed.error().message.find(row.error) != std::string::npos);
      }
    }
  }

  TEST_CASE("JSON limits: a line is named by its number; a deep document is refused at once, not walked") {
    auto line = parse_json_line(nested_arrays(65), "t.jsonl", 7);
    REQUIRE_FALSE(line.ok());
    CHECK(line.error().message.rfind("t.jsonl:7:65: refused: JSON nested deeper than 64 levels at $[0]", 0) == 0);
    auto wide = parse_json_line(std::string(40, ' ') + "{}", "t.jsonl", 3, JsonLimits{16, kMaxJsonDepth});
    REQUIRE_FALSE(wide.ok());
    CHECK(wide.error().message == "t.jsonl:3: refused: a line of 42 bytes of JSON, over the limit of 16 bytes");
    CHECK(parse_json_line("{\"a\": 1}", "t.jsonl", 2)->at("a") == 1);
    auto multi = parse_json_text("{\n\"a\":\n" + nested_arrays(65) + "}", "m.json");
    REQUIRE_FALSE(multi.ok());
    CHECK(multi.error().message.rfind("m.json:3:64: refused: JSON nested deeper than 64 levels at $.a[0][0]", 0) ==
          0);  // the object is the first level

    // 1,000,000 levels (2 MB): refused at the 65th bracket, well within a millisecond's work.
    std::string huge = nested_arrays(1000000);
    auto start = std::chrono::steady_clock::now();
    auto refused = parse_json_text(huge, "huge.json", kReplyLimits);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("nested deeper than 64") != std::string::npos);
    CHECK(ms < 500);
  }

  TEST_CASE("JSON limits: the stated sizes, and files read no further than one byte past them") {
    CHECK(kMaxJsonDepth == 64);
    CHECK(format_bytes(kMaxDocumentBytes) == "8 MiB");
    CHECK(format_bytes(kMaxReplyBytes) == "4 MiB");
    CHECK(format_bytes(1536) == "1.5 KiB");
    std::string dir = testing::make_temp_dir("json");
    testing::write_file(dir + "/big.json", std::string(3000, ' ') + "{}");
    auto big = read_input_file(dir + "/big.json", 1024);
    REQUIRE_FALSE(big.ok());
    CHECK(big.error().code == ErrorCode::kInvalidInput);
    CHECK(big.error().message == dir + "/big.json: refused: over the limit of 1 KiB for this input");
    CHECK(read_input_file(dir + "/big.json", 4096).value().size() == 3002);
    auto missing = read_input_file(dir + "/none.json", 1024);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == ErrorCode::kNotFound);
  }
}

}  // namespace candor
