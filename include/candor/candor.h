// libcandor: candor as a library. One include for a program that embeds it:
//
//   #include <candor/candor.h>       // compile with: pkg-config --cflags --libs candor
//
//   candor::api::Session session(&my_observer);
//   auto result = session.exec({.plan_file = "plan.json", .workspace = {.workspace = "site"}});
//
// The surface is these headers alone (candor/): the Session (run, exec, verify, verify_git, undo,
// and a thread-safe cancel()), the Observer it reports to, the requests, the results and the
// enumerations they carry. None of candor's own headers is installed; reports and events are
// nlohmann::json values, so a program compiles against the same nlohmann_json (pkg-config's
// Requires names it). libgit2, libcurl, SQLite, RE2, fmt, libseccomp, OpenSSL's libcrypto and zlib
// are linked by the library, not seen by its users.
#pragma once

#include <candor/observer.h>
#include <candor/requests.h>
#include <candor/results.h>
#include <candor/session.h>
#include <candor/types.h>
