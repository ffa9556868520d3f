/*
 * ai.h — the AI workers, beside the rooms: a queue of timed jobs and the
 * threads that run them.  A job names an owner (a room, to this queue just
 * a pointer), a kind (what to do, the owner's business) and a number (the
 * decisions made when it was queued); a worker calls the `step` function
 * given at start with all three when the job's time has come.  The queue
 * knows nothing of rooms or games.
 */
#ifndef TB_SERVER_AI_H
#define TB_SERVER_AI_H

#include <stddef.h>
#include <stdint.h>

typedef struct srv_ai_pool srv_ai_pool;
typedef void (*srv_ai_step)(void *owner, int kind, int expect);

srv_ai_pool *srv_ai_start(int workers, srv_ai_step step, char *err, size_t errlen);
/* Runs step(owner, kind, expect) on a worker, not before `not_before_us`
 * (srv_now_us time).  Safe from any thread; a no-op once stopped.  -1 when
 * out of memory (nothing queued). */
int srv_ai_schedule(srv_ai_pool *pool, void *owner, int kind, int expect, uint64_t not_before_us);
void srv_ai_stop(srv_ai_pool *pool); /* joins the workers; schedule becomes a no-op */
void srv_ai_free(srv_ai_pool *pool);

#endif
