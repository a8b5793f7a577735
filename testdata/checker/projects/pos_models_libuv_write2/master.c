// A master process on libuv that hands sockets to its worker with uv_write2(), which sends the
// fd of its send_handle in SCM_RIGHTS on the worker's IPC pipe. It hands over every client
// accepted since the last tick at once, and makes one socketpair per shard, sending one end of
// each, without waiting for the worker to take any: each is an AF_UNIX socket in flight. Its
// heartbeat pipe is one end of a pair, and the master sends that pipe's other end over it.
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/socket.h>
#include <uv.h>

#define MAX_PENDING 64

static uv_pipe_t server, worker, heartbeat, heartbeat_peer;
static uv_pipe_t pending[MAX_PENDING];
static int npending;
static uv_buf_t token;

static void on_sent(uv_write_t *req, int status) {
  (void)status;
  free(req);
}

static void on_connection(uv_stream_t *listener, int status) {
  if (status < 0 || npending == MAX_PENDING)
    return;
  uv_pipe_init(listener->loop, &pending[npending], 0);
  if (uv_accept(listener, (uv_stream_t *)&pending[npending]) == 0) // EXPECT-NOTE: socket created here
    ++npending;
}

// Every client accepted since the last tick goes to the worker in one burst.
static void on_tick(uv_timer_t *timer) {
  (void)timer;
  for (int i = 0; i < npending; ++i) { // EXPECT-NOTE: loop here
    uv_write_t *req = malloc(sizeof *req);
    if (req)
      uv_write2(req, (uv_stream_t *)&worker, &token, 1, (uv_stream_t *)&pending[i], on_sent); // EXPECT: afunix-fd-flood
  }
  npending = 0;
}

// One channel per shard; the worker gets its end of each.
static void make_shards(uv_loop_t *loop, int shards) {
  for (int i = 0; i < shards; ++i) { // EXPECT-NOTE: loop here
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) // EXPECT-NOTE: socket created here
      return;
    uv_pipe_t *end = malloc(sizeof *end);
    if (!end)
      return;
    uv_pipe_init(loop, end, 0);
    uv_pipe_open(end, pair[1]);
    uv_write_t *req = malloc(sizeof *req);
    if (req)
      uv_write2(req, (uv_stream_t *)&worker, &token, 1, (uv_stream_t *)end, on_sent); // EXPECT: afunix-fd-flood
  }
}

int main(int argc, char **argv) {
  uv_loop_t *loop = uv_default_loop();
  token = uv_buf_init("s", 1);
  uv_pipe_init(loop, &worker, 1);
  uv_connect_t connecting;
  uv_pipe_connect(&connecting, &worker, argc > 1 ? argv[1] : "/run/master/worker", NULL);
  uv_pipe_init(loop, &server, 0);
  if (uv_pipe_bind(&server, "/run/master/clients") != 0 || uv_listen((uv_stream_t *)&server, 128, on_connection) != 0)
    return 1;
  make_shards(loop, argc > 2 ? atoi(argv[2]) : 8);
  int beat[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, beat) != 0) // EXPECT-NOTE: socket created here
    return 1;
  uv_pipe_init(loop, &heartbeat, 1);
  uv_pipe_open(&heartbeat, beat[0]);
  uv_pipe_init(loop, &heartbeat_peer, 1);
  uv_pipe_open(&heartbeat_peer, beat[1]);
  uv_write_t beat_req;
  uv_write2(&beat_req, (uv_stream_t *)&heartbeat, &token, 1, (uv_stream_t *)&heartbeat_peer, NULL); // EXPECT: afunix-fd-cycle // EXPECT-MESSAGE: socket '(uv_stream_t *)&heartbeat_peer' is sent over its peer '(uv_stream_t *)&heartbeat'
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(&tick, on_tick, 100, 100);
  return uv_run(loop, UV_RUN_DEFAULT);
}
