#pragma once
int open_bound(const char *path);
int enable_credentials(int fd);
