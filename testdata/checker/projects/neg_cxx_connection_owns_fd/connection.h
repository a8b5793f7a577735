#pragma once
#include "unique_fd.h"

#include <sys/types.h>

class Connection {
public:
  explicit Connection(UniqueFd fd);
  bool authenticate();

private:
  UniqueFd fd_;
  uid_t uid_ = 0;
};
