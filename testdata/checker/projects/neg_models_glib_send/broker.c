// The broker of pos_models_glib_send, done right: each handed socket waits for the worker's
// one-byte acknowledgement, and the subscribers' channels are pipes.
#define _GNU_SOURCE // accept4()
#include <gio/gio.h>
#include <gio/gunixconnection.h>
#include <gio/gunixsocketaddress.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

// The acknowledgement read from the connection's input stream.
static void dispatch_clients(GUnixConnection *worker, int listener)
{
    for (;;) {
        int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        GError *error = NULL;
        gboolean sent = g_unix_connection_send_fd(worker, client, NULL, &error);
        close(client);
        char ack;
        if (!sent || g_input_stream_read(g_io_stream_get_input_stream(G_IO_STREAM(worker)), &ack, 1, NULL, &error) != 1)
            break;
    }
}

// The acknowledgement read from the connection's GSocket.
static void dispatch_urgent(GSocketConnection *worker, int listener)
{
    for (;;) {
        int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        g_unix_connection_send_fd(G_UNIX_CONNECTION(worker), client, NULL, NULL);
        close(client);
        char ack;
        if (g_socket_receive(g_socket_connection_get_socket(worker), &ack, 1, NULL, NULL) != 1)
            break;
    }
}

// The acknowledgement read from the input stream kept in a local, as GIO code usually holds it.
static void dispatch_batch(GSocketConnection *worker, int listener)
{
    GUnixConnection *unix_worker = G_UNIX_CONNECTION(worker);
    GInputStream *replies = g_io_stream_get_input_stream(G_IO_STREAM(worker));
    for (;;) {
        int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        g_unix_connection_send_fd(unix_worker, client, NULL, NULL);
        close(client);
        guint8 ack;
        if (g_input_stream_read_all(replies, &ack, 1, NULL, NULL, NULL) == FALSE)
            break;
    }
}

// Pipes are not sockets: nothing the garbage collector walks.
static void subscribe(GSocketConnection *subscriber, int events)
{
    for (int i = 0; i < events; ++i) {
        int pipe_fds[2];
        if (pipe(pipe_fds) != 0)
            return;
        g_unix_connection_send_fd(G_UNIX_CONNECTION(subscriber), pipe_fds[0], NULL, NULL);
        close(pipe_fds[0]);
    }
}

int main(int argc, char **argv)
{
    struct sockaddr_un address = {.sun_family = AF_UNIX, .sun_path = "/run/broker.sock"};
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 16) != 0)
        return 1;
    GSocketClient *client = g_socket_client_new();
    GSocketAddress *at = g_unix_socket_address_new(argc > 1 ? argv[1] : "/run/broker-worker.sock");
    GSocketConnection *worker = g_socket_client_connect(client, G_SOCKET_CONNECTABLE(at), NULL, NULL);
    if (!worker)
        return 1;
    if (argc > 2)
        subscribe(worker, atoi(argv[2]));
    if (argc > 3)
        dispatch_urgent(worker, listener);
    if (argc > 4)
        dispatch_batch(worker, listener);
    dispatch_clients(G_UNIX_CONNECTION(worker), listener);
    return 0;
}
