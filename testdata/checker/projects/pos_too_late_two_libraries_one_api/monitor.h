#pragma once
struct monitor;
struct monitor *monitor_new_from_netlink(void);
struct monitor *monitor_new_from_socket(const char *path); // libmon-legacy only
int monitor_enable_receiving(struct monitor *m);
