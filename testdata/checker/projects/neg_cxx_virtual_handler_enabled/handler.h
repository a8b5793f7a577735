#pragma once
class Handler {
public:
  virtual ~Handler() = default;
  virtual void on_client(int fd) = 0;
};
void serve(Handler &handler);
