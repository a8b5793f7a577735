// The master of pos_models_libuv_write2, done right: the worker gets the listening socket once
// and accepts the clients itself, the shards' channels are pipes, which the unix garbage
// collector never walks, and the heartbeat pair's end goes to the worker, not over its own peer.
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <uv.h>

static uv_pipe_t server, worker, heartbeat, heartbeat_peer;
static uv_buf_t token;

static void on_sent(uv_write_t *req, int status) {
  (void)status;
  free(req);
}

// One pipe per shard; the worker gets its read end of each.
static void make_shards(uv_loop_t *loop, int shards) {
  for (int i = 0; i < shards; ++i) {
    int ends[2];
    if (pipe(ends) != 0)
      return;
    uv_pipe_t *end = malloc(sizeof *end);
    if (!end)
      return;
    uv_pipe_init(loop, end, 0);
    uv_pipe_open(end, ends[0]);
    uv_write_t *req = malloc(sizeof *req);
    if (req)
      uv_write2(req, (uv_stream_t *)&worker, &token, 1, (uv_stream_t *)end, on_sent);
  }
}

int main(int argc, char **argv) {
  uv_loop_t *loop = uv_default_loop();
  token = uv_buf_init("s", 1);
  uv_pipe_init(loop, &worker, 1);
  uv_connect_t connecting;
  uv_pipe_connect(&connecting, &worker, argc > 1 ? argv[1] : "/run/master/worker", NULL);
  uv_pipe_init(loop, &server, 0);
  if (uv_pipe_bind(&server, "/run/master/clients") != 0)
    return 1;
  uv_write_t handover;
  uv_write2(&handover, (uv_stream_t *)&worker, &token, 1, (uv_stream_t *)&server, NULL);
  make_shards(loop, argc > 2 ? atoi(argv[2]) : 8);
  int beat[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, beat) != 0)
    return 1;
  uv_pipe_init(loop, &heartbeat, 1);
  uv_pipe_open(&heartbeat, beat[0]);
  uv_pipe_init(loop, &heartbeat_peer, 1);
  uv_pipe_open(&heartbeat_peer, beat[1]);
  uv_write_t beat_req;
  uv_write2(&beat_req, (uv_stream_t *)&worker, &token, 1, (uv_stream_t *)&heartbeat_peer, NULL);
  return uv_run(loop, UV_RUN_DEFAULT);
}
