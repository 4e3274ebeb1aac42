#pragma once
// `perfcast serve`: the page and the JSON API (web/api.hpp) over HTTP, on cpp-httplib.
#include <functional>
#include <string>

#include "web/site.hpp"

namespace perfcast::web {

struct ServeOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8080;                 // 0: any free port
};

// Serves until the process is stopped. `listening` gets the bound port once requests are accepted;
// InputError when the address cannot be bound.
void serve(const Site& site, const ServeOptions& o, const std::function<void(int port)>& listening);

}  // namespace perfcast::web
