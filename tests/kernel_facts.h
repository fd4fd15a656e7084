// What this machine's kernel gives this user, found by the tests themselves rather than by
// candor's probe: to check candor's claims against (candor doctor), and to skip, visibly, the
// sandbox tests a machine cannot run.
#pragma once

#include <doctest/doctest.h>

#include <string>

namespace candor::testing {

struct KernelFacts {
  int landlock_abi = 0;            // the kernel's answer to landlock_create_ruleset(VERSION); 0: none
  bool network_namespace = false;  // a child can unshare a network and mount namespace (and a user one, unless root)
  bool seccomp_filter = false;     // a child can install a seccomp filter after no_new_privs
  std::string pids_cgroup;         // this process's pids cgroup, if a child cgroup can be made there; else ""
};

// Asked once, by forking short-lived children. Safe to call during static initialisation (the
// skip decorator below does): it uses nothing but the kernel.
const KernelFacts& kernel_facts();

// A TEST_CASE decorator: `TEST_CASE("..." * needs(kernel_facts().landlock_abi > 0, "Landlock"))`
// skips the case where the feature is missing, and main.cc's listener prints the case and what
// it needs, so a missing feature shows as a skip rather than as a pass with no assertions.
// Built with AddressSanitizer (make sanitize): its shadow memory takes terabytes of address space,
// so a test that bounds candor's memory with `ulimit -v` cannot run it.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

struct needs {
  bool available;
  const char* feature;
  void fill(doctest::detail::TestCase& tc) const;
  void fill(doctest::detail::TestSuite& ts) const;
};

}  // namespace candor::testing
