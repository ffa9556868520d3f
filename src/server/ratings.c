/*
 * ratings.c — leaderboards and player profiles (ratings.h; docs/ratings.md).
 *
 * The shown rating is mu - 3 sigma (rating.h: srv_rating_shown), rounded to
 * a tenth; a list is ordered by it, best first, people and the computer
 * levels of the title together.  "Where a player stands" compares the
 * player's mu (their best estimate) with the levels' mus: "about" a level
 * within SRV_RATINGS_ABOUT of it, else above the nearest one below or below
 * the nearest one above.
 *
 * Invariants: ratings.h.  Nothing here writes.
 */
#include "ratings.h"
#include "base.h"
#include "rating.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SRV_RATINGS_ABOUT 2.0 /* half a beta: about 60/40 between two such players */
#define SRV_RATINGS_LIMIT 100
#define SRV_RATINGS_GAMES 50 /* a profile's recent games */

void srv_player_clear(srv_player *p)
{
    free(p->ratings);
    free(p->history);
    free(p->games);
    free(p->wins);
    memset(p, 0, sizeof *p);
}

/* The reply's text: numbers are tenths, so 8 significant digits show them
 * as written (23.4, not 23.399999999999999). */
static char *ratings_text(json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(8)) : NULL;
    json_decref(j);
    return s ? s : srv_json_text(NULL);
}

static double ratings_round(double x)
{
    return round(x * 10) / 10;
}

/* {"level", "as": "about" | "above" | "below"} for a mu in game `game`, or
 * NULL when the title has no rated levels. */
static json_t *ratings_standing(const char *game, double mu)
{
    const char *best = NULL, *below = NULL, *above = NULL;
    double dbest = INFINITY, dbelow = INFINITY, dabove = INFINITY;
    for (int i = 0; i < srv_computer_ratings_count; i++) {
        const srv_computer_rating *c = &srv_computer_ratings[i];
        if (strcmp(c->game, game) != 0)
            continue;
        double d = mu - c->mu;
        if (fabs(d) < dbest) {
            dbest = fabs(d);
            best = c->level;
        }
        if (d >= 0 && d < dbelow) {
            dbelow = d;
            below = c->level;
        }
        if (d < 0 && -d < dabove) {
            dabove = -d;
            above = c->level;
        }
    }
    if (!best)
        return NULL;
    if (dbest <= SRV_RATINGS_ABOUT)
        return json_pack("{s:s,s:s}", "level", best, "as", "about");
    if (below)
        return json_pack("{s:s,s:s}", "level", below, "as", "above");
    return json_pack("{s:s,s:s}", "level", above, "as", "below");
}

static json_t *ratings_entry(const char *name, const char *game, double mu, double sigma,
                             int games, const char *level)
{
    srv_rating r = {mu, sigma};
    json_t *o = json_pack("{s:s,s:f,s:f,s:f,s:i,s:b}", "name", name, "rating",
                          ratings_round(srv_rating_shown(r)), "uncertainty", ratings_round(sigma),
                          "mu", ratings_round(mu), "games", games, "computer", level != NULL);
    if (o && level)
        json_object_set_new(o, "level", json_string(level));
    else if (o)
        json_object_set_new(o, "standing", ratings_standing(game, mu));
    return o;
}

static int ratings_by_rating(const void *a, const void *b)
{
    double ra = json_real_value(json_object_get(*(json_t *const *)a, "rating"));
    double rb = json_real_value(json_object_get(*(json_t *const *)b, "rating"));
    return ra < rb ? 1 : ra > rb ? -1 : 0;
}

