int open_channel(const char *path);
int hand_out_pair(int channel);
