// A small event loop library: an fd, the function to call when it is readable, and its data.
#pragma once

struct loop;
typedef void (*loop_fn)(struct loop *l, int fd, void *data);

struct loop_entry {
  int fd;
  loop_fn fn;
  void *data;
};

struct loop {
  struct loop_entry entries[16];
  int count;
};

void loop_add(struct loop *l, int fd, loop_fn fn, void *data);
void loop_run(struct loop *l);
