#pragma once

#include "loop.h"

// Serves authenticated requests on an AF_UNIX socket at `path`, in `l`.
int ipc_publish(struct loop *l, const char *path);
