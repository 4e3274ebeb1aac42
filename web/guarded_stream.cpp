#include "web/guarded_stream.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace perfcast::web {
namespace {

int millis_until(GuardedStream::Clock::time_point by) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(by - GuardedStream::Clock::now()).count();
  return int(std::clamp<long long>(left, 0, 60'000));
}

void address_of(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

}  // namespace

bool GuardedStream::wait(short events, Clock::time_point by) const {
  for (;;) {
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, millis_until(by));
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n == 0 || errno != EINTR) return false;
  }
}

bool GuardedStream::next_request_within(std::chrono::milliseconds idle) {
  return begin_ < end_ || wait(POLLIN, Clock::now() + idle);
}

void GuardedStream::begin_request(Clock::time_point read_by, std::size_t budget, std::chrono::milliseconds write_time) {
  read_by_ = read_by, budget_ = budget, write_time_ = write_time, write_by_ = {};
  received_ = end_ - begin_;  // pipelined bytes already buffered count toward this request
  over_budget_ = timed_out_ = false;
}

bool GuardedStream::is_readable() const { return begin_ < end_ || (!over_budget_ && !timed_out_ && wait(POLLIN, read_by_)); }

GuardedStream::Clock::time_point GuardedStream::write_deadline() const {
  if (write_by_ == Clock::time_point{}) write_by_ = Clock::now() + write_time_;
  return write_by_;
}

bool GuardedStream::is_writable() const { return wait(POLLOUT, write_deadline()); }

ssize_t GuardedStream::read(char* ptr, size_t size) {
  if (begin_ == end_) {
    if (received_ >= budget_) {
      over_budget_ = true;
      return -1;
    }
    if (!wait(POLLIN, read_by_)) {
      timed_out_ = Clock::now() >= read_by_;
      return -1;
    }
    ssize_t n;
    do n = ::recv(fd_, buffer_.data(), std::min(buffer_.size(), budget_ - received_), 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0) return n;
    begin_ = 0, end_ = std::size_t(n), received_ += std::size_t(n);
  }
  const std::size_t k = std::min(size, end_ - begin_);
  std::copy_n(buffer_.data() + begin_, k, ptr);
  begin_ += k;
  return ssize_t(k);
}

ssize_t GuardedStream::write(const char* ptr, size_t size) {
  if (!wait(POLLOUT, write_deadline())) return -1;
  ssize_t n;
  do n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n;
}

void GuardedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) address_of(a, ip, port);
}

void GuardedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) address_of(a, ip, port);
}

void close_lingering(int fd, std::chrono::milliseconds linger) {
  ::shutdown(fd, SHUT_WR);
  const auto until = GuardedStream::Clock::now() + linger;
  std::array<char, 65536> sink;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, millis_until(until)) <= 0) break;
    const ssize_t n = ::recv(fd, sink.data(), sink.size(), 0);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  ::close(fd);
}

}  // namespace perfcast::web
