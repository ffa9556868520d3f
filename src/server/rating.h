/*
 * rating.h — the rating maths of rated games (docs/ratings.md): the
 * Weng–Lin Bayesian approximation with the Plackett–Luce model (Weng & Lin
 * 2011, "A Bayesian Approximation Method for Online Ranking", Algorithm 4,
 * one player a team), and the computer levels' fitted ratings.
 *
 * Pure C, no I/O, no allocation: the stores (store_sqlite.c, store_pg.c)
 * read the seats' ratings, call srv_rating_update and write its answer in
 * the transaction that finishes the game.
 *
 * Invariants:
 *   - ranks are 1-based, smaller is better, equal ranks are a tie (a
 *     resigned seat is given the last rank by its caller: lobby.c);
 *   - an update changes only the seats whose `fixed` is false (a computer
 *     level anchors the scale: it is never moved by people's games);
 *   - sigma never grows past sqrt(sigma^2 + tau^2) and never reaches 0 (its
 *     square shrinks by at most the factor kappa);
 *   - bad input (fewer than 2 or more than SRV_RATING_MAX seats, a rank
 *     outside 1..n, a non-finite or non-positive sigma) returns -1 and
 *     writes nothing.
 */
#ifndef TB_SERVER_RATING_H
#define TB_SERVER_RATING_H

#include <stdbool.h>

#define SRV_RATING_MAX 8 /* seats a game may rate at once (TB_MAX_SEATS or fewer) */

#define SRV_RATING_MU0 25.0              /* a new player's mean */
#define SRV_RATING_SIGMA0 (25.0 / 3.0)   /* and its uncertainty */
#define SRV_RATING_BETA (25.0 / 6.0)     /* the spread of one game's performance */
#define SRV_RATING_TAU (25.0 / 300.0)    /* uncertainty added before each game */
#define SRV_RATING_KAPPA 0.0001          /* sigma^2 shrinks to no less than kappa times itself */

typedef struct srv_rating {
    double mu, sigma;
} srv_rating;

typedef struct srv_rating_params {
    double beta, tau, kappa;
} srv_rating_params;

/* The constants above. */
srv_rating_params srv_rating_defaults(void);

/* One game's update: n seats with their ratings `in` and ranks, `fixed`
 * (may be NULL: none) marking seats that keep their rating; `out` (may be
 * `in`) gets every seat's rating after the game.  0, or -1 on bad input. */
int srv_rating_update(const srv_rating_params *p, int n, const srv_rating *in, const int *rank,
                      const bool *fixed, srv_rating *out);

/* The number shown for a rating: mu - 3 sigma (conservative: a player is
 * at least this good with about 99.7% confidence), rounded by the caller. */
double srv_rating_shown(srv_rating r);

/* One seat of a rated game as the store reads it (both stores share this
 * step, so they rate alike). */
typedef struct srv_rated_seat {
    long long account; /* > 0: an account's seat; 0: a computer, or a former player */
    bool ai;
    char level[24];    /* a computer's level */
    int rank;          /* 1 = first (lobby.c: a resignation is last) */
    bool known;        /* the account has a rating for this game (else mu0, sigma0) */
    srv_rating before; /* the account's rating, when known */
    int games, wins;   /* the account's counts before the game */
    srv_rating after;  /* set by srv_rating_game */
} srv_rated_seat;

/* Rates a finished game of `game`: every account seat's `after` (and its
 * games + 1, wins + 1 when first, shared or not) from the ranks; a computer
 * plays at its level's fixed rating (an unrated level and a former player
 * at mu0, sigma0, also fixed).  0 done; 1 nothing to rate (no account seat,
 * or one account in two seats); -1 bad input. */
int srv_rating_game(const char *game, int n, srv_rated_seat *seat);

/* The computer levels' ratings (data/computer_ratings.txt, compiled in):
 * 0 and *out filled for a known game and level ("easy", "normal", "hard"),
 * -1 otherwise.  games: the matches' games the fit read. */
int srv_rating_computer(const char *game, const char *level, srv_rating *out);

typedef struct srv_computer_rating {
    const char *game, *level;
    double mu, sigma;
    int games;
} srv_computer_rating;

/* The compiled table (generated from data/computer_ratings.txt). */
extern const srv_computer_rating srv_computer_ratings[];
extern const int srv_computer_ratings_count;

#endif
