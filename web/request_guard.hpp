#pragma once
// What `perfcast serve` checks of a request's head: the body's
// framing and size, the method, and that the request comes from this server's own page (its Host
// and, for a POST, its Origin), so no other web page the user opens, and no DNS-rebound name, can
// drive the API. Pure: the server hands it the head's fields, tests hand it strings.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast::web {

// The head's fields the guard reads (absent headers are nullopt).
struct RequestHead {
  std::string method, path;
  std::optional<std::string> host, origin, sec_fetch_site, content_length, content_type, content_encoding, transfer_encoding;
};

// What the request may name itself as: the address the server listens on and this machine's name.
struct ServerNames {
  std::string listen_host;
  std::string machine;  // gethostname()
};

struct Refusal {
  int status = 400;
  std::string message;
  std::string allow;  // a 405's Allow header
};

// The method `path` takes ("GET" or "POST"; "" for no such path), as the server routes it.
using MethodOf = std::string_view (*)(std::string_view path);

// Before the body is read: its framing and declared size (400, 413, 415, 501), the route and the
// method (404, 405) and a POST's length (411). The first check failed, or nothing.
std::optional<Refusal> check_head(const RequestHead& head, MethodOf method_of);

// Once the body is read (at most kMaxRequestBytes of it, so an oversized one gets its 413 first):
// Host (400, 403) and, for a POST, Origin and Sec-Fetch-Site (403), Content-Type (415).
std::optional<Refusal> check_sender(const RequestHead& head, const ServerNames& names);

// Whether a Host header names this server: localhost (or *.localhost), an IP address literal, the
// listening address or this machine's name; a port after it is ignored.
bool host_is_ours(const std::string& host, const ServerNames& names);

}  // namespace perfcast::web