int srv_ratings_board(srv_store *st, const char *game, const char *limit, char **reply)
{
    if (!tb_game_find(game))
        return srv_error_reply(reply, 404, "unknown_game", "there is no such game");
    long lim = SRV_RATINGS_LIMIT;
    if (limit) {
        char *end;
        lim = strtol(limit, &end, 10);
        if (!*limit || *end || lim < 1 || lim > 500)
            return srv_error_reply(reply, 400, "bad_request", "limit must be 1 to 500");
    }
    srv_rating_row *rows = NULL;
    int count = 0;
    char err[TB_ERR_LEN];
    if (st->m->ratings_list(st, game, (int)lim, &rows, &count, err, sizeof err))
        return srv_error_reply(reply, 500, "store_failed", "%s", err);
    int total = count + srv_computer_ratings_count;
    json_t **all = calloc((size_t)total + 1, sizeof *all);
    int n = 0;
    bool failed = !all;
    for (int i = 0; all && i < count; i++)
        failed |= !(all[n++] = ratings_entry(rows[i].name, game, rows[i].mu, rows[i].sigma,
                                             rows[i].games, NULL));
    for (int i = 0; all && i < srv_computer_ratings_count; i++) {
        const srv_computer_rating *c = &srv_computer_ratings[i];
        if (strcmp(c->game, game) == 0)
            failed |= !(all[n++] = ratings_entry(c->level, game, c->mu, c->sigma, c->games,
                                                 c->level));
    }
    free(rows);
    json_t *list = failed ? NULL : json_array();
    if (list) {
        qsort(all, (size_t)n, sizeof *all, ratings_by_rating);
        for (int i = 0; i < n && i < lim; i++)
            failed |= json_array_append(list, all[i]) != 0;
        if (failed) { /* a list one short is no answer */
            json_decref(list);
            list = NULL;
        }
    }
    for (int i = 0; all && i < n; i++)
        json_decref(all[i]);
    free(all);
    if (!list)
        return srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    *reply = ratings_text(list);
    return 200;
}

int srv_ratings_player(srv_store *st, const char *name, char **reply)
{
    srv_player p;
    char err[TB_ERR_LEN];
    int rc = srv_valid_name(name) ? st->m->player_load(st, name, SRV_RATINGS_GAMES, &p, err,
                                                          sizeof err)
                                  : 1;
    if (rc == 1)
        return srv_error_reply(reply, 404, "unknown_player", "there is no such player");
    if (rc)
        return srv_error_reply(reply, 500, "store_failed", "%s", err);
    json_t *ratings = json_array(), *history = json_array(), *games = json_array(),
           *wins = json_array();
    for (int i = 0; i < p.nratings; i++) {
        srv_rating_row *r = &p.ratings[i];
        json_t *e = ratings_entry(p.name, r->game, r->mu, r->sigma, r->games, NULL);
        if (e) {
            json_object_set_new(e, "game", json_string(r->game));
            json_object_set_new(e, "wins", json_integer(r->wins));
        }
        json_array_append_new(ratings, e);
    }
    for (int i = 0; i < p.nhistory; i++) {
        srv_history_row *h = &p.history[i];
        json_array_append_new(
            history, json_pack("{s:s,s:s,s:s,s:i,s:f,s:f,s:f}", "game", h->game, "game_id",
                               h->game_id, "at", h->at, "rank", h->rank, "rating",
                               ratings_round(srv_rating_shown((srv_rating){h->mu, h->sigma})),
                               "mu", ratings_round(h->mu), "uncertainty",
                               ratings_round(h->sigma)));
    }
    for (int i = 0; i < p.ngames; i++) {
        srv_played_row *g = &p.games[i];
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:b}", "id", g->id, "game", g->game,
                              "status", g->status, "created", g->created, "players", g->players,
                              "seat", g->seat, "rated", g->rated);
        if (o && g->finished[0])
            json_object_set_new(o, "finished", json_string(g->finished));
        if (o && g->rank > 0)
            json_object_set_new(o, "rank", json_integer(g->rank));
        json_array_append_new(games, o);
    }
    for (int i = 0; i < p.nwins; i++)
        json_array_append_new(wins, json_pack("{s:s,s:i,s:i}", "game", p.wins[i].game, "played",
                                              p.wins[i].played, "wins", p.wins[i].wins));
    /* an entry that could not be made (memory ran out) leaves its list
     * short: then no answer rather than a partial one */
    bool whole = json_array_size(ratings) == (size_t)p.nratings &&
                 json_array_size(history) == (size_t)p.nhistory &&
                 json_array_size(games) == (size_t)p.ngames &&
                 json_array_size(wins) == (size_t)p.nwins;
    json_t *out = json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "name", p.name, "since", p.created,
                            "ratings", ratings, "history", history, "games", games, "wins", wins);
    srv_player_clear(&p);
    if (!out || !whole) {
        json_decref(out);
        return srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    }
    *reply = ratings_text(out);
    return 200;
}
