#pragma once
int enable_credentials(int fd);
