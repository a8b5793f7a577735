// What the project uses of libsystemd's sd-daemon.h.
#pragma once
#define SD_LISTEN_FDS_START 3
int sd_listen_fds(int unset_environment);
int sd_listen_fds_with_names(int unset_environment, char ***names);
