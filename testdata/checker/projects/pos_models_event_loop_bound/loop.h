// A third-party event loop (only its header is seen, as a system header is): watch_fd(loop, fd,
// on_ready) calls on_ready(events, fd) whenever fd is ready.
#pragma once
#pragma GCC system_header

#include <functional>

struct evl_loop;
void watch_fd(evl_loop *loop, int fd, std::function<void(int, int)> on_ready);
