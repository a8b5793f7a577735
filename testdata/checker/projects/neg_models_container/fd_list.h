// The public header of the project's IPC library: its code is built separately.
#pragma once
#include <stddef.h>

namespace ipc {

// The fds one message carries.
class FdList {
public:
  FdList();
  ~FdList();
  FdList(const FdList &) = delete;
  FdList &operator=(const FdList &) = delete;
  void Add(int fd);
  const int *Fds() const;
  size_t Count() const;

private:
  struct Rep;
  Rep *rep_;
};

} // namespace ipc
