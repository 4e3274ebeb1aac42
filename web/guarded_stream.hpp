#pragma once
// One connection's socket as cpp-httplib reads and writes it, with what the library leaves out:
// each request must arrive whole by a deadline (a client that sends a header line every few
// seconds is cut off, not waited for read by read), and at most a byte budget of it is read
// however its body is framed (chunked included), so an oversized request costs the server no
// more than its budget. The buffer lasts the connection, so pipelined requests keep their bytes.
#include <array>
#include <chrono>
#include <cstddef>
#include <httplib.h>

namespace perfcast::web {

class GuardedStream final : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;

  explicit GuardedStream(int fd) : fd_(fd) {}

  // Whether a next request starts within `idle` (bytes buffered or arriving).
  bool next_request_within(std::chrono::milliseconds idle);
  // The next request: read whole by `read_by`, at most `budget` bytes; its reply written within
  // `write_time` of its first byte.
  void begin_request(Clock::time_point read_by, std::size_t budget, std::chrono::milliseconds write_time);
  bool over_budget() const { return over_budget_; }
  bool timed_out() const { return timed_out_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  // Waits for `events` on the socket until `by`; false on timeout or error.
  bool wait(short events, Clock::time_point by) const;
  Clock::time_point write_deadline() const;

  int fd_;
  std::array<char, 16384> buffer_{};
  std::size_t begin_ = 0, end_ = 0;  // unread bytes of buffer_
  std::size_t budget_ = 0, received_ = 0;
  Clock::time_point read_by_{};
  std::chrono::milliseconds write_time_{};
  mutable Clock::time_point write_by_{};  // set by the reply's first write
  bool over_budget_ = false, timed_out_ = false;
};

// Closes a connection whose last request was refused before its body was read: the reply is sent
// (write side shut), then whatever the client still sends is read and dropped, for at most `linger`,
// so the client reads the reply instead of a reset.
void close_lingering(int fd, std::chrono::milliseconds linger);

}  // namespace perfcast::web
