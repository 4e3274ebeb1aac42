// What `perfcast serve` refuses from a request's head (web/request_guard.hpp), without a socket:
// framing and size before the body is read, route and method, then that the request comes from
// this server's own name and page. tests/web/test_server_limits.py sends the same over HTTP.
#include <doctest/doctest.h>

#include <initializer_list>
#include <optional>
#include <string>

#include "web/request_guard.hpp"

using namespace perfcast::web;

namespace {

std::string_view routes(std::string_view path) {
  if (path == "/api/predict") return "POST";
  if (path == "/" || path == "/api/site") return "GET";
  return "";
}

const ServerNames kNames{.listen_host = "127.0.0.1", .machine = "build-box"};

RequestHead json_post(std::string host = "127.0.0.1:8080") {
  return {.method = "POST", .path = "/api/predict", .host = host, .content_length = "120", .content_type = "application/json"};
}

int head_status(const RequestHead& h) {
  const auto r = check_head(h, routes);
  return r ? r->status : 0;
}

int sender_status(const RequestHead& h) {
  const auto r = check_sender(h, kNames);
  return r ? r->status : 0;
}

}  // namespace

TEST_CASE("a plain JSON POST from a loopback client passes both checks") {
  CHECK(head_status(json_post()) == 0);
  CHECK(sender_status(json_post()) == 0);
  RequestHead chunked = json_post();
  chunked.content_length.reset(), chunked.transfer_encoding = "chunked";
  CHECK(head_status(chunked) == 0);
}

TEST_CASE("a body's framing and declared size are refused before it is read") {
  // Each head differs from a plain JSON POST in one field.
  struct Variant {
    std::optional<std::string> RequestHead::*field;
    const char* value;
    int status;
  };
  for (const Variant& v : std::initializer_list<Variant>{{&RequestHead::content_length, "-5", 400},
                                                         {&RequestHead::content_length, "12abc", 400},
                                                         {&RequestHead::content_length, "99999999999999999999999", 400},
                                                         {&RequestHead::content_length, "1048577", 413},
                                                         {&RequestHead::content_length, "1048576", 0},
                                                         {&RequestHead::content_encoding, "gzip", 415},
                                                         {&RequestHead::content_encoding, "identity", 0},
                                                         {&RequestHead::transfer_encoding, "gzip, chunked", 501}}) {
    CAPTURE(v.value);
    RequestHead h = json_post();
    h.*v.field = v.value;
    CHECK(head_status(h) == v.status);
  }
  RequestHead unbounded = json_post();
  unbounded.content_length.reset();
  CHECK(head_status(unbounded) == 411);
}

TEST_CASE("an unknown path is 404 and a wrong method 405 with the method the path takes") {
  RequestHead h = json_post();
  h.path = "/api/nothing";
  CHECK(head_status(h) == 404);
  for (const char* method : {"GET", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW"}) {
    RequestHead m = json_post();
    m.method = method;
    const auto r = check_head(m, routes);
    REQUIRE(r);
    CHECK(r->status == 405);
    CHECK(r->allow == "POST");
  }
  RequestHead head{.method = "HEAD", .path = "/", .host = "localhost"};
  CHECK(head_status(head) == 0);
  head.method = "POST", head.content_length = "2";
  CHECK(check_head(head, routes)->allow == "GET, HEAD");
}

TEST_CASE("only this server's names pass the Host check") {
  for (const char* host : {"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:80", "app.localhost", "[::1]:8080", "::1", "10.1.2.3",
                           "build-box", "Build-Box:8080"})
    CHECK_MESSAGE(host_is_ours(host, kNames), host);
  for (const char* host : {"evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example", "", "x"})
    CHECK_MESSAGE(!host_is_ours(host, kNames), host);
  CHECK(host_is_ours("perf.lab.internal", {.listen_host = "perf.lab.internal", .machine = ""}));
  CHECK(sender_status(json_post("evil.example")) == 403);
  RequestHead none = json_post();
  none.host.reset();
  CHECK(sender_status(none) == 400);
}

TEST_CASE("a POST from another page is refused: its Origin, Sec-Fetch-Site or Content-Type") {
  RequestHead h = json_post("127.0.0.1:8080");
  h.origin = "http://127.0.0.1:8080";
  CHECK(sender_status(h) == 0);
  h.origin = "http://evil.example";
  CHECK(sender_status(h) == 403);
  h.origin = "null";
  CHECK(sender_status(h) == 403);
  RequestHead site = json_post();
  site.sec_fetch_site = "cross-site";
  CHECK(sender_status(site) == 403);
  site.sec_fetch_site = "same-origin";
  CHECK(sender_status(site) == 0);
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
    RequestHead t = json_post();
    t.content_type = type;
    CHECK_MESSAGE(sender_status(t) == 415, type);
  }
  RequestHead charset = json_post();
  charset.content_type = "Application/JSON; charset=utf-8";
  CHECK(sender_status(charset) == 0);
  RequestHead get{.method = "GET", .path = "/", .host = "localhost", .origin = "http://evil.example"};
  CHECK(sender_status(get) == 0);  // a page may link here; only a POST runs work
}
