#include "web/server.hpp"

#include <chrono>
#include <fmt/format.h>
#include <httplib.h>

#include "engine/core/errors.hpp"
#include "web/api.hpp"
#include "web/assets.hpp"

namespace perfcast::web {

void serve(const Site& site, const ServeOptions& o, const std::function<void(int port)>& listening) {
  httplib::Server server;
  server.set_payload_max_length(kMaxRequestBytes);  // larger bodies get 413 before they are read
  server.set_read_timeout(10, 0);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which lets a second server share a port
  // in use and silently take half its requests.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });

  auto page = [](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.path == "/" ? "index.html" : req.path.substr(1);
    const std::optional<Asset> a = asset(name);
    if (!a) {
      res.status = 404;
      res.set_content(error_body(fmt::format("no page {}", req.path)), "application/json");
      return;
    }
    res.set_content(std::string(a->bytes), std::string(a->content_type));
    res.set_header("Cache-Control", "no-cache");
  };
  auto api = [&site](const httplib::Request& req, httplib::Response& res) {
    const std::multimap<std::string, std::string> query(req.params.begin(), req.params.end());
    const auto started = std::chrono::steady_clock::now();
    const Reply r = answer(site, req.method, req.path, query, req.body);
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - started;
    res.set_header("Server-Timing", fmt::format("compute;dur={:.2f}", took.count()));  // the page shows it
    res.status = r.status;
    res.set_content(r.body, r.content_type);
  };
  server.Get(R"(/api/.*)", api);
  server.Post(R"(/api/.*)", api);
  server.Get(R"(/[A-Za-z0-9_.-]*)", page);
  // What httplib answers itself (413, an unrouted method or path) is one line too.
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string what = res.status == 413   ? fmt::format("request body beyond {} bytes", kMaxRequestBytes)
                             : res.status == 404 ? fmt::format("no page {}", req.path)
                                                 : fmt::format("{} {}: status {}", req.method, req.path, res.status);
    res.set_content(error_body(what), "application/json");
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(error_body("internal error"), "application/json");
  });

  const int port = o.port == 0 ? server.bind_to_any_port(o.host) : (server.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) throw InputError({}, fmt::format("serve: cannot listen on {}:{} (in use, or not an address of this machine)", o.host, o.port));
  listening(port);
  server.listen_after_bind();
}

}  // namespace perfcast::web
