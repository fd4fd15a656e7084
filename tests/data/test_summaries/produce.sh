#!/usr/bin/env bash
# Produces the samples in this folder: each `NAME.txt` is what one real test runner printed
# (stdout and stderr together, as `command_succeeds` reads them) on a tiny project made here, in a
# scratch folder. Run it to see how each was made, or to make them again on a machine that has the
# runners (python3, pytest, meson + ninja + a C compiler, cmake + ctest, cargo, go, node, npm):
#
#   tests/data/test_summaries/produce.sh [OUT]     (OUT: this folder by default)
#
# A runner that is missing is said and skipped. Timings and paths differ from run to run; the
# counts are what tests/test_summary_test.cc checks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export CCACHE_DISABLE=1 NO_COLOR=1 CARGO_TERM_COLOR=never

# run NAME DIR COMMAND...: the command's output, whatever its exit code, into OUT/NAME.txt.
run() {
  local name=$1 dir=$2
  shift 2
  (cd "$dir" && "$@") >"$scratch/output" 2>&1
  echo "$name: exit $?"
  sed "s#$scratch#/scratch#g" "$scratch/output" >"$out/$name.txt"
}
have() { command -v "$1" >/dev/null 2>&1 || { echo "skipped: no $1"; return 1; }; }

# --- python3 -m unittest -------------------------------------------------------------------
py=$scratch/py
mkdir -p "$py/tests"
touch "$py/tests/__init__.py"
cat >"$py/tests/test_a.py" <<'PY'
import unittest


