/*
 * review.h — game reviews in the background, beside the rooms (like the AI
 * workers): a queue of finished games to review, one low-priority thread
 * that reviews them with the library (tb_review_record), and the store that
 * keeps each finished review with its game.  The transport asks for a review
 * and polls its progress; play never waits on it.
 *
 * It knows the store (below) and the basics (base.h), never the rooms: the
 * caller hands it the record of a game that is over.
 */
#ifndef TB_SERVER_REVIEW_H
#define TB_SERVER_REVIEW_H

#include "base.h"
#include "store.h"

#include <stddef.h>

#define SRV_REVIEW_ITERATIONS 1000 /* search iterations per decision reviewed */
#define SRV_REVIEW_QUEUE 64        /* reviews waiting at most; more are refused (503) */

typedef struct srv_reviews srv_reviews;

/* Starts the review thread over an open store (which stays the caller's). */
srv_reviews *srv_reviews_start(const srv_config *cfg, srv_store *store, char *err,
                               size_t errlen);
/* Stops the review under way between two decisions (it is not stored) and
 * joins the thread; later requests are refused.  Safe to call twice. */
void srv_reviews_stop(srv_reviews *rv);
void srv_reviews_free(srv_reviews *rv);

/* POST /api/games/ID/review: `record_json` is the game's record (unsealed:
 * the game is over).  Queues the review unless it is stored, queued or under
 * way already (then says so).  Returns the HTTP status and sets *reply to
 * the JSON answer. */
int srv_review_request(srv_reviews *rv, const char *id, const char *record_json, char **reply);
/* GET /api/games/ID/review: the stored review, or how far it has come, or
 * {"status":"none"}.  Returns the HTTP status and sets *reply. */
int srv_review_get(srv_reviews *rv, const char *id, char **reply);

#endif
