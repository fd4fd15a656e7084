// The public Session: app::Session behind a pimpl, its observer bridged, every request checked and
// converted before it reaches app/.
#include <candor/session.h>

#include "api/convert.h"
#include "app/observer.h"
#include "app/session.h"

namespace candor::api {
namespace {

// app/'s observer, told to the public one in its terms.
class ObserverBridge final : public app::RunObserver {
 public:
  explicit ObserverBridge(Observer* to) : to_(to) {}
  void event(const Event& e) override {
    if (to_ != nullptr) to_->event(e.seq, e.type, e.data);
  }
  void step_started(const StepRecord& step) override {
    if (to_ != nullptr) to_->step_started(step.id, step.tool);
  }
  void step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) override {
    if (to_ == nullptr) return;
    bool ok = step.ok;
    for (const auto& a : assertions) ok = ok && a.passed;
    to_->step_finished(step.id, ok);
  }
  void warning(const std::string& message) override {
    if (to_ != nullptr) to_->warning(message);
  }
  void run_starting() override {
    if (to_ != nullptr) to_->run_starting();
  }
  void steps_ended() override {
    if (to_ != nullptr) to_->steps_ended();
  }

 private:
  Observer* to_;
};

// app/'s Result as the public one, `convert` applied to a value.
template <typename Out, typename In, typename Convert>
Result<Out> returned(candor::Result<In> in, Convert convert) {
  if (!in.ok()) return from_app(in.error());
  return convert(in.value());
}

}  // namespace

struct Session::Impl {
  explicit Impl(Observer* observer) : bridge(observer), session(&bridge) {}
  ObserverBridge bridge;
  app::Session session;
};

Session::Session(Observer* observer) : impl_(std::make_unique<Impl>(observer)) {}
Session::~Session() = default;

Result<RunResult> Session::run(const RunRequest& request) {
  auto checked = to_app(request);
  if (!checked.ok()) return from_app(checked.error());
  return returned<RunResult>(impl_->session.run(checked.value()), [](const app::RunResult& r) { return from_app(r); });
}

Result<RunResult> Session::exec(const ExecRequest& request) {
  auto checked = to_app(request);
  if (!checked.ok()) return from_app(checked.error());
  return returned<RunResult>(impl_->session.exec(checked.value()), [](const app::RunResult& r) { return from_app(r); });
}

Result<VerifyResult> Session::verify(const VerifyRequest& request) {
  auto checked = to_app(request);
  if (!checked.ok()) return from_app(checked.error());
  return returned<VerifyResult>(impl_->session.verify(checked.value()),
                                [](const app::VerifyResult& r) { return from_app(r); });
}

Result<RunResult> Session::verify_git(const VerifyGitRequest& request) {
  auto checked = to_app(request);
  if (!checked.ok()) return from_app(checked.error());
  return returned<RunResult>(impl_->session.verify_git(checked.value()),
                             [](const app::RunResult& r) { return from_app(r); });
}

Result<UndoResult> Session::undo(const UndoRequest& request) {
  return returned<UndoResult>(impl_->session.undo(to_app(request)),
                              [](const app::UndoResult& r) { return from_app(r); });
}

void Session::cancel() { impl_->session.cancel(); }
bool Session::cancelled() const { return impl_->session.cancelled(); }

}  // namespace candor::api
