// A third-party work queue the project links against (only its header is seen): workq_post()
// runs `fn(arg)` later, on one of the queue's threads. It is handed no fd: the callback gets the
// object it should work on.
#pragma once

struct workq;
int workq_post(struct workq *q, void (*fn)(void *arg), void *arg);
