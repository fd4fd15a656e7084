// libcandor: candor as a library. One include for a program that embeds it:
//
//   #include <candor/candor.h>       // compile with: pkg-config --cflags --libs candor
//
//   candor::app::Session session(&my_observer);
//   auto result = session.exec({.plan_file = "plan.json", .workspace = {.workspace = "site"}});
//
// The surface is app::Session (run, exec, verify, verify_git, undo, and a thread-safe cancel()),
// the RunObserver it reports to, the values it returns (core/run_record.h's RunFacts, the verdict
// and its reasons, the report as JSON) and the typed events (core/events.h). Every other header
// installed beside this one is there because these include it; what they declare beyond those
// types is candor's own inside and may change between versions.
//
// nlohmann_json is part of the surface: reports, events and assertions are nlohmann::json values,
// so a program that embeds candor compiles against the same nlohmann_json (pkg-config's Requires
// names it). No other dependency's header is included by these; libgit2, libcurl, SQLite, RE2,
// fmt, libseccomp, OpenSSL's libcrypto and zlib are linked by the library, not seen by its users.
#pragma once

#include "app/observer.h"
#include "app/session.h"
#include "core/events.h"
#include "core/result.h"
#include "core/run_record.h"
#include "verify/verdict.h"
