// `candor doctor`: which protections of the process sandbox this kernel gives this user, and where
// the run store is and how much it holds. Probing forks short-lived children; nothing is written.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace candor::app {

struct DoctorRequest {
  std::string store_dir;  // "" = store::default_store_dir()
};

// One protection, as doctor lists it: e.g. {"landlock", true, "ABI 4: writes only beneath ..."}.
struct Protection {
  std::string name;
  bool on = false;
  std::string detail;  // what it gives, or what its absence allows
};

struct DoctorReport {
  std::vector<Protection> protections;  // in the order doctor lists them
  std::vector<std::string> missing;     // the names of those missing; empty when every one is there
  nlohmann::json probe;                 // the probe as sandbox::Protections::to_json gives it
  // The store as it is (never created or written by looking at it): path, exists, and when it
  // exists bytes, database_bytes, snapshot_repositories, snapshot_bytes, stale_index_locks (the
  // repositories), runs (null with `error` when they cannot be counted).
  nlohmann::json store;
};

DoctorReport doctor(const DoctorRequest& request);

// `doctor --json`: the probe, its `details` (name -> detail) and the `store`.
nlohmann::json to_json(const DoctorReport& report);

}  // namespace candor::app
