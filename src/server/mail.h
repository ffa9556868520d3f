/*
 * mail.h — e-mail beside the rooms (like the AI workers and the reviews): an
 * account's address and its confirmation link, the "it is your turn" e-mails
 * of slow games with their one-click unsubscribe link, and the one thread
 * that talks to the SMTP relay (`tabula serve --smtp URL`, libcurl).
 *
 * It knows the store (below) and the basics (base.h), never the rooms: the
 * rooms' sweeper (lobby.c) hands it a turn that waits on a person who has not
 * had the game open for --turn-email-after seconds, and the HTTP layer hands
 * it the account a request's session belongs to.
 *
 * Invariants:
 *   - nothing here blocks a room or a request on the network: turns and
 *     confirmations are queued, and only the mail thread speaks SMTP;
 *   - one e-mail per game, turn and account, even with several servers on
 *     one database: the turn_emails row is inserted before the e-mail is
 *     sent, and only the server whose insert made the row sends it;
 *   - turn e-mails go only to confirmed addresses of accounts that did not
 *     unsubscribe; links are stored only as hashes; a confirmation link
 *     expires (SRV_MAIL_CONFIRM_HOURS) and works once;
 *   - a relay that fails is logged once (and once when it works again); the
 *     e-mail is tried again later, and play goes on meanwhile.  E-mails still
 *     queued when the server stops are not sent (the log says how many).
 */
#ifndef TB_SERVER_MAIL_H
#define TB_SERVER_MAIL_H

#include "base.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV_MAIL_AFTER_DEFAULT 600  /* --turn-email-after: seconds */
#define SRV_MAIL_CONFIRM_HOURS 48   /* a confirmation link works this long */
#define SRV_MAIL_QUEUE 10000        /* e-mails waiting at most; more are dropped (logged) */

typedef struct srv_mailer srv_mailer;

/* A turn that waits on a person (lobby.c's sweeper fills it in). */
typedef struct srv_mail_turn {
    char id[SRV_ID_LEN + 1]; /* the game */
    int n;                   /* decisions made when the turn began */
    int64_t account;         /* whose turn it is */
    char title[48];          /* the game's title: "Clans" */
    int opponents;
    char opponent[TB_MAX_SEATS][SRV_NAME_LEN];
} srv_mail_turn;

/* Starts the mail thread over an open store (the caller's); never fails for
 * want of a relay: without --smtp nothing is ever sent. */
srv_mailer *srv_mailer_start(const srv_config *cfg, srv_store *store, char *err, size_t errlen);
/* Where the links in e-mails point when --public-url was not given. */
void srv_mailer_set_port(srv_mailer *m, int port);
/* Whether e-mail is sent at all (--smtp given). */
bool srv_mailer_sending(const srv_mailer *m);
/* Seconds a turn waits on a game nobody of that seat has open; 0: never. */
int srv_mailer_after(const srv_mailer *m);
/* Changes whenever an account's e-mail state changes here (an address
 * confirmed, an unsubscribe): a turn found not worth an e-mail before is
 * worth asking about again. */
unsigned srv_mailer_generation(const srv_mailer *m);
/* Queues the e-mail of a waiting turn (never blocks): it is sent unless the
 * account has no confirmed address, unsubscribed, or was sent it already. */
void srv_mailer_turn(srv_mailer *m, const srv_mail_turn *turn);
/* Ends a send under way, joins the thread and drops what is still queued. */
void srv_mailer_stop(srv_mailer *m);
void srv_mailer_free(srv_mailer *m); /* stops it first; NULL is fine */

/* ---- the HTTP side: each returns the HTTP status and sets *reply ---- */
/* GET /api/me/email: {"email", "confirmed", "pending", "turn_emails", "sending"}. */
int srv_mail_get(srv_mailer *m, int64_t account, char **reply);
/* PUT /api/me/email {"email"?, "turn_emails"?}: a new address gets a
 * confirmation link by e-mail ("" removes the address); answers as GET. */
int srv_mail_put(srv_mailer *m, int64_t account, const char *body, size_t len, char **reply);
/* GET /email/confirm?token=… and POST /email/unsubscribe?token=…: a small
 * HTML page in players' words (*reply: the page), in the account's
 * language, else in `lang` (the link's &lang=).  GET /email/unsubscribe
 * (srv_mail_unsubscribe_ask) changes nothing: its page's button posts the
 * link, so a program that only opens links (a mail scanner) unsubscribes
 * nobody; mail programs' one-click unsubscribe is that POST. */
int srv_mail_confirm_page(srv_mailer *m, const char *token, const char *lang, char **reply);
int srv_mail_unsubscribe_page(srv_mailer *m, const char *token, const char *lang,
                              char **reply);
int srv_mail_unsubscribe_ask(srv_mailer *m, const char *token, const char *lang, char **reply);

#endif
