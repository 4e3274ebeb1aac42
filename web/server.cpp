#include "web/server.hpp"

#include <condition_variable>
#include <deque>
#include <fmt/format.h>
#include <httplib.h>
#include <mutex>
#include <sys/socket.h>
#include <system_error>
#include <thread>
#include <unistd.h>

#include "engine/core/errors.hpp"
#include "web/api.hpp"
#include "web/assets.hpp"
#include "web/guarded_stream.hpp"
#include "web/request_guard.hpp"

namespace perfcast::web {
namespace {

using Clock = GuardedStream::Clock;

// What one client can hold of the server, each bound against a client slow or large on purpose.
constexpr auto kReadTime = std::chrono::seconds(10);       // a whole request, head and body, from its first byte
constexpr auto kWriteTime = std::chrono::seconds(30);      // a whole reply
constexpr auto kKeepAliveIdle = std::chrono::seconds(5);   // between requests on one connection
constexpr auto kLinger = std::chrono::seconds(5);          // draining a refused body, so its sender reads the refusal
constexpr std::size_t kHeadBytes = 64 << 10;               // request line and headers
constexpr int kRequestsPerConnection = 100;
// Requests in progress at once: far more than the slow clients one machine's loopback sees, so a
// dozen of them leave the rest answered at once; each is cut off by kReadTime in any case.
constexpr int kWorkers = 64;
constexpr int kMaxConnections = 256;  // open at once, waiting ones included; more get a 503 and are closed

// The connection a worker thread is serving, for the handlers httplib calls on that thread.
struct Connection {
  GuardedStream* stream = nullptr;
  bool close = false, linger = false;
};
thread_local Connection* t_connection = nullptr;

std::optional<std::string> header(const httplib::Request& req, const char* key) {
  if (!req.has_header(key)) return std::nullopt;
  return req.get_header_value(key);
}

RequestHead head_of(const httplib::Request& req) {
  return {.method = req.method, .path = req.path, .host = header(req, "Host"), .origin = header(req, "Origin"),
          .sec_fetch_site = header(req, "Sec-Fetch-Site"), .content_length = header(req, "Content-Length"),
          .content_type = header(req, "Content-Type"), .content_encoding = header(req, "Content-Encoding"),
          .transfer_encoding = header(req, "Transfer-Encoding")};
}

std::string_view method_of(std::string_view path) {
  if (path.starts_with("/api/")) return endpoint_method(path);
  const std::string name = path == "/" ? "index.html" : std::string(path.substr(1));
  return name.find('/') == std::string::npos && asset(name) ? "GET" : "";
}

void set_refusal(httplib::Response& res, const Refusal& r) {
  res.status = r.status;
  res.set_content(error_body(r.message), "application/json");
  if (!r.allow.empty()) res.set_header("Allow", r.allow);
}

// A refusal before the body is read: the connection then closes, its unread body drained.
void refuse_head(httplib::Response& res, const Refusal& r) {
  set_refusal(res, r);
  if (t_connection) t_connection->close = t_connection->linger = true;
}

// httplib's Server with its own accept loop and connections: the library reads a request read by
// read (a per-read timeout, no bound on a chunked body); here every connection goes through a
// GuardedStream and the number of connections is capped.
class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ServerNames names) : names_(std::move(names)) {}

  // Serves until the process stops; InputError when not one worker thread can start.
  void run() {
    ::listen(svr_sock_, 128);  // the library's backlog of 5 drops bursts of connections
    std::vector<std::jthread> workers;
    for (int i = 0; i < kWorkers; ++i) {
      try {
        workers.emplace_back([this] { work(); });
      } catch (const std::system_error&) {
        break;  // a thread limit: serve with the workers that started
      }
    }
    if (workers.empty()) throw InputError({}, "serve: the system started no worker thread (a thread or memory limit)");
    for (;;) {
      const int fd = ::accept4(svr_sock_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno != EINTR && errno != ECONNABORTED) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // out of descriptors
        continue;
      }
      std::unique_lock lock(mutex_);
      if (open_ >= kMaxConnections) {
        lock.unlock();
        static constexpr char kBusy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                        "Content-Length: 50\r\n\r\n{\"error\": \"too many connections: try again shortly\"}";
        (void)::send(fd, kBusy, sizeof kBusy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        ::close(fd);
        continue;
      }
      ++open_;
      pending_.push_back(fd);
      lock.unlock();
      ready_.notify_one();
    }
  }

