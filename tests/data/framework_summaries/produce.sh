#!/usr/bin/env bash
# Produces the samples in this folder: each `NAME.txt` is what one real test program printed
# (stdout and stderr together, as `command_succeeds` reads them), built here against a real test
# framework, in a scratch folder: Unity (tests/data/unity, MIT, ThrowTheSwitch/Unity 3a6eb6d),
# GoogleTest (libgtest-dev), Catch2 2 (catch2), doctest (doctest-dev), Check (check), cmocka
# (libcmocka-dev), TAP from Perl's Test::More, and CTest running a Unity program with -V and with
# --output-on-failure. Each program has passing tests, and the `_failed`/`_skipped` ones a failing
# or skipped one as well:
#
#   tests/data/framework_summaries/produce.sh [OUT]     (OUT: this folder by default)
#
# A framework that is missing is said and skipped. Timings and paths differ from run to run; the
# counts are what tests/frameworks_test.cc checks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
unity=$(cd "$here/../unity" && pwd)
out=${1:-$here}
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export CCACHE_DISABLE=1 NO_COLOR=1

run() {
  local name=$1 dir=$2
  shift 2
  (cd "$dir" && "$@") >"$scratch/output" 2>&1
  echo "$name: exit $?"
  sed "s#$scratch#/scratch#g" "$scratch/output" >"$out/$name.txt"
}
have_pc() { pkg-config --exists "$1" || { echo "skipped: no $1"; return 1; }; }

# --- Unity ---------------------------------------------------------------------------------------
u=$scratch/unity
mkdir -p "$u"
unity_program() {  # NAME FAIL(0|1) IGNORE(0|1)
  cat >"$u/$1.c" <<C
#include "unity.h"
void setUp(void) {}
void tearDown(void) {}
static void test_adds(void) { TEST_ASSERT_EQUAL_INT(4, 2 + 2); }
static void test_subtracts(void) { TEST_ASSERT_EQUAL_INT(0, 2 - 2); }
static void test_third(void) {
  if ($3) TEST_IGNORE_MESSAGE("not on this platform");
  TEST_ASSERT_EQUAL_INT($2 ? 5 : 4, 2 * 2);
}
int main(void) {
  UNITY_BEGIN();
  RUN_TEST(test_adds);
  RUN_TEST(test_subtracts);
  RUN_TEST(test_third);
  return UNITY_END();
}
C
  cc -I"$unity" -o "$u/$1" "$u/$1.c" "$unity/unity.c"
}
unity_program unity_ok 0 0 && run unity_ok "$u" ./unity_ok
unity_program unity_failed 1 0 && run unity_failed "$u" ./unity_failed
unity_program unity_ignored 0 1 && run unity_ignored "$u" ./unity_ignored

# CTest running the Unity programs: -V prints every program's output, --output-on-failure only
# a failing one's.
if command -v cmake >/dev/null; then
  c=$scratch/ctest
  mkdir -p "$c"
  cp "$u/unity_ok.c" "$u/unity_failed.c" "$c/"
  cat >"$c/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.13)
project(framework_samples C)
enable_testing()
add_library(unity STATIC $unity/unity.c)
target_include_directories(unity PUBLIC $unity)
foreach(name unity_ok unity_failed)
  add_executable(\${name} \${name}.c)
  target_link_libraries(\${name} unity)
  add_test(NAME \${name} COMMAND \${name})
endforeach()
CM
  (cd "$c" && cmake -S . -B build >/dev/null && cmake --build build >/dev/null)
  run ctest_unity_verbose "$c" ctest --test-dir build -V
  run ctest_unity_output_on_failure "$c" ctest --test-dir build --output-on-failure
  run ctest_unity_ok_output_on_failure "$c" ctest --test-dir build --output-on-failure -R unity_ok
fi

# --- GoogleTest ----------------------------------------------------------------------------------
if have_pc gtest_main; then
  g=$scratch/gtest
  mkdir -p "$g"
  gtest_program() {  # NAME FAIL SKIP
    cat >"$g/$1.cc" <<CC
#include <gtest/gtest.h>
TEST(Math, Adds) { EXPECT_EQ(4, 2 + 2); }
TEST(Math, Subtracts) { EXPECT_EQ(0, 2 - 2); }
TEST(Math, Third) {
  if ($3) GTEST_SKIP() << "not on this platform";
  EXPECT_EQ($2 ? 5 : 4, 2 * 2);
}
CC
    c++ -o "$g/$1" "$g/$1.cc" $(pkg-config --cflags --libs gtest_main)
  }
  gtest_program gtest_ok 0 0 && run gtest_ok "$g" ./gtest_ok
  gtest_program gtest_failed 1 0 && run gtest_failed "$g" ./gtest_failed
  gtest_program gtest_skipped 0 1 && run gtest_skipped "$g" ./gtest_skipped
