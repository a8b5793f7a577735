#pragma once
int handle_client(int fd);
