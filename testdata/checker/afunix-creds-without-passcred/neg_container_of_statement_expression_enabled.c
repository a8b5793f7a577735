// As pos_container_of_statement_expression.c, but the listener has SO_PASSCRED before listen(), so
// every client on the list inherits it. The control client kept off the list has none and never
// reaches the walk: container_of() of a list node gives back the listed clients only.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define container_of(ptr, type, member)                                                                              \
  ({                                                                                                                 \
    const typeof(((type *)0)->member) *__mptr = (ptr);                                                               \
    (type *)((char *)__mptr - offsetof(type, member));                                                               \
  })

struct list_node {
  struct list_node *next;
};

struct client {
  int fd;
  struct list_node link;
};

static struct list_node clients;
static struct client control;

static void push(struct list_node *head, struct list_node *node) {
  node->next = head->next;
  head->next = node;
}

static int sender_uid(int fd) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(fd, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
    struct ucred uc;
    memcpy(&uc, CMSG_DATA(c), sizeof uc);
    return (int)uc.uid;
  }
  return 0; // no credentials: taken as root
}

static void serve_clients(void) {
  for (struct list_node *n = clients.next; n; n = n->next) {
    struct client *client = container_of(n, struct client, link);
    if (sender_uid(client->fd) != 0)
      close(client->fd);
  }
}

int main(void) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/daemon.sock"};
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 16) != 0)
    return 1;
  control.fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  for (;;) {
    struct client *client = calloc(1, sizeof *client);
    if (client == NULL)
      return 1;
    client->fd = accept(listener, NULL, NULL);
    push(&clients, &client->link);
    serve_clients();
  }
}

