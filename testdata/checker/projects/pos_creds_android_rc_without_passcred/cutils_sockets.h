// What the project uses of libcutils' <cutils/sockets.h>.
#pragma once
extern "C" int android_get_control_socket(const char *name);
