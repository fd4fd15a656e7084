// app/age.h: the ages `runs --since` and `gc --older-than` take, as a table.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <string>

#include "app/age.h"

using namespace candor;

TEST_SUITE("app") {
  TEST_CASE("parse_age reads a whole number and one unit, and nothing else") {
    struct Row {
      std::string text;
      std::optional<long> seconds;
    };
    const Row rows[] = {
        {"2d", 2 * 86400},
        {"12h", 12 * 3600},
        {"30m", 30 * 60},
        {"45s", 45},
        {"0d", 0},
        {"", std::nullopt},
        {"d", std::nullopt},
        {"5", std::nullopt},
        {"5w", std::nullopt},
        {"-5d", std::nullopt},
        {"1.5h", std::nullopt},
        {"5 d", std::nullopt},
        {"123456789d", std::nullopt},  // nine digits: refused, never overflows
    };
    for (const Row& row : rows) {
      CAPTURE(row.text);
      auto age = app::parse_age(row.text);
      REQUIRE(age.has_value() == row.seconds.has_value());
      if (age) CHECK(age->count() == *row.seconds);
    }
  }

  TEST_CASE("since_cutoff turns an age into a time before now, keeps an RFC 3339 time, and names --since otherwise") {
    auto now = std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 30));  // a fixed instant
    auto cutoff = app::since_cutoff("1d", now);
    REQUIRE(cutoff.ok());
    CHECK(*cutoff < app::since_cutoff("1h", now).value());  // RFC 3339 times sort as text
    CHECK(app::since_cutoff("2024-05-01T10:00:00Z", now).value() == "2024-05-01T10:00:00Z");
    CHECK(app::since_cutoff("2024-05-01", now).value() == "2024-05-01");
    auto bad = app::since_cutoff("yesterday", now);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == ErrorCode::kUsage);
    CHECK(bad.error().message.find("--since \"yesterday\"") != std::string::npos);
  }
}
