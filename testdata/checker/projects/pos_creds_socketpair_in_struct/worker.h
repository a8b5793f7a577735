#pragma once
#include <sys/types.h>

struct worker {
  pid_t pid;
  int channel[2]; // [0] the supervisor's end, [1] the worker's
};

int worker_spawn(struct worker *w);
int worker_check(struct worker *w);
