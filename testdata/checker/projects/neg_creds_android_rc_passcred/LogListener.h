#pragma once
#include <sys/types.h>

class LogListener {
public:
  LogListener();
  bool onDataAvailable();

private:
  static int getLogSocket();
  bool log(uid_t uid, const char *text);
  int sock_;
};
