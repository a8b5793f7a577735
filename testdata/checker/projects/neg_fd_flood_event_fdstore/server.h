#pragma once
typedef struct sd_event sd_event;
typedef struct sd_event_source sd_event_source;
typedef int (*sd_event_io_handler_t)(sd_event_source *s, int fd, unsigned revents, void *userdata);
int sd_event_add_io(sd_event *e, sd_event_source **s, int fd, unsigned events,
                    sd_event_io_handler_t callback, void *userdata);

typedef struct Server Server;
typedef struct Stream {
  Server *server;
  int fd;
  struct Stream *next_notify;
} Stream;

struct Server {
  sd_event *event;
  int stdout_fd;
  int notify_fd;
  Stream *notify_queue;
};

int stream_listen(Server *s);
void stream_send_notify(Stream *stream);
