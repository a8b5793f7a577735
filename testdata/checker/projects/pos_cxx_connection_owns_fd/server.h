#pragma once
#include "connection.h"
#include "unique_fd.h"

#include <memory>
#include <vector>

class Server {
public:
  bool start(const char *path);
  void accept_one();

private:
  UniqueFd listener_;
  std::vector<std::unique_ptr<Connection>> connections_;
};