  const ServerNames& names() const { return names_; }

 private:
  void work() {
    for (;;) {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return !pending_.empty(); });
      const int fd = pending_.front();
      pending_.pop_front();
      lock.unlock();
      serve_connection(fd);
      lock.lock();
      --open_;
    }
  }

  void serve_connection(int fd) {
    GuardedStream stream(fd);
    Connection c{.stream = &stream};
    t_connection = &c;
    for (int n = 0; n < kRequestsPerConnection && stream.next_request_within(kKeepAliveIdle); ++n) {
      stream.begin_request(Clock::now() + kReadTime, kHeadBytes + kMaxRequestBytes, kWriteTime);
      bool closed = false;
      const bool ok = process_request(stream, n + 1 == kRequestsPerConnection, closed, nullptr);
      if (!ok || closed || c.close) break;
    }
    t_connection = nullptr;
    if (c.linger) close_lingering(fd, kLinger);
    else {
      ::shutdown(fd, SHUT_RDWR);
      ::close(fd);
    }
  }

  ServerNames names_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int> pending_;
  int open_ = 0;  // connections waiting or being served
};

}  // namespace

void serve(const Site& site, const ServeOptions& o, const std::function<void(int port)>& listening) {
  char machine[256] = {};
  ::gethostname(machine, sizeof machine - 1);
  GuardedServer server(ServerNames{.listen_host = o.host, .machine = machine});
  server.set_payload_max_length(kMaxRequestBytes);
  server.set_keep_alive_max_count(kRequestsPerConnection);  // what the Keep-Alive header tells a client
  server.set_keep_alive_timeout(kKeepAliveIdle.count());
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which lets a second server share a port
  // in use and silently take half its requests.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });

  // Framing, route and method, before a byte of the body is read (and before a 100 Continue).
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    const std::optional<Refusal> r = check_head(head_of(req), method_of);
    if (!r) return httplib::Server::HandlerResponse::Unhandled;
    refuse_head(res, *r);
    return httplib::Server::HandlerResponse::Handled;
  });
  server.set_expect_100_continue_handler([](const httplib::Request& req, httplib::Response& res) {
    const std::optional<Refusal> r = check_head(head_of(req), method_of);
    if (!r) return 100;
    refuse_head(res, *r);
    return r->status;
  });

  const ServerNames& names = server.names();
  auto page = [&names](const httplib::Request& req, httplib::Response& res) {
    if (const std::optional<Refusal> r = check_sender(head_of(req), names)) return set_refusal(res, *r);
    const std::optional<Asset> a = asset(req.path == "/" ? "index.html" : req.path.substr(1));
    if (!a) return set_refusal(res, {.status = 404, .message = fmt::format("no page {}", req.path)});
    res.set_content(std::string(a->bytes), std::string(a->content_type));
    res.set_header("Cache-Control", "no-cache");
  };
  auto api = [&site, &names](const httplib::Request& req, httplib::Response& res) {
    if (const std::optional<Refusal> r = check_sender(head_of(req), names)) return set_refusal(res, *r);
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
  // What httplib answers itself (a request it could not read, a 404) is one line too; a request cut
  // off at its byte budget or its deadline says so, and its connection closes.
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (t_connection && (t_connection->stream->over_budget() || t_connection->stream->timed_out())) {
      const bool over = t_connection->stream->over_budget();
      res.status = over ? 413 : 408;
      res.set_content(error_body(over ? fmt::format("request body beyond {} bytes", kMaxRequestBytes)
                                      : fmt::format("request not received whole within {} s", kReadTime.count())),
                      "application/json");
      t_connection->close = true, t_connection->linger = over;
      return;
    }
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
  server.run();
}

}  // namespace perfcast::web
