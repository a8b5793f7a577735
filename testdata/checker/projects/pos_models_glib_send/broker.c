// A broker in the shape of a GLib service: its workers are GIO connections, and it hands them
// sockets with g_unix_connection_send_fd(), never asking them to take one before the next.
#define _GNU_SOURCE // accept4()
#include <gio/gio.h>
#include <gio/gunixconnection.h>
#include <gio/gunixsocketaddress.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

// Each accepted client goes to the worker process.
static void dispatch_clients(GUnixConnection *worker, int listener)
{
    for (;;) { // EXPECT-NOTE: loop here
        int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC); // EXPECT-NOTE: socket created here
        if (client < 0)
            continue;
        GError *error = NULL;
        if (!g_unix_connection_send_fd(worker, client, NULL, &error)) // EXPECT: afunix-fd-flood
            g_clear_error(&error);
        close(client);
    }
}

// One event channel per subscriber, the subscriber reached through its GSocketConnection.
static void subscribe(GSocketConnection *subscriber, int events)
{
    for (int i = 0; i < events; ++i) { // EXPECT-NOTE: loop here
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) != 0) // EXPECT-NOTE: socket created here
            return;
        g_unix_connection_send_fd(G_UNIX_CONNECTION(subscriber), pair[1], NULL, NULL); // EXPECT: afunix-fd-flood
        close(pair[1]);
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
    dispatch_clients(G_UNIX_CONNECTION(worker), listener);
    return 0;
}
