# Two commands on a fresh Debian 12 machine:  `make demo`  and  `make test`.
# Each installs the Debian packages it needs (apt-get, as root or through sudo), then builds.

BUILD ?= build
# make install: where to (PREFIX), and a staging root in front of it (DESTDIR, for packagers).
PREFIX ?= /usr/local
DESTDIR ?=
PACKAGES := g++ meson ninja-build pkg-config cmake git procps \
            nlohmann-json3-dev libgit2-dev doctest-dev libcurl4-openssl-dev libsqlite3-dev \
            libcli11-dev libfmt-dev libre2-dev libcpp-httplib-dev libseccomp-dev \
            libssl-dev zlib1g-dev libpq-dev
# Only the benchmarks need /usr/bin/time (peak memory).
BENCH_PACKAGES := time
# Only the tests need a browser (the HTML report is checked in headless Chromium), strace
# (the durability test reads the order of candor's syncs and renames) and a JSON Schema validator
# (the schemas test checks share/candor/schemas/ against every example and fixture), and
# dpkg-shlibdeps (the deb test builds the package as `make deb` does), and PostgreSQL's server
# (the team store's tests start one in a temporary folder).
TEST_PACKAGES := chromium strace python3-jsonschema dpkg-dev postgresql watchman
# The gate's end-to-end test (agents-gate) runs the real Claude Code and Codex CLI, installed from
# the npm registry into $(BUILD)/agents; npm comes from Debian's nodejs and npm when none is on PATH
# (a node from elsewhere, NodeSource's, brings its own npm, and Debian's npm would conflict with it).
AGENT_PACKAGES := nodejs npm

.PHONY: all deps build test install deb demo bench sanitize clean

all: build

deps:
	@scripts/install-deps.sh $(PACKAGES)

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

test: build
	@scripts/install-deps.sh $(TEST_PACKAGES) || echo "warning: could not install $(TEST_PACKAGES); the HTML and schemas tests may be skipped"
	@command -v npm >/dev/null 2>&1 || scripts/install-deps.sh $(AGENT_PACKAGES) || echo "warning: could not install $(AGENT_PACKAGES)"
	@tests/agents/install_agents.sh $(BUILD)/agents >/dev/null || \
	  echo "warning: could not install Claude Code and Codex CLI into $(BUILD)/agents; the agents-gate test will report its cases skipped"
	@status=0; meson test -C $(BUILD) --print-errorlogs || status=$$?; \
	  scripts/test-summary.sh $(BUILD)/meson-logs/testlog.txt || status=1; exit $$status

# The binary, the man page (candor.1), the bash completion, the schemas and libcandor, under
# $(DESTDIR)$(PREFIX). Any PREFIX, without reconfiguring the build folder (scripts/install-relocated.sh):
# `sudo make install` after `make` rewrites nothing in it.
install: build
	scripts/install-relocated.sh $(BUILD) $(PREFIX) "$(DESTDIR)"

# A Debian package of the build: $(DEB_DIR)/candor_VERSION_ARCH.deb (scripts/make-deb.sh says how).
DEB_DIR ?= $(BUILD)
deb: build
	@scripts/install-deps.sh dpkg-dev || echo "warning: no dpkg-dev: Depends will come from dpkg -S instead of dpkg-shlibdeps"
	@scripts/make-deb.sh $(BUILD) $(DEB_DIR)

demo: build
	scripts/demo.sh

bench: build
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	bench/first_run.sh
	bench/change_detection.sh
	bench/store_listing.sh
	bench/sandbox_overhead.sh
	bench/verify_git.sh
	bench/gate.sh
	bench/team_store.sh

# Every test under AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer.
sanitize: deps
	@test -f build-asan/build.ninja || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
	ninja -C build-asan
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 meson test -C build-asan --print-errorlogs

clean:
	rm -rf $(BUILD) build-asan
