#pragma once
// The web API of `perfcast serve`, without the socket: a request's method, path, query and body in,
// a status and one body out, so tests drive it directly and the server only wires it to HTTP.
//
//   GET  /api/site                  presets, the scenario schema, the names each name key accepts
//   GET  /api/hw[?kind=K]           `hw list [K] --format json`;  GET /api/hw/NAME: `hw show NAME`
//   GET  /api/validate?kind=K       `validate --kind K --format json`
//   POST /api/predict | memory | capacity | roofline | sweep | compare
//        {"scenario": {tables}, ...the command's options}: what `--format json` prints
//
// A scenario is the file's tables as JSON and names no file (model.hf_config is the config.json's
// content, not a path). Every refusal is one line, {"error": "..."}: 400 for a bad request, 404
// for an unknown path, 405 for a wrong method, 413 beyond kMaxRequestBytes, 500 for a fault.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "web/site.hpp"

namespace perfcast::web {

// A scenario with a pasted config.json is a few kB; a megabyte is far beyond any real request.
constexpr std::size_t kMaxRequestBytes = 1 << 20;

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

Reply answer(const Site& site, std::string_view method, std::string_view path, const std::multimap<std::string, std::string>& query,
             std::string_view body);

// The method an endpoint takes: "POST", "GET", or "" for no such endpoint.
std::string_view endpoint_method(std::string_view path);

// {"error": message} as one line.
std::string error_body(std::string_view message);

}  // namespace perfcast::web
