#pragma once
int send_fd(int channel, int fd);
int recv_ack(int channel);
