#pragma once
struct monitor;
struct monitor *monitor_new_from_socket(const char *path);
struct monitor *monitor_new_from_netlink(void);
int monitor_enable_receiving(struct monitor *m);
