#pragma once
struct handler_ops {
  int (*readable)(int fd, void *ctx);
  void (*closed)(void *ctx);
};
int loop_watch(int fd, const struct handler_ops *ops, void *ctx);
extern const struct handler_ops client_ops;
