#include "web/request_guard.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <fmt/format.h>

#include "web/api.hpp"

namespace perfcast::web {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A header value's media type: "application/json; charset=utf-8" -> "application/json".
std::string media_type(const std::string& v) { return lower(trimmed(v.substr(0, v.find(';')))); }

// The name of a Host header without its port: "[::1]:8080" -> "::1", "localhost:80" -> "localhost".
std::string host_name(const std::string& host) {
  const std::string h = lower(trimmed(host));
  if (h.starts_with('[')) {
    const auto close = h.find(']');
    return close == std::string::npos ? h : h.substr(1, close - 1);
  }
  const auto colon = h.find(':');
  return colon == std::string::npos || h.find(':', colon + 1) != std::string::npos ? h : h.substr(0, colon);
}

bool is_ip_literal(const std::string& name) {
  unsigned char addr[16];
  return inet_pton(AF_INET, name.c_str(), addr) == 1 || inet_pton(AF_INET6, name.c_str(), addr) == 1;
}

Refusal refuse(int status, std::string message, std::string allow = {}) { return {status, std::move(message), std::move(allow)}; }

}  // namespace

bool host_is_ours(const std::string& host, const ServerNames& names) {
  const std::string name = host_name(host);
  if (name.empty()) return false;
  // An address literal cannot be a rebound name; localhost never leaves the machine (RFC 6761 6.3).
  if (name == "localhost" || name.ends_with(".localhost") || is_ip_literal(name)) return true;
  return name == host_name(names.listen_host) || (!names.machine.empty() && name == lower(names.machine));
}

std::optional<Refusal> check_head(const RequestHead& h, MethodOf method_of) {
  // Framing: only what the server can bound before it reads a byte of the body.
  if (h.transfer_encoding && lower(trimmed(*h.transfer_encoding)) != "chunked")
    return refuse(501, fmt::format("Transfer-Encoding '{}': send the body as it is, or chunked", *h.transfer_encoding));
  if (h.content_encoding && lower(trimmed(*h.content_encoding)) != "identity")
    return refuse(415, fmt::format("Content-Encoding '{}': send the body uncompressed", *h.content_encoding));
  if (h.content_length) {
    const std::string v = trimmed(*h.content_length);
    if (v.empty() || v.size() > 18 || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
      return refuse(400, fmt::format("Content-Length '{}': not a count of bytes", *h.content_length));
    if (std::stoull(v) > kMaxRequestBytes)
      return refuse(413, fmt::format("request body of {} bytes: beyond {} bytes", v, kMaxRequestBytes));
  }
  // Route and method.
  const std::string_view takes = method_of(h.path);
  if (takes.empty())
    return refuse(404, h.path.starts_with("/api/") ? fmt::format("no endpoint {} (see GET /api/site and the README)", h.path)
                                                    : fmt::format("no page {}", h.path));
  const bool method_ok = h.method == takes || (takes == "GET" && h.method == "HEAD");
  if (!method_ok)
    return refuse(405, fmt::format("{} {}: this path takes {}", h.method, h.path, takes == "POST" ? "POST with a JSON body" : "GET"),
                  takes == "GET" ? "GET, HEAD" : std::string(takes));
  // Without either, the body would run to the end of the connection.
  if (h.method == "POST" && !h.content_length && !h.transfer_encoding) return refuse(411, "a POST body needs a Content-Length");
  return std::nullopt;
}

std::optional<Refusal> check_sender(const RequestHead& h, const ServerNames& names) {
  // Who is asking: this server's own name, and for a POST its own page.
  if (!h.host) return refuse(400, "no Host header");
  if (!host_is_ours(*h.host, names))
    return refuse(403, fmt::format("Host '{}' is not this server's name (a page elsewhere, through DNS rebinding?): "
                                   "open it as http://localhost or by its address",
                                   *h.host));
  if (h.method != "POST") return std::nullopt;
  const std::string same_origin = "http://" + lower(trimmed(*h.host));
  if ((h.origin && lower(trimmed(*h.origin)) != same_origin) ||
      (h.sec_fetch_site && lower(*h.sec_fetch_site) != "same-origin" && lower(*h.sec_fetch_site) != "none"))
    return refuse(403, fmt::format("a POST from another page ({}): the API answers its own page and direct clients only",
                                   h.origin.value_or(h.sec_fetch_site.value_or(""))));
  if (h.content_type && media_type(*h.content_type) != "application/json")
    return refuse(415, fmt::format("Content-Type '{}': send the body as application/json", *h.content_type));
  return std::nullopt;
}

}  // namespace perfcast::web