fi

# --- Catch2 (2.x, single header) -----------------------------------------------------------------
if [ -f /usr/include/catch2/catch.hpp ]; then
  k=$scratch/catch2
  mkdir -p "$k"
  catch_program() {  # NAME FAIL
    cat >"$k/$1.cc" <<CC
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
TEST_CASE("adds") { REQUIRE(2 + 2 == 4); }
TEST_CASE("subtracts") { REQUIRE(2 - 2 == 0); }
TEST_CASE("third") { REQUIRE(2 * 2 == ($2 ? 5 : 4)); }
CC
    c++ -o "$k/$1" "$k/$1.cc"
  }
  catch_program catch2_ok 0 && run catch2_ok "$k" ./catch2_ok
  catch_program catch2_failed 1 && run catch2_failed "$k" ./catch2_failed
fi

# --- doctest -------------------------------------------------------------------------------------
if [ -f /usr/include/doctest/doctest.h ]; then
  d=$scratch/doctest
  mkdir -p "$d"
  doctest_program() {  # NAME FAIL SKIP
    cat >"$d/$1.cc" <<CC
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
TEST_CASE("adds") { CHECK(2 + 2 == 4); }
TEST_CASE("subtracts") { CHECK(2 - 2 == 0); }
TEST_CASE("third" * doctest::skip($3)) { CHECK(2 * 2 == ($2 ? 5 : 4)); }
CC
    c++ -o "$d/$1" "$d/$1.cc"
  }
  doctest_program doctest_ok 0 false && run doctest_ok "$d" ./doctest_ok
  doctest_program doctest_failed 1 false && run doctest_failed "$d" ./doctest_failed
  doctest_program doctest_skipped 0 true && run doctest_skipped "$d" ./doctest_skipped
fi

# --- Check ---------------------------------------------------------------------------------------
if have_pc check; then
  h=$scratch/check
  mkdir -p "$h"
  check_program() {  # NAME FAIL
    cat >"$h/$1.c" <<C
#include <check.h>
#include <stdlib.h>
START_TEST(adds) { ck_assert_int_eq(4, 2 + 2); }
END_TEST
START_TEST(subtracts) { ck_assert_int_eq(0, 2 - 2); }
END_TEST
START_TEST(third) { ck_assert_int_eq($2 ? 5 : 4, 2 * 2); }
END_TEST
int main(void) {
  Suite* s = suite_create("math");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, adds);
  tcase_add_test(tc, subtracts);
  tcase_add_test(tc, third);
  suite_add_tcase(s, tc);
  SRunner* sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
C
    cc -o "$h/$1" "$h/$1.c" $(pkg-config --cflags --libs check)
  }
  check_program check_ok 0 && run check_ok "$h" ./check_ok
  check_program check_failed 1 && run check_failed "$h" ./check_failed
fi

# --- cmocka --------------------------------------------------------------------------------------
if have_pc cmocka; then
  m=$scratch/cmocka
  mkdir -p "$m"
  cmocka_program() {  # NAME FAIL SKIP
    cat >"$m/$1.c" <<C
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
static void adds(void** state) { (void)state; assert_int_equal(4, 2 + 2); }
static void subtracts(void** state) { (void)state; assert_int_equal(0, 2 - 2); }
static void third(void** state) {
  (void)state;
  if ($3) skip();
  assert_int_equal($2 ? 5 : 4, 2 * 2);
}
int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(adds), cmocka_unit_test(subtracts), cmocka_unit_test(third)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
C
    cc -o "$m/$1" "$m/$1.c" $(pkg-config --cflags --libs cmocka)
  }
  cmocka_program cmocka_ok 0 0 && run cmocka_ok "$m" ./cmocka_ok
  cmocka_program cmocka_failed 1 0 && run cmocka_failed "$m" ./cmocka_failed
  cmocka_program cmocka_skipped 0 1 && run cmocka_skipped "$m" ./cmocka_skipped
fi

# --- TAP (Perl's Test::More) ---------------------------------------------------------------------
if command -v perl >/dev/null; then
  t=$scratch/tap
  mkdir -p "$t"
  tap_program() {  # NAME FAIL SKIP
    cat >"$t/$1.t" <<PL
use strict;
use Test::More tests => 3;
is(2 + 2, 4, 'adds');
is(2 - 2, 0, 'subtracts');
SKIP: {
  skip 'not on this platform', 1 if $3;
  is(2 * 2, $2 ? 5 : 4, 'third');
}
PL
  }
  tap_program tap_ok 0 0 && run tap_ok "$t" perl tap_ok.t
  tap_program tap_failed 1 0 && run tap_failed "$t" perl tap_failed.t
  tap_program tap_skipped 0 1 && run tap_skipped "$t" perl tap_skipped.t
fi