class TestA(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(1 + 1, 2)

    def test_ok2(self):
        self.assertTrue(True)

    @unittest.skip("not on this platform")
    def test_skipped(self):
        pass
PY
cat >"$py/tests/test_mixed.py" <<'PY'
import unittest


class TestMixed(unittest.TestCase):
    def test_fail(self):
        self.assertEqual(1, 2)

    def test_error(self):
        raise RuntimeError("boom")

    @unittest.skip("no")
    def test_skip(self):
        pass

    @unittest.expectedFailure
    def test_xfail(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_xpass(self):
        pass

    def test_ok(self):
        pass
PY
cat >"$py/tests/test_broken.py" <<'PY'
import unittest

from src.missing import thing  # ImportError: the FAIL_TO_PASS test on the state before the fix


class TestBroken(unittest.TestCase):
    def test_thing(self):
        self.assertTrue(thing())
PY
cat >"$py/tests/test_one_fails.py" <<'PY'
import unittest


class TestOne(unittest.TestCase):
    def test_add(self):
        self.assertEqual(2 - 3, 5)
PY
cat >"$py/tests/test_all_skipped.py" <<'PY'
import unittest


@unittest.skip("skipped by the change")
class TestSkipped(unittest.TestCase):
    def test_a(self):
        pass
PY
if have python3; then
  run unittest_ok "$py" python3 -m unittest tests.test_a.TestA.test_ok tests.test_a.TestA.test_ok2
  run unittest_ok_skipped "$py" python3 -m unittest tests.test_a
  run unittest_verbose "$py" python3 -m unittest -v tests.test_a
  run unittest_failed "$py" python3 -m unittest tests.test_one_fails
  run unittest_import_error "$py" python3 -m unittest tests.test_broken
  run unittest_mixed "$py" python3 -m unittest tests.test_mixed
  run unittest_all_skipped "$py" python3 -m unittest tests.test_all_skipped
  run unittest_no_tests "$py" python3 -m unittest discover -s tests -p 'nothing_*.py'
  run unittest_two_runs "$py" sh -c 'python3 -m unittest tests.test_a && python3 -m unittest tests.test_one_fails'
fi

# --- pytest ------------------------------------------------------------------------------------
pt=$scratch/pt
mkdir -p "$pt"
cat >"$pt/test_p.py" <<'PY'
import pytest


def test_one():
    assert 1 + 1 == 2


def test_two():
    assert True


def test_three():
    assert "a" in "abc"


@pytest.mark.skip(reason="not here")
def test_skipped():
    pass


@pytest.mark.slow
def test_slow():
    pass
PY
cat >"$pt/test_q.py" <<'PY'
import warnings

import pytest


def test_fails():
    assert 1 == 2


def test_warns():
    warnings.warn("careful")


@pytest.mark.xfail
def test_xfail():
    assert False


@pytest.mark.xfail
def test_xpass():
    pass


@pytest.fixture
def broken():
    raise RuntimeError("fixture error")


def test_error(broken):
    pass
PY
cat >"$pt/test_collect_error.py" <<'PY'
from src.missing import thing  # ImportError at collection


def test_thing():
    assert thing()
PY
cat >"$pt/pytest.ini" <<'INI'
[pytest]
markers =
    slow: slow tests
INI
if have pytest-3 || have pytest; then
  pytest=$(command -v pytest || command -v pytest-3)
  run pytest_passed "$pt" "$pytest" -p no:cacheprovider test_p.py -k 'not slow'
  run pytest_passed_quiet "$pt" "$pytest" -p no:cacheprovider -q test_p.py
  run pytest_mixed "$pt" "$pytest" -p no:cacheprovider test_q.py
  run pytest_collection_error "$pt" "$pytest" -p no:cacheprovider test_collect_error.py
  run pytest_no_tests_ran "$pt" "$pytest" -p no:cacheprovider test_p.py -k nothing_matches
  run pytest_verbose "$pt" "$pytest" -p no:cacheprovider -v test_p.py::test_one test_p.py::test_skipped
  run pytest_color "$pt" "$pytest" -p no:cacheprovider --color=yes test_p.py::test_one test_p.py::test_skipped
fi

# --- meson test ----------------------------------------------------------------------------
ms=$scratch/ms
mkdir -p "$ms"
cat >"$ms/meson.build" <<'MESON'
project('t', 'c')
ok = executable('ok', 'ok.c')
skip = executable('skip', 'skip.c')
fail = executable('fail', 'fail.c')
foreach i : [1, 2, 3]
  test('ok' + i.to_string(), ok)
endforeach
if get_option('with_skip')
  test('skipped', skip)
endif
if get_option('with_fail')
  test('failing', fail)
  test('expected-fail', fail, should_fail : true)
endif
MESON
echo "option('with_skip', type : 'boolean', value : false)
option('with_fail', type : 'boolean', value : false)" >"$ms/meson_options.txt"
echo 'int main(void) { return 0; }' >"$ms/ok.c"
echo 'int main(void) { return 77; }' >"$ms/skip.c"
echo 'int main(void) { return 1; }' >"$ms/fail.c"
if have meson && have ninja; then
  (cd "$ms" && meson setup b1 >/dev/null && meson setup b2 -Dwith_skip=true >/dev/null &&
    meson setup b3 -Dwith_skip=true -Dwith_fail=true >/dev/null)
  run meson_ok "$ms" meson test -C b1
  run meson_skipped "$ms" meson test -C b2
  run meson_failed "$ms" meson test -C b3 --print-errorlogs
  run meson_none "$ms" meson test -C b1 nothing_matches
fi

# --- ctest ---------------------------------------------------------------------------------------
ct=$scratch/ct
mkdir -p "$ct"
cat >"$ct/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(t C)
enable_testing()
add_executable(ok ok.c)
add_executable(skip skip.c)
add_executable(fail fail.c)
add_test(NAME ok1 COMMAND ok)
add_test(NAME ok2 COMMAND ok)
add_test(NAME ok3 COMMAND ok)
if(WITH_SKIP)
  add_test(NAME skipped COMMAND skip)
  set_tests_properties(skipped PROPERTIES SKIP_RETURN_CODE 77)
  add_test(NAME disabled COMMAND ok)
  set_tests_properties(disabled PROPERTIES DISABLED TRUE)
endif()
if(WITH_FAIL)
  add_test(NAME failing COMMAND fail)
endif()
CMAKE
cp "$ms/ok.c" "$ms/skip.c" "$ms/fail.c" "$ct/"
if have cmake && have ctest; then
  (cd "$ct" && cmake -S . -B b1 >/dev/null && cmake --build b1 >/dev/null &&
    cmake -S . -B b2 -DWITH_SKIP=ON >/dev/null && cmake --build b2 >/dev/null &&
    cmake -S . -B b3 -DWITH_SKIP=ON -DWITH_FAIL=ON >/dev/null && cmake --build b3 >/dev/null)
  run ctest_ok "$ct" ctest --test-dir b1
  run ctest_skipped "$ct" ctest --test-dir b2
  run ctest_failed "$ct" ctest --test-dir b3
  run ctest_none "$ct" ctest --test-dir b1 -R nothing_matches
fi

# --- cargo test ----------------------------------------------------------------------------------
cg=$scratch/cg
mkdir -p "$cg/src" "$cg/tests"
cat >"$cg/Cargo.toml" <<'TOML'
[package]
name = "t"
version = "0.1.0"
edition = "2021"

[features]
broken = []
TOML
cat >"$cg/src/lib.rs" <<'RS'
/// Adds.
///
/// ```
/// assert_eq!(t::add(2, 3), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(2, 3), 5);
    }

    #[test]
    #[ignore]
    fn slow() {}

    #[test]
    fn also() {}
}
RS
cat >"$cg/tests/it.rs" <<'RS'
#[test]
fn integration() {
    assert_eq!(t::add(1, 1), 2);
}

