#pragma once
int open_listener(const char *path);
