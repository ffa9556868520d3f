/*
 * ratings.h — the ratings' HTTP answers (docs/http-api.md, "Ratings"):
 * a game title's leaderboard (people and the computer levels on one scale)
 * and a player's profile.  Reads only, through the store (store.h: the
 * ratings themselves are written by game_finish with the game's end).
 *
 * Invariants: a reply is always set (JSON, malloc'd) and the status says
 * what it is; names come back exactly as stored (the pages show them as
 * text only).
 */
#ifndef TB_SERVER_RATINGS_H
#define TB_SERVER_RATINGS_H

#include "store.h"

/* GET /api/ratings/{game}[?limit=N]: 200 with the list best first, 404
 * unknown game, 400 a bad limit. */
int srv_ratings_board(srv_store *st, const char *game, const char *limit, char **reply);
/* GET /api/players/{name}: 200 with the profile, 404 no such account. */
int srv_ratings_player(srv_store *st, const char *name, char **reply);

#endif