#[test]
#[cfg_attr(not(feature = "broken"), ignore)]
fn sometimes_broken() {
    assert_eq!(t::add(1, 1), 3);
}
RS
if have cargo; then
  (cd "$cg" && cargo build -q --tests --offline >/dev/null 2>&1)
  run cargo_ok "$cg" cargo test --offline
  run cargo_failed "$cg" cargo test --offline --features broken
  run cargo_filtered "$cg" cargo test --offline integration
fi

# --- go test -------------------------------------------------------------------------------------
gt=$scratch/gt
mkdir -p "$gt/calc" "$gt/empty"
echo 'module example.com/t

go 1.19' >"$gt/go.mod"
echo 'package calc

func Add(a, b int) int { return a + b }' >"$gt/calc/calc.go"
cat >"$gt/calc/calc_test.go" <<'GO'
package calc

import (
	"os"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal("wrong")
	}
}

func TestSkipped(t *testing.T) { t.Skip("not here") }

func TestSub(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) {})
}

func TestBroken(t *testing.T) {
	if os.Getenv("BROKEN") != "" {
		t.Error("broken")
	}
}
GO
echo 'package empty' >"$gt/empty/empty.go"
# A dishonest change: the package exits 0 as soon as it is loaded, so no test runs. `go test` still
# says "ok", with -v too, only without a single "--- PASS" line.
mkdir -p "$gt/hack"
printf 'package hack\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n\nfunc Add(a, b int) int { return a - b }\n' >"$gt/hack/hack.go"
printf 'package hack\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("wrong")\n\t}\n}\n' >"$gt/hack/hack_test.go"
if have go; then
  export GOFLAGS=-mod=mod GOCACHE=$scratch/gocache GOPATH=$scratch/gopath
  run go_ok "$gt" go test ./calc ./empty
  run go_verbose "$gt" go test -v ./calc ./empty
  run go_failed_verbose "$gt" env BROKEN=1 go test -v ./calc ./empty
  run go_failed "$gt" env BROKEN=1 go test ./calc ./empty
  run go_exit0_in_init "$gt" go test -v ./hack
fi

# --- node --test, mocha, jest ---------------------------------------------------------------------
nd=$scratch/nd
mkdir -p "$nd/test"
cat >"$nd/test/a.test.js" <<'JS'
const test = require('node:test');
const assert = require('node:assert');

test('adds', () => assert.strictEqual(1 + 1, 2));
test('also', () => assert.ok(true));
test('skipped', { skip: 'not here' }, () => {});
test('fails', () => {
  if (process.env.BROKEN) assert.strictEqual(1, 2);
});
JS
if have node; then
  run node_test "$nd" node --test test/
  run node_test_failed "$nd" env BROKEN=1 node --test test/
  run node_test_spec "$nd" node --test --test-reporter=spec test/
fi
js=$scratch/js
mkdir -p "$js/test"
cat >"$js/test/a.spec.js" <<'JS'
const assert = require('assert');

describe('calc', () => {
  it('adds', () => assert.strictEqual(1 + 1, 2));
  it('also', () => assert.ok(true));
  it.skip('skipped', () => {});
  it('fails', () => {
    if (process.env.BROKEN) assert.strictEqual(1, 2);
  });
});
JS
if have npm && [ -n "${WITH_NPM:-}" ]; then
  (cd "$js" && npm init -y >/dev/null && npm install --no-audit --no-fund -s mocha@10 jest@29 vitest@1 >/dev/null 2>&1)
  run mocha_ok "$js" npx mocha
  run mocha_failed "$js" env BROKEN=1 npx mocha
  run jest_ok "$js" npx jest --ci test/
  run jest_failed "$js" env BROKEN=1 npx jest --ci test/
  sed -e "1s/^/import { describe, it } from 'vitest';\n/" -e "s/require('assert')/await import('assert')/" \
    "$js/test/a.spec.js" >"$js/test/v.test.mjs"
  run vitest_ok "$js" npx vitest run test/v.test.mjs
  run vitest_failed "$js" env BROKEN=1 npx vitest run test/v.test.mjs
else
  echo "skipped: mocha and jest (set WITH_NPM=1: they are installed from the npm registry into the scratch folder)"
fi
