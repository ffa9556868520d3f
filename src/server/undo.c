/*
 * undo.c — the server's rule for taking decisions back (docs/server.md,
 * "Undo and take back").
 *
 * Undo: the seat to move takes back its own last decision, one at a time,
 * back to the start of its turn (its unbroken run of decisions), unless
 *   - another seat has decided since (its decision stands for it),
 *   - the decision settled chance (tb_settles_chance: a card drawn or
 *     turned up, a shuffle): its outcome is known now, or
 *   - the decision showed the mover something it could not see before
 *     (its own bit in tb_reveals).
 * What the decision showed the others of the mover's own secrets (a card
 * paid from the hand, a card laid out, what the flow implies of the hand)
 * does not count: taking it back gives the mover nothing it did not know.
 * The rule is the server's, so every client gets the same answer, with the
 * true reason in players' words when it says no.
 *
 * Take back (games against the computer only: every other seat is a
 * computer): back to the start of the seat's latest turn, the computer's
 * replies undone with it, even when they settled chance or showed the
 * person something (the record's note says so, "revealed").  The note
 * goes into the record's "takebacks" (docs/records.md).
 *
 * Invariants: called with the room locked; nothing here changes the game:
 * the room sends the removal through the store writer (commit.c) and only
 * rewinds once it is stored.  What a log entry showed and settled is
 * cached in it (room_log_push clears it when the entry is reused); both
 * answers depend only on the position and the decision, so a restarted
 * server works out the same.
 */
#include "roomsInt.h"
#include "core/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srv_undo_note(srv_room *r, int k, const tb_state *before, tb_move move)
{
    if (!r->log || k < 0 || k >= r->log_cap)
        return;
    srv_log_entry *e = &r->log[k];
    long seats = tb_reveals(before, move);
    int chance = seats >= 0 ? tb_settles_chance(before, move) : -1;
    e->reveals = seats;
    e->chance = chance == 1;
    e->reveals_known = seats >= 0 && chance >= 0;
}

/* Log entry k (0-based) with what decision k showed and settled worked out
 * (from the record when not known yet); NULL when it cannot be. */
static const srv_log_entry *undo_entry(srv_room *r, int k)
{
    if (!r->log || k < 0 || k >= r->log_cap || k >= tb_record_length(r->record))
        return NULL;
    srv_log_entry *e = &r->log[k];
    if (e->reveals_known)
        return e;
    char why[TB_ERR_LEN];
    tb_state *before = tb_record_replay(r->record, k, why, sizeof why);
    tb_move m;
    if (before &&
        tb_text_to_move(before, tb_record_move(r->record, k), &m, why, sizeof why) == 0)
        srv_undo_note(r, k, before, m);
    tb_state_free(before);
    return e->reveals_known ? e : NULL;
}

/* A seat's name for the refusals: the player's, else "seat N" (a message). */
static json_t *undo_name(const srv_room *r, int seat)
{
    if (seat >= 0 && seat < r->players && r->seat[seat].name[0])
        return json_string(r->seat[seat].name);
    return tb__msg(N_("seat {n}"), "n:d", seat + 1);
}

/* A refusal: `m` (a message, its reference taken) in English into why, and
 * the message itself into *msg when msg is not NULL (the error's "msg",
 * each reader's language).  When memory runs out why says so. */
static void undo_say(json_t *m, char *why, size_t whylen, json_t **msg)
{
    char *text = m ? tb__msg_text(m, NULL, NULL) : NULL;
    snprintf(why, whylen, "%s", text ? text : "the server is out of memory; try again");
    free(text);
    if (msg && text)
        *msg = m;
    else
        json_decref(m);
}

/* What both kinds share: the seat is to move and there is a log. */
static int undo_common(srv_room *r, int seat, const char **code, char *why, size_t whylen,
                       json_t **msg)
{
    int to = tb_to_move(r->state);
    if (to != seat) {
        *code = "not_your_turn";
        undo_say(tb__msg(N_("you can take back only on your own turn; it is {who}'s turn now"),
                         "who:m", undo_name(r, to)),
                 why, whylen, msg);
        return -1;
    }
    int n = tb_decisions_made(r->state);
    if (n == 0 || !r->log || n > r->log_cap || n != tb_record_length(r->record)) {
        *code = "nothing_to_undo";
        undo_say(tb__msg_word(N_("there is nothing to take back yet")), why, whylen, msg);
        return -1;
    }
    return 0;
}

