// A third-party event loop the project links against (only its header is seen): ev_watch() calls
// `cb` with the registered fd as its third argument, after the events.
#pragma once

struct ev_loop;
typedef void (*ev_io_cb)(struct ev_loop *loop, unsigned events, int fd, void *data);
int ev_watch(struct ev_loop *loop, void *data, ev_io_cb cb, unsigned events, int fd);
void ev_run(struct ev_loop *loop);
