// A real HTTP server on 127.0.0.1 for tests (cpp-httplib), on a free port, in its own thread.
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace candor::testing {

class LocalHttpServer {
 public:
  LocalHttpServer() {
    server_.Get("/ok", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("hello from the test server", "text/plain");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("no such page", "text/plain");
    });
    server_.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(200000, 'b'), "text/plain");
    });
    server_.Get("/redirect",
                [](const httplib::Request&, httplib::Response& res) { res.set_redirect("http://192.0.2.1/"); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LocalHttpServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace candor::testing
