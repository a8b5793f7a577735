// What the project uses of libsystemd's sd-daemon.h.
#pragma once
#define SD_LISTEN_FDS_START 3
int sd_listen_fds(int unset_environment);
