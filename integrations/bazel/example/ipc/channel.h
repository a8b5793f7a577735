#pragma once

#include <sys/types.h>

namespace ipc {

// One end of a connected AF_UNIX pair; closes its fd.
class Channel {
 public:
  // Both ends; the receiving one already passes credentials.
  static bool Pair(Channel &receiver, Channel &sender);
  Channel() = default;
  Channel(const Channel &) = delete;
  Channel &operator=(const Channel &) = delete;
  ~Channel();

  bool Send(const char *data, size_t size);
  // The sender's pid, or -1 when the message carried no credentials.
  pid_t ReceivePeer(char *data, size_t size);

 private:
  bool PassCredentials();
  int fd_ = -1;
};

}  // namespace ipc