int srv_undo_check(srv_room *r, int seat, int *keep, const char **code, char *why, size_t whylen,
                   json_t **msg)
{
    if (undo_common(r, seat, code, why, whylen, msg))
        return -1;
    int n = tb_decisions_made(r->state);
    int last = r->log[n - 1].seat;
    *code = "undo_refused";
    if (last != seat) {
        undo_say(tb__msg(N_("{who} has played since, so your turn so far stands"), "who:m",
                         undo_name(r, last)),
                 why, whylen, msg);
        return -1;
    }
    const srv_log_entry *e = undo_entry(r, n - 1);
    if (!e) {
        undo_say(tb__msg_word(N_("the server could not check that decision; it stands")), why,
                 whylen, msg);
        return -1;
    }
    if (e->chance) {
        undo_say(tb__msg_word(N_("your last decision drew a card or turned one face up, so it stands")),
                 why, whylen, msg);
        return -1;
    }
    if (e->reveals & (1L << seat)) {
        undo_say(tb__msg_word(N_("your last decision showed you something you could not see before, so it stands")),
                 why, whylen, msg);
        return -1;
    }
    *keep = n - 1;
    return 0;
}

int srv_takeback_check(srv_room *r, int seat, int *keep, char **note, const char **code,
                       char *why, size_t whylen, json_t **msg)
{
    if (note)
        *note = NULL;
    for (int i = 0; i < r->players; i++)
        if (i != seat && r->seat[i].kind != SRV_AI) {
            *code = "takeback_refused";
            undo_say(tb__msg_word(N_("taking back a whole turn is only for games against the computer; use undo within your own turn")),
                     why, whylen, msg);
            return -1;
        }
    if (undo_common(r, seat, code, why, whylen, msg))
        return -1;
    int n = tb_decisions_made(r->state);
    int k = n - 1;
    while (k >= 0 && r->log[k].seat != seat) /* the computer's replies */
        k--;
    if (k < 0) {
        *code = "nothing_to_undo";
        undo_say(tb__msg_word(N_("you have not played yet, so there is nothing to take back")), why,
                 whylen, msg);
        return -1;
    }
    while (k >= 0 && r->log[k].seat == seat) /* the seat's own turn */
        k--;
    *keep = k + 1;
    if (!note)
        return 0;
    /* The note: what was taken back, and whether any of it had settled
     * chance or shown the person something hidden (they may have seen it,
     * and play on knowing it): the undo rule's two reasons. */
    bool revealed = false;
    json_t *moves = json_array(), *seats = json_array();
    bool built = moves && seats; /* jansson's appends fail quietly: each is checked */
    for (int i = *keep; i < n; i++) {
        const srv_log_entry *e = undo_entry(r, i); /* unknown counts as shown */
        revealed = revealed || !e || e->chance || (e->reveals & (1L << seat));
        const char *text = tb_record_move(r->record, i);
        built = built && json_array_append_new(moves, json_string(text)) == 0 &&
                json_array_append_new(seats, json_integer(r->log[i].seat)) == 0;
    }
    char at[SRV_TIME_LEN];
    srv_iso_now(at);
    json_t *j = NULL;
    if (built) {
        j = json_pack("{s:i,s:i,s:o,s:o,s:b,s:s}", "seat", seat, "after", *keep, "moves", moves,
                      "seats", seats, "revealed", revealed, "at", at);
    } else {
        json_decref(moves);
        json_decref(seats);
    }
    *note = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!*note) {
        *code = "internal";
        undo_say(tb__msg_word(N_("the server is out of memory, so nothing changed; try again")), why,
                 whylen, msg);
        return -1;
    }
    return 0;
}
