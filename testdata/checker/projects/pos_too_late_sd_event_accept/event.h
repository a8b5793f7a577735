#pragma once
// The parts of <systemd/sd-event.h> this daemon uses.
#include <stdint.h>
typedef struct sd_event sd_event;
typedef struct sd_event_source sd_event_source;
typedef int (*sd_event_io_handler_t)(sd_event_source *s, int fd, uint32_t revents, void *userdata);
int sd_event_add_io(sd_event *e, sd_event_source **s, int fd, uint32_t events,
                    sd_event_io_handler_t callback, void *userdata);

int on_listener(sd_event_source *s, int fd, uint32_t revents, void *userdata);
